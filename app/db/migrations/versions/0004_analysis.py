"""Analysis: a finished hand's coach's figures kept once computed (`hands.analysis`), the hands
still being analysed (`hands.analysis_pending`, with an index of them), and what a match's
analysis carries from hand to hand (`matches.analysis_state`: the player's habits and the
moments of its two estimates, guarded by `matches.analysis_version`).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_PENDING = sa.text("analysis_pending")


def upgrade() -> None:
    op.add_column("hands", sa.Column("analysis", sa.JSON, nullable=True))
    op.add_column("hands", sa.Column("analysis_pending", sa.Boolean, nullable=False,
                                     server_default=sa.false()))
    op.create_index("ix_hands_analysis_pending", "hands", ["match_id", "number"],
                    sqlite_where=_PENDING, postgresql_where=_PENDING)
    op.add_column("matches", sa.Column("analysis_state", sa.JSON, nullable=True))
    op.add_column("matches", sa.Column("analysis_version", sa.Integer, nullable=False,
                                       server_default="0"))


def downgrade() -> None:
    op.drop_index("ix_hands_analysis_pending", "hands")
    for table, column in (("matches", "analysis_version"), ("matches", "analysis_state"),
                          ("hands", "analysis_pending"), ("hands", "analysis")):
        op.drop_column(table, column)
