"""The referee's records: fights, seats (one open fight per warrior and per channel),
the command list and the event log.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ACTIVE = sa.text("active")


def upgrade() -> None:
    op.create_table(
        "fights",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("system", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("setup", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("started_at", sa.String(32), nullable=False),
        sa.Column("ended_at", sa.String(32)),
        sa.Column("ending", sa.String(16)),
        sa.Column("winner", sa.Integer()),
    )
    op.create_index("one_open_fight_per_channel", "fights", ["channel"], unique=True,
                    sqlite_where=ACTIVE, postgresql_where=ACTIVE)
    op.create_table(
        "fight_sides",
        sa.Column("fight_id", sa.Integer(), sa.ForeignKey("fights.id"), primary_key=True),
        sa.Column("side", sa.Integer(), primary_key=True),
        sa.Column("warrior_id", sa.Integer(), sa.ForeignKey("warriors.id"), nullable=False),
        sa.Column("account", sa.String(120), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
    )
    op.create_index("one_open_fight_per_warrior", "fight_sides", ["warrior_id"], unique=True,
                    sqlite_where=ACTIVE, postgresql_where=ACTIVE)
    op.create_table(
        "fight_commands",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("fight_id", sa.Integer(), sa.ForeignKey("fights.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("command", sa.JSON(), nullable=False),
        sa.Column("actor", sa.String(120), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("fight_id", "seq"),
    )
    op.create_table(
        "fight_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("fight_id", sa.Integer(), sa.ForeignKey("fights.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("event", sa.JSON(), nullable=False),
        sa.UniqueConstraint("fight_id", "seq", "idx"),
    )


def downgrade() -> None:
    for table in ("fight_events", "fight_commands", "fight_sides", "fights"):
        op.drop_table(table)
