"""Opening a store's database: the SQLite engine and its settings, the schema created in a new
file, checked in an existing one, and upgraded in place from the version before."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, insert, inspect, select, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from strategies.figures import import_side_files
from strategies.models import (
    SCHEMA_VERSION,
    SCHEMA_VERSION_KEY,
    UPGRADABLE_VERSIONS,
    Base,
    MetaRow,
)
from strategies.records import BUILD_HINT, ENV_VAR, StoreSchemaError

log = logging.getLogger("strategies")


def make_engine(path: Path, busy_timeout: float) -> Engine:
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


def _stored_version(conn: Any) -> tuple[str | None, int | None]:
    """The version as the meta table writes it, and as a number (None if it is not one)."""
    raw = conn.execute(select(MetaRow.value).where(MetaRow.key == SCHEMA_VERSION_KEY)).scalar()
    try:
        return raw, int(raw) if raw is not None else None
    except ValueError:
        return raw, None


def _upgrade(conn: Any, path: Path) -> tuple[str | None, int | None]:
    """An older version to the current one in place: the new tables, columns and index, and
    the files version 6 kept beside the store taken in (`strategies.figures`); nothing
    rewritten. In one write transaction, so that of several processes opening the store at
    once one upgrades it and the others find it done."""
    conn.exec_driver_sql("BEGIN IMMEDIATE")
    raw, version = _stored_version(conn)
    if version is None or version not in UPGRADABLE_VERSIONS:
        conn.rollback()
        return raw, version
    if version < 5:
        conn.exec_driver_sql("ALTER TABLE solves ADD COLUMN value_ci95 FLOAT")
    if version < 6:
        conn.exec_driver_sql("ALTER TABLE solves ADD COLUMN opponent VARCHAR DEFAULT '' "
                             "NOT NULL")
        conn.exec_driver_sql("ALTER TABLE solves ADD COLUMN best_reply JSON")
        conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_solves_game_opponent_created "
                             "ON solves (game, opponent, created, id)")
    Base.metadata.create_all(conn)  # the tables that are missing: blobs, figures
    taken = import_side_files(conn, path)
    conn.execute(update(MetaRow).where(MetaRow.key == SCHEMA_VERSION_KEY)
                 .values(value=str(SCHEMA_VERSION)))
    conn.commit()
    if taken:
        log.info("%s: the tables of winning chances of %s, kept beside it until now, are "
                 "inside it", path, ", ".join(taken))
    return str(SCHEMA_VERSION), SCHEMA_VERSION


def check_or_create_schema(engine: Engine, path: Path, create: bool) -> None:
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
            raw, version = _stored_version(conn)
            if version in UPGRADABLE_VERSIONS:
                conn.rollback()  # the upgrade reads the version again, in its transaction
                try:
                    raw, version = _upgrade(conn, path)
                except DBAPIError as exc:
                    raise StoreSchemaError(
                        f"{path} has strategy store schema_version {version}, which is upgraded "
                        f"in place to {SCHEMA_VERSION} on opening, but the upgrade failed "
                        f"({exc.orig}): make the file writable, or {rebuild}") from exc
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
