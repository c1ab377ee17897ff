"""Counting attempts per key in fixed windows, in the database: every worker and every
instance of the app sees the same counts, and a restart forgets nothing.

One statement counts an attempt and reads the new count with its window's start (an upsert on
SQLite and PostgreSQL that starts a new window when the old one is over), so two attempts at
the same moment in two workers are both counted.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import NamedTuple, cast

from sqlalchemy import Connection, Table, case, delete, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.db.models import RateLimit

_LIMITS = cast(Table, RateLimit.__table__)


class Count(NamedTuple):
    attempts: int
    """The attempts in the current window, the one just counted included."""
    resets: datetime
    """When the window ends (and the count starts afresh)."""


def hit(connection: Connection, key: str, now: datetime, window: timedelta) -> Count:
    """Count one attempt for `key`."""
    started = now - window
    dialect = connection.dialect.name
    expired = _LIMITS.c.window_start <= started
    attempts = case((expired, 1), else_=_LIMITS.c.attempts + 1)
    window_start = case((expired, now), else_=_LIMITS.c.window_start)
    returned = (_LIMITS.c.attempts, _LIMITS.c.window_start)
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
        statement = insert(_LIMITS).values(key=key, window_start=now, attempts=1)
        counted = statement.on_conflict_do_update(
            index_elements=["key"],
            set_={"attempts": attempts, "window_start": window_start},
        ).returning(*returned)
        row = connection.execute(counted).one()
    else:
        found = connection.execute(
            update(_LIMITS).where(_LIMITS.c.key == key)
            .values(attempts=attempts, window_start=window_start).returning(*returned)).first()
        if found is None:
            connection.execute(_LIMITS.insert().values(key=key, window_start=now, attempts=1))
            return Count(1, now + window)
        row = found
    start = row[1] if row[1].tzinfo is not None else row[1].replace(tzinfo=UTC)
    return Count(int(row[0]), start + window)


def release(connection: Connection, key: str) -> None:
    """Take back one counted attempt of `key` (one that turned out not to be a failure)."""
    connection.execute(update(_LIMITS).where((_LIMITS.c.key == key) & (_LIMITS.c.attempts > 0))
                       .values(attempts=_LIMITS.c.attempts - 1))


def forget(connection: Connection, key: str) -> None:
    """Start `key` afresh (after a successful sign-in, its failures no longer count)."""
    connection.execute(delete(_LIMITS).where(_LIMITS.c.key == key))
