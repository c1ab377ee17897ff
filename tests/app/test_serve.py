"""How the app is served: TCP_NODELAY on every connection, the start-up objects out of the
garbage collector's reach, and SQLite work on the event loop (PostgreSQL's in the pool)."""

from __future__ import annotations

import asyncio
import gc
import os
import random
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.serve import set_nodelay
from app.db.engine import make_engine, make_sessionmaker
from app.deps import Backend
from app.main import create_app, freeze_startup_objects
from app.services import StoredStrategyBot, StrategySource
from tests.conftest import REPO_ROOT


class _Transport(asyncio.BaseTransport):
    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self._sock = sock

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._sock if name == "socket" else default


def test_set_nodelay_on_a_socket_accepted_from_a_proto_0_listener() -> None:
    """uvicorn with several workers binds its listener with proto 0; the accepted socket then
    has Nagle's algorithm on until set_nodelay turns it off."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()) as _client:
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
                set_nodelay(_Transport(accepted))
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_set_nodelay_ignores_unix_sockets() -> None:
    left, right = socket.socketpair()
    with left, right:
        set_nodelay(_Transport(left))  # no TCP option on a Unix socket: nothing to do, no error


@pytest.mark.slow
def test_freeze_startup_objects_moves_them_to_the_permanent_generation() -> None:
    gc.unfreeze()
    try:
        kept = [object() for _ in range(100)]
        freeze_startup_objects()
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()


@pytest.mark.slow
def test_app_freezes_at_startup_and_checkpoints_in_the_background(
    tmp_path: Path, store_path: Path
) -> None:
    from fastapi.testclient import TestClient

    gc.unfreeze()
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'app.sqlite'}",
                        strategy_store=store_path, secret_key="test", data_dir=tmp_path)
    try:
        with TestClient(create_app(settings)) as client:
            assert gc.get_freeze_count() > 0
            assert client.get("/healthz").status_code == 200
            assert "wal-checkpoint" in {t.name for t in threading.enumerate()}
        assert "wal-checkpoint" not in {t.name for t in threading.enumerate()}
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("inline", [True, False])
def test_backend_runs_the_work_inline_or_in_the_pool(tmp_path: Path, store_path: Path,
                                                      inline: bool) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'app.sqlite'}")
    source = StrategySource(store_path)
    backend = Backend(make_sessionmaker(engine), source, StoredStrategyBot(source),
                      random.Random(1), inline=inline)
    seen: list[tuple[threading.Thread, bool]] = []

    def work(session: Session) -> int:
        seen.append((threading.current_thread(), session.is_active))
        return 7

    async def main() -> int:
        return await backend.run(work)

    # A loop of its own in a thread of its own: a session's browser (Playwright's sync API)
    # keeps a loop running in the main thread of the worker that drives it.
    results: list[int] = []
    loop_thread = threading.Thread(target=lambda: results.append(asyncio.run(main())))
    loop_thread.start()
    loop_thread.join(timeout=60)
    assert results == [7]
    ((thread, active),) = seen
    assert active
    assert (thread is loop_thread) == inline
    engine.dispose()


@pytest.mark.slow
def test_a_taken_port_is_named_before_anything_is_announced(tmp_path: Path,
                                                             store_path: Path) -> None:
    """``python -m app`` on a port another program holds: it says which port and how to pick
    another, exits 2, and never claims to be serving."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PORT": str(port),
               "HOST": "127.0.0.1", "STRATEGY_STORE": str(store_path),
               "APP_DATA_DIR": str(tmp_path / "data")}
        done = subprocess.run([sys.executable, "-m", "app", "--no-build"], cwd=REPO_ROOT,
                              env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr
    assert f"PORT={port + 1} scripts/run" in done.stderr
    assert "Serving on" not in done.stdout + done.stderr
