"""Players: accounts, their sessions and API keys, per-player running totals, the sign-in
counters; a match's account and kind of player, a hand's forfeit, and an index of the hands in
progress (what the forfeit sweep reads).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_UTC = sa.DateTime(timezone=True)
_IN_PROGRESS = sa.text("status = 'in_progress'")


def _account() -> sa.Column[int]:
    return sa.Column("account_id", sa.Integer,
                     sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False)


def _zero(name: str, kind: type[sa.Integer] | type[sa.Float[float]]) -> sa.Column[Any]:
    column: sa.Column[Any] = sa.Column(name, kind(), nullable=False)
    return column


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("username_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("on_boards", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created", _UTC, nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        _account(),
        sa.Column("sid_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", _UTC, nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(32), nullable=False, unique=True),
        _account(),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", _UTC, nullable=False),
    )
    op.create_index("ix_api_keys_account_id", "api_keys", ["account_id"])
    op.create_table(
        "player_totals",
        sa.Column("id", sa.Integer, primary_key=True),
        _account(),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        *(_zero(name, sa.Integer) for name in ("hands", "seat0")),
        *(_zero(name, sa.Float) for name in ("payoff_sum", "payoff_sumsq")),
        _zero("adjusted_n", sa.Integer),
        *(_zero(name, sa.Float) for name in ("adjusted_sum", "adjusted_sumsq")),
        *(_zero(name, sa.Integer) for name in ("decisions", "accurate", "forfeits")),
        sa.UniqueConstraint("account_id", "game", "kind"),
    )
    op.create_index("ix_player_totals_board", "player_totals", ["game", "kind", "hands"])
    op.create_table(
        "player_days",
        sa.Column("id", sa.Integer, primary_key=True),
        _account(),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        *(_zero(name, sa.Integer) for name in ("hands", "decisions", "accurate")),
        sa.UniqueConstraint("account_id", "game", "kind", "day"),
    )
    op.create_table(
        "player_style",
        sa.Column("id", sa.Integer, primary_key=True),
        _account(),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("stat", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        *(_zero(name, sa.Float) for name in ("count", "out_of")),
        sa.UniqueConstraint("account_id", "game", "kind", "stat", "seat"),
    )
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("window_start", _UTC, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
    )
    # Plain ALTER TABLE ... ADD COLUMN on both databases (no table copy): the match's account
    # is an indexed integer, its rows removed with the account by the service.
    op.add_column("matches", sa.Column("account_id", sa.Integer, nullable=True))
    op.add_column("matches", sa.Column("player_kind", sa.String(8), nullable=False,
                                       server_default="person"))
    op.create_index("ix_matches_account_id", "matches", ["account_id"])
    op.add_column("hands", sa.Column("forfeited", sa.Boolean, nullable=False,
                                     server_default=sa.false()))
    op.create_index("ix_hands_in_progress", "hands", ["status", "created"],
                    sqlite_where=_IN_PROGRESS, postgresql_where=_IN_PROGRESS)


def downgrade() -> None:
    op.drop_index("ix_hands_in_progress", "hands")
    op.drop_index("ix_matches_account_id", "matches")
    for table, column in (("hands", "forfeited"), ("matches", "player_kind"),
                          ("matches", "account_id")):
        op.drop_column(table, column)  # SQLite >= 3.35 drops a plain column in place
    for table in ("rate_limits", "player_style", "player_days", "player_totals", "api_keys",
                  "account_sessions", "accounts"):
        op.drop_table(table)
