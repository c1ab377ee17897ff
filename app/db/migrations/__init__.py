"""The play database's Alembic migrations (`app.db.migrate` runs them; ``alembic.ini`` points the
``alembic`` command here for writing new ones)."""
