"""The three systems' rules by name, as the store's call sites still hand them to it: a
thin re-export, each defined in its own package (``rules/<system>/system.py``). The one
registry of systems is the bot's (``bot.systems.registry.SYSTEMS``), whose ``rules`` is
this very mapping; kept until the call sites hand the registry's."""

from __future__ import annotations

from rules.ancath.system import AN_CATH
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from rules.system import RuleSystem

__all__ = ["AN_CATH", "CONTEST", "GENERAL", "SYSTEMS"]

SYSTEMS: dict[str, RuleSystem] = {s.name: s for s in (AN_CATH, CONTEST, GENERAL)}
"""Every system by its name; a bare ``RuleSystem`` is any of them."""
