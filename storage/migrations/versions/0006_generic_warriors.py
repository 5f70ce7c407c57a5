"""The warriors table generic: identity and the system-neutral caches as columns, each
rules system's sheet in ``profile``.

An An Cath warrior's culture, armour and skills cache move from their own columns into
its profile (``{"culture": ..., "armour": ..., "skills": {...}}``); a Simple Contest or
General-rules fighter's profile is its sheet already. ``bp``, ``bp_spent``, ``status``
and ``captor_id`` stay columns: each caches one system-neutral ledger column (``bp``,
``spent``, ``status``, ``captor_id``), summed or taken as the newest, which storage and
``audit verify`` keep without knowing the system. ``bp_spent`` is chosen to stay a
column, under its name: only An Cath spends BP today, but what it caches is the
ledger's ``spent`` column, not a part of the sheet; in the profile, checking it would
need An Cath's profile shape where the other sums need none. ``profile`` becomes NOT
NULL.

On SQLite the columns are dropped by copying the table (batch mode), rows unchanged;
the copy drops the table others point at, so migrations run there with foreign keys
checked once, at the end (``env.py``).

Revision ID: 0006
Revises: 0005
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_OLD = sa.table(
    "warriors", sa.column("id", sa.Integer()), sa.column("system", sa.String(16)),
    sa.column("culture", sa.String(16)), sa.column("armour", sa.String(16)),
    sa.column("skills", sa.JSON()), sa.column("profile", sa.JSON()),
)


def _rows() -> list[Any]:
    return list(op.get_bind().execute(sa.select(_OLD).order_by(_OLD.c.id)))


def upgrade() -> None:
    for row in _rows():
        if row.system == "ancath":
            profile = {"culture": row.culture, "armour": row.armour, "skills": row.skills}
            op.execute(_OLD.update().where(_OLD.c.id == row.id).values(profile=profile))
    with op.batch_alter_table("warriors") as batch:
        batch.drop_column("culture")
        batch.drop_column("armour")
        batch.drop_column("skills")
        batch.alter_column("profile", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("warriors") as batch:
        batch.add_column(sa.Column("culture", sa.String(16)))
        batch.add_column(sa.Column("armour", sa.String(16)))
        batch.add_column(sa.Column("skills", sa.JSON()))
        batch.alter_column("profile", existing_type=sa.JSON(), nullable=True)
    for row in _rows():
        if row.system == "ancath":
            sheet = row.profile
            values = {"culture": sheet["culture"], "armour": sheet["armour"],
                      "skills": sheet["skills"], "profile": sa.null()}
        else:
            values = {"skills": {}}
        op.execute(_OLD.update().where(_OLD.c.id == row.id).values(**values))
    with op.batch_alter_table("warriors") as batch:
        batch.alter_column("skills", existing_type=sa.JSON(), nullable=False)
