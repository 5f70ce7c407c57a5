"""Endings turned into rewards (R7.2): BP awards, death and prisoners, as events; and
those events as the system-neutral effects storage writes (``ledger_effects``)."""

from __future__ import annotations

from collections.abc import Sequence

from rules.ancath.events import AwardReason, BPAwarded, Event, PrisonerTaken, WarriorSlain
from rules.ancath.state import Ending, Kind, Outcome
from rules.effects import BPChange, Capture, Death, Effect

__all__ = ["AWARDS", "ledger_effects", "rewards"]

AWARDS: dict[Kind, tuple[int, int]] = {
    Kind.PRACTICE: (2, 1),
    Kind.DUEL: (2, 1),
    Kind.MORTAL: (5, 5),
}
"""(winner, loser) BP in tenths for each fight kind (R7.2)."""
_DEED = 10
"""A foe slain or taken prisoner in a mortal fight (R7.2)."""


def rewards(kind: Kind, outcome: Outcome) -> tuple[Event, ...]:
    """The award rows, deaths and captures that an ending brings (R7.2, R4.6)."""
    win, lose = AWARDS[kind]
    if outcome.winner is None:
        return tuple(BPAwarded(side, lose, AwardReason.DRAW) for side in (0, 1))
    winner, loser = outcome.winner, 1 - outcome.winner
    if kind is not Kind.MORTAL:
        return (BPAwarded(winner, win, AwardReason.WIN), BPAwarded(loser, lose, AwardReason.LOSS))
    events: list[Event] = [
        BPAwarded(winner, win, AwardReason.MORTAL),
        BPAwarded(loser, lose, AwardReason.MORTAL),
    ]
    if outcome.ending is Ending.KILL:
        events += [BPAwarded(winner, _DEED, AwardReason.SLAIN), WarriorSlain(loser)]
    elif outcome.ending is Ending.YIELD and outcome.prisoner:
        events += [
            BPAwarded(winner, _DEED, AwardReason.CAPTURED),
            PrisonerTaken(loser, winner, outcome.ransom),
        ]
    return tuple(events)


def ledger_effects(events: Sequence[Event]) -> tuple[Effect, ...]:
    """R7.2's events as the effects storage writes, in order; every other event has
    none. An award's cap at 40.0 BP (R2.6) is ``sheet.bp_applied``'s."""
    effects: list[Effect] = []
    for event in events:
        if isinstance(event, BPAwarded):
            effects.append(BPChange(event.side, event.tenths, event.reason.value))
        elif isinstance(event, WarriorSlain):
            effects.append(Death(event.side, "slain in a mortal fight"))
        elif isinstance(event, PrisonerTaken):
            effects.append(Capture(event.side, event.captor, event.ransom))
    return tuple(effects)
