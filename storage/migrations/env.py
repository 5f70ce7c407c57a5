"""Alembic environment: runs on the engine that ``storage.db.upgrade`` hands over."""

from __future__ import annotations

from alembic import context

from storage.models import Base

engine = context.config.attributes["engine"]
with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        # a downgrade is all or nothing (SQLite's DDL is transactional; alembic's default
        # for it is not, and a refused step would leave the steps before it done)
        transactional_ddl=context.config.attributes.get("transactional_ddl"),
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
