"""SQLAlchemy ORM schema of the strategy store.

The schema is versioned by ``SCHEMA_VERSION``, stored in the ``meta`` table under the key
``schema_version``. Any change to the tables below must bump it: a store written with another
version is refused (and has to be rebuilt with ``python -m solver build``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA_VERSION = 3
"""Version of the table layout below; bump on any incompatible change."""

SCHEMA_VERSION_KEY = "schema_version"


class UTCDateTime(TypeDecorator[datetime]):
    """A datetime stored as naive UTC (SQLite has no time zones) and read back UTC-aware."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; pass a timezone-aware (UTC) datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class MetaRow(Base):
    """Key/value store metadata; holds at least ``schema_version``."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class SolveRow(Base):
    """One run of the solver on one game."""

    __tablename__ = "solves"
    # AUTOINCREMENT: ids are never reused after a delete, so caches keyed by id stay valid.
    __table_args__ = (
        Index("ix_solves_game_created", "game", "created", "id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String)
    algorithm: Mapped[str] = mapped_column(String)
    iterations: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[float] = mapped_column(Float)
    exploitability: Mapped[float] = mapped_column(Float)
    value: Mapped[float] = mapped_column(Float)
    created: Mapped[datetime] = mapped_column(UTCDateTime)
    solver_version: Mapped[str] = mapped_column(String)
    abstraction: Mapped[str] = mapped_column(String, default="", server_default="")
    """How positions of the real game map to the stored keys (`solver.abstraction`); empty if
    the game was solved as it is."""


class InfosetRow(Base):
    """The average strategy at one information set of one solve.

    A key is ``<private part>|<public part>`` (no ``|``: all public); both parts are also
    kept apart, so that the explorer pages through one public history, or one private card,
    in the database."""

    __tablename__ = "infosets"
    __table_args__ = (
        Index("ux_infosets_solve_key", "solve_id", "key", unique=True),
        Index("ix_infosets_solve_public", "solve_id", "public"),
        Index("ix_infosets_solve_private_public", "solve_id", "private", "public"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    solve_id: Mapped[int] = mapped_column(ForeignKey("solves.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String)
    private: Mapped[str] = mapped_column(String)
    public: Mapped[str] = mapped_column(String)
    player: Mapped[int] = mapped_column(Integer)
    labels: Mapped[list[str]] = mapped_column(JSON)
    probabilities: Mapped[list[float]] = mapped_column(JSON)


class TraceRow(Base):
    """One point of a solve's convergence curve."""

    __tablename__ = "trace"
    __table_args__ = (Index("ix_trace_solve_iteration", "solve_id", "iteration"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    solve_id: Mapped[int] = mapped_column(ForeignKey("solves.id", ondelete="CASCADE"))
    iteration: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[float] = mapped_column(Float)
    exploitability: Mapped[float] = mapped_column(Float)
    value: Mapped[float] = mapped_column(Float)
