"""``!mod``: the moderators' command (R8.1, R8.2), a group of sub-commands gathered from
the modules that hold their work and from the rules systems, in this order: logging in,
rulings on a fight, on warriors (each system's, then freeing a prisoner), on settings
(each system's, then a channel's rolls), and the club's running. Built with the
systems, when the command list is (:func:`commands`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.chat import club, moderators, warriors
from bot.commands.registry import Group, Spec, moderator_only, subs_of
from bot.fights import rulings
from bot.systems.plugin import Plugin

__all__ = ["commands", "group"]


def group(systems: Iterable[Plugin[Any, Any]]) -> Group:
    """``!mod``'s sub-commands with those of ``systems``. A missing or unknown
    sub-command is refused as a non-moderator's ``!mod`` is."""
    plugins = tuple(systems)
    free, rolls = subs_of(warriors)
    return Group("mod", (*subs_of(moderators), *subs_of(rulings),
                         *(s for p in plugins for s in p.subcommands), free,
                         *(s for p in plugins for s in p.setting_subcommands), rolls,
                         *subs_of(club)), preconditions=(moderator_only,))


def commands(systems: Iterable[Plugin[Any, Any]]) -> tuple[Spec, ...]:
    """``!mod`` with the sub-commands of ``systems``."""
    mod = group(systems)
    return (Spec("mod", "!mod <ruling> ...", "Moderators only; every change is kept with "
                 f"your reason. Rulings: {mod.names}; !help mod <ruling> for one.", mod.run,
                 group="moderators", subs=mod.help, writes=mod.writes),)

