"""Signed ledger rows: each row from here on carries an Ed25519 signature over its
plain SHA-256 hash, so the club's public key alone proves it (``storage.signing``).

Rows from before (HMAC-keyed or legacy) keep no signature and stay as they are; the
first signed row (``ledger-keyed``) seals them with a digest of their content. Adding a
nullable column needs no copy of the table, on either database.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ledger", sa.Column("signature", sa.String(128), nullable=True))


def downgrade() -> None:
    signed = op.get_bind().execute(
        sa.text("SELECT COUNT(*) FROM ledger WHERE signature IS NOT NULL")).scalar_one()
    if signed:
        raise RuntimeError(f"{signed} ledger rows are signed: without their signatures they "
                           "could never be verified again; not downgrading")
    with op.batch_alter_table("ledger") as batch:
        batch.drop_column("signature")
