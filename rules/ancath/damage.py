"""Damage (R6): severity by last digit, the downed striker's leg rule, and R6.4's
cumulative injuries applied in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.ancath.events import InjuryRule
from rules.ancath.state import Severity
from rules.ancath.tables import WEAPONS, Hit, Location, Weapon

__all__ = ["Harm", "choose_leg", "diverts", "injure", "severity"]

_ARMS = (Location.WEAPON_ARM, Location.OFF_ARM)
_LEGS = (Location.RIGHT_LEG, Location.LEFT_LEG)
_VITALS = (Location.HEAD, Location.TORSO)
_DIVERTED = frozenset({Hit.KILL, Hit.HEAD, Hit.TORSO})


@dataclass(frozen=True, slots=True)
class Harm:
    """What one hit did to a warrior's injuries (R6.4)."""

    injuries: Mapping[Location, Severity]
    location: Location
    severity: Severity
    rule: InjuryRule
    killed: bool

    @property
    def rank(self) -> int:
        """How much worse things got, for R6.3's choice of leg."""
        if self.killed:
            return 3
        if self.rule is InjuryRule.DISABLED_LEG:
            return 0
        return 2 if self.severity is Severity.DISABLED else 1


def severity(attack_roll: int, weapon: Weapon) -> Severity:
    """Disabling when the attack roll's last digit is at or below the rating (R1.2, R6.2)."""
    disabling = attack_roll % 10 <= WEAPONS[weapon].damage_rating
    return Severity.DISABLED if disabling else Severity.WOUND


def injure(
    injuries: Mapping[Location, Severity], location: Location, severity: Severity
) -> Harm:
    """Apply one hit by R6.4's steps, in order."""
    rule = InjuryRule.RECORDED
    if location in _ARMS and injuries.get(location) is Severity.DISABLED:
        location, rule = Location.TORSO, InjuryRule.ARM_TO_TORSO  # step 1
    if location in _LEGS and injuries.get(location) is Severity.DISABLED:
        return Harm(injuries, location, severity, InjuryRule.DISABLED_LEG, False)  # step 2
    if location in injuries:  # step 3: already wounded
        if location in _VITALS:
            return Harm(injuries, location, severity, InjuryRule.REWOUNDED, True)
        severity, rule = Severity.DISABLED, InjuryRule.REWOUNDED
    if location in _VITALS and severity is Severity.DISABLED:  # step 4
        return Harm(injuries, location, severity, rule, True)
    recorded = {**injuries, location: severity}  # step 5
    if len(recorded) >= 4:
        return Harm(recorded, location, severity, InjuryRule.FOUR_AREAS, True)
    return Harm(recorded, location, severity, rule, False)


def diverts(hit: Hit, damage_roll: int, striker_down: bool, target_down: bool) -> bool:
    """A downed striker's even Kill/Head/Torso roll strikes a leg instead (R6.3)."""
    return striker_down and not target_down and damage_roll % 2 == 0 and hit in _DIVERTED


def choose_leg(injuries: Mapping[Location, Severity], severity: Severity) -> Harm:
    """The leg that does the most harm: a kill, a new disable, a new wound; else right."""
    right, left = (injure(injuries, leg, severity) for leg in _LEGS)
    return left if left.rank > right.rank else right
