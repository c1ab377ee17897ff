"""What the app takes from a request's headers, and what its own server accepts: the client's
address from ``X-Forwarded-For`` only from a configured proxy (real uvicorn servers, started as
``uvicorn`` and as ``python -m app``), request heads of at most 32 KiB (431 past it), redirects
that never name the ``Host`` a request sent, and ``Secure`` cookies over HTTPS."""

from __future__ import annotations

import re
import socket
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.core.origin import relative_location
from app.main import SESSION_COOKIE, create_app
from app.web.devices import DEVICE_COOKIE
from tests.app.conftest import AppFactory
from tests.app.server import Server, start_server
from tests.app.test_accounts import signup

FORGED = "203.0.113.7"


def start(tmp_path: Path, store: Path, name: str, **kwargs: object) -> tuple[Server, Path]:
    folder = tmp_path / name
    folder.mkdir()
    database = folder / "app.sqlite"
    server = start_server(folder, database_url=f"sqlite:///{database}", store=store,
                          name=name, **kwargs)  # type: ignore[arg-type]
    return server, database


def sign_in_claiming(url: str, address: str) -> None:
    """A wrong sign-in whose request says, in ``X-Forwarded-For``, that it comes from
    `address`."""
    with httpx.Client(base_url=url, timeout=30) as client:
        form = client.get("/account").text
        match = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert match is not None
        answer = client.post("/account/signin", headers={"X-Forwarded-For": address},
                             data={"csrf_token": match.group(1), "username": "nobody",
                                   "password": "not the password"})
    assert answer.status_code == 401, answer.text


def counted_keys(database: Path) -> str:
    connection = sqlite3.connect(database)
    try:
        return " ".join(row[0] for row in connection.execute("SELECT key FROM rate_limits"))
    finally:
        connection.close()


def raw_answer(url: str, request_head: bytes, filler: int = 0) -> bytes:
    """Send `request_head` with a header of `filler` more bytes in it, over a plain socket,
    and read the answer until the server closes the connection."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=15) as sock:
        try:
            sock.sendall(request_head + b"X-Filler: ")
            chunk = b"f" * 65536
            for start in range(0, filler, len(chunk)):
                sock.sendall(chunk[:filler - start])
            sock.sendall(b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the answer, if there is one, is read below
        received = b""
        while not complete(received):
            try:
                data = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not data:
                break
            received += data
    return received


def complete(answer: bytes) -> bool:
    """Whether `answer` holds a whole HTTP response (its head and ``Content-Length`` bytes)."""
    head, found, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    return bool(found) and length is not None and len(body) >= int(length.group(1))


@pytest.fixture
def no_forwarding_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)


@pytest.mark.usefixtures("no_forwarding_in_the_environment")
@pytest.mark.slow
def test_by_default_a_forged_forwarded_for_is_ignored_and_heads_are_bounded(
        tmp_path: Path, store_path: Path) -> None:
    """Plain ``uvicorn app.main:app`` (which believes 127.0.0.1's forwarded headers unless
    told otherwise): the address counted is the connection's."""
    server, database = start(tmp_path, store_path, "uvicorn")
    try:
        head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        refused = raw_answer(server.url, head, filler=1024 * 1024)
        assert refused.startswith(b"HTTP/1.1 431 "), refused[:200]
        assert b"request line and headers may take 32 KiB at most" in refused
        taken = raw_answer(server.url, head, filler=30 * 1024)  # under the 32 KiB
        assert taken.startswith(b"HTTP/1.1 200 "), taken[:200]
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200

        sign_in_claiming(server.url, FORGED)
        keys = counted_keys(database)
        assert FORGED not in keys and "127.0.0.1" in keys, keys
    finally:
        server.stop()


@pytest.mark.usefixtures("no_forwarding_in_the_environment")
@pytest.mark.slow
def test_a_configured_proxys_forwarded_for_is_believed(tmp_path: Path,
                                                      store_path: Path) -> None:
    """``python -m app`` with ``FORWARDED_ALLOW_IPS`` naming the proxy (here the test, at
    127.0.0.1): the address counted is the one the proxy forwards."""
    server, database = start(tmp_path, store_path, "proxied", launcher="app",
                             extra_env={"FORWARDED_ALLOW_IPS": "127.0.0.1"})
    try:
        sign_in_claiming(server.url, FORGED)
        keys = counted_keys(database)
        assert FORGED in keys and "127.0.0.1" not in keys, keys
    finally:
        server.stop()


@pytest.mark.slow
def test_redirects_name_no_host_from_the_request(make_app: AppFactory) -> None:
    client = make_app().client
    for host in ("evil.example", "evil.example:8080", "testserver"):
        answer = client.get("/api/v1/games/?x=1", headers={"Host": host},
                            follow_redirects=False)
        assert answer.status_code == 307
        assert answer.headers["location"] == "/api/v1/games?x=1", host
    assert client.get("/api/v1/games/", headers={"Host": "evil.example"}).status_code == 200


def test_a_relative_location_never_names_another_host() -> None:
    assert relative_location("http://a.example//b.example/x?y#z", "a.example") == "/b.example/x?y#z"
    assert relative_location("https://b.example/x", "a.example") == "https://b.example/x"
    assert relative_location("/x", "a.example") == "/x"


@pytest.mark.parametrize("https", [False, True])
@pytest.mark.slow
def test_cookies_are_secure_when_browsers_come_over_https(tmp_path: Path, store_path: Path,
                                                          https: bool) -> None:
    settings = Settings.from_env({
        "DATABASE_URL": f"sqlite:///{tmp_path / 'app.sqlite'}", "SECRET_KEY": "secret",
        "STRATEGY_STORE": str(store_path), "APP_DATA_DIR": str(tmp_path),
        "WARM_STRATEGIES": "0", **({"HTTPS_ONLY": "1"} if https else {})})
    with TestClient(create_app(settings), base_url="https://testserver") as client:
        signed_up = signup(client)
        assert signed_up.status_code == 303
        cookies = {value.split("=", 1)[0]: {part.strip().lower() for part in value.split(";")}
                   for value in signed_up.headers.get_list("set-cookie")}
    for name in (SESSION_COOKIE, DEVICE_COOKIE):
        flags = cookies[name]
        assert ("secure" in flags) is https, name
        assert "httponly" in flags and "samesite=lax" in flags, name
