"""Opening a store's database: the SQLite engine and its settings, the schema created in a new
file, checked in an existing one, and upgraded in place from the version before."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, insert, inspect, select, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from strategies.models import (
    SCHEMA_VERSION,
    SCHEMA_VERSION_KEY,
    UPGRADABLE_VERSION,
    Base,
    MetaRow,
)
from strategies.records import BUILD_HINT, ENV_VAR, StoreSchemaError


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


def _upgrade(conn: Any) -> None:
    """Version 4 to 5 in place: the new table and column, nothing rewritten."""
    conn.exec_driver_sql("ALTER TABLE solves ADD COLUMN value_ci95 FLOAT")
    Base.metadata.create_all(conn)  # the tables that are missing: blobs
    conn.execute(update(MetaRow).where(MetaRow.key == SCHEMA_VERSION_KEY)
                 .values(value=str(SCHEMA_VERSION)))
    conn.commit()


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
