"""The play database exactly as release 1.0 (before migrations) created it: a copy of that
release's models and its ``create_tables``, so that the upgrade tests start from a database
made by the real thing rather than by the migrations under test."""

from __future__ import annotations

import logging
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    inspect,
    text,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

log = logging.getLogger(__name__)

IN_PROGRESS = "in_progress"
FINISHED = "finished"


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_public_id() -> str:
    """An unguessable id for URLs (122 random bits)."""
    return uuid.uuid4().hex


class Base(DeclarativeBase):
    pass


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, index=True,
                                           default=new_public_id)
    game: Mapped[str] = mapped_column(String(32))
    owner: Mapped[str | None] = mapped_column(String(64), index=True, nullable=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Running totals over the finished hands, kept up to date in the transaction that finishes
    # a hand, so that a match's results read in O(1) however long it has been played.
    hands_finished: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    seat0_finished: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    payoff_sum: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    payoff_sumsq: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    # The same for the luck-adjusted results (`app.services.analysis.coach`), over the hands that
    # have one, and the coach's count of the human's decisions and of the accurate ones.
    adjusted_n: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    adjusted_sum: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    adjusted_sumsq: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    decisions: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    accurate: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    hands: Mapped[list[Hand]] = relationship(
        back_populates="match", order_by="Hand.number", cascade="all, delete-orphan"
    )


class Hand(Base):
    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("match_id", "number"),
                      Index("ix_hands_match_worst_loss", "match_id", "worst_loss"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, index=True,
                                           default=new_public_id)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    human_seat: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default=IN_PROGRESS)
    human_payoff: Mapped[float | None] = mapped_column(Float, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Bumped by every write to the hand (``UPDATE ... WHERE version = <the one read>``): a
    write based on an out-of-date read changes no row and is refused, in any process."""
    cumulative_payoff: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The match's winnings up to and including this hand, set when it finishes."""
    seat_balance: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Finished hands in seat 0 minus those in seat 1 up to this one: the equilibrium
    expectation of the winnings so far is this times the game value."""
    adjusted_payoff: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The luck-adjusted result (`app.services.analysis.coach`), where the solve has action
    values."""
    cumulative_adjusted: Mapped[float | None] = mapped_column(Float, nullable=True)
    ev_lost: Mapped[float | None] = mapped_column(Float, nullable=True)
    """What the human's decisions gave up against the equilibrium, in all."""
    worst_loss: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The costliest decision of the hand (the match's costliest are the hands with most)."""
    worst_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)

    match: Mapped[Match] = relationship(back_populates="hands")
    actions: Mapped[list[Action]] = relationship(
        back_populates="hand", order_by="Action.seq", cascade="all, delete-orphan"
    )


class Action(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("hand_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    actor: Mapped[int] = mapped_column(Integer)
    """-1 chance, else the seat (0 or 1) that acted."""
    action: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(32))
    probabilities: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The bot's strategy (label -> probability) when the bot acted; else null."""
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    hand: Mapped[Hand] = relationship(back_populates="actions")


class IdempotentAction(Base):
    """The answer to an action sent with an ``Idempotency-Key``: a retry of the same request
    gets it again instead of being played a second time. Written in the transaction that
    plays the action."""

    __tablename__ = "idempotent_actions"
    __table_args__ = (UniqueConstraint("match_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
    key: Mapped[str] = mapped_column(String(255))
    fingerprint: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the hand and the request body: the same key with another request is an
    error, not a replay."""
    response: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ---- release 1.0's create_tables (app/db/engine.py) ----------------------------------------------

SCHEMA_LOCK_KEY = 0x5B07_DB
"""PostgreSQL advisory lock held while creating the tables, so that workers starting together
take turns instead of racing to CREATE the same table."""

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
"""Columns added after the first release: added to databases created before them."""

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

ADDED_INDEXES = {
    "ix_hands_match_worst_loss": "hands (match_id, worst_loss)",
}
"""Indexes of columns added after the first release (CREATE TABLE makes them on new tables)."""


def create_release1_tables(engine: Engine, attempts: int = 10) -> None:
    """Create the tables (and columns) that are missing; safe when several processes start at
    once: on PostgreSQL under an advisory lock, elsewhere by trying again when another process
    created a table between our check and our CREATE."""
    for attempt in range(1, attempts + 1):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                 {"key": SCHEMA_LOCK_KEY})
                Base.metadata.create_all(conn)
                _add_missing_columns(conn)
            return
        except DBAPIError as exc:
            if attempt == attempts:
                raise
            log.info("creating the tables raced with another process (%s); trying again",
                     str(exc.orig).strip().splitlines()[0] if exc.orig else exc)
            time.sleep(0.05 * attempt)


def _add_missing_columns(conn: Connection) -> None:
    inspector = inspect(conn)
    added: set[tuple[str, str]] = set()
    for (table, column), ddl in ADDED_COLUMNS.items():
        if column not in {c["name"] for c in inspector.get_columns(table)}:
            log.info("adding the column %s.%s to the play database", table, column)
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}"))
            added.add((table, column))
    for (table, column), statement in BACKFILLS.items():
        if (table, column) in added:
            conn.execute(text(statement))
    for name, target in ADDED_INDEXES.items():
        conn.execute(text(f"CREATE INDEX IF NOT EXISTS {name} ON {target}"))


