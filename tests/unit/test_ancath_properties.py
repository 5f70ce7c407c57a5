"""Property tests for the An Cath engine, driven by a random legal policy.

Hypothesis builds two warriors (any culture, legal starting skills plus any skills
bought later, armour the culture may choose, skill levels 1..maximum, BP 0..40.0) and a
fight kind, then plays the fight to its end: a decision is a uniform pick from
``legal_actions``, a roll is a d100. The first ``prefix`` picks and rolls come straight
from Hypothesis (so it can steer into boundary rolls, 1s and 100s, repeated choices);
the rest come from a ``random.Random`` whose seed Hypothesis draws, which keeps the dice
fair enough for every fight to end (property (e)). Sometimes the fight is cut short by
a Forfeit or a moderator's end, so those endings are covered too.

Properties, lettered as in the brief:

(a) a refused command raises a ``RulesError`` and changes nothing; nor does an
    accepted one change the state it was applied to (states are values);
(b) ``replay`` of the command list rebuilds an equal state and the same events;
(c) each fighter's ``defences`` never change once ``state.started`` (R3.5, R6.6);
(d) once ``state.outcome`` is set, every command raises ``FightOver``;
(e) a fight ends within ``MAX_TURNS`` turns and ``MAX_COMMANDS`` commands, and
    ``legal_actions`` is non-empty and fully accepted whenever the fight awaits a
    decision;

and the chances ``legal_actions`` lists are the chances the engine then rolls at.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from replaying import ancath_replay as replay  # the one replay, rules.replay
from transcript import fight, play, warrior

from rules.ancath import Option, apply, legal_actions, start
from rules.ancath.chances import loadout_problem
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    Forfeit,
    ModeratorEnd,
    RejectYield,
    Roll,
    Stop,
    Wield,
)
from rules.ancath.engine import EXPECTS
from rules.ancath.events import Event
from rules.ancath.sheet import Sheet
from rules.ancath.state import (
    Action,
    Awaiting,
    BonusUse,
    Defence,
    FightState,
    Kind,
    Loadout,
    Need,
    RollFor,
)
from rules.ancath.tables import CULTURES, Culture, Skill, Weapon, skill_maximum
from rules.errors import (
    FightOver,
    IllegalCommand,
    InvalidRoll,
    NotYourTurn,
    RulesError,
    Unavailable,
)

MAX_TURNS = 400
"""Bound (e): no fight driven by the random policy lasts more turns than this."""
MAX_COMMANDS = 3000
"""Bound (e): nor more accepted commands than this (rolls and choices together)."""
MAX_PREFIX = 200
"""At most this many picks and rolls come straight from Hypothesis, the rest are fair."""

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROBE_RATE = 0.5
"""(a): the share of a fight's states at which every refusable command is tried."""

SIDES = (0, 1)
LOADOUTS = tuple(
    Loadout(weapon, shield, two_handed)
    for weapon in Weapon
    for shield in (False, True)
    for two_handed in (False, True)
)


# -- warriors -----------------------------------------------------------------------


def _by_value(items: frozenset[Skill]) -> list[Skill]:
    return sorted(items, key=lambda s: s.value)


@st.composite
def sheets(draw: st.DrawFn, name: str, bp: int | None = None) -> Sheet:
    """A legal warrior: starting picks (R2.1), maybe skills bought since (R2.8), armour
    the culture may choose, each skill 1..its maximum (R2.3), BP 0..40.0 (R2.6)."""
    culture = draw(st.sampled_from(list(Culture)))
    spec = CULTURES[culture]
    chosen: set[Skill] = set()
    for count, group in spec.picks:
        picks = st.lists(st.sampled_from(_by_value(group)), min_size=count, max_size=count,
                         unique=True)
        chosen |= set(draw(picks))
    others = _by_value(spec.open_skills - spec.always - chosen)
    bought = draw(st.sets(st.sampled_from(others))) if others else set()
    armour = draw(st.sampled_from(sorted(spec.armour, key=lambda a: a.value)))
    held = _by_value(frozenset(spec.always | chosen | bought))
    levels = {s.value: draw(st.integers(1, skill_maximum(culture, s))) for s in held}
    total = draw(st.integers(0, 400)) if bp is None else bp
    return warrior(name, culture.value, *(s.value for s in chosen), armour=armour.value,
                   bp=total, **levels)


@st.composite
def matchups(draw: st.DrawFn) -> tuple[Kind, tuple[Sheet, Sheet]]:
    kind = draw(st.sampled_from(list(Kind)))
    challenger = draw(sheets("Alpha"))
    same_bp = draw(st.booleans())  # equal BP: initiative is rolled (R3.6)
    defender = draw(sheets("Beta", challenger.bp if same_bp else None))
    return kind, (challenger, defender)


# -- the random legal policy -------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    before: FightState
    command: Command
    option: Option | None
    """The ``legal_actions`` entry the command came from, if it came from one."""
    after: FightState
    events: tuple[Event, ...]


@dataclass
class Fight:
    kind: Kind
    sheets: tuple[Sheet, Sheet]
    state: FightState
    events: list[Event]
    steps: list[Step] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    @property
    def commands(self) -> list[Command]:
        return [s.command for s in self.steps]

    def states(self) -> Iterator[FightState]:
        yield self.steps[0].before if self.steps else self.state
        for step in self.steps:
            yield step.after

    def decisions(self) -> Iterator[Step]:
        return (s for s in self.steps if s.option is not None)


class Chooser:
    """Picks and rolls: the first ``prefix`` from Hypothesis, then from a seeded PRNG."""

    def __init__(self, data: st.DataObject) -> None:
        self.steered = data.draw(st.randoms(use_true_random=False), label="steered")
        self.left = data.draw(st.integers(0, MAX_PREFIX), label="prefix")
        self.fair = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
        self.bloody = data.draw(st.booleans(), label="bloody")
        """A bloody policy mostly passes over Yield, Flee and accepting a yield, so
        fights run longer and reach the deeper injuries (disables, weapon draws)."""

    def _source(self) -> random.Random:
        if self.left > 0:
            self.left -= 1
            return self.steered
        return self.fair

    def roll(self) -> int:
        return self._source().randint(1, 100)

    def pick(self, options: tuple[Option, ...]) -> Option:
        if self.bloody and self.coin(0.9):
            hard = tuple(o for o in options if not _soft(o.command))
            options = hard or options
        return self._source().choice(options)

    def coin(self, p: float) -> bool:
        return self._source().random() < p


def _soft(command: Command) -> bool:
    if isinstance(command, Act):
        return command.action in (Action.YIELD, Action.FLEE)
    return isinstance(command, AcceptYield)


def _cut(data: st.DataObject, state: FightState) -> Command:
    """A Forfeit by the awaited side or a moderator's end (R7.4, R8.1)."""
    assert state.awaiting is not None
    return data.draw(st.sampled_from([
        Forfeit(state.awaiting.side), ModeratorEnd(None, "draw"), ModeratorEnd(0, "test"),
        ModeratorEnd(1, "test"),
    ]), label="cut")


def drive(data: st.DataObject) -> Fight:
    """Play one generated fight to its end with the random legal policy."""
    kind, pair = data.draw(matchups(), label="matchup")
    state, first = start(kind, *pair)
    game = Fight(kind, pair, state, list(first))
    chooser = Chooser(data)
    game.rng = random.Random(chooser.fair.random())  # for the tests' own sampling
    cut_at = data.draw(st.none() | st.integers(0, 40), label="cut_at")
    for side in data.draw(st.lists(st.sampled_from(SIDES), max_size=3), label="wields"):
        sheet = pair[side]
        legal = [lo for lo in LOADOUTS if loadout_problem(sheet, lo) is None]
        lo = data.draw(st.sampled_from(legal), label="loadout")
        _step(game, Wield(side, lo.weapon, lo.shield, lo.two_handed), None)
    try:
        while game.state.outcome is None:
            state = game.state
            assert state.turn <= MAX_TURNS, f"fight still going after {MAX_TURNS} turns"
            assert len(game.steps) < MAX_COMMANDS, f"fight still going after {MAX_COMMANDS}"
            awaiting = state.awaiting
            assert awaiting is not None
            if cut_at is not None and len(game.steps) >= cut_at:
                _step(game, _cut(data, state), None)
                continue
            options = legal_actions(state)
            if awaiting.need is Need.ROLL:
                if options and chooser.coin(0.1):  # a Test bonus declared before the roll
                    option = chooser.pick(options)
                    _step(game, option.command, option)
                else:
                    _step(game, Roll(awaiting.side, chooser.roll()), None)
                continue
            assert options, f"nothing legal while awaiting {awaiting}"
            option = chooser.pick(options)
            _step(game, option.command, option)
    except BaseException:
        note(_repro(game))
        raise
    return game


def _step(game: Fight, command: Command, option: Option | None) -> None:
    after, events = apply(game.state, command)
    game.steps.append(Step(game.state, command, option, after, events))
    game.events.extend(events)
    game.state = after


def _repro(game: Fight) -> str:
    return (f"kind={game.kind!r}\nsheets={game.sheets!r}\n"
            f"commands={game.commands!r}\nlast state={game.state!r}")


# -- what must be refused -----------------------------------------------------------------


def _candidates(state: FightState) -> list[Command]:
    """Commands of every type, for both sides (and a few bad sides and rolls)."""
    out: list[Command] = []
    for side in SIDES:
        out += [Act(side, a) for a in Action]
        out += [Defend(side, d) for d in Defence]
        out += [ChooseOrder(side, True), ChooseOrder(side, False)]
        out += [AcceptYield(side, p, r) for p in (None, True, False) for r in (None, "gold")]
        out += [RejectYield(side), Stop(side), Forfeit(side)]
        out += [DeclareBonus(side, u) for u in BonusUse]
        out += [Roll(side, v) for v in (-1, 0, 1, 50, 100, 101, 1000)]
        out += [Wield(side, lo.weapon, lo.shield, lo.two_handed) for lo in LOADOUTS]
    out += [Act(2, Action.ATTACK), Roll(-1, 50), Forfeit(2), ModeratorEnd(2, "bad winner")]
    return out


def _may_be_accepted(state: FightState, command: Command, listed: set[Command]) -> bool:
    """Whether the rules allow ``command`` now (a superset of ``legal_actions``)."""
    awaiting = state.awaiting
    assert awaiting is not None
    if command in listed:
        return True
    if isinstance(command, Roll):
        return (awaiting.need is Need.ROLL and command.side == awaiting.side
                and 1 <= command.value <= 100)
    if isinstance(command, Wield):
        loadout = Loadout(command.weapon, command.shield, command.two_handed)
        return (not state.started and command.side in SIDES
                and loadout_problem(state.fighters[command.side].sheet, loadout) is None)
    if isinstance(command, Forfeit):
        return command.side == awaiting.side
    if isinstance(command, ModeratorEnd):
        return command.winner in (None, 0, 1)
    if isinstance(command, AcceptYield):
        # legal_actions lists one spelling of each answer; others mean the same thing
        answers = any(isinstance(c, AcceptYield) and c.side == command.side for c in listed)
        prisoner = state.kind is Kind.MORTAL and command.prisoner is not False
        return answers and (state.kind is Kind.MORTAL or not command.prisoner) and (
            not command.ransom or prisoner)
    return False


def _refused_unchanged(state: FightState, command: Command, before: FightState) -> RulesError:
    """Apply a command that must be refused; ``before`` is a deep copy of ``state``."""
    with pytest.raises(RulesError) as caught:
        apply(state, command)
    assert state == before, f"{command!r} was refused but changed the state"
    return caught.value


def _expected_error(state: FightState, command: Command) -> type[RulesError]:
    """The error a refused ``command`` raises, in the order ``apply`` checks."""
    awaiting = state.awaiting
    assert awaiting is not None
    if isinstance(command, ModeratorEnd) or command.side not in SIDES:
        return IllegalCommand
    if isinstance(command, (Wield, DeclareBonus)):  # either side, at any time
        return Unavailable
    if command.side != awaiting.side:
        return NotYourTurn
    if not isinstance(command, EXPECTS[awaiting.need]):
        return IllegalCommand
    return InvalidRoll if isinstance(command, Roll) else Unavailable


# -- (a) refusals change nothing -------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_refused_commands_change_nothing(data: st.DataObject) -> None:
    """Every command the rules refuse raises a RulesError and leaves the state as it was.

    At random moments of the fight, every command of every type for both sides (and bad
    sides, rolls 0/101/-1/1000, Wield after the first action...) that is neither listed
    by ``legal_actions`` nor otherwise allowed (a roll asked for, a Wield before the
    first action, a Forfeit by the awaited side, a moderator's end) is tried.
    """
    game = drive(data)
    probed = 0
    for step in game.steps:
        state = step.before
        if game.rng.random() >= PROBE_RATE:
            continue
        probed += 1
        listed = {o.command for o in legal_actions(state)}
        before = copy.deepcopy(state)
        for command in _candidates(state):
            if _may_be_accepted(state, command, listed):
                continue
            error = _refused_unchanged(state, command, before)
            assert type(error) is _expected_error(state, command), (command, error)


@SETTINGS
@given(st.data())
def test_accepted_commands_do_not_change_their_input(data: st.DataObject) -> None:
    """States are values: applying a command (accepted) leaves the old state as it was."""
    kind, pair = data.draw(matchups(), label="matchup")
    state, _ = start(kind, *pair)
    chooser = Chooser(data)
    while state.outcome is None and state.turn <= MAX_TURNS:
        assert state.awaiting is not None
        if state.awaiting.need is Need.ROLL:
            command: Command = Roll(state.awaiting.side, chooser.roll())
        else:
            command = chooser.pick(legal_actions(state)).command
        before = copy.deepcopy(state)
        after, _ = apply(state, command)
        assert state == before, f"{command!r} changed the state it was applied to"
        state = after


# -- (b) replay ------------------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_replay_rebuilds_the_fight(data: st.DataObject) -> None:
    game = drive(data)
    state, events = replay(game.kind, game.sheets, game.commands)
    assert state == game.state
    assert list(events) == game.events
    # and from any point in the middle
    cut = game.rng.randrange(len(game.steps) + 1)
    state, events = replay(game.kind, game.sheets, game.commands[:cut])
    assert state == (game.steps[cut - 1].after if cut else game.steps[0].before)
    assert list(events) == game.events[:len(events)]
    assert len(events) == len(game.events) - sum(len(s.events) for s in game.steps[cut:])


# -- (c) defences are fixed ------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_defences_never_change_once_started(data: st.DataObject) -> None:
    """R3.5, R6.6: Dodge, Block and Parry keep their values, whatever the injuries."""
    game = drive(data)
    fixed = None
    for state in game.states():
        if not state.started:
            assert fixed is None, "started went back to False"
            continue
        defences = tuple(f.defences for f in state.fighters)
        if fixed is None:
            fixed = defences
        assert defences == fixed


# -- (d) a finished fight takes nothing ------------------------------------------------------


@SETTINGS
@given(st.data())
def test_finished_fight_refuses_everything(data: st.DataObject) -> None:
    game = drive(data)
    state = game.state
    assert state.outcome is not None and state.awaiting is None
    assert legal_actions(state) == ()
    before = copy.deepcopy(state)
    for command in [*_candidates(state), ModeratorEnd(None, "late"),
                    ModeratorEnd(0, "late"), ModeratorEnd(1, "late")]:
        error = _refused_unchanged(state, command, before)
        assert isinstance(error, FightOver), (command, error)


# -- (e) fights end; legal_actions is usable ---------------------------------------------------


@SETTINGS
@given(st.data())
def test_fights_end_and_every_listed_option_is_accepted(data: st.DataObject) -> None:
    """Bound: every fight ends within MAX_TURNS (400) turns and MAX_COMMANDS (3000)
    commands (``drive`` asserts it at every step). Whenever the fight awaits a decision,
    ``legal_actions`` is non-empty, and every option it lists is accepted by ``apply``.
    """
    game = drive(data)
    assert game.state.outcome is not None
    assert game.state.turn <= MAX_TURNS and len(game.steps) <= MAX_COMMANDS
    for state in game.states():
        if state.awaiting is None:
            continue
        options = legal_actions(state)
        if state.awaiting.need is not Need.ROLL:
            assert options, f"nothing legal while awaiting {state.awaiting}"
        for option in options:
            apply(state, option.command)  # raises if refused


# -- chances -------------------------------------------------------------------------------


def _asked_chance(step: Step) -> Awaiting | None:
    awaiting = step.after.awaiting
    return awaiting if awaiting is not None and awaiting.need is Need.ROLL else None


@SETTINGS
@given(st.data())
def test_listed_attack_chance_is_the_chance_rolled(data: st.DataObject) -> None:
    """An ``Act`` of ATTACK listed with chance c is rolled at exactly c."""
    game = drive(data)
    for step in game.decisions():
        assert step.option is not None
        command = step.command
        if not (isinstance(command, Act) and command.action is Action.ATTACK):
            continue
        expected = Awaiting(command.side, Need.ROLL, RollFor.ATTACK, step.option.chances[0])
        assert step.after.awaiting == expected


@SETTINGS
@given(st.data())
def test_every_listed_chance_is_the_chance_rolled(data: st.DataObject) -> None:
    """The same for every option with a roll: Double (both rolls), Press, Test, Close,
    Open, Stop and each Defend, a flight's last-turn strikes included."""
    game = drive(data)
    steps = game.steps
    for index, step in enumerate(steps):
        option = step.option
        if option is None or not option.chances or isinstance(step.command, DeclareBonus):
            continue
        asked = _asked_chance(step)
        assert asked is not None, f"{step.command!r} asked for no roll"
        assert asked.chance == option.chances[0], (step.command, option, asked)
        following = steps[index + 1] if index + 1 < len(steps) else None
        if len(option.chances) > 1 and following and isinstance(following.command, Roll):
            second = _asked_chance(following)
            assert second is not None and second.roll_for is RollFor.ATTACK
            assert second.chance == option.chances[1], (step.command, option, second)


# -- regressions --------------------------------------------------------------------------------


def test_flee_answer_lists_the_attack_bonus() -> None:
    """R4.8: the last turn is the answerer's turn for bonuses, so an ``attack`` Test
    bonus earned in their previous turn counts (R4.5); the listed chance should show it.
    """
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield", bp=100)  # test 60
    gorbag = warrior("Gorbag", "goblin", "club", "spear")  # spear: length 3
    state, _ = play(fight("practice", olaf, gorbag), """
        Olaf: first
        Olaf: test           # turn 1
        Olaf rolls 10        # test 60: success
        Gorbag: dodge
        Gorbag rolls 90      # dodge 30 fails: Olaf earns 30
        Olaf: bonus attack   # for Olaf's next turn, turn 3
        Gorbag: flee         # turn 2
    """)
    assert state.awaiting == Awaiting(0, Need.FLEE_ANSWER)
    listed = {o.command: o.chances for o in legal_actions(state)}
    state, _ = apply(state, Act(0, Action.ATTACK))  # the last turn, turn 3
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 30 - 5 + 30)
    assert listed[Act(0, Action.ATTACK)] == (30 - 5 + 30,)  # listed: (25,)
