"""The club's running by moderators (R8.2): who else may rule (``!mod add``, ``remove``,
``list``), whom the bot ignores (``!mod ignore``, ``unignore``), and each channel's turn
time limit (``!mod timelimit``) and ``!odds`` audience (``!mod odds``).

The config file stays the root: only its moderators add or remove others, and none of
them can be removed in chat. Moderators added in chat are ledger rows
(:meth:`storage.store.Store.set_moderator`); the ignore list and channel settings are
settings kept with who changed them and why, each change a ``setting-changed`` ledger
row too. A moderator logged in by password is recorded by the name they logged in as
(``Ctx.moderator``). All take effect at once, in every process on the club's database
from its next command (``Referee.refresh``).
"""

from __future__ import annotations

import re

from bot.commands.registry import (
    Ctx,
    Precondition,
    Refusal,
    at_least,
    channel_only,
    moderator_only,
    one_of,
    sub,
)
from bot.config import NETWORK
from bot.masks import is_mask, unverified_masks

__all__ = ["MAX_MINUTES", "config_moderator_only"]

MAX_MINUTES = 1440
_MINUTES = re.compile(r"\d{1,4}(\.\d)?")


def _config_moderator(ctx: Ctx) -> str | None:
    return None if ctx.services.identity.file_moderator(ctx.msg.sender) is not None else \
        "only a moderator in the config file adds or removes moderators"


config_moderator_only = Precondition("config-file moderator only", _config_moderator)
"""Only the config file's moderators add or remove others."""


def _named(ctx: Ctx, name: str, names: list[str]) -> str | None:
    """The entry of ``names`` that is ``name`` by the network's casemapping."""
    fold = ctx.services.identity.fold
    return next((n for n in names if fold(n) == fold(name)), None)


@sub("add", "!mod add <account|nick!user@host> <reason>",
     "(config-file moderators) make another moderator", fits=at_least(2))
@moderator_only
@config_moderator_only
def _add(ctx: Ctx, args: list[str]) -> None:
    services = ctx.services
    name, reason = services.identity.club_name(args[0]), " ".join(args[1:])
    if any(c in name for c in "*?") or ("@" in name) != ("!" in name):
        raise Refusal("a moderator is a services account or an exact nick!user@host mask")
    if is_mask(name) and not services.identity.masks_count:
        raise Refusal(f"{name}: a mask counts only where the network verifies idents "
                      "(irc.verified_idents in the config); add a services account, or a "
                      "password moderator in the config")
    if unverified_masks([name]):
        raise Refusal(f"{name}: a '~' before the user is unverified, anyone on that host "
                      "can take it; add a services account or a verified mask")
    if _named(ctx, name, [*services.config.moderators, *services.settings.chat_moderators]):
        raise Refusal(f"{name} is a moderator already; !mod list names them")
    services.settings.set_moderator(name, True, ctx.moderator, reason)
    ctx.reply(f"{name} is a moderator now (!mod remove {name} <reason> takes it back)")


@sub("remove", "!mod remove <account|mask> <reason>",
     "(config-file moderators) take back !mod add", fits=at_least(2))
@moderator_only
@config_moderator_only
def _remove(ctx: Ctx, args: list[str]) -> None:
    services = ctx.services
    name, reason = services.identity.club_name(args[0]), " ".join(args[1:])
    if _named(ctx, name, services.config.moderators):
        raise Refusal(f"{name} is in the config file: remove them there and restart me")
    added = _named(ctx, name, services.settings.chat_moderators)
    if added is None:
        raise Refusal(f"{name} is not a moderator added in chat; !mod list names them")
    services.settings.set_moderator(added, False, ctx.moderator, reason)
    ctx.reply(f"{added} is no longer a moderator")


def _shown(names: list[str], private: bool) -> str:
    """Accounts by name; masks too in private, else only how many (no user@host shown
    in a channel)."""
    masks = [n for n in names if "!" in n or "@" in n]
    shown = [n for n in names if private or n not in masks]
    if masks and not private:
        shown.append(f"{len(masks)} by host mask")
    return ", ".join(shown) or "none"


@sub("list", "!mod list",
     "the moderators, and how many are ignored (masks shown in private)",
     fits=lambda args: not args)
@moderator_only
def _list(ctx: Ctx, _args: list[str]) -> None:
    services, private = ctx.services, ctx.msg.channel is None
    ignored = services.settings.ignore_list()
    ignores = _shown(ignored, True) if private else str(len(ignored))
    chat = ("suspended while the ledger fails its check (!audit)"
            if services.settings.ledger_check.state == "failed"
            else _shown(services.settings.chat_moderators, private))
    ctx.reply(f"moderators in the config file: {_shown(services.config.moderators, private)}"
              f"; added in chat: {chat}; ignored: {ignores}")


@sub("ignore", "!mod ignore <account|mask> <reason>",
     "take no command from them and say nothing to them (* and ? in a mask; never a "
     "moderator)", fits=at_least(2))
@moderator_only
def _ignore(ctx: Ctx, args: list[str]) -> None:
    services = ctx.services
    entry, reason = services.identity.club_name(args[0]), " ".join(args[1:])
    if not re.sub(r"[*?!@.:]", "", entry) or re.fullmatch(f"(?:{NETWORK})?:[*?!@.]*", entry):
        raise Refusal(f"{entry} would ignore everyone; name an account or a narrower mask")
    if _named(ctx, entry, [*services.config.moderators, *services.settings.chat_moderators]):
        raise Refusal(f"{entry} is a moderator, and moderators are never ignored")
    ignored = services.settings.ignore_list()
    if _named(ctx, entry, ignored):
        raise Refusal(f"{entry} is ignored already; !mod unignore {entry} <reason> ends it")
    who = ctx.moderator
    services.settings.set_setting("ignored", [*ignored, entry], who,
                                  f"ignore {entry}: {reason}", who)
    ctx.reply(f"ignoring {entry}: I take no command from them and say nothing to them")


@sub("unignore", "!mod unignore <account|mask> <reason>", "take back !mod ignore",
     fits=at_least(2))
@moderator_only
def _unignore(ctx: Ctx, args: list[str]) -> None:
    services = ctx.services
    entry, reason = services.identity.club_name(args[0]), " ".join(args[1:])
    ignored = services.settings.ignore_list()
    found = _named(ctx, entry, ignored)
    if found is None:
        raise Refusal(f"{entry} is not ignored; !mod list says how many are")
    who = ctx.moderator
    services.settings.set_setting("ignored", [e for e in ignored if e != found], who,
                        f"unignore {found}: {reason}", who)
    ctx.reply(f"{found} is no longer ignored")


@sub("timelimit", "!mod timelimit <minutes>|default [reason]",
     "this channel's time to decide (R7.4), from the next decision", fits=at_least(1))
@moderator_only
@channel_only
def _timelimit(ctx: Ctx, args: list[str]) -> None:
    word, reason = args[0].lower(), " ".join(args[1:])
    channel = ctx.channel()
    if word == "default":
        minutes = None
    elif _MINUTES.fullmatch(word) and 1 <= float(word) <= MAX_MINUTES:
        minutes = float(word)
    else:
        raise Refusal(f"the time limit is in minutes, 1 to {MAX_MINUTES} (or default)")
    key = ctx.services.settings.channel_setting("timelimit", channel)
    ctx.services.settings.set_setting(key, minutes, ctx.moderator, reason, ctx.moderator)
    seconds = ctx.services.settings.turn_seconds(channel)
    ctx.reply(f"the time to decide in {channel} is now {seconds / 60:g} min"
              f"{' (the default)' if minutes is None else ''}, from the next decision")


@sub("odds", "!mod odds fighters|everyone [reason]", "who may ask !odds in this channel",
     fits=one_of("fighters", "everyone"))
@moderator_only
@channel_only
def _odds(ctx: Ctx, args: list[str]) -> None:
    channel = ctx.channel()
    settings = ctx.services.settings
    settings.set_setting(settings.channel_setting("odds", channel), args[0],
                         ctx.moderator, " ".join(args[1:]), ctx.moderator)
    ctx.reply(f"!odds in {channel} is now for "
              f"{'the fighters only' if args[0] == 'fighters' else 'everyone'}")
