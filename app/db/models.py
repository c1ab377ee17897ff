"""Tables of the play database: matches, their hands, and every action of every hand; then the
players': accounts, their signed-in sessions and API keys, the running totals that profiles
and leaderboards read, and the sign-in attempt counters.

Everything is committed as it happens, so a hand's state is always ``play(game, action ids)``
of its actions in ``seq`` order: a restart mid-hand resumes it. The schema is created and
changed by the Alembic migrations in ``app/db/migrations`` (`app.db.migrate`), which these
classes must match (a test compares them).

Nothing of the players' is read by scanning hands: a finished hand adds itself to its player's
totals in the transaction that finishes it (`app.db.player_totals`), as it does to its match's.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

IN_PROGRESS = "in_progress"
FINISHED = "finished"
# How a hand was played (`Hand.player_kind`), and so which totals and board it counts on:
PERSON = "person"
"""Through the pages, by a browser signed in to the match's account: the people's boards."""
PROGRAM = "program"
"""Over the API, with a personal key or a match token, in all or in part: the programs'
boards, whoever typed the requests."""
GUEST = "guest"
"""Through the pages by a browser signed in to no account. Its matches become an account's
when the browser signs up or in, and count on its profile, but on no board: a browser's results
from before are all the server knows of them, and nobody should rank a run they picked."""


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
    account_id: Mapped[int | None] = mapped_column(Integer, index=True, nullable=True)
    """The account the match belongs to (`app.db.models.Account`), if any."""
    opponent: Mapped[str] = mapped_column(String(32), default="", server_default="")
    """Whom the human plays: empty for the game's equilibrium, else the name of one of its
    exploitable opponents in the strategy store (`solver.runs.opponents`)."""
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
    ev_lost_sum: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    """What the human's decisions gave up, in all: the sum of the hands' `Hand.ev_lost`."""
    analysis_state: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """What the analysis of a hand carries to the next (`app.services.analysis.analyse`): the
    player's habits and the moments of its estimates."""
    analysis_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Bumped with every change of `analysis_state`, which is written only if it is unchanged
    since read: each hand is added to the state once, in order."""

    hands: Mapped[list[Hand]] = relationship(
        back_populates="match", order_by="Hand.number", cascade="all, delete-orphan"
    )


class Hand(Base):
    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("match_id", "number"),
                      Index("ix_hands_match_worst_loss", "match_id", "worst_loss"),
                      Index("ix_hands_in_progress", "status", "created",
                            sqlite_where=text("status = 'in_progress'"),
                            postgresql_where=text("status = 'in_progress'")),
                      Index("ix_hands_analysis_pending", "match_id", "number",
                            sqlite_where=text("analysis_pending"),
                            postgresql_where=text("analysis_pending")))

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
    forfeited: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Settled as a forfeit at the player's decision after it was left unfinished
    (`app.services.play.forfeits`)."""
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The coach's figures of the finished hand, computed once (`app.services.analysis.analyse`)."""
    analysis_pending: Mapped[bool] = mapped_column(Boolean, default=False,
                                                   server_default=false())
    """Finished, and its analysis is still being computed (off the request path)."""
    player_kind: Mapped[str] = mapped_column(String(8), default=GUEST, server_default=GUEST)
    """How it was played (`PERSON`, `PROGRAM`, `GUEST`): set when it is dealt, and a program's
    from the first action played over the API."""

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


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32))
    """As the player typed it; shown on the boards (the display name)."""
    username_key: Mapped[str] = mapped_column(String(32), unique=True)
    """The name case-folded: ``Alice`` and ``alice`` are one account."""
    password_hash: Mapped[str] = mapped_column(String(255))
    on_boards: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AccountSession(Base):
    """A signed-in browser: the session cookie carries the id, the database only its SHA-256.
    Signing out deletes the row, so a copy of the old cookie opens nothing any more."""

    __tablename__ = "account_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"),
                                            index=True)
    sid_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"),
                                            index=True)
    name: Mapped[str] = mapped_column(String(40))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerTotals(Base):
    """One player's running totals in one game, of the hands played one way (``kind``: a
    `app.db.models.PERSON`'s, a `PROGRAM`'s or a `GUEST`'s)."""

    __tablename__ = "player_totals"
    __table_args__ = (UniqueConstraint("account_id", "game", "kind"),
                      Index("ix_player_totals_board", "game", "kind", "hands"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    hands: Mapped[int] = mapped_column(Integer, default=0)
    seat0: Mapped[int] = mapped_column(Integer, default=0)
    payoff_sum: Mapped[float] = mapped_column(Float, default=0.0)
    payoff_sumsq: Mapped[float] = mapped_column(Float, default=0.0)
    adjusted_n: Mapped[int] = mapped_column(Integer, default=0)
    adjusted_sum: Mapped[float] = mapped_column(Float, default=0.0)
    adjusted_sumsq: Mapped[float] = mapped_column(Float, default=0.0)
    decisions: Mapped[int] = mapped_column(Integer, default=0)
    accurate: Mapped[int] = mapped_column(Integer, default=0)
    forfeits: Mapped[int] = mapped_column(Integer, default=0)


class PlayerDay(Base):
    """A player's hands and the coach's counts in one game on one day (UTC): the accuracy
    chart reads a row a day, not the hands."""

    __tablename__ = "player_days"
    __table_args__ = (UniqueConstraint("account_id", "game", "kind", "day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    day: Mapped[date] = mapped_column(Date)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    decisions: Mapped[int] = mapped_column(Integer, default=0)
    accurate: Mapped[int] = mapped_column(Integer, default=0)


class PlayerStyle(Base):
    """A style statistic's running count over its opportunities, per seat (the game defines
    the statistics: `solver.games.style`)."""

    __tablename__ = "player_style"
    __table_args__ = (UniqueConstraint("account_id", "game", "kind", "stat", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    stat: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int] = mapped_column(Integer)
    count: Mapped[float] = mapped_column(Float, default=0.0)
    out_of: Mapped[float] = mapped_column(Float, default=0.0)


class RateLimit(Base):
    """Attempts in the current window per key (`app.services.players.throttle`: sign-ins per
    browser, address and user name, sign-ups per address, password checks per account): in the
    database, so that every worker and instance counts the same attempts."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
