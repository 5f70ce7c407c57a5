"""The ledger's ``entry`` indexed: the moderators named in chat are read from their
``moderator-added`` and ``moderator-removed`` rows (``storage.club``), by every bot
process at its start and again whenever the club's settings or moderators change. With
no index that read went through the whole ledger, on the lane every channel's writes
wait in (``bench/club_moderators.py`` measures both).

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ledger_entry", "ledger", ["entry"])


def downgrade() -> None:
    op.drop_index("ix_ledger_entry", table_name="ledger")
