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

import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Engine, delete, insert, select
from sqlalchemy.orm import sessionmaker

from strategies import sql
from strategies.explore import ExplorerReads
from strategies.memo import Memo
from strategies.models import (
    SCHEMA_VERSION,
    BlobRow,
    FigureRow,
    InfosetRow,
    SolveRow,
    TraceRow,
)
from strategies.records import (
    BUILD_HINT,
    ENV_VAR,
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StoreError,
    StoreMissingError,
    StoreSchemaError,
    TracePoint,
    default_store_path,
)
from strategies.schema import check_or_create_schema, make_engine
from strategies.tables import TableStrategy

# How many decoded solves strategy() keeps in memory (a Dudo solve is ~10 MB decoded).
CACHE_SOLVES = 4

_NEWEST_FIRST = (SolveRow.created.desc(), SolveRow.id.desc())


class StrategyStore(ExplorerReads):
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
        self._decoding = threading.Lock()  # one solve's tables decoded at a time
        self._lookup_fairy = engine.raw_connection()  # discarded (not pooled) by close()
        lookup = self._lookup_fairy.driver_connection
        assert isinstance(lookup, sqlite3.Connection)
        self._lookup = lookup
        self._lookup.execute("PRAGMA query_only = ON")
        self._memo = Memo(self._lookup)  # what reads remember, until another commit
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

        Example: ``StrategyStore.open().infoset("kuhn", "K|pb")`` -> ``InfosetStrategy`` (the
        labels ("fold", "call"), probabilities about (0, 1)), or None.
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

        engine = make_engine(path, busy_timeout)
        try:
            check_or_create_schema(engine, path, create)
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
            self._memo.clear()
            self._lookup_fairy.invalidate()  # query_only: never hand it to a writer
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
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
        opponent: str = "",
        best_reply: tuple[float, float] | None = None,
        figures: Mapping[str, Any] | None = None,
    ) -> SolveInfo:
        """Store one solve with its strategy, convergence trace, public tree (optional) and
        `figures` (`strategies.figures`) in a single transaction.  A solve too big for a row
        per information set passes its strategy as a `table` instead (and an empty
        `strategy`): `infoset` answers from it.  An exploitable `opponent` (a name; empty for
        the equilibrium) is never the game's latest solve: `latest_solve(game, opponent)` and
        `opponents(game)` find it."""
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
                opponent=opponent,
                best_reply=list(map(float, best_reply)) if best_reply is not None else None,
            )
            session.add(solve)
            session.flush()
            sid = solve.id
            for statement, rows in ((sql.INSERT_INFOSETS, sql.infoset_parameters(sid, strategy)),
                                    (sql.INSERT_NODES, sql.node_parameters(sid, nodes))):
                if rows:
                    session.connection().exec_driver_sql(statement, rows)
            points = sql.trace_parameters(sid, trace)
            if points:
                session.execute(insert(TraceRow), points)
            if table is not None:
                session.execute(insert(BlobRow), [
                    {"solve_id": sid, "name": name, "data": data}
                    for name, data in table.blobs().items()])
            if figures:
                session.execute(insert(FigureRow), [
                    {"solve_id": sid, "name": name, "data": data}
                    for name, data in figures.items()])
            info = sql.solve_info(solve)
        with self._lock:
            self._memo.changed()  # data_version would catch it too; be explicit
        return info

    def save_figures(self, solve_id: int, figures: Mapping[str, Any]) -> None:
        """Store `figures` of the solve `solve_id`, in place of any of the same names.
        ``KeyError`` if there is no such solve."""
        with self._sessions.begin() as session:
            if session.get(SolveRow, solve_id) is None:
                raise KeyError(f"no solve with id {solve_id}")
            session.execute(delete(FigureRow).where(FigureRow.solve_id == solve_id,
                                                    FigureRow.name.in_(list(figures))))
            session.execute(insert(FigureRow), [{"solve_id": solve_id, "name": name,
                                                 "data": data}
                                                for name, data in figures.items()])
        with self._lock:
            self._memo.changed()

    def figures(self, solve_id: int) -> dict[str, Any]:
        """The figures stored with the solve `solve_id` (`strategies.figures`), by name; empty
        if it has none. Remembered until another commit."""
        with self._lock:
            if self._closed:
                raise StoreError(f"{self!r} is closed")
            self._memo.revalidate()
            return dict(self._memo.figures_of(solve_id))

    def delete_solve(self, solve_id: int) -> None:
        """Delete a solve with its strategy and trace. Raises ``KeyError`` if there is none."""
        with self._sessions.begin() as session:
            solve = session.get(SolveRow, solve_id)
            if solve is None:
                raise KeyError(f"no solve with id {solve_id}")
            for table in (InfosetRow, TraceRow, BlobRow, FigureRow):
                session.execute(delete(table).where(table.solve_id == solve_id))
            session.delete(solve)
        with self._lock:
            self._memo.changed()

    # ---- reading solves --------------------------------------------------------------------

    def solves(self, game: str | None = None) -> list[SolveInfo]:
        """All solves (of ``game`` if given), newest first."""
        stmt = select(SolveRow).order_by(*_NEWEST_FIRST)
        if game is not None:
            stmt = stmt.where(SolveRow.game == game)
        with self._sessions() as session:
            return [sql.solve_info(row) for row in session.scalars(stmt)]

    def latest_solve(self, game: str, opponent: str = "") -> SolveInfo | None:
        """The newest solve of ``game`` (its equilibrium; with `opponent`, the newest solve of
        that exploitable opponent), or None if there is none. Cached like
        :meth:`latest_solve_id` (a bot asks on every decision)."""
        with self._lock:
            sid = self._solve_id_locked(game, None, opponent)
            if sid is None:
                return None
            cached = self._memo.infos.get(sid)
        if cached is not None:
            return cached
        info = self.solve(sid)
        if info is not None:
            with self._lock:
                self._memo.infos[sid] = info
        return info

    def latest_solve_id(self, game: str, opponent: str = "") -> int | None:
        """The id of the newest solve of ``game`` (of its `opponent`), or None. Cheap: one
        ``PRAGMA data_version`` while the id is cached (as for :meth:`infoset`)."""
        with self._lock:
            return self._solve_id_locked(game, None, opponent)

    def opponents(self, game: str) -> list[SolveInfo]:
        """The newest solve of each exploitable opponent of ``game``, the most exploitable
        first; remembered until the next commit, as :meth:`latest_solve` (the lobby asks)."""
        with self._lock:
            self._solve_id_locked(game, None)  # revalidates what the memo remembers
            known = self._memo.opponents.get(game)
        if known is None:
            stmt = (select(SolveRow).where(SolveRow.game == game, SolveRow.opponent != "")
                    .order_by(*_NEWEST_FIRST))
            with self._sessions() as session:
                known = sql.newest_opponents(session.scalars(stmt))
            with self._lock:  # a commit since is seen by the next call's revalidation
                self._memo.opponents[game] = known
        return list(known)

    def solve(self, solve_id: int) -> SolveInfo | None:
        """The solve with this id, or None."""
        with self._sessions() as session:
            row = session.get(SolveRow, solve_id)
            return None if row is None else sql.solve_info(row)

    def games(self) -> list[str]:
        """Games with at least one solve, sorted. Remembered until another commit (one
        ``PRAGMA data_version`` then): the lobby asks on every new match."""
        with self._lock:
            if self._closed:
                raise StoreError(f"{self!r} is closed")
            self._memo.revalidate()
            if self._memo.games is None:
                self._memo.games = [row[0] for row in self._lookup.execute(sql.SELECT_GAMES)]
            return list(self._memo.games)

    def data_version(self) -> int | None:
        """A number that changes whenever a solve is committed by any other connection or
        process (SQLite's ``PRAGMA data_version``): what a reader's caches can be keyed by."""
        with self._lock:
            if self._closed:
                raise StoreError(f"{self!r} is closed")
            self._memo.revalidate()
            return self._memo.data_version

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
            version = self._memo.data_version
            cached = self._memo.solves.get(sid)
            if cached is not None:
                self._memo.solves.move_to_end(sid)
                return dict(cached)
        # Decode outside the lock so that infoset() keeps being served meanwhile.
        decoded = self._load(sid)
        with self._lock:
            if self._memo.data_version == version:
                self._memo.solves[sid] = decoded
                while len(self._memo.solves) > CACHE_SOLVES:
                    self._memo.solves.popitem(last=False)
        return dict(decoded)

    def infoset(self, game: str, key: str, solve_id: int | None = None) -> InfosetStrategy | None:
        """The strategy at one infoset of a solve of ``game`` (default: the latest one); None
        if there is none, ``KeyError`` if ``solve_id`` is not a solve of ``game``. Cost: one
        ``PRAGMA data_version``, then a dict lookup if looked up before (or :meth:`strategy`
        cached the solve), else one select on the (solve_id, key) unique index."""
        with self._lock:
            sid = self._solve_id_locked(game, solve_id)
            if sid is None:
                return None
            cached = self._memo.solves.get(sid)
            if cached is not None:
                return cached.get(key)
            seen = self._memo.seen.get(sid)
            if seen is not None and (hit := seen.get(key)) is not None:
                return hit
            decoded = sid in self._memo.tables
            table = self._memo.tables.get(sid)
        if not decoded:
            table = self._tables(sid)
        with self._lock:
            seen = self._memo.seen.setdefault(sid, {})
            if table is not None:
                found = table.lookup(key)
                if found is None:
                    return None
                part, probabilities = found
                result = seen[key] = InfosetStrategy(key, part.player, part.labels,
                                                     probabilities)
                return result
            row = self._lookup.execute(sql.SELECT_INFOSET, (sid, key)).fetchone()
            if row is None:
                return None
            result = seen[key] = sql.decode_row(row, self._memo.decode_labels(row[2]))
            return result

    def table_strategy(self, game: str, solve_id: int | None = None) -> TableStrategy | None:
        """The strategy tables of a solve of ``game`` (default: the latest one), or None if it
        has none (no solve, or one stored as rows).  Decoded once per solve (`_tables`)."""
        with self._lock:
            sid = self._solve_id_locked(game, solve_id)
        return None if sid is None else self._tables(sid)

    def clear_cache(self) -> None:
        """Drop everything held in memory (it is rebuilt on demand)."""
        with self._lock:
            self._memo.clear()

    # ---- internals -------------------------------------------------------------------------

    def _solve_id_locked(self, game: str, solve_id: int | None, opponent: str = ""
                         ) -> int | None:
        """`Memo.solve_id`, on an open store; call with the lock held."""
        if self._closed:
            raise StoreError(f"{self!r} is closed")
        return self._memo.solve_id(game, solve_id, opponent)

    def _tables(self, solve_id: int) -> TableStrategy | None:
        """The tables of a solve (None: one stored as rows), decoded on first use without
        the store's lock, so that the other reads go on meanwhile (a big solve's take
        seconds); one decoding at a time."""
        with self._lock:
            if solve_id in self._memo.tables:
                return self._memo.tables[solve_id]
        with self._decoding:
            with self._lock:
                if solve_id in self._memo.tables:
                    return self._memo.tables[solve_id]
                version = self._memo.data_version
            with self._engine.connect() as conn:
                rows = conn.exec_driver_sql(sql.SELECT_BLOBS, (solve_id,)).fetchall()
            table = (TableStrategy.from_blobs({name: bytes(data) for name, data in rows})
                     if rows else None)
            with self._lock:
                if self._memo.data_version == version:
                    self._memo.tables[solve_id] = table
        return table

    def _load(self, solve_id: int) -> dict[str, InfosetStrategy]:
        """Decode a whole solve, through a pooled connection (without the lock)."""
        with self._engine.connect() as conn:
            rows = conn.exec_driver_sql(sql.SELECT_INFOSETS, (solve_id,)).fetchall()
        if not rows:
            table = self._tables(solve_id)
            if table is not None:  # every key of the tables (HULHE's: a few seconds)
                return {key: InfosetStrategy(key, part.player, part.labels, probabilities)
                        for key, part, probabilities in table.page()[1]}
        return {row.key: row for row in sql.decode_rows(rows)}
