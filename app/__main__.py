"""``python -m app``: build the strategy store if it is missing, then serve the app.

HOST, PORT, DATABASE_URL, STRATEGY_STORE and SECRET_KEY come from the environment
(see :mod:`app.config`). ``--workers N`` (default ``$WEB_CONCURRENCY`` or 1) serves with N worker
processes sharing the database (SQLite or PostgreSQL).
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from collections.abc import Sequence

import uvicorn

from app.config import REPO_ROOT, ConfigError, Settings


def ensure_store(settings: Settings) -> bool:
    """Build the strategy store (progress bars on the terminal) if it does not exist."""
    path = settings.strategy_store
    if path.exists():
        return True
    print(f"No strategy store at {path}: solving every game first (about a minute).",
          flush=True)
    command = [sys.executable, "-m", "solver", "build", "--store", str(path)]
    result = subprocess.run(command, cwd=REPO_ROOT, check=False)
    if result.returncode != 0:
        print(f"error: building the strategy store failed ({' '.join(command)} exited with "
              f"{result.returncode}); the app starts anyway and reports it at /healthz",
              file=sys.stderr)
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__.splitlines()[0])
    parser.add_argument("--host", help="default $HOST or 127.0.0.1")
    parser.add_argument("--port", type=int, help="default $PORT or 8000")
    parser.add_argument("--no-build", action="store_true",
                        help="do not build a missing strategy store")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes; default $WEB_CONCURRENCY or 1")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    host = args.host or settings.host
    port = args.port or settings.port
    workers = args.workers or _int(os.environ.get("WEB_CONCURRENCY")) or 1
    if workers < 1:
        print(f"error: --workers must be at least 1, got {workers}", file=sys.stderr)
        return 2
    if not args.no_build:
        ensure_store(settings)

    from app.main import create_app
    from app.serve import HTTP_PROTOCOL

    app = create_app(settings)  # creates the tables once, and reports a broken store now
    print(f"Serving on http://{host}:{port}  (API docs: http://{host}:{port}/docs)"
          + (f" with {workers} workers" if workers > 1 else ""), flush=True)
    if workers > 1:
        # Each worker builds its own app from the same environment.
        app.state.strategies.close()
        app.state.engine.dispose()
        uvicorn.run("app.main:app", host=host, port=port, workers=workers, http=HTTP_PROTOCOL,
                    log_level="info")
    else:
        uvicorn.run(app, host=host, port=port, http=HTTP_PROTOCOL, log_level="info")
    return 0


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


if __name__ == "__main__":
    sys.exit(main())
