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
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
