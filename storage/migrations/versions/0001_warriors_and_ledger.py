"""The club's records: warriors, the BP ledger with its chain head, settings.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "warriors",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(24), nullable=False, unique=True),
        sa.Column("owner", sa.String(120), nullable=False, index=True),
        sa.Column("system", sa.String(16), nullable=False),
        sa.Column("culture", sa.String(16)),
        sa.Column("armour", sa.String(16)),
        sa.Column("skills", sa.JSON(), nullable=False),
        sa.Column("bp", sa.Integer(), nullable=False),
        sa.Column("bp_spent", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("captor_id", sa.Integer(), sa.ForeignKey("warriors.id")),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("warrior_id", sa.Integer(), sa.ForeignKey("warriors.id"), nullable=False,
                  index=True),
        sa.Column("entry", sa.String(24), nullable=False),
        sa.Column("bp", sa.Integer(), nullable=False),
        sa.Column("spent", sa.Integer(), nullable=False),
        sa.Column("skill", sa.String(16)),
        sa.Column("skill_value", sa.Integer()),
        sa.Column("status", sa.String(10)),
        sa.Column("captor_id", sa.Integer()),
        sa.Column("detail", sa.JSON()),
        sa.Column("actor", sa.String(120), nullable=False),
        sa.Column("moderator", sa.String(120)),
        sa.Column("fight_id", sa.Integer(), index=True),
        sa.Column("command_seq", sa.Integer()),
        sa.Column("reason", sa.String(400), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    head = op.create_table(
        "ledger_head",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
    )
    op.bulk_insert(head, [{"id": 1, "last_id": 0, "last_hash": "0" * 64}])
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("updated_by", sa.String(120), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    for table in ("settings", "ledger_head", "ledger", "warriors"):
        op.drop_table(table)
