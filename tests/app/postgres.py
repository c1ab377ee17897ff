"""A throwaway PostgreSQL server for the tests, from Debian's binaries (``initdb``, ``pg_ctl``).

``scripts/setup --test`` installs the ``postgresql`` package. The server keeps its data in a
temporary folder, listens on 127.0.0.1 on a free port and is stopped at the end of the session.
As root it runs as the ``postgres`` OS user (``initdb`` refuses root). With
``TEST_POSTGRES_URL`` set (``postgresql+psycopg://user:pw@host:port/db``) that server is used
instead. Each test gets a database of its own.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from sqlalchemy.engine import URL, make_url


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _bin_dir() -> Path:
    """The newest installed PostgreSQL's bin folder."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if candidates:
        return Path(candidates[-1]).parent
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise RuntimeError(
        "PostgreSQL's server binaries (initdb, pg_ctl) were not found under "
        "/usr/lib/postgresql/*/bin or on PATH: run `scripts/setup --test` (it installs Debian's "
        "`postgresql` package), or set TEST_POSTGRES_URL to a server the tests may use"
    )


@dataclass
class PostgresServer:
    """A running server; `url` is a SQLAlchemy URL of its maintenance database."""

    url: URL

    def _admin(self) -> psycopg.Connection:
        conninfo = self.url.set(drivername="postgresql").render_as_string(hide_password=False)
        return psycopg.connect(conninfo, autocommit=True, connect_timeout=10)

    def create_database(self) -> str:
        """A new empty database; its SQLAlchemy URL (psycopg 3 driver)."""
        name = f"test_{uuid.uuid4().hex[:12]}"
        with self._admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url.set(drivername="postgresql+psycopg", database=name).render_as_string(
            hide_password=False)

    def drop_database(self, url: str) -> None:
        name = make_url(url).database
        with contextlib.suppress(psycopg.Error), self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """``TEST_POSTGRES_URL``'s server, or a new one (stopped and deleted on exit)."""
    external = os.environ.get("TEST_POSTGRES_URL", "").strip()
    if external:
        server = PostgresServer(make_url(external))
        with server._admin():  # fail early with the driver's message if it is unreachable
            pass
        yield server
        return
    bin_dir = _bin_dir()
    root = Path(tempfile.mkdtemp(prefix="test-postgres-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
    data, log = root / "data", root / "server.log"
    try:
        subprocess.run(
            _as_postgres([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                          "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]),
            check=True, capture_output=True, text=True, timeout=120,
        )
        port = 0
        for _attempt in range(5):
            port = free_port()
            options = (f"-c listen_addresses=127.0.0.1 -p {port} "
                       f"-c unix_socket_directories={root} -c max_connections=300 "
                       "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
            started = subprocess.run(
                _as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w",
                              "-t", "60", "-o", options, "start"]),
                capture_output=True, text=True, timeout=90, check=False,
            )
            if started.returncode == 0:
                break
            time.sleep(0.2)
        else:
            text = log.read_text() if log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {started.stderr}\n{text[-2000:]}")
        server = PostgresServer(URL.create("postgresql", username="postgres", host="127.0.0.1",
                                           port=port, database="postgres"))
        try:
            yield server
        finally:
            subprocess.run(
                _as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w",
                              "stop"]),
                capture_output=True, timeout=60, check=False,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
