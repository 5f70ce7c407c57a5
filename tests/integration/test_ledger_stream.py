"""The ledger is read in batches (``Store.ledger_rows``, ``audit.verify``): any batch
size gives the same rows and the same report as reading it whole."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from test_ledger_trust import KEY, filled, rehash  # the same records the attacks start from

from rules.ancath.system import AN_CATH
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage import ledger
from storage.db import open_database
from storage.keys import Keyring
from storage.store import Store, UnknownWarrior


@pytest.fixture
def store(database_url: str) -> Store:
    return Store(open_database(database_url), systems=[AN_CATH, CONTEST, GENERAL],
                 keyring=Keyring.of(KEY))


def test_ledger_rows_in_batches_of_one_are_the_ledger(store: Store) -> None:
    filled(store)
    assert list(store.ledger_rows(batch=1)) == store.ledger()
    assert list(store.ledger_rows("olaf", batch=2)) == store.ledger("Olaf")
    assert [r["id"] for r in store.ledger("Olaf", limit=2)] == \
        [r["id"] for r in store.ledger("Olaf")][-2:]


def test_an_unknown_warrior_is_refused_before_any_row(store: Store) -> None:
    with pytest.raises(UnknownWarrior):
        store.ledger_rows("Nobody")   # not only when the first row is asked for


def test_verify_in_batches_of_one_reports_what_a_whole_read_does(
    store: Store, monkeypatch: pytest.MonkeyPatch,
) -> None:
    fight = filled(store)
    published = store.anchor()
    assert published is not None
    with store.engine.begin() as connection:
        grant = connection.execute(text("SELECT id FROM ledger WHERE reason = 'grant'")
                                   ).scalar_one()
        connection.execute(text("UPDATE ledger SET bp = 99 WHERE id = :id"), {"id": grant})
        connection.execute(text("UPDATE fights SET ending = 'forfeit'"))
        connection.execute(text("UPDATE fight_commands SET actor = 'someone' WHERE seq = 1"))
        rehash(connection, grant + 2)
    whole = store.audit([fight.anchor, published])
    assert len(whole.problems) >= 4, whole.problems
    monkeypatch.setattr(ledger, "BATCH", 1)
    assert store.audit([fight.anchor, published]) == whole
    monkeypatch.setattr(ledger, "BATCH", 3)
    assert store.audit([fight.anchor, published]) == whole
