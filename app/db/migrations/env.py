"""Alembic's environment: migrations run on the connection `app.db.migrate` hands in (inside its
lock and transaction), or, from the ``alembic`` command, on ``DATABASE_URL``'s database."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from app.db.models import (
    Account,  # noqa: F401  (its tables join Base.metadata)
    Base,
)


def run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    from app.core.config import Settings
    from app.db.engine import make_engine

    engine = make_engine(Settings.from_env().database_url)
    with engine.begin() as conn:
        run(conn)
    engine.dispose()
