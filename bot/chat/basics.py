"""``!help``: the commands' own help, read from the registry the commands were built
with (``!roll`` is :mod:`bot.fights.play`'s: a fighter's roll may be a fight roll)."""

from __future__ import annotations

from bot.commands.registry import Ctx, Example, command
from bot.refusals import Refusal

__all__ = ["help_"]


@command("help", "!help [command [sub-command]]", "The commands, or one command with an "
         "example.", reads_only=True,
         examples=(Example(("ann !help buy",), "!buy <warrior> <skill>"),))
def help_(ctx: Ctx) -> None:
    commands = ctx.services.commands
    if ctx.args:
        spec = commands.get(ctx.args[0].lower().lstrip("!/"))
        if spec is None:
            raise Refusal(f"no command {ctx.args[0]}; !help lists them")
        if len(ctx.args) > 1 and spec.subs:
            sub = dict(spec.subs).get(ctx.args[1].lower())
            if sub is None:
                raise Refusal(f"no !{spec.name} {ctx.args[1]}; !help {spec.name} lists them")
            ctx.reply(sub)
            return
        example = f" | Example: {spec.examples[0].lines[-1].split(' ', 1)[1]}" \
            if spec.examples else ""  # a long help line splits before the example
        ctx.reply(f"{spec.usage}: {spec.summary}{example}")
        return
    groups: dict[str, list[str]] = {}
    for key, spec in commands.items():
        if key == spec.name:
            groups.setdefault(spec.group, []).append(key)
    # the names without their "!": one line even for the longest nick a network allows
    ctx.reply(" | ".join(f"{group}: {' '.join(sorted(names))}"
                         for group, names in sorted(groups.items()))
              + " | !help <command> for one")
