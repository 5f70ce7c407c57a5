"""Pending challenges are kept, one per channel, so a restart does not lose them.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("channel_key", sa.String(64), primary_key=True),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("challenger", sa.String(24), nullable=False),
        sa.Column("challenger_account", sa.String(120), nullable=False),
        sa.Column("target", sa.String(24), nullable=False),
        sa.Column("target_account", sa.String(120), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("challenges")
