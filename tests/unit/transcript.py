"""Write An Cath tests as duel transcripts.

    state, events = play(state, '''
        Olaf: first
        Olaf: attack
        Olaf rolls 23        # the attack hits
        Gorbag: dodge
        Gorbag rolls 80      # the dodge fails
        Olaf rolls 5         # damage: Kill
    ''')

A line is ``<Name>: <verb> [args]`` for a decision (read by the verb of An Cath's
plugin, as the chat reads ``!verb [args]``; ``forfeit`` for a claimed time limit),
``<Name> rolls <n>`` for a d100 roll, or ``mod: end <Name>|draw`` for a moderator.
``#`` starts a comment. Every line is applied through ``rules.ancath.apply``; a refused
line raises as the engine does.
"""

from __future__ import annotations

from bot.systems.ancath.plugin import AN_CATH
from rules.ancath import apply, start
from rules.ancath.commands import Command
from rules.ancath.events import Event
from rules.ancath.sheet import Sheet, create_warrior
from rules.ancath.state import FightState, Kind
from rules.ancath.tables import Armour, Culture, Skill

__all__ = ["command", "fight", "play", "warrior"]


def warrior(
    name: str,
    culture: str,
    *skills: str,
    armour: str | None = None,
    bp: int = 0,
    **levels: int,
) -> Sheet:
    """A sheet: ``warrior("Olaf", "free-clans", "broadsword", "shield", broadsword=60)``."""
    sheet, _ = create_warrior(
        name,
        Culture(culture),
        [Skill(s) for s in skills],
        Armour(armour) if armour else None,
        fairy_open=True,
    )
    skills_map = dict(sheet.skills)
    for skill, value in levels.items():
        skills_map[Skill(skill)] = value
    return Sheet(sheet.name, sheet.culture, sheet.armour, skills_map, bp=bp)


def fight(kind: str, challenger: Sheet, defender: Sheet) -> FightState:
    """A fresh fight; ``kind`` is practice, duel or mortal."""
    state, _ = start(Kind(kind), challenger, defender)
    return state


def command(state: FightState, line: str) -> Command:
    """Parse one transcript line against the fight's warrior names."""
    line = line.split("#", 1)[0].strip()
    sides = {f.name.casefold(): i for i, f in enumerate(state.fighters)}
    if line.startswith("mod:"):
        words = line[4:].split()
        assert words[0] == "end", line
        winner = None if words[1] == "draw" else sides[words[1].casefold()]
        return AN_CATH.end(winner, " ".join(words[2:]) or "test")
    if " rolls " in line:
        who, value = line.split(" rolls ")
        return AN_CATH.roll(sides[who.strip().casefold()], int(value))
    who, rest = line.split(":", 1)
    side = sides[who.strip().casefold()]
    verb, *args = rest.split()
    if verb == "forfeit":  # what !claim makes of the foe's time running out (R7.4)
        return AN_CATH.forfeit(side)
    return AN_CATH.verbs[verb].parse(side, args)


def play(state: FightState, script: str) -> tuple[FightState, list[Event]]:
    """Apply every line of a transcript; return the last state and all events."""
    events: list[Event] = []
    for raw in script.strip().splitlines():
        if not raw.split("#", 1)[0].strip():
            continue
        state, new = apply(state, command(state, raw))
        events.extend(new)
    return state, events
