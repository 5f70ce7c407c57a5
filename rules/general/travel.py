"""The travel tool (R10.5): distance per round, minute and hour for a walk, jog or run,
how long the pace holds, and what a journey costs in Strain.

Metres round down; miles are metres / 1609, shown to one decimal. At the end of each
duration the traveller loses one Strain, and pressing on at once costs another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from rules.errors import InvalidSheet

__all__ = ["METRES_PER_MILE", "Pace", "Travel", "travel"]

METRES_PER_MILE = 1609


class Pace(Enum):
    WALK = "walk"
    JOG = "jog"
    RUN = "run"


# (metres a round, metres a minute, miles an hour) per point of Move, and the duration
# the pace holds in minutes per point of Vitality
_TABLE: dict[Pace, tuple[Fraction, Fraction, Fraction, Fraction]] = {
    Pace.WALK: (Fraction(1, 4), Fraction(15, 2), Fraction(1, 3), Fraction(30)),
    Pace.JOG: (Fraction(1, 2), Fraction(15), Fraction(1, 2), Fraction(5)),
    Pace.RUN: (Fraction(1), Fraction(30), Fraction(1), Fraction(1)),
}


@dataclass(frozen=True, slots=True)
class Travel:
    pace: Pace
    metres_per_round: int
    metres_per_minute: int
    miles_per_hour: Fraction
    duration_minutes: int
    """How long the pace holds before a Strain is lost."""
    longest_minutes: int
    """Pressing on until 1 Strain is left: ``strain // 2`` durations."""
    minutes: int | None = None
    """The journey asked about, if any."""
    metres: int | None = None
    strain_left: int | None = None
    """Strain after the journey: one lost per duration, one spent per continuation."""


def travel(move: int, vitality: int, strain: int, pace: Pace,
           minutes: int | None = None) -> Travel:
    """What a pace gives for a Move, a Vitality and a Strain (R10.5)."""
    if not (1 <= move <= 100 and 1 <= vitality <= 100 and 0 <= strain <= 100):
        raise InvalidSheet("move and vit are 1..100, strain 0..100")
    if minutes is not None and not 1 <= minutes <= 100_000:
        raise InvalidSheet("the journey is 1..100000 minutes")
    per_round, per_minute, per_hour, holds = _TABLE[pace]
    # the table gives walking in whole hours (1/2 Vit, rounded down), the rest in minutes
    duration = 60 * (vitality // 2) if pace is Pace.WALK else math.floor(holds * vitality)
    report = Travel(
        pace, math.floor(per_round * move), math.floor(per_minute * move), per_hour * move,
        duration, duration * (strain // 2),
    )
    if minutes is None:
        return report
    stints = math.ceil(minutes / duration) if duration else 0
    cost = 2 * stints - 1 if stints else 0
    metres = math.floor(per_minute * move * minutes)
    return Travel(report.pace, report.metres_per_round, report.metres_per_minute,
                  report.miles_per_hour, report.duration_minutes, report.longest_minutes,
                  minutes, metres, strain - cost)
