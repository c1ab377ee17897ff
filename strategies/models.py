"""SQLAlchemy ORM schema of the strategy store.

The schema is versioned by ``SCHEMA_VERSION``, stored in the ``meta`` table under the key
``schema_version``. Any change to the tables below must bump it: a store of an older version
that `strategies.schema` knows how to upgrade in place (`UPGRADABLE_VERSIONS`) is upgraded on
opening, any other is refused (and has to be rebuilt with ``python -m solver build``).
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
    LargeBinary,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA_VERSION = 7
"""Version of the table layout below; bump on any incompatible change."""
UPGRADABLE_VERSIONS = (4, 5, 6)
"""The older layouts a store is upgraded from in place: version 5 only added the `blobs` table
and `SolveRow.value_ci95`, version 6 `SolveRow.opponent` and `SolveRow.best_reply`, version 7
the `figures` table (taking in the tables of winning chances that version 6 kept in files
beside the store: `strategies.figures`), so no solve has to be rebuilt (the long ones take
hours)."""

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
        aware: datetime = value.replace(tzinfo=UTC)
        return aware


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
        Index("ix_solves_game_opponent_created", "game", "opponent", "created", "id"),
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
    """How positions of the real game map to the stored keys (`solver.abstractions`); empty if
    the game was solved as it is."""
    value_ci95: Mapped[float | None] = mapped_column(Float, nullable=True, default=None)
    """Half-width of the 95% interval of `value` where it is a sampled estimate (the real
    game's value of an abstract solve, by self-play); null where `value` is exact."""
    opponent: Mapped[str] = mapped_column(String, default="", server_default="")
    """Empty for the game's equilibrium; else the name of an exploitable opponent this solve
    is (`solver.runs.opponents`: an early solve, a styled bot), which the game's latest solve
    never is."""
    best_reply: Mapped[list[float] | None] = mapped_column(JSON, nullable=True, default=None)
    """What a best reply to the stored strategy wins per hand in seat 0 and in seat 1 (their
    mean is the exploitability); null where unknown."""


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
        Index("ix_infosets_solve_node", "solve_id", "node"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    solve_id: Mapped[int] = mapped_column(ForeignKey("solves.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String)
    private: Mapped[str] = mapped_column(String)
    public: Mapped[str] = mapped_column(String)
    node: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The public tree's node it belongs to (`NodeRow.idx`), if the solve stored the tree."""
    player: Mapped[int] = mapped_column(Integer)
    labels: Mapped[list[str]] = mapped_column(JSON)
    probabilities: Mapped[list[float]] = mapped_column(JSON)
    values: Mapped[list[float] | None] = mapped_column(JSON, nullable=True)
    """Q(I, a) per action under the stored profile (`solver.algorithms.action_values`); null where
    the solve could not condition on the position (an abstraction, or an unreached set)."""
    value: Mapped[float | None] = mapped_column(Float, nullable=True)
    reach: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Probability that the stored profile reaches this information set, chance included."""


class NodeRow(Base):
    """One node of a solve's public tree: how the explorer walks from the root to any spot."""

    __tablename__ = "nodes"
    __table_args__ = (
        Index("ux_nodes_solve_index", "solve_id", "idx", unique=True),
        Index("ix_nodes_solve_public", "solve_id", "public"),
        Index("ix_nodes_solve_parent", "solve_id", "parent"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    solve_id: Mapped[int] = mapped_column(ForeignKey("solves.id", ondelete="CASCADE"))
    idx: Mapped[int] = mapped_column(Integer)
    """The node's number in the compiled tree (pre-order: a parent comes first)."""
    public: Mapped[str] = mapped_column(String)
    parent: Mapped[int] = mapped_column(Integer)
    """The parent's `idx`, -1 at the root."""
    label: Mapped[str] = mapped_column(String)
    """The move from the parent into this node (an action or a chance outcome)."""
    kind: Mapped[str] = mapped_column(String)
    """``decision``, ``chance`` or ``terminal``."""
    actor: Mapped[int] = mapped_column(Integer)
    """The player to move at a decision node, else -1."""


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


class BlobRow(Base):
    """Binary parts of a solve whose strategy is a table rather than rows of `InfosetRow`: an
    abstract solve with millions of information sets (`strategies.tables.TableStrategy`)."""

    __tablename__ = "blobs"
    __table_args__ = (Index("ux_blobs_solve_name", "solve_id", "name", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    solve_id: Mapped[int] = mapped_column(ForeignKey("solves.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class FigureRow(Base):
    """A figure of a solve, computed when it was built, that the app reads instead of working
    it out on a request (`strategies.figures` names them): the strategy's own style figures,
    the Dudo match's table of winning chances. JSON, by name."""

    __tablename__ = "figures"
    __table_args__ = (Index("ux_figures_solve_name", "solve_id", "name", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    solve_id: Mapped[int] = mapped_column(ForeignKey("solves.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String)
    data: Mapped[Any] = mapped_column(JSON)
