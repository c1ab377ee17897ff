"""``python -m app``: build the strategy store if it is missing, then serve the app.

HOST, PORT, DATABASE_URL, STRATEGY_STORE, SECRET_KEY, FORWARDED_ALLOW_IPS and HTTPS_ONLY come
from the environment (see :mod:`app.core.config`). ``--workers N`` (default ``$WEB_CONCURRENCY`` or
1) serves with N worker processes sharing the database (SQLite or PostgreSQL).
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Sequence

import uvicorn

from app.core.config import REPO_ROOT, ConfigError, Settings
from app.core.serve import HTTP_PROTOCOL
from app.main import create_app
from solver.runs.build_status import background_games, background_opponents
from solver.runs.figures import lacking_style
from strategies import StoreSchemaError, StrategyStore

FIRST_BUILD = ("about three minutes on an idle two-core machine, most of it compiling the "
               "solver's kernels the first time, and longer on a busy one")
"""How long ``python -m solver build`` takes on a fresh clone: 161 CPU seconds, 45 once its
kernels are compiled (measured on a two-core machine)."""


def ensure_store(settings: Settings) -> bool:
    """Build the strategy store (progress bars on the terminal) if it does not exist, or if it
    was written by an older release (that one is kept beside it, renamed)."""
    path = settings.strategy_store
    if path.exists():
        try:
            StrategyStore.open(path).close()
            return True
        except StoreSchemaError as exc:
            if not path.is_file() or "no meta table" in str(exc):
                return True  # not a store of ours to replace: /healthz reports it
            kept = path.with_name(f"{path.name}.old")
            path.replace(kept)
            print(f"The strategy store {path} cannot be used ({exc}); it was renamed to "
                  f"{kept.name} and is rebuilt now.", flush=True)
    print(f"No strategy store at {path}: solving the quick games first ({FIRST_BUILD}; "
          "progress below).", flush=True)
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

    if (problem := port_problem(host, port)) is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if not args.no_build:
        start_background_build(settings)
    app = create_app(settings)  # creates the tables once, and reports a broken store now
    announcement = (f"Serving on http://{host}:{port}  (API docs: http://{host}:{port}/docs)"
                    + (f" with {workers} workers" if workers > 1 else ""))
    if workers > 1:
        # Each worker builds its own app from the same environment; uvicorn's supervisor
        # binds the socket before it starts them.
        app.state.strategies.close()
        app.state.engine.dispose()
        print(announcement, flush=True)
        uvicorn.run("app.main:app", host=host, port=port, workers=workers, http=HTTP_PROTOCOL,
                    proxy_headers=False, log_level="info")
    else:
        # proxy_headers=False: the app believes the proxies it is configured to (app.core.origin).
        config = uvicorn.Config(app, host=host, port=port, http=HTTP_PROTOCOL,
                                proxy_headers=False, log_level="info")
        AnnouncingServer(config, announcement).run()
    return 0


def start_background_build(settings: Settings) -> subprocess.Popen[bytes] | None:
    """Build the strategies that take long (the lobby's games beyond `solver build`'s, and
    their thinking opponents), and the style figures a store of an earlier version lacks, in a
    process of their own at a lower priority, while the app serves the games that are ready;
    the lobby shows its progress.
    It stops with the app (same process group) and carries on from where it stopped at the
    next start. None if there is nothing to build."""
    games = background_games(str(settings.strategy_store))
    opponents = background_opponents(str(settings.strategy_store))
    figures = lacking_style(str(settings.strategy_store))
    if not games and not opponents and not figures:
        return None
    log_path = settings.data_dir / "build.log"
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "solver", "build", "--background", "--store",
               str(settings.strategy_store), "--status-file", str(settings.build_status)]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   preexec_fn=lambda: os.nice(10))
    if figures:
        print(f"Working out the style figures of {', '.join(figures)} in the background (a "
              f"store of an earlier version has none; the profile shows them once they are "
              f"ready; the log is {log_path}).", flush=True)
    building = [*games, *(f"{game}'s opponent {name}" for game, name in opponents)]
    if building:
        print(f"Building {', '.join(building)} in the background (the lobby shows how far it "
              f"has come; the log is {log_path}); the other games can be played meanwhile.",
              flush=True)
    return process


class AnnouncingServer(uvicorn.Server):
    """uvicorn's server, saying where it serves once its socket is bound (not before)."""

    def __init__(self, config: uvicorn.Config, announcement: str) -> None:
        super().__init__(config)
        self.announcement = announcement

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self.announcement, flush=True)


def port_problem(host: str, port: int) -> str | None:
    """Why the app could not listen on (host, port), in words, or None if it can."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is already in use (another copy of the app, or "
                        f"another program); stop it, or pick another port: PORT={port + 1} "
                        "scripts/run")
            return (f"cannot listen on {host}:{port} ({exc.strerror or exc}); set HOST and PORT "
                    "to an address of this machine and a free port")
    return None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


if __name__ == "__main__":
    sys.exit(main())
