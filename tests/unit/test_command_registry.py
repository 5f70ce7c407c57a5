"""The command registry without a server or a database: preconditions run before the
handler in the order they are stacked, a group dispatches its sub-commands, and a
registry is built only from the modules it is given."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from bot.commands.registry import (
    Ctx,
    Group,
    Refusal,
    at_least,
    channel_only,
    collect,
    command,
    load,
    moderator_only,
    sub,
    subs_of,
)
from bot.messages import Incoming, Sender


def ctx(text: str, *, channel: str | None = "#arena", moderator: bool = False) -> Ctx:
    name, *args = text.removeprefix("!").split()
    services: Any = SimpleNamespace(
        identity=SimpleNamespace(is_moderator=lambda _sender: moderator))
    msg = Incoming(sender=Sender(nick="ann", account="ann"), text=text, channel=channel)
    return Ctx(services, msg, name, args)


def module(name: str, **functions: Any) -> ModuleType:
    made = ModuleType(name)
    for key, function in functions.items():
        function.__module__ = name
        setattr(made, key, function)
    return made


def refusal(run: Any, context: Ctx) -> str:
    with pytest.raises(Refusal) as refused:
        run(context)
    return str(refused.value)


def test_preconditions_run_before_the_handler_top_first() -> None:
    ran: list[str] = []

    @command("shout", "!shout", "Moderators shout in channels.")
    @moderator_only
    @channel_only
    def shout(c: Ctx) -> None:
        ran.append(c.name)

    (spec,) = collect(module("cmds_shout", shout=shout))
    assert [p.name for p in spec.preconditions] == ["moderator only", "channel only"]
    assert refusal(spec.run, ctx("!shout", channel=None)) == \
        "only moderators use !mod (by services account or host mask; without services: " \
        "/msg <bot> !mod login <password>)"
    assert refusal(spec.run, ctx("!shout", channel=None, moderator=True)) == \
        "!shout works in a channel, not in private"
    spec.run(ctx("!shout", moderator=True))
    assert ran == ["shout"]


def test_a_registry_holds_only_the_modules_it_loads() -> None:
    @command("one", "!one", "One.", aliases=("uno",))
    def one(_c: Ctx) -> None: ...

    @command("two", "!two", "Two.")
    def two(_c: Ctx) -> None: ...

    first, second = module("cmds_one", one=one), module("cmds_two", two=two)
    assert sorted(load([first])) == ["one", "uno"]
    assert sorted(load([first, second])) == ["one", "two", "uno"]
    with pytest.raises(ValueError, match="!one is registered twice"):
        load([first, first])


def test_a_group_dispatches_its_sub_commands_and_names_their_usage() -> None:
    said: list[tuple[str, list[str]]] = []

    @sub("open", "!gate open <reason>", "open the gate", fits=at_least(1))
    @moderator_only
    def open_(c: Ctx, args: list[str]) -> None:
        said.append(("open", args))

    @sub("peek", "!gate peek", "anyone looks", aliases=("look",))
    def peek(c: Ctx, args: list[str]) -> None:
        said.append(("peek", args))

    gate = Group("gate", subs_of(module("subs_gate", open_=open_, peek=peek)),
                 preconditions=(moderator_only,), word="way")
    assert gate.names == "open peek"
    assert gate.help == (("open", "!gate open <reason>: open the gate"),
                         ("peek", "!gate peek: anyone looks"))
    gate.run(ctx("!gate LOOK"))
    assert refusal(gate.run, ctx("!gate open now")).startswith("only moderators")
    assert refusal(gate.run, ctx("!gate open", moderator=True)) == \
        "usage: !gate open <reason>"
    gate.run(ctx("!gate open at dawn", moderator=True))
    assert said == [("peek", []), ("open", ["at", "dawn"])]
    assert refusal(gate.run, ctx("!gate")).startswith("only moderators")
    assert refusal(gate.run, ctx("!gate fly", moderator=True)) == \
        "usage: !gate <way> ...; ways: open peek; !help gate <way> for one"
