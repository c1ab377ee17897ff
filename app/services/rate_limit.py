"""Counting attempts per key in fixed windows, in the database: every worker and every
instance of the app sees the same counts, and a restart forgets nothing.

One statement counts an attempt and reads the new count (an upsert on SQLite and PostgreSQL
that starts a new window when the old one is over), so two attempts at the same moment in two
workers are both counted.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Connection, Table, case, delete, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.models_players import RateLimit

_LIMITS = cast(Table, RateLimit.__table__)


def hit(connection: Connection, key: str, now: datetime, window: timedelta) -> int:
    """Count one attempt for `key`; the attempts in its current window, this one included."""
    started = now - window
    dialect = connection.dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
        statement = insert(_LIMITS).values(key=key, window_start=now, attempts=1)
        expired = _LIMITS.c.window_start <= started
        counted = statement.on_conflict_do_update(
            index_elements=["key"],
            set_={"attempts": case((expired, 1), else_=_LIMITS.c.attempts + 1),
                  "window_start": case((expired, now), else_=_LIMITS.c.window_start)},
        ).returning(_LIMITS.c.attempts)
        return int(connection.execute(counted).scalar_one())
    row = connection.execute(
        update(_LIMITS).where(_LIMITS.c.key == key)
        .values(attempts=case((_LIMITS.c.window_start <= started, 1),
                              else_=_LIMITS.c.attempts + 1),
                window_start=case((_LIMITS.c.window_start <= started, now),
                                  else_=_LIMITS.c.window_start))
        .returning(_LIMITS.c.attempts)).first()
    if row is not None:
        return int(row[0])
    connection.execute(_LIMITS.insert().values(key=key, window_start=now, attempts=1))
    return 1


def forget(connection: Connection, key: str) -> None:
    """Start `key` afresh (after a successful sign-in, its failures no longer count)."""
    connection.execute(delete(_LIMITS).where(_LIMITS.c.key == key))
