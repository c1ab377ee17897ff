"""The SQLite strategy store: written by the offline solver, read by the web app and the bots.

Usage::

    with StrategyStore.open(create=True) as store:          # the solver
        info = store.save_solve("dudo", "cfr+", ...)

    store = StrategyStore.open()                            # the web app / a bot
    store.infoset("dudo", key)                              # -> InfosetStrategy | None

The database runs in WAL mode with a busy timeout, so the web app can keep reading while the
solver writes a new solve. ``infoset()`` is a single-row select on the (solve_id, key) unique
index over a dedicated connection; the latest solve id per game is cached and revalidated on
every call with ``PRAGMA data_version`` (microseconds), so a solve committed by any other
connection or process is picked up by the next call. ``strategy()`` caches decoded solves.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from sqlalchemy import (
    Engine,
    create_engine,
    delete,
    event,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import sessionmaker

from strategies.models import (
    SCHEMA_VERSION,
    SCHEMA_VERSION_KEY,
    UPGRADABLE_VERSION,
    Base,
    BlobRow,
    InfosetRow,
    MetaRow,
    SolveRow,
    TraceRow,
)
from strategies.tables import TableStrategy

ENV_VAR = "STRATEGY_STORE"
DEFAULT_FILENAME = "strategies.sqlite"
BUILD_HINT = "run `python -m solver build`"

# How many decoded solves strategy() keeps in memory (a Dudo solve is ~10 MB decoded).
CACHE_SOLVES = 4


def default_store_path() -> Path:
    """``$STRATEGY_STORE`` if set (and non-empty), else ``strategies/strategies.sqlite``."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(__file__).resolve().parent / DEFAULT_FILENAME


# --------------------------------------------------------------------------------------------
# Errors and value objects
# --------------------------------------------------------------------------------------------


class StoreError(Exception):
    """Base class of the strategy store's errors."""


class StoreMissingError(StoreError):
    """The store file does not exist (and ``create`` was not requested)."""


class StoreSchemaError(StoreError):
    """The file is not a strategy store, or one with another schema version."""


@dataclass(frozen=True, slots=True)
class SolveInfo:
    id: int
    game: str
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float
    value: float
    created: datetime  # UTC-aware
    solver_version: str
    abstraction: str = ""
    """`solver.abstraction` descriptor of the abstract game solved; empty for the real game."""
    value_ci95: float | None = None
    """Half-width of the 95% interval of `value` where it is a sampled estimate; None if exact."""


@dataclass(frozen=True, slots=True)
class InfosetStrategy:
    key: str
    player: int
    labels: tuple[str, ...]
    probabilities: tuple[float, ...]
    values: tuple[float, ...] | None = None
    """Q(I, a) per action under the stored profile; None where the solve has none."""
    value: float | None = None
    """V(I): the information set's value under the profile."""
    reach: float | None = None
    """The probability that the profile reaches the information set, chance included."""
    node: int | None = None
    """The node of the solve's public tree it belongs to (`PublicNode.idx`), if stored."""


@dataclass(frozen=True, slots=True)
class PublicNode:
    """A node of a solve's public tree (`strategies.models.NodeRow`)."""

    idx: int
    public: str
    parent: int
    label: str
    kind: str
    actor: int


@dataclass(frozen=True, slots=True)
class TracePoint:
    iteration: int
    seconds: float
    exploitability: float
    value: float


def _solve_info(row: SolveRow) -> SolveInfo:
    return SolveInfo(
        id=row.id,
        game=row.game,
        algorithm=row.algorithm,
        iterations=row.iterations,
        seconds=row.seconds,
        exploitability=row.exploitability,
        value=row.value,
        created=row.created,
        solver_version=row.solver_version,
        abstraction=row.abstraction or "",
        value_ci95=row.value_ci95,
    )


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------

_NEWEST_FIRST = (SolveRow.created.desc(), SolveRow.id.desc())

# The bulk and hot paths bypass SQLAlchemy's per-row parameter/JSON processing (several times
# faster on 24k rows); the text written is the same JSON the ORM's JSON columns read and write.
# `created` holds SQLAlchemy's ISO text, whose string order is time order.
_SELECT_LATEST = "SELECT id FROM solves WHERE game = ? ORDER BY created DESC, id DESC LIMIT 1"
_SELECT_GAME = "SELECT game FROM solves WHERE id = ?"
_INFOSET_COLUMNS = "key, player, labels, probabilities, \"values\", value, reach, node"
_SELECT_INFOSET = f"SELECT {_INFOSET_COLUMNS} FROM infosets WHERE solve_id = ? AND key = ?"
_INSERT_INFOSETS = (
    "INSERT INTO infosets (solve_id, key, private, public, player, labels, probabilities, "
    "\"values\", value, reach, node) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SELECT_INFOSETS = f"SELECT {_INFOSET_COLUMNS} FROM infosets WHERE solve_id = ? ORDER BY id"
_INSERT_NODES = ("INSERT INTO nodes (solve_id, idx, public, parent, label, kind, actor) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)")
_NODE_COLUMNS = "idx, public, parent, label, kind, actor"
_SELECT_BLOBS = "SELECT name, data FROM blobs WHERE solve_id = ?"


def split_key(key: str) -> tuple[str, str]:
    """``"Ks|rc"`` -> (``"Ks"``, ``"rc"``): the private part before the first ``|`` and the
    public history after it; a key without ``|`` is all public."""
    private, sep, public = key.partition("|")
    return (private, public) if sep else ("", key)


def _encode_floats(values: Iterable[float]) -> str:
    """A JSON list of floats; exact (repr round-trips). Rejects NaN and infinities."""
    text = repr(list(map(float, values)))  # "[0.25, 0.75]": valid JSON for finite floats
    if "n" in text:  # "nan", "inf": never part of a finite float's repr
        raise ValueError(f"non-finite probability in {text}")
    return text


def _decode_floats(text: str) -> tuple[float, ...]:
    inner = text.strip()[1:-1]
    return tuple(map(float, inner.split(","))) if inner.strip() else ()


class StrategyStore:
    """Handle on one store file. Thread-safe; create it with :meth:`open`.

    Reads of solves and traces, and all writes, go through the engine's pooled connections
    (ORM sessions). The per-move hot path, :meth:`infoset`, uses one dedicated connection of
    the same engine, serialised by a lock, so that a lookup is a handful of microseconds.
    """

    def __init__(self, path: Path, engine: Engine) -> None:
        self.path = path
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # Guards everything below. Held for dictionary work and single-row queries on the
        # lookup connection, never while decoding a whole solve.
        self._lock = threading.Lock()
        self._lookup_fairy = engine.raw_connection()  # discarded (not pooled) by close()
        lookup = self._lookup_fairy.driver_connection
        assert isinstance(lookup, sqlite3.Connection)
        self._lookup = lookup
        self._lookup.execute("PRAGMA query_only = ON")
        # Every cache below is valid for one value of PRAGMA data_version on the lookup
        # connection; it changes whenever any other connection (a pooled one of this process, or
        # another process such as the solver rebuilding the store) commits.
        self._data_version: int | None = None
        # game -> latest solve id (None: no solve)
        self._latest: dict[str, int | None] = {}
        # solve id -> game
        self._game_of: dict[int, str] = {}
        # solve id -> decoded strategy, filled by strategy(); least recently used first.
        self._cache: OrderedDict[int, dict[str, InfosetStrategy]] = OrderedDict()
        # solve id -> the infosets infoset() has looked up so far (bots revisit the same ones)
        self._seen: dict[int, dict[str, InfosetStrategy]] = {}
        # solve id -> its row, as latest_solve() returns it
        self._infos: dict[int, SolveInfo] = {}
        # JSON text of an action list -> decoded labels (few distinct lists per game)
        self._labels: dict[str, tuple[str, ...]] = {}
        # solve id -> its strategy tables (None: a solve stored as rows)
        self._tables: dict[int, TableStrategy | None] = {}
        self._closed = False

    # ---- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        create: bool = False,
        busy_timeout: float = 30.0,
    ) -> StrategyStore:
        """Open the store at ``path`` (default: :func:`default_store_path`).

        With ``create=False`` a missing file raises :class:`StoreMissingError`; with
        ``create=True`` the file (and its folder) is created with an empty schema. A file that is
        not a strategy store of this ``SCHEMA_VERSION`` raises :class:`StoreSchemaError`; it is
        never modified, even with ``create=True``. ``busy_timeout`` (seconds) is how long a
        statement waits for a writer's lock before failing.
        """
        path = Path(path).expanduser() if path is not None else default_store_path()
        if not path.exists():
            if not create:
                raise StoreMissingError(
                    f"strategy store not found: {path}; {BUILD_HINT} to create it "
                    f"(or point ${ENV_VAR} at an existing store)"
                )
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.is_file():
            raise StoreSchemaError(
                f"{path} is not a file, so not a strategy store; expected an SQLite file with "
                f"schema_version {SCHEMA_VERSION}: {BUILD_HINT}"
            )

        engine = _make_engine(path, busy_timeout)
        try:
            _check_or_create_schema(engine, path, create)
            return cls(path, engine)
        except BaseException:
            engine.dispose()
            raise

    def close(self) -> None:
        """Release the database connections and the caches. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._invalidate()
            self._lookup_fairy.invalidate()  # query_only: never hand it to a writer
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"StrategyStore({str(self.path)!r})"

    # ---- writing ---------------------------------------------------------------------------

    def save_solve(
        self,
        game: str,
        algorithm: str,
        iterations: int,
        seconds: float,
        exploitability: float,
        value: float,
        strategy: Iterable[InfosetStrategy],
        trace: Iterable[TracePoint],
        solver_version: str,
        abstraction: str = "",
        nodes: Iterable[PublicNode] = (),
        value_ci95: float | None = None,
        table: TableStrategy | None = None,
    ) -> SolveInfo:
        """Store one solve with its strategy, convergence trace and public tree (optional) in a
        single transaction.  A solve too big for a row per information set passes its strategy
        as a `table` instead (and an empty `strategy`): `infoset` answers from it."""
        with self._sessions.begin() as session:
            solve = SolveRow(
                game=game,
                algorithm=algorithm,
                iterations=int(iterations),
                seconds=float(seconds),
                exploitability=float(exploitability),
                value=float(value),
                created=datetime.now(UTC),
                solver_version=solver_version,
                abstraction=abstraction,
                value_ci95=value_ci95,
            )
            session.add(solve)
            session.flush()
            sid = solve.id
            label_json: dict[tuple[str, ...], str] = {}  # few distinct action lists per game
            rows: list[tuple[Any, ...]] = []
            for s in strategy:
                labels = tuple(s.labels)
                if len(labels) != len(s.probabilities):
                    raise ValueError(
                        f"infoset {s.key!r}: {len(labels)} labels "
                        f"but {len(s.probabilities)} probabilities"
                    )
                encoded = label_json.get(labels)
                if encoded is None:
                    encoded = label_json[labels] = json.dumps([str(a) for a in labels])
                private, public = split_key(str(s.key))
                values = (None if s.values is None or any(map(math.isnan, s.values))
                          else _encode_floats(s.values))
                rows.append((sid, str(s.key), private, public, int(s.player), encoded,
                             _encode_floats(s.probabilities), values,
                             _finite_or_none(s.value), _finite_or_none(s.reach), s.node))
            if rows:
                session.connection().exec_driver_sql(_INSERT_INFOSETS, rows)
            node_rows = [(sid, int(n.idx), n.public, int(n.parent), n.label, n.kind,
                          int(n.actor)) for n in nodes]
            if node_rows:
                session.connection().exec_driver_sql(_INSERT_NODES, node_rows)
            points = [
                {
                    "solve_id": sid,
                    "iteration": int(p.iteration),
                    "seconds": float(p.seconds),
                    "exploitability": float(p.exploitability),
                    "value": float(p.value),
                }
                for p in trace
            ]
            if points:
                session.execute(insert(TraceRow), points)
            if table is not None:
                session.execute(insert(BlobRow), [
                    {"solve_id": sid, "name": name, "data": data}
                    for name, data in table.blobs().items()])
            info = _solve_info(solve)
        with self._lock:
            self._invalidate()  # data_version would catch it too; be explicit
        return info

    def delete_solve(self, solve_id: int) -> None:
        """Delete a solve with its strategy and trace. Raises ``KeyError`` if there is none."""
        with self._sessions.begin() as session:
            solve = session.get(SolveRow, solve_id)
            if solve is None:
                raise KeyError(f"no solve with id {solve_id}")
            session.execute(delete(InfosetRow).where(InfosetRow.solve_id == solve_id))
            session.execute(delete(TraceRow).where(TraceRow.solve_id == solve_id))
            session.execute(delete(BlobRow).where(BlobRow.solve_id == solve_id))
            session.delete(solve)
        with self._lock:
            self._invalidate()

    # ---- reading solves --------------------------------------------------------------------

    def solves(self, game: str | None = None) -> list[SolveInfo]:
        """All solves (of ``game`` if given), newest first."""
        stmt = select(SolveRow).order_by(*_NEWEST_FIRST)
        if game is not None:
            stmt = stmt.where(SolveRow.game == game)
        with self._sessions() as session:
            return [_solve_info(row) for row in session.scalars(stmt)]

    def latest_solve(self, game: str) -> SolveInfo | None:
        """The newest solve of ``game``, or None if it was never solved. Cached like
        :meth:`latest_solve_id` (a bot asks on every decision)."""
        with self._lock:
            sid = self._solve_id_locked(game, None)
            if sid is None:
                return None
            cached = self._infos.get(sid)
        if cached is not None:
            return cached
        info = self.solve(sid)
        if info is not None:
            with self._lock:
                self._infos[sid] = info
        return info

    def latest_solve_id(self, game: str) -> int | None:
        """The id of the newest solve of ``game``, or None if it was never solved. Cheap: one
        ``PRAGMA data_version`` while the id is cached (as for :meth:`infoset`)."""
        with self._lock:
            return self._solve_id_locked(game, None)

    def solve(self, solve_id: int) -> SolveInfo | None:
        """The solve with this id, or None."""
        with self._sessions() as session:
            row = session.get(SolveRow, solve_id)
            return None if row is None else _solve_info(row)

    def games(self) -> list[str]:
        """Games with at least one solve, sorted."""
        stmt = select(SolveRow.game).distinct().order_by(SolveRow.game)
        with self._sessions() as session:
            return list(session.scalars(stmt))

    def trace(self, solve_id: int) -> list[TracePoint]:
        """The convergence trace of a solve, by iteration. ``KeyError`` for an unknown solve."""
        stmt = (
            select(TraceRow.iteration, TraceRow.seconds, TraceRow.exploitability, TraceRow.value)
            .where(TraceRow.solve_id == solve_id)
            .order_by(TraceRow.iteration, TraceRow.id)
        )
        with self._sessions() as session:
            if session.get(SolveRow, solve_id) is None:
                raise KeyError(f"no solve with id {solve_id}")
            return [TracePoint(*row) for row in session.execute(stmt)]

    # ---- reading strategies ----------------------------------------------------------------

    def strategy(self, game: str, solve_id: int | None = None) -> dict[str, InfosetStrategy]:
        """Infoset key -> strategy of a solve of ``game`` (default: the latest one), in the
        order the solver saved them.

        Empty if ``game`` has no solve; ``KeyError`` if ``solve_id`` is not a solve of ``game``.
        The decoded solve is cached (a few solves, LRU), so repeated calls cost a dict copy.
        """
        with self._lock:
            sid = self._solve_id_locked(game, solve_id)
            if sid is None:
                return {}
            version = self._data_version
            cached = self._cache.get(sid)
            if cached is not None:
                self._cache.move_to_end(sid)
                return dict(cached)
        # Decode outside the lock so that infoset() keeps being served meanwhile.
        decoded = self._load(sid)
        with self._lock:
            if self._data_version == version:
                self._cache[sid] = decoded
                while len(self._cache) > CACHE_SOLVES:
                    self._cache.popitem(last=False)
        return dict(decoded)

    def infoset(self, game: str, key: str, solve_id: int | None = None) -> InfosetStrategy | None:
        """The strategy at one infoset of a solve of ``game`` (default: the latest one).

        None if the game has no solve or the solve has no such infoset; ``KeyError`` if
        ``solve_id`` is not a solve of ``game``. Cost: one ``PRAGMA data_version`` (to notice
        solves committed elsewhere), then a dict lookup if this infoset was looked up before (or
        :meth:`strategy` cached the solve), else one select on the (solve_id, key) unique index.
        No warm-up.
        """
        with self._lock:
            sid = self._solve_id_locked(game, solve_id)
            if sid is None:
                return None
            cached = self._cache.get(sid)
            if cached is not None:
                return cached.get(key)
            seen = self._seen.get(sid)
            if seen is None:
                seen = self._seen[sid] = {}
            elif (hit := seen.get(key)) is not None:
                return hit
            table = self._table_locked(sid)
            if table is not None:
                found = table.lookup(key)
                if found is None:
                    return None
                part, probabilities = found
                result = seen[key] = InfosetStrategy(key, part.player, part.labels,
                                                     probabilities)
                return result
            row = self._lookup.execute(_SELECT_INFOSET, (sid, key)).fetchone()
            if row is None:
                return None
            result = seen[key] = _decode_row(row, self._decode_labels(row[2]))
            return result

    def table_strategy(self, game: str, solve_id: int | None = None) -> TableStrategy | None:
        """The strategy tables of a solve of ``game`` (default: the latest one), or None if it
        has none (no solve, or one stored as rows).  Decoded once per solve (milliseconds)."""
        with self._lock:
            sid = self._solve_id_locked(game, solve_id)
            return None if sid is None else self._table_locked(sid)

    def nodes(self, game: str, *, public: str | None = None, parent: int | None = None,
              idx: int | None = None) -> list[PublicNode]:
        """Nodes of the latest solve's public tree of ``game``: those with this ``public`` key,
        the children of node ``parent``, or node ``idx`` (by index order). Empty if the game
        has no solve or the solve stored no tree."""
        with self._lock:
            sid = self._solve_id_locked(game, None)
        if sid is None:
            return []
        column, wanted = (("public", public) if public is not None else
                          ("parent", parent) if parent is not None else ("idx", idx))
        with self._engine.connect() as conn:
            rows = conn.exec_driver_sql(
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE solve_id = ? AND {column} = ? "
                "ORDER BY idx", (sid, wanted)).fetchall()
        return [PublicNode(*row) for row in rows]

    def infoset_page(
        self,
        game: str,
        *,
        prefix: str = "",
        contains: str = "",
        private: str | None = None,
        public_prefix: str = "",
        node: int | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[int, list[InfosetStrategy]]:
        """How many infosets of the latest solve of ``game`` match, and those of them from
        ``offset`` on (at most ``limit``), in the solver's order. A key matches if it starts
        with ``prefix`` and contains ``contains``, its private part is ``private`` (any if
        None), its public part starts with ``public_prefix`` and it belongs to public ``node``
        (any if None). Paged by the database: a page of a big solve costs a page, not the
        solve. (0, []) if the game has no solve."""
        with self._lock:
            sid = self._solve_id_locked(game, None)
            table = None if sid is None else self._table_locked(sid)
        if sid is None:
            return 0, []
        if table is not None:  # a table solve has no public tree: no key is in a node
            if node is not None:
                return 0, []
            total, found = table.page(prefix=prefix, contains=contains, private=private,
                                      public_prefix=public_prefix, offset=max(0, offset),
                                      limit=limit)
            return total, [InfosetStrategy(key, part.player, part.labels, probabilities)
                           for key, part, probabilities in found]
        where = ["solve_id = ?"]
        params: list[object] = [sid]
        # Ranges rather than LIKE: they use the indexes, and SQLite's LIKE ignores case.
        for column, start in (("key", prefix), ("public", public_prefix)):
            if start:
                where.append(f"{column} >= ? AND {column} < ?")
                params += [start, start + "\U0010ffff"]
        if private is not None:
            where.append("private = ?")
            params.append(private)
        if node is not None:
            where.append("node = ?")
            params.append(node)
        if contains:
            where.append("instr(key, ?) > 0")
            params.append(contains)
        condition = " AND ".join(where)
        with self._engine.connect() as conn:
            total = conn.exec_driver_sql(
                f"SELECT COUNT(*) FROM infosets WHERE {condition}", tuple(params)).scalar_one()
            rows = conn.exec_driver_sql(
                f"SELECT {_INFOSET_COLUMNS} FROM infosets WHERE {condition} "
                "ORDER BY id LIMIT ? OFFSET ?",
                (*params, -1 if limit is None else max(0, limit), max(0, offset))).fetchall()
        return int(total), _decode_rows(rows)

    def clear_cache(self) -> None:
        """Drop everything held in memory (it is rebuilt on demand)."""
        with self._lock:
            self._invalidate()

    # ---- internals -------------------------------------------------------------------------

    def _invalidate(self) -> None:
        """Drop the caches; call with the lock held."""
        self._data_version = None
        self._latest.clear()
        self._game_of.clear()
        self._cache.clear()
        self._seen.clear()
        self._infos.clear()
        self._tables.clear()
        if len(self._labels) > 10_000:
            self._labels.clear()

    def _solve_id_locked(self, game: str, solve_id: int | None) -> int | None:
        """Revalidate the caches; then ``solve_id`` (checked to be a solve of ``game``) or, if
        None, the latest solve of ``game``. Call with the lock held."""
        if self._closed:
            raise StoreError(f"{self!r} is closed")
        version = self._lookup.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._invalidate()
            self._data_version = version
        if solve_id is None:
            try:
                return self._latest[game]
            except KeyError:
                row = self._lookup.execute(_SELECT_LATEST, (game,)).fetchone()
                latest = self._latest[game] = None if row is None else row[0]
                return latest
        owner = self._game_of.get(solve_id)
        if owner is None:
            row = self._lookup.execute(_SELECT_GAME, (solve_id,)).fetchone()
            if row is None:
                raise KeyError(f"no solve with id {solve_id}")
            owner = self._game_of[solve_id] = row[0]
        if owner != game:
            raise KeyError(f"solve {solve_id} is a solve of {owner!r}, not of {game!r}")
        return solve_id

    def _table_locked(self, sid: int) -> TableStrategy | None:
        """The tables of solve `sid`, decoded on first use; call with the lock held."""
        if sid in self._tables:
            return self._tables[sid]
        rows = self._lookup.execute(_SELECT_BLOBS, (sid,)).fetchall()
        table = TableStrategy.from_blobs({name: bytes(data) for name, data in rows}) if rows \
            else None
        self._tables[sid] = table
        return table

    def _decode_labels(self, text: str) -> tuple[str, ...]:
        """Decoded action list, shared between infosets; call with the lock held."""
        labels = self._labels.get(text)
        if labels is None:
            labels = self._labels[text] = tuple(json.loads(text))
        return labels

    def _load(self, solve_id: int) -> dict[str, InfosetStrategy]:
        """Decode a whole solve, through a pooled connection (without the lock)."""
        with self._engine.connect() as conn:
            rows = conn.exec_driver_sql(_SELECT_INFOSETS, (solve_id,)).fetchall()
        if not rows:
            with self._lock:
                table = self._table_locked(solve_id)
            if table is not None:  # every key of the tables (HULHE's: a few seconds)
                return {key: InfosetStrategy(key, part.player, part.labels, probabilities)
                        for key, part, probabilities in table.page()[1]}
        return {row.key: row for row in _decode_rows(rows)}


def _decode_rows(rows: Iterable[Any]) -> list[InfosetStrategy]:
    """Rows of `_INFOSET_COLUMNS`, decoded; the few distinct action lists of a game are
    decoded once."""
    labels_of: dict[str, tuple[str, ...]] = {}
    decoded = []
    for row in rows:
        labels = labels_of.get(row[2])
        if labels is None:
            labels = labels_of[row[2]] = tuple(json.loads(row[2]))
        decoded.append(_decode_row(row, labels))
    return decoded


def _decode_row(row: Any, labels: tuple[str, ...]) -> InfosetStrategy:
    key, player, _labels, probabilities, values, value, reach, node = row
    return InfosetStrategy(key, player, labels, _decode_floats(probabilities),
                           _decode_floats(values) if values is not None else None, value, reach,
                           node)


def _finite_or_none(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _make_engine(path: Path, busy_timeout: float) -> Engine:
    engine = create_engine(
        URL.create("sqlite", database=str(path)),
        # The pool hands each connection to one thread at a time; sqlite3's own same-thread
        # check would otherwise forbid returning it to the pool from another thread.
        connect_args={"check_same_thread": False, "timeout": busy_timeout},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA synchronous = NORMAL")  # durable enough with WAL
        finally:
            cursor.close()

    return engine


def _upgrade(conn: Any) -> None:
    """Version 4 to 5 in place: the new table and column, nothing rewritten."""
    conn.exec_driver_sql("ALTER TABLE solves ADD COLUMN value_ci95 FLOAT")
    Base.metadata.create_all(conn)  # the tables that are missing: blobs
    conn.execute(update(MetaRow).where(MetaRow.key == SCHEMA_VERSION_KEY)
                 .values(value=str(SCHEMA_VERSION)))
    conn.commit()


def _check_or_create_schema(engine: Engine, path: Path, create: bool) -> None:
    rebuild = f"delete it and {BUILD_HINT}, or point ${ENV_VAR} elsewhere"
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            if not tables and create:
                conn.exec_driver_sql("PRAGMA journal_mode = WAL")
                Base.metadata.create_all(conn)
                conn.execute(
                    insert(MetaRow), {"key": SCHEMA_VERSION_KEY, "value": str(SCHEMA_VERSION)}
                )
                conn.commit()
                return
            if MetaRow.__tablename__ not in tables:
                found = ", ".join(sorted(tables)) or "none"
                raise StoreSchemaError(
                    f"{path} is an SQLite database but not a strategy store (no meta table; "
                    f"tables found: {found}); expected schema_version {SCHEMA_VERSION}: {rebuild}"
                )
            raw = conn.execute(
                select(MetaRow.value).where(MetaRow.key == SCHEMA_VERSION_KEY)
            ).scalar()
            try:
                version: int | None = int(raw) if raw is not None else None
            except ValueError:
                version = None
            if version == UPGRADABLE_VERSION:
                try:
                    _upgrade(conn)
                except DBAPIError as exc:
                    raise StoreSchemaError(
                        f"{path} has strategy store schema_version {version}, which is upgraded "
                        f"in place to {SCHEMA_VERSION} on opening, but the upgrade failed "
                        f"({exc.orig}): make the file writable, or {rebuild}") from exc
                version = SCHEMA_VERSION
            if version != SCHEMA_VERSION:
                raise StoreSchemaError(
                    f"{path} has strategy store schema_version {raw if raw is not None else 'none'}"
                    f", expected {SCHEMA_VERSION}: {rebuild}"
                )
            # Persistent in the file; a no-op if already set. Ignore read-only files.
            with contextlib.suppress(DBAPIError):
                conn.exec_driver_sql("PRAGMA journal_mode = WAL")
    except (DBAPIError, sqlite3.DatabaseError) as exc:
        raise StoreSchemaError(
            f"{path} is not a readable SQLite database ({exc.args[0] if exc.args else exc}); "
            f"expected a strategy store with schema_version {SCHEMA_VERSION}: {rebuild}"
        ) from exc
