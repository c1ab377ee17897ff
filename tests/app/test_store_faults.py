"""Strategy store faults against a real server process: a missing, corrupt (garbage bytes),
old-schema or foreign store is named at start-up with its path and the fix, and every game
then answers a clear 503 (API and pages), never a 500 or a traceback; a store corrupted while
hands are open does the same mid-hand, keeps the player's move, and once the store is rebuilt
the hands go on.
"""

from __future__ import annotations

import html
import os
import re
import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from tests.app.server import Server, start_server
from tests.conftest import copy_store

API = "/api/v1"
FIX = "python -m solver build"


def csrf_token(client: httpx.Client) -> str:
    """The session's CSRF token, as a browser gets it: from a page's meta tag."""
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', client.get("/").text)
    assert match is not None
    return html.unescape(match.group(1))


def make_fault(kind: str, path: Path, good: Path) -> None:
    if kind == "missing":
        return
    if kind == "garbage":
        path.write_bytes(os.urandom(64 * 1024))
    elif kind == "old-schema":
        copy_store(good, path)
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    elif kind == "not-a-store":
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    else:
        raise AssertionError(kind)


def assert_no_500(server: Server) -> None:
    log = server.log()
    assert "Traceback" not in log, log
    assert " 500 " not in log, log


@pytest.mark.parametrize(
    ("kind", "launcher"),
    [("missing", "app"), ("garbage", "uvicorn"), ("old-schema", "app"),
     ("not-a-store", "uvicorn")],
)
@pytest.mark.slow
def test_broken_store_at_startup(kind: str, launcher: str, tmp_path: Path,
                                 store_path: Path) -> None:
    store = tmp_path / f"{kind}.sqlite"
    make_fault(kind, store, store_path)
    server = start_server(tmp_path, database_url=f"sqlite:///{tmp_path / 'app.sqlite'}",
                          store=store, launcher=launcher, ready_status=503)
    try:
        # Start-up names the file and the fix; the answers name the file, not where it lives.
        startup = server.log()
        assert str(store) in startup and FIX in startup, startup
        with httpx.Client(base_url=server.url, timeout=30) as client:
            health = client.get("/healthz")
            assert health.status_code == 503
            assert health.json()["status"] == "unavailable"
            assert store.name in health.json()["store_error"]
            assert str(tmp_path) not in health.text
            games = client.get(f"{API}/games")
            assert games.status_code == 200
            assert not any(g["available"] for g in games.json())
            for response in (
                client.post(f"{API}/matches", json={"game": "kuhn"}),
                client.get(f"{API}/games/kuhn/strategy"),
                client.get(f"{API}/games/leduc/convergence"),
            ):
                assert response.status_code == 503, response.text
                detail = response.json()["detail"]
                assert store.name in detail and FIX in detail, detail
                assert str(tmp_path) not in detail, detail
            # The pages: the lobby says why; a game's page and starting a match are 503 pages.
            lobby = client.get("/")
            assert lobby.status_code == 200 and FIX in html.unescape(lobby.text)
            token = csrf_token(client)
            for response in (client.get("/play/dudo"),
                             client.post("/play/dudo", data={"csrf_token": token})):
                assert response.status_code == 503
                assert response.headers["content-type"].startswith("text/html")
                assert FIX in html.unescape(response.text)
    finally:
        server.stop()
    assert_no_500(server)


@pytest.fixture
def store_copy(tmp_path: Path, store_path: Path) -> Path:
    return copy_store(store_path, tmp_path / "strategies.sqlite")


def corrupt_in_place(path: Path) -> None:
    """Garbage over every page but the header's: the file is still there, but unreadable."""
    with open(path, "r+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(100)
        handle.write(os.urandom(size - 100))


def rebuild(path: Path, good: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    copy_store(good, path)


@pytest.mark.slow
def test_store_corrupted_while_hands_are_open(tmp_path: Path, store_copy: Path,
                                              store_path: Path) -> None:
    # Not warmed: a warmed worker holds the rows its warm-up hands read and would play the
    # bot's next move from memory; this is about what a read of the broken file answers.
    server = start_server(tmp_path, database_url=f"sqlite:///{tmp_path / 'app.sqlite'}",
                          store=store_copy, extra_env={"WARM_STRATEGIES": "0"})
    try:
        with httpx.Client(base_url=server.url, timeout=30) as api, \
                httpx.Client(base_url=server.url, timeout=30) as browser:
            # A hand over the API and one in a browser, both waiting for the player.
            created = api.post(f"{API}/matches", json={"game": "leduc"}).json()
            headers = {"Authorization": f"Bearer {created['token']}"}
            view = api.post(f"{API}/matches/{created['match_id']}/hands", headers=headers).json()
            assert view["to_act"] == "you"
            token = csrf_token(browser)
            started = browser.post("/play/kuhn", data={"csrf_token": token})
            assert started.status_code == 303
            table_url = started.headers["location"]
            table = browser.get(table_url)
            assert table.status_code == 200
            hand_id = re.search(r'name="hand" value="([0-9a-f]{32})"', table.text)
            seq = re.search(r'name="seq" value="(\d+)"', table.text)
            assert hand_id is not None and seq is not None

            corrupt_in_place(store_copy)

            # The player's move: a 503 that names the file (not where it lives) and the fix,
            # and the move is kept.
            response = api.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                json={"action": "check", "seq": view["seq"]})
            assert response.status_code == 503, response.text
            detail = response.json()["detail"]
            assert store_copy.name in detail and FIX in detail, detail
            assert str(store_copy.parent) not in detail, detail
            looked = api.get(f"{API}/hands/{view['hand_id']}", headers=headers)
            assert looked.status_code == 200  # looking never writes: the bot owes a move
            assert looked.json()["to_act"] == "bot"
            resume = f"{API}/hands/{view['hand_id']}/resume"
            assert resume in detail
            assert api.post(resume, headers=headers).status_code == 503
            assert api.post(f"{API}/matches", json={"game": "kuhn"}).status_code == 503
            assert api.get("/healthz").status_code == 503
            # The same in the browser: friendly 503 pages.
            response = browser.post(f"{table_url}/act", data={
                "action": "check", "hand": hand_id.group(1), "seq": seq.group(1),
                "csrf_token": token})
            assert response.status_code == 503, response.text
            assert response.headers["content-type"].startswith("text/html")
            assert FIX in html.unescape(response.text)
            waiting = browser.get(table_url)
            assert waiting.status_code == 200 and "Let the bot move" in waiting.text
            response = browser.post(f"{table_url}/resume", data={"csrf_token": token})
            assert response.status_code == 503 and FIX in html.unescape(response.text)

            rebuild(store_copy, store_path)

            # Back within the store's retry interval: the bot answers the kept moves.
            deadline = time.monotonic() + 15
            while api.get("/healthz").status_code != 200:
                assert time.monotonic() < deadline, "the rebuilt store was not picked up"
                time.sleep(0.2)
            resumed = api.post(resume, headers=headers)
            assert resumed.status_code == 200, resumed.text
            hand = resumed.json()
            moves = [e for e in hand["events"] if e["actor"] != "chance"]
            assert moves[0]["actor"] == "you" and moves[0]["label"] == "check"
            assert len(moves) >= 2 and moves[1]["actor"] == "bot"
            while hand["status"] == "in_progress":
                response = api.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                                    json={"action": hand["legal_actions"][0],
                                          "seq": hand["seq"]})
                assert response.status_code == 200, response.text
                hand = response.json()
            results = api.get(f"{API}/matches/{created['match_id']}", headers=headers).json()
            assert results["hands_played"] == 1
            response = browser.post(f"{table_url}/resume", data={"csrf_token": token})
            assert response.status_code == 303
            table = browser.get(table_url)
            assert table.status_code == 200
            assert "check" in table.text and "Let the bot move" not in table.text
    finally:
        server.stop()
    assert_no_500(server)
