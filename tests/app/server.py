"""The app as a real server process for end-to-end tests: ``uvicorn app.main:app`` on 127.0.0.1.

Each server runs in a session (process group) of its own, so that stopping it, or killing it
with SIGKILL to simulate a crash, reaches its worker processes too and nothing else.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from app.core.serve import HTTP_PROTOCOL

REPO_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    workers: int
    env: dict[str, str] = field(default_factory=dict)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self, sig: signal.Signals = signal.SIGKILL) -> None:
        """Send `sig` to the server and its workers (its own process group) and reap it."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        if sig != signal.SIGKILL:
            # Workers of a multi-worker server exit with it; make sure none is left behind.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)

    def stop(self) -> None:
        self.kill(signal.SIGTERM)


def start_server(
    tmp: Path,
    *,
    database_url: str,
    store: Path,
    workers: int = 1,
    name: str = "server",
    ready_status: int | None = 200,
    timeout: float = 90.0,
    extra_env: dict[str, str] | None = None,
    launcher: str = "uvicorn",
) -> Server:
    """Start ``uvicorn app.main:app`` (or, with ``launcher="app"``, ``python -m app``) with
    `workers` workers and wait until every worker has started and ``/healthz`` answers (with
    `ready_status`, unless None: any answer)."""
    port = free_port()
    log_path = tmp / f"{name}-{port}.log"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "DATABASE_URL": database_url,
        "STRATEGY_STORE": str(store),
        "SECRET_KEY": "test-secret-key",
        "APP_DATA_DIR": str(tmp / "data"),
        **(extra_env or {}),
    }
    if launcher == "uvicorn":
        command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
                   "--port", str(port), "--workers", str(workers), "--log-level", "info",
                   "--no-access-log", "--http", HTTP_PROTOCOL]
    else:  # the app's own launcher, as scripts/run and the Docker image start it
        command = [sys.executable, "-m", "app", "--no-build", "--host", "127.0.0.1",
                   "--port", str(port), "--workers", str(workers)]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    server = Server(process, f"http://127.0.0.1:{port}", log_path, workers, env)
    try:
        wait_ready(server, ready_status, timeout)
    except BaseException:
        server.kill()
        raise
    return server


def wait_ready(server: Server, ready_status: int | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=server.url, timeout=5.0) as client:
        while time.monotonic() < deadline:
            if not server.alive():
                raise RuntimeError(f"the server exited with {server.process.returncode}:\n"
                                   f"{server.log()[-4000:]}")
            started = server.log().count("Application startup complete")
            if started >= server.workers:
                try:
                    response = client.get("/healthz")
                except httpx.TransportError:
                    pass
                else:
                    if ready_status is None or response.status_code == ready_status:
                        return
                    raise RuntimeError(f"/healthz answered {response.status_code}: "
                                       f"{response.text}\n{server.log()[-4000:]}")
            time.sleep(0.05)
    raise RuntimeError(f"the server did not start within {timeout} s:\n{server.log()[-4000:]}")
