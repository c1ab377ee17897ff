"""What a match's decisions gave up, in all: the sum of its hands' ``ev_lost`` (the coach's
figures for the human's decisions alone), kept up to date as hands are analysed so that a
match's results read it in O(1). It was computed as the expected total less the luck-adjusted
total, which also holds the luck terms of a hand that are not decisions (its opening's, the
player's habits').

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("ev_lost_sum", sa.Float, nullable=False,
                                       server_default="0"))
    op.execute("UPDATE matches SET ev_lost_sum = (SELECT COALESCE(SUM(hands.ev_lost), 0) "
               "FROM hands WHERE hands.match_id = matches.id)")


def downgrade() -> None:
    op.drop_column("matches", "ev_lost_sum")
