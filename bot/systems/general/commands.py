"""The General rules' command outside a fight: ``!travel``, the travel calculator
(``rules.general.travel``), declared by its plugin for :mod:`bot.app` to wire."""

from __future__ import annotations

from bot.commands.registry import Ctx, Example, Refusal, command
from rules.general.travel import METRES_PER_MILE, Pace, travel

__all__ = ["travel_"]


@command("travel", "!travel move=<n> vit=<n> strain=<n> walk|jog|run [minutes=<n>|hours=<n>]",
         "General rules: how far a pace goes a round, a minute and an hour, how long it "
         "holds, and what a journey costs in Strain.", group="general rules",
         reads_only=True, examples=(
             Example(("sam !travel move=12 vit=10 strain=10 run minutes=50",),
                     "50 min: 18000 m (11.2 miles), Strain 10 -> 1"),))
def travel_(ctx: Ctx) -> None:
    values = dict(w.lower().split("=", 1) for w in ctx.args if "=" in w)
    paces = [w.lower() for w in ctx.args if "=" not in w]
    keys = {"move", "vit", "strain"}
    usage = "usage: !travel move=<n> vit=<n> strain=<n> walk|jog|run [minutes=<n>|hours=<n>]"
    if not keys <= values.keys() or len(paces) != 1 or paces[0] not in {p.value for p in Pace}:
        raise Refusal(usage)
    if not all(v.isdecimal() for v in values.values()) or set(values) - keys - {"minutes",
                                                                                   "hours"}:
        raise Refusal(usage)
    minutes = int(values["minutes"]) if "minutes" in values else (
        int(values["hours"]) * 60 if "hours" in values else None)
    report = travel(int(values["move"]), int(values["vit"]), int(values["strain"]),
                    Pace(paces[0]), minutes)
    text = (f"{report.pace.value.capitalize()} at Move {values['move']}: "
            f"{report.metres_per_round} m a round, {report.metres_per_minute} m a minute, "
            f"{float(report.miles_per_hour):g} miles an hour; holds {report.duration_minutes} "
            f"min a Strain, {report.longest_minutes} min in all down to 1 Strain.")
    if report.metres is not None:
        miles = report.metres / METRES_PER_MILE
        text += (f" {report.minutes} min: {report.metres} m ({miles:.1f} miles), Strain "
                 f"{values['strain']} -> {report.strain_left}"
                 + (" (unconscious)" if (report.strain_left or 0) <= 0 else "") + ".")
    ctx.reply(text)
