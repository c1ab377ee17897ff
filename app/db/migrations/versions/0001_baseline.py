"""Baseline: the play database as release 1.0 made it (matches, hands, actions, idempotent
actions), whether it is new or was made by a release before migrations.

A database of those releases has the tables but no ``alembic_version``: this migration then
creates nothing that exists, adds the columns the earliest releases lacked (filling in the
running totals from the hands there were), and the database carries on from here.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

log = logging.getLogger("app.db.migrate")

_ZERO = sa.text("0")


def _tables() -> sa.MetaData:
    """Release 1.0's tables, frozen here: later migrations change them, this one never does."""
    metadata = sa.MetaData()
    utc = sa.DateTime(timezone=True)
    sa.Table(
        "matches", metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(32), nullable=False, unique=True, index=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("owner", sa.String(64), nullable=True, index=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created", utc, nullable=False),
        *(sa.Column(name, sa.Integer, nullable=False, server_default=_ZERO)
          for name in ("hands_finished", "seat0_finished")),
        *(sa.Column(name, sa.Float, nullable=False, server_default=_ZERO)
          for name in ("payoff_sum", "payoff_sumsq")),
        sa.Column("adjusted_n", sa.Integer, nullable=False, server_default=_ZERO),
        *(sa.Column(name, sa.Float, nullable=False, server_default=_ZERO)
          for name in ("adjusted_sum", "adjusted_sumsq")),
        *(sa.Column(name, sa.Integer, nullable=False, server_default=_ZERO)
          for name in ("decisions", "accurate")),
    )
    sa.Table(
        "hands", metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(32), nullable=False, unique=True, index=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False,
                  index=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("human_seat", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("human_payoff", sa.Float, nullable=True),
        sa.Column("created", utc, nullable=False),
        sa.Column("finished", utc, nullable=True),
        sa.Column("version", sa.Integer, nullable=False, server_default=_ZERO),
        sa.Column("cumulative_payoff", sa.Float, nullable=True),
        sa.Column("seat_balance", sa.Integer, nullable=True),
        sa.Column("adjusted_payoff", sa.Float, nullable=True),
        sa.Column("cumulative_adjusted", sa.Float, nullable=True),
        sa.Column("ev_lost", sa.Float, nullable=True),
        sa.Column("worst_loss", sa.Float, nullable=True),
        sa.Column("worst_seq", sa.Integer, nullable=True),
        sa.UniqueConstraint("match_id", "number"),
        sa.Index("ix_hands_match_worst_loss", "match_id", "worst_loss"),
    )
    sa.Table(
        "actions", metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("hand_id", sa.Integer, sa.ForeignKey("hands.id"), nullable=False, index=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("actor", sa.Integer, nullable=False),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("label", sa.String(32), nullable=False),
        sa.Column("probabilities", sa.JSON, nullable=True),
        sa.Column("created", utc, nullable=False),
        sa.UniqueConstraint("hand_id", "seq"),
    )
    sa.Table(
        "idempotent_actions", metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False,
                  index=True),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.Column("created", utc, nullable=False),
        sa.UniqueConstraint("match_id", "key"),
    )
    return metadata


ADDED_COLUMNS = {
    ("hands", "version"): "INTEGER NOT NULL DEFAULT 0",
    ("matches", "hands_finished"): "INTEGER NOT NULL DEFAULT 0",
    ("matches", "seat0_finished"): "INTEGER NOT NULL DEFAULT 0",
    ("matches", "payoff_sum"): "FLOAT NOT NULL DEFAULT 0",
    ("matches", "payoff_sumsq"): "FLOAT NOT NULL DEFAULT 0",
    ("hands", "cumulative_payoff"): "FLOAT",
    ("hands", "seat_balance"): "INTEGER",
    ("matches", "adjusted_n"): "INTEGER NOT NULL DEFAULT 0",
    ("matches", "adjusted_sum"): "FLOAT NOT NULL DEFAULT 0",
    ("matches", "adjusted_sumsq"): "FLOAT NOT NULL DEFAULT 0",
    ("matches", "decisions"): "INTEGER NOT NULL DEFAULT 0",
    ("matches", "accurate"): "INTEGER NOT NULL DEFAULT 0",
    ("hands", "adjusted_payoff"): "FLOAT",
    ("hands", "cumulative_adjusted"): "FLOAT",
    ("hands", "ev_lost"): "FLOAT",
    ("hands", "worst_loss"): "FLOAT",
    ("hands", "worst_seq"): "INTEGER",
}
"""Columns the releases before 1.0 lacked: added where they are missing."""

BACKFILLS = {
    ("matches", "hands_finished"): (
        "UPDATE matches SET"
        " hands_finished = (SELECT COUNT(*) FROM hands h WHERE h.match_id = matches.id"
        "   AND h.status = 'finished'),"
        " seat0_finished = (SELECT COUNT(*) FROM hands h WHERE h.match_id = matches.id"
        "   AND h.status = 'finished' AND h.human_seat = 0),"
        " payoff_sum = (SELECT COALESCE(SUM(h.human_payoff), 0) FROM hands h"
        "   WHERE h.match_id = matches.id AND h.status = 'finished'),"
        " payoff_sumsq = (SELECT COALESCE(SUM(h.human_payoff * h.human_payoff), 0) FROM hands h"
        "   WHERE h.match_id = matches.id AND h.status = 'finished')"
    ),
    ("hands", "cumulative_payoff"): (
        "UPDATE hands SET"
        " cumulative_payoff = (SELECT SUM(h.human_payoff) FROM hands h"
        "   WHERE h.match_id = hands.match_id AND h.number <= hands.number"
        "   AND h.status = 'finished'),"
        " seat_balance = (SELECT SUM(1 - 2 * h.human_seat) FROM hands h"
        "   WHERE h.match_id = hands.match_id AND h.number <= hands.number"
        "   AND h.status = 'finished')"
        " WHERE status = 'finished'"
    ),
}
"""What fills an added column from the rows that were there before it (the running totals)."""


def upgrade() -> None:
    bind = op.get_bind()
    _tables().create_all(bind, checkfirst=True)
    inspector = sa.inspect(bind)
    added: set[tuple[str, str]] = set()
    for (table, column), ddl in ADDED_COLUMNS.items():
        if column not in {c["name"] for c in inspector.get_columns(table)}:
            log.info("adding the column %s.%s to the play database", table, column)
            bind.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}"))
            added.add((table, column))
    for (table, column), statement in BACKFILLS.items():
        if (table, column) in added:
            bind.execute(sa.text(statement))
    bind.execute(sa.text("CREATE INDEX IF NOT EXISTS ix_hands_match_worst_loss "
                         "ON hands (match_id, worst_loss)"))


def downgrade() -> None:
    for table in ("idempotent_actions", "actions", "hands", "matches"):
        op.drop_table(table)
