"""A consistent copy of a SQLite database while the bot runs (``ancath-bot backup``).

SQLite's online backup API copies the pages under a read snapshot, so a copy taken
beside a writing bot is a committed state. The copy is written next to the target and
linked into place, so a failed backup leaves no half-written file under its name and an
existing file is never overwritten. The copy is checked (SQLite's ``quick_check``) before
it takes its name: a damaged database copies as damaged, and is refused, in one line,
rather than said "backed up". The ledger key is not in the copy.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

from storage.db_engines import BUSY_TIMEOUT_MS
from storage.db_urls import database_url, shown_url, sqlite_path
from storage.errors import DatabaseProblem

__all__ = ["backup_sqlite"]


def backup_sqlite(url: str, target: str | Path) -> Path:
    """Copy the SQLite database at ``url`` to the new file ``target``; the source."""
    source = sqlite_path(database_url(url))
    if source is None:
        raise DatabaseProblem(f"{shown_url(url)}: only a SQLite file is copied this way; back up "
                              "PostgreSQL with pg_dump (pg_dump -Fc -f club.dump <db>)")
    if not source.is_file():
        raise DatabaseProblem(f"{source}: no such database file")
    target = Path(target)
    if target.exists():
        raise DatabaseProblem(f"{target}: already exists; the backup never overwrites a "
                              "file: name a new one")
    if not target.parent.is_dir():
        raise DatabaseProblem(f"{target}: the directory {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    uri = f"file:{quote(str(source))}?mode=ro"
    try:
        reader = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        with closing(reader), closing(sqlite3.connect(partial)) as copy:
            reader.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")   # one self-contained file
            found = [" ".join(str(row[0]).split())
                     for row in copy.execute("PRAGMA quick_check(3)")]
        if found != ["ok"]:
            raise _damaged(source, target, "; ".join(found))
        os.link(partial, target)   # fails, rather than replaces, if the name was taken
    except (sqlite3.Error, OSError) as error:
        said = str(error).lower()
        if "malformed" in said or "not a database" in said:   # the check could not even run
            raise _damaged(source, target, str(error)) from error
        raise DatabaseProblem(f"backup of {source} to {target} failed: {error}") from error
    finally:
        partial.unlink(missing_ok=True)
    return source


def _damaged(source: Path, target: Path, found: str) -> DatabaseProblem:
    return DatabaseProblem(
        f"{source} is damaged: its copy fails SQLite's check ({found}); nothing was written "
        f"to {target}: keep the backups you have, and restore the club from the newest good "
        "one (ancath-bot audit verify --db <it> checks one)")
