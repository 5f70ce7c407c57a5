"""The transcript helper itself: a practice bout from first action to BP awards."""

from transcript import fight, play, warrior

from rules.ancath.events import AwardReason, BPAwarded
from rules.ancath.state import Ending


def test_practice_bout_kill_awards_winner_and_loser() -> None:
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield", bp=5)
    gorbag = warrior("Gorbag", "goblin", "club", "spear")
    state = fight("practice", olaf, gorbag)
    state, events = play(state, """
        Olaf: first
        Olaf: attack
        Olaf rolls 23        # broadsword 30 - 5 (length 2 vs spear 3): hit
        Gorbag: dodge
        Gorbag rolls 80      # leather dodge 30: fails
        Olaf rolls 5         # kill on leather
    """)
    assert state.outcome is not None and state.outcome.ending is Ending.KILL
    assert state.outcome.winner == 0
    awards = [e for e in events if isinstance(e, BPAwarded)]
    assert awards == [BPAwarded(0, 2, AwardReason.WIN), BPAwarded(1, 1, AwardReason.LOSS)]
