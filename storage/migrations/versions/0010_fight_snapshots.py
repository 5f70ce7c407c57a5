"""Fight snapshots: an open fight's state as of a command, sealed with its logs' digests
up to there, so a restart replays only the commands after it (``storage.fight_snapshots``).
A cache: taking the schema back drops it, and a fight without one is replayed whole.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fight_snapshots",
        sa.Column("fight_id", sa.Integer, sa.ForeignKey("fights.id"), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("seal", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fight_snapshots")
