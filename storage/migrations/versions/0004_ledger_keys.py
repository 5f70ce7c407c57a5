"""Keyed ledger rows: each row names the key its MAC was made with; a fight's rows
(its closing digest) are on no warrior.

Rows from before have no key id: they are legacy rows (plain SHA-256), kept as they
are and still readable; the first keyed row chains onto the last legacy hash. On SQLite
making ``warrior_id`` nullable copies the ledger table (batch mode), rows unchanged.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ledger") as batch:
        batch.add_column(sa.Column("key_id", sa.String(16), nullable=True))
        batch.alter_column("warrior_id", existing_type=sa.Integer(), nullable=True)
    with op.batch_alter_table("ledger_head") as batch:
        batch.add_column(sa.Column("key_id", sa.String(16), nullable=True))


def downgrade() -> None:
    keyed = op.get_bind().execute(
        sa.text("SELECT COUNT(*) FROM ledger WHERE key_id IS NOT NULL")).scalar_one()
    if keyed:
        raise RuntimeError(f"{keyed} ledger rows are keyed: without their key ids they could "
                           "never be verified again; not downgrading")
    with op.batch_alter_table("ledger_head") as batch:
        batch.drop_column("key_id")
    with op.batch_alter_table("ledger") as batch:
        batch.drop_column("key_id")
        batch.alter_column("warrior_id", existing_type=sa.Integer(), nullable=False)
