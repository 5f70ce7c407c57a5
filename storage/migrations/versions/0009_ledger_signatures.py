"""Signed ledger rows: each row from here on carries an Ed25519 signature over its
plain SHA-256 hash, so the club's public key alone proves it (``storage.signing``).

Rows from before (HMAC-keyed or legacy) keep no signature and stay as they are; the
first signed row (``ledger-keyed``) seals them with a digest of their content. Adding a
nullable column needs no copy of the table, on either database; taking the schema
back keeps it.

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
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("ledger")}
    if "signature" not in columns:   # a downgrade keeps it
        op.add_column("ledger", sa.Column("signature", sa.String(128), nullable=True))


def downgrade() -> None:
    """Keeps the column: dropping it would lose every signature, and the code before it
    never writes after a signed row (its key id is none of that code's keys)."""
