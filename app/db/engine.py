"""The play database: engine, sessions and its schema (SQLAlchemy 2.0, any URL; migrations in
`app.db.migrate`).

SQLite (the default) and PostgreSQL (``postgresql+psycopg://...``) are tested; several worker
processes or app instances may share one database, and may all start at once.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from app.db.migrate import upgrade

log = logging.getLogger("app.db.engine")

def make_engine(database_url: str, **options: Any) -> Engine:
    """An engine for `database_url`; SQLite files get WAL, foreign keys and a busy timeout.
    `options` go to ``create_engine`` (over the pool sizes chosen here)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        # Up to 30 connections per process: most of uvicorn's 40 request threads get one
        # without waiting, and two workers stay well under PostgreSQL's 100 connections.
        return create_engine(url, **{"pool_pre_ping": True, "pool_size": 10, "max_overflow": 20,
                                     **options})
    memory = not url.database or url.database == ":memory:"
    if memory:
        # One shared connection, or every thread would see its own empty database.
        engine = create_engine(url, connect_args={"check_same_thread": False},
                               poolclass=StaticPool)
    else:
        Path(str(url.database)).expanduser().parent.mkdir(parents=True, exist_ok=True)
        # A connection for each of uvicorn's 40 request threads: SQLite connections are cheap,
        # and a request never waits for the pool.
        engine = create_engine(url, **{"connect_args": {"check_same_thread": False, "timeout": 30},
                                       "pool_size": 20, "max_overflow": 30, **options})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not memory:
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.execute("PRAGMA synchronous = NORMAL")  # durable across app crashes
                # Checkpoints are WalCheckpointer's job; this only bounds the WAL if it is not
                # running (a script, a test without the app's lifespan).
                cursor.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
                # A log that was reset (all of it checkpointed, no reader on it) is cut back
                # to this size rather than kept at its largest.
                cursor.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")
        finally:
            cursor.close()

    return engine


BUSY_TIMEOUT_MS = 30_000
"""How long a connection waits for another's lock before it gives up."""

WAL_LIMIT_BYTES = 16 * 1024 * 1024
"""Bound on the write-ahead log's file. Under steady load some request is always reading, so
the log was never reset to its start (a reset needs a moment with no reader on it) and grew to
82 MB beside a 62 MB database; `WalCheckpointer` truncates it once it passes this size, and
``journal_size_limit`` cuts it back to this size whenever it is reset."""

AUTOCHECKPOINT_PAGES = WAL_LIMIT_BYTES // 4096
"""WAL size (pages of 4 KiB) at which a commit checkpoints by itself when no `WalCheckpointer`
runs. SQLite's default is 1,000, which under load made one commit in two hundred wait for the
checkpoint's fsync; with the checkpointer running, the log never gets near this size."""

CHECKPOINT_SECONDS = 1.0
"""How often `WalCheckpointer` checkpoints: the log grows by what is written meanwhile."""

TRUNCATE_WAIT_MS = 200
"""How long a truncating checkpoint waits for the readers on the log (then it is tried again
after the next interval): writers wait for it meanwhile, so it is kept short."""


class WalCheckpointer:
    """Copies a SQLite database's write-ahead log back into the database file every `interval`
    seconds, in a thread of its own.

    Left to itself, SQLite checkpoints inside the commit that crosses 1,000 pages of log: that
    commit then waits for two fsyncs (10-25 ms on the 2-core VM of the load test), and since the
    app runs SQLite work on the event loop (:class:`app.deps.Backend`), so does every request
    of that worker. A PASSIVE checkpoint from here never blocks readers or writers; several
    processes may each run one (a checkpoint already under way makes the others skip).

    A passive checkpoint copies the log back but leaves the file as long as it was; once the
    file is over `limit` bytes (`WAL_LIMIT_BYTES`), a TRUNCATE checkpoint waits a moment for
    the readers of older snapshots, copies the rest back and empties the file."""

    def __init__(self, engine: Engine, interval: float | None = None,
                 limit: int | None = None) -> None:
        self.engine = engine
        self.interval = CHECKPOINT_SECONDS if interval is None else interval
        self.limit = WAL_LIMIT_BYTES if limit is None else limit
        self.truncations = 0
        """Truncating checkpoints done (for the logs and the tests)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @staticmethod
    def wanted(engine: Engine) -> bool:
        """Only file-backed SQLite databases have a write-ahead log to checkpoint."""
        database = engine.url.database
        return (engine.dialect.name == "sqlite" and bool(database)
                and database != ":memory:")

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="wal-checkpoint",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def checkpoint(self) -> None:
        with self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            if self.wal_size() > self.limit:
                self._truncate(conn)

    def wal_path(self) -> Path:
        return Path(f"{self.engine.url.database}-wal")

    def wal_size(self) -> int:
        """The log file's size in bytes (0 without one)."""
        try:
            return self.wal_path().stat().st_size
        except OSError:
            return 0

    def _truncate(self, conn: Connection) -> None:
        conn.exec_driver_sql(f"PRAGMA busy_timeout = {TRUNCATE_WAIT_MS}")
        try:
            busy, _, _ = conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
        finally:
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not busy:
            self.truncations += 1
            log.debug("write-ahead log truncated (checkpoint %d)", self.truncations)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.checkpoint()
            except DBAPIError as exc:  # locked, or the file went away: try again next time
                log.warning("WAL checkpoint failed: %s", exc.orig or exc)


def create_tables(engine: Engine) -> None:
    """Bring the database to the current schema (`app.db.migrate`): create it if it is new,
    migrate one made by an earlier release; safe when several processes start at once."""
    upgrade(engine)


class SqliteWriterLock:
    """One writer at a time on a SQLite database: the threads of a process queue on a
    ``threading.Lock``, the processes on ``flock`` of a file next to the database
    (``<database>-writer.lock``). Either hands over the moment the writer is done, where
    SQLite's own busy handler sleeps and polls (1, 2, 5, 10 ... ms); with the app's SQLite work
    on the event loop (:class:`app.deps.Backend`) that sleep stalled the whole worker. Where
    ``flock`` is unavailable (Windows, a read-only folder) processes fall back on SQLite's
    lock and busy timeout."""

    def __init__(self, database: str | None) -> None:
        self._threads = threading.Lock()
        self._fd: int | None = None
        if fcntl is not None and database and database != ":memory:":
            try:
                self._fd = os.open(f"{database}-writer.lock", os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as exc:
                log.warning("no writer lock file next to %s (%s): writers of several "
                            "processes wait on SQLite's busy timeout instead", database, exc)
            else:
                weakref.finalize(self, os.close, self._fd)

    def __enter__(self) -> None:
        self._threads.acquire()
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            except BaseException:
                self._threads.release()
                raise

    def __exit__(self, *_exc: object) -> None:
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._threads.release()


_SQLITE_WRITERS: weakref.WeakKeyDictionary[Engine, SqliteWriterLock] = (
    weakref.WeakKeyDictionary())
_SQLITE_WRITERS_LOCK = threading.Lock()


def write_lock(session: Session) -> AbstractContextManager[Any]:
    """Hold this around a write transaction (first write to commit). On SQLite, one writer at
    a time (:class:`SqliteWriterLock`). A no-op on other databases, whose writers do not block
    each other.

    The session's connection is taken from the pool *before* waiting for the lock: a thread
    must never hold the lock while it waits for a connection that the threads queued behind it
    hold (a deadlock until the pool's timeout)."""
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        return nullcontext()
    engine = connection.engine
    lock = _SQLITE_WRITERS.get(engine)
    if lock is None:
        with _SQLITE_WRITERS_LOCK:
            lock = _SQLITE_WRITERS.get(engine)
            if lock is None:
                lock = _SQLITE_WRITERS[engine] = SqliteWriterLock(engine.url.database)
    return lock


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
