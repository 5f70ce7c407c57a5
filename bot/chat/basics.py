"""``!roll`` and ``!help``: dice for anyone, and the commands' own help, read from the
referee's registry."""

from __future__ import annotations

from bot.chat.messages import Priority
from bot.chat.registry import Ctx, Example, Refusal, command
from bot.dice import roll
from bot.fights import play

__all__ = ["help_", "roll_dice"]


@command("roll", "!roll <dice>  (also !rol d100 or /rol d100)",
         "Roll dice: NdM, d%, keep 4d6kh3, exploding 1d8!, + and -. In a manual-roll "
         "fight your /rol d100 is your roll.", aliases=("rol",), reads_only=True,
         examples=(Example(("ann !roll 4d6kh3",), "ann rolls 4d6kh3 = [6, 5, 3, (1)] = 14",
                                 dice=(6, 5, 3, 1)),))
def roll_dice(ctx: Ctx) -> None:
    if play.manual_roll(ctx):
        return
    result = roll(" ".join(ctx.args), ctx.referee.dice)
    ctx.say(f"{ctx.msg.sender.nick} rolls {result.describe()}", Priority.CHATTER)


@command("help", "!help [command [sub-command]]", "The commands, or one command with an "
         "example.", reads_only=True,
         examples=(Example(("ann !help buy",), "!buy <warrior> <skill>"),))
def help_(ctx: Ctx) -> None:
    commands = ctx.referee.commands
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
