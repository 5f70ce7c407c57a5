"""Alembic environment: runs on the engine that ``storage.schema_revision.upgrade`` hands over.

On SQLite the migrations run with foreign keys off and checked once before the commit
(SQLite's own procedure for changing a table): batch mode copies a table and drops the
old one, and dropping ``warriors`` while the ledger points at it would fail. The pragma
is set on the driver's connection, outside any transaction (inside one it does nothing),
and set back before the connection returns to the pool.

On PostgreSQL the migrations run holding a transaction-level advisory lock, so bot
processes started at once on one new (or older) database migrate one after the other:
the first migrates, the others then find the schema at its newest and do nothing. They
wait up to 15 minutes for it; the migration's own steps wait for other locks as long as
any statement of the bot does.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from storage.models import Base

MIGRATION_LOCK = 0x0A2CA7
"""The advisory lock's key (``pg_advisory_xact_lock``), the club's own."""

engine = context.config.attributes["engine"]
with engine.connect() as connection:
    sqlite = connection.dialect.name == "sqlite"
    driver = connection.connection.driver_connection
    if sqlite and driver is not None:
        driver.execute("PRAGMA foreign_keys = OFF")
    try:
        if connection.dialect.name == "postgresql":   # released as this transaction ends
            # another process's migration may take longer than the usual lock wait (10 s)
            connection.execute(text("SET LOCAL lock_timeout = '15min'"))
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                               {"key": MIGRATION_LOCK})
            connection.execute(text("RESET lock_timeout"))   # the engine's, for the steps
        context.configure(
            connection=connection,
            target_metadata=Base.metadata,
            render_as_batch=sqlite,
            # a downgrade is all or nothing (SQLite's DDL is transactional; alembic's
            # default for it is not, and a refused step would leave the steps before it
            # done)
            transactional_ddl=context.config.attributes.get("transactional_ddl"),
        )
        with context.begin_transaction():
            context.run_migrations()
        if sqlite and (broken := connection.execute(text("PRAGMA foreign_key_check")).all()):
            connection.rollback()
            raise RuntimeError(f"the migration left rows pointing nowhere: {broken}")
        connection.commit()
    finally:
        if sqlite and driver is not None:
            driver.execute("PRAGMA foreign_keys = ON")
