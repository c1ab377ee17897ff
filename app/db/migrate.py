"""Bringing the play database to the current schema with Alembic (``app/db/migrations``).

`upgrade` runs at every start (`app.db.engine.create_tables`): a new database gets every table, one
made by an earlier release is migrated in place, one already current is left alone. Workers
starting together take turns: on PostgreSQL under an advisory lock held by the migrating
transaction, on SQLite under ``flock`` of a file next to the database; whoever comes second
finds the database current. On PostgreSQL the migrations run in one transaction (its DDL is
transactional), so a failed one leaves the database as it was.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:
    from alembic.config import Config

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("app.db.migrate")

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
HEAD = "0006"
"""The newest revision, written here too: a start on a database that is already current reads
its one ``alembic_version`` row and imports nothing of Alembic, which cost about half a second
of CPU at every start of every worker (`tests/app/test_db.py` keeps it equal to Alembic's
head)."""
SCHEMA_LOCK_KEY = 0x5B07_DB
"""PostgreSQL advisory lock held while migrating."""


def config(connection: Connection | None = None) -> Config:
    from alembic.config import Config  # lazily: see HEAD

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision, as Alembic finds it in the migration scripts."""
    from alembic.script import ScriptDirectory  # lazily: see HEAD

    revision: str | None = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The database's revision; None before any migration ran (new, or made by a release
    before migrations)."""
    from alembic.runtime.migration import MigrationContext  # lazily: see HEAD

    revision: str | None = MigrationContext.configure(connection).get_current_revision()
    return revision


def is_current(engine: Engine) -> bool:
    """Whether the database is at `HEAD` already, by one read and without Alembic."""
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except DBAPIError:  # no such table: a new database, or one from before migrations
        return False
    return found == [HEAD]


def upgrade(engine: Engine, revision: str = "head", attempts: int = 10) -> None:
    """Migrate the database to `revision` (default: the newest), taking turns with other
    processes; a race that slips past the lock (SQLite without ``flock``) is tried again."""
    if revision == "head" and is_current(engine):
        return
    from alembic import command  # lazily: see HEAD

    for attempt in range(1, attempts + 1):
        try:
            with _file_lock(engine), engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                 {"key": SCHEMA_LOCK_KEY})
                if revision == "head" and current(conn) == head():
                    return
                command.upgrade(config(conn), revision)
            return
        except DBAPIError as exc:
            if attempt == attempts:
                raise
            log.info("migrating raced with another process (%s); trying again",
                     str(exc.orig).strip().splitlines()[0] if exc.orig else exc)
            time.sleep(0.05 * attempt)


@contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    """Exclusive ``flock`` of ``<database>-migrate.lock`` for a SQLite file; nothing else."""
    database = engine.url.database
    if (engine.dialect.name != "sqlite" or fcntl is None or not database
            or database == ":memory:"):
        yield
        return
    try:
        fd = os.open(f"{database}-migrate.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        log.warning("no migration lock file next to %s (%s)", database, exc)
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
