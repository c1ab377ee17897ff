"""The play database, in one place: its tables, engine, sessions and migrations, and the stores
that read and write its rows. Nothing here imports the services; the services call it.

==================  =========================================================================
``engine``          engines, sessions, SQLite's write lock and WAL checkpoints
``models``          the tables: matches, hands, actions; accounts, keys, totals, limits
``migrate``         bringing a database to the current schema (Alembic, ``migrations/``)
``hand_store``      matches, hands and actions: reading them, and guarded writes
``analysis_store``  the analysis of finished hands: state, the waiting hands, writing one
``player_totals``   each player's running totals per game, kept as hands finish
``credentials``     whose a signed-in session or a personal API key is
``rate_limit``      attempts counted per key in fixed windows
``statements``      constant statements compiled once and run on SQLite's own cursor
==================  =========================================================================
"""
