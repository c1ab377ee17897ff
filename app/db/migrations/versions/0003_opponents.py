"""Opponents: a match remembers whom it is played against (empty: the game's equilibrium, else
one of the game's exploitable opponents in the strategy store).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ... ADD COLUMN on both databases: every match so far was played
    # against the equilibrium.
    op.add_column("matches", sa.Column("opponent", sa.String(32), nullable=False,
                                       server_default=""))


def downgrade() -> None:
    op.drop_column("matches", "opponent")  # SQLite >= 3.35 drops a plain column in place
