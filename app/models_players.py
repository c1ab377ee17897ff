"""Tables of the players: accounts, their signed-in sessions and API keys, the running totals
that profiles and leaderboards read, and the sign-in attempt counters.

Nothing here is read by scanning hands: a finished hand adds itself to its player's totals in
the transaction that finishes it (`app.services.player_totals`), as it does to its match's.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.models import PERSON, Base, utcnow


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
    kind: Mapped[str] = mapped_column(String(8), default=PERSON)
    """``person`` or ``program``: the boards keep the two apart."""
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerTotals(Base):
    """One player's running totals in one game, as a person or as programs."""

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
    """Sign-in attempts in the current window, per account name and per address: in the
    database, so that every worker and instance counts the same attempts."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
