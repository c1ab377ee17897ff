"""No request holds the server up, against a real server process: not the first profile read
after a start (the equilibrium's style figures are read from the store, worked out when the
solve was built), nor the moment a background build stores a new solve of the game being
played (warmed in the background; until then requests run off the event loop).

``/healthz`` is polled all along. The issue asks it to answer within 50 ms at any time; on a
loaded two-core machine a test cannot hold that without flaking, so the bound asserted is
`HEALTHZ_BOUND` (a block of seconds, what was found, fails it), and each test prints what it
measured (``pytest -s``)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.services import StrategySource, strategy, strategy_json
from solver.evaluation import style
from strategies import StrategyStore
from strategies.figures import STYLE
from tests.app.conftest import AppFactory
from tests.app.server import REPO_ROOT, Server, start_server
from tests.app.test_accounts import PASSWORD
from tests.app.test_players import play_match, player
from tests.app.test_store_faults import csrf_token
from tests.conftest import copy_store

API = "/api/v1"
HEALTHZ_BOUND = 1.0
"""Seconds: far above what /healthz takes (tens of milliseconds, see the figures printed), far
below the seconds a request computing on the event loop held it up for."""
REQUEST_BOUND = 10.0
"""Seconds any request of the tests may take (the profile took 50 to 100 s)."""
THINKING = 1.0
"""Seconds a player takes between two hands."""


class HealthPoller:
    """GETs ``/healthz`` every 50 ms in a thread of its own, keeping each answer's latency."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.latencies: list[float] = []
        self.times: list[float] = []
        self.codes: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=120) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                self.codes.add(client.get("/healthz").status_code)
                self.times.append(started)
                self.latencies.append(time.perf_counter() - started)
                self._stop.wait(0.05)

    @contextmanager
    def polling(self) -> Iterator[HealthPoller]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(timeout=150)

    def report(self, what: str) -> str:
        ordered = sorted(self.latencies)
        p99 = ordered[int(0.99 * (len(ordered) - 1))]
        worst = sorted(zip(self.latencies, self.times, strict=True), reverse=True)[:5]
        when = ", ".join(f"{lat * 1000:.0f} ms at {at - self.times[0]:.1f} s" for lat, at in worst)
        return (f"{what}: /healthz polled {len(ordered)} times, median "
                f"{statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max "
                f"{ordered[-1] * 1000:.1f} ms (the slowest: {when})")


@pytest.mark.slow
def test_the_first_profile_read_after_a_start_holds_nothing_up(
        make_app: AppFactory, store_path: Path, tmp_path: Path) -> None:
    """An account that has played the games whose equilibrium figures were simulated (2,000
    hands each: Dudo, hold'em-mini) and one walked exactly (Kuhn); a new server process on its
    database reads its profile first thing, while /healthz is polled."""
    database = tmp_path / "play.sqlite"
    played = make_app(db=database, seed=3)
    client, headers = player(played, "alice")
    rng = random.Random(5)
    for game in ("dudo", "holdem-mini", "kuhn"):
        play_match(client, headers, game, 3, rng)
    server = start_server(tmp_path, database_url=f"sqlite:///{database}", store=store_path)
    try:
        with HealthPoller(server.url).polling() as poller, \
                httpx.Client(base_url=server.url, timeout=300) as api:
            started = time.perf_counter()
            profile = api.get(f"{API}/profile", headers=headers)
            took = time.perf_counter() - started
            time.sleep(0.3)
        print(f"\nfirst profile read {took * 1000:.0f} ms; "
              + poller.report("meanwhile"))
        assert profile.status_code == 200, profile.text
        styles = {g["game"]: g["style"] for g in profile.json()["games"]}
        for game in ("dudo", "holdem-mini", "kuhn"):
            figures = styles[game]
            assert figures and all(f["equilibrium"] is not None for f in figures), game
            assert not any(f["equilibrium_pending"] for f in figures)
        assert all(f["equilibrium_exact"] for f in styles["kuhn"])
        assert not any(f["equilibrium_exact"] for f in styles["dudo"])
        assert took < REQUEST_BOUND
        assert poller.codes == {200}
        assert max(poller.latencies) < HEALTHZ_BOUND, poller.report("/healthz")
    finally:
        server.stop()
    assert "Traceback" not in server.log(), server.log()


@pytest.mark.slow
def test_the_profile_reads_the_figures_kept_with_the_solve_and_never_works_them_out(
        make_app: AppFactory, store_path: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The equilibrium's figures come from the store; where a solve has none yet (a store
    built before they were kept), the profile says they are being worked out instead of
    working them out itself."""
    store = copy_store(store_path, tmp_path / "strategies.sqlite")
    with StrategyStore.open(store) as opened:
        dudo = opened.latest_solve("dudo")
        assert dudo is not None
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        db.execute("DELETE FROM figures WHERE solve_id = ? AND name = ?", (dudo.id, STYLE))

    def never(*_: object, **__: object) -> None:
        raise AssertionError("a request worked out the style figures")

    for name in ("seat_styles", "exact_style", "simulated_style"):
        monkeypatch.setattr(style, name, never)
    web = make_app(store=store, seed=2)
    client, headers = player(web, "carol")
    rng = random.Random(6)
    for game in ("dudo", "kuhn"):
        play_match(client, headers, game, 2, rng)
    profile = client.get(f"{API}/profile", headers=headers)
    assert profile.status_code == 200, profile.text
    styles = {g["game"]: g["style"] for g in profile.json()["games"]}
    assert all(f["equilibrium"] is None and f["equilibrium_pending"] for f in styles["dudo"])
    assert all(f["equilibrium"] is not None and not f["equilibrium_pending"]
               for f in styles["kuhn"])
    page = client.get("/profile").text
    assert "still being worked out in the background" in page


@pytest.mark.slow
def test_a_whole_strategy_is_sent_without_holding_the_server_up(store_path: Path,
                                                                 tmp_path: Path) -> None:
    """GET a whole strategy (Dudo with calzo: 24,576 information sets, 5 MB of JSON; the Dudo
    match's has millions) while /healthz is polled: its JSON was encoded in one call on the
    event loop, now it is read and encoded a batch at a time in the thread pool. A guard more
    than a proof: main's tree passes it too on this store (its /healthz waited at most 0.56 s
    beside a 4.3 s read, under the bound), the match's millions are what held it for seconds;
    `test_a_strategy_sent_in_pieces_is_the_page_itself` checks the pieces."""
    server = start_server(tmp_path, database_url=f"sqlite:///{tmp_path / 'play.sqlite'}",
                          store=store_path)
    try:
        with httpx.Client(base_url=server.url, timeout=300) as api:
            api.get(f"{API}/games/dudo-calzo")  # after the first moments of the start
            with HealthPoller(server.url).polling() as poller:
                started = time.perf_counter()
                whole = api.get(f"{API}/games/dudo-calzo/strategy")
                took = time.perf_counter() - started
                time.sleep(0.3)
        print(f"\nwhole strategy {len(whole.content) / 1e6:.1f} MB in {took * 1000:.0f} ms; "
              + poller.report("meanwhile"))
        assert whole.status_code == 200
        body = whole.json()
        assert body["total"] == len(body["infosets"]) == 24_576
        assert poller.codes == {200}
        assert max(poller.latencies) < HEALTHZ_BOUND, poller.report("/healthz")
    finally:
        server.stop()
    _assert_clean(server)


@pytest.mark.parametrize(("query", "batch"), [
    ({}, 7), ({}, 5_000), ({"offset": 5, "limit": 20}, 6), ({"prefix": "K"}, 2),
    ({"contains": "b", "offset": 1}, 3), ({"infoset": "K|pb"}, 2), ({"offset": 99}, 4)])
def test_a_strategy_sent_in_pieces_is_the_page_itself(store_path: Path, query: dict[str, Any],
                                                      batch: int) -> None:
    source = StrategySource(store_path)
    try:
        for game in ("kuhn", "leduc"):
            if "infoset" in query and game != "kuhn":
                continue
            pieces = list(strategy_json(source, game, batch=batch, **query))
            whole = strategy(source, game, **query)
            assert json.loads(b"".join(pieces)) == json.loads(whole.model_dump_json())
            rows = len(whole.infosets)
            assert len(pieces) == (1 if "infoset" in query else 2 + -(-rows // batch))
    finally:
        source.close()


def _play_hand(api: httpx.Client, headers: dict[str, str], match_id: str,
               rng: random.Random, slowest: list[float]) -> dict[str, object]:
    started = time.perf_counter()
    view = api.post(f"{API}/matches/{match_id}/hands", headers=headers)
    slowest.append(time.perf_counter() - started)
    assert view.status_code == 201, view.text
    body = view.json()
    while body["status"] == "in_progress":
        started = time.perf_counter()
        answer = api.post(f"{API}/hands/{body['hand_id']}/actions", headers=headers,
                          json={"action": rng.choice(body["legal_actions"]),
                                "seq": body["seq"]})
        slowest.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text
        body = answer.json()
    return dict(body)


@pytest.mark.slow
def test_a_build_storing_a_solve_of_the_game_being_played_goes_unnoticed(
        store_path: Path, tmp_path: Path) -> None:
    """A background build stores a new solve of Dudo into the store the server serves (as the
    lobby's long builds do: `python -m solver solve` in a process of its own, at a lower
    priority) while a player plays Dudo hands and /healthz is polled: no request fails, none
    waits long, and the hands after it are played and analysed by the new solve."""
    store = copy_store(store_path, tmp_path / "strategies.sqlite")
    server = start_server(tmp_path, database_url=f"sqlite:///{tmp_path / 'play.sqlite'}",
                          store=store)
    rng = random.Random(8)
    slowest: list[float] = []
    try:
        with httpx.Client(base_url=server.url, timeout=300) as api:
            key = _signed_up_key(api)
            headers = {"Authorization": f"Bearer {key}"}
            match = api.post(f"{API}/matches", json={"game": "dudo"}, headers=headers)
            assert match.status_code == 201, match.text
            match_id = match.json()["match_id"]
            before = api.get(f"{API}/games/dudo").json()["solve"]["solve_id"]
            _play_hand(api, headers, match_id, rng, slowest)
        # From the build's start to the analyses of the hands after it (the first profile
        # test watches the start of a server).
        with HealthPoller(server.url).polling() as poller, \
                httpx.Client(base_url=server.url, timeout=300) as api:
            log = tmp_path / "build.log"
            with open(log, "wb") as out:
                build = subprocess.Popen(
                    [sys.executable, "-m", "solver", "solve", "dudo", "--iterations", "300",
                     "--store", str(store), "--quiet"], cwd=REPO_ROOT,
                    env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, stdout=out,
                    stderr=subprocess.STDOUT, preexec_fn=lambda: os.nice(10))
            hands = 0
            while build.poll() is None or hands < 3:
                _play_hand(api, headers, match_id, rng, slowest)
                hands += 0 if build.poll() is None else 1
                time.sleep(THINKING)
            assert build.wait() == 0, log.read_text()
            after = api.get(f"{API}/games/dudo").json()["solve"]["solve_id"]
            for _ in range(3):
                last = _play_hand(api, headers, match_id, rng, slowest)
            results = _analysed(api, headers, match_id)
        print(f"\n{hands + 3} hands after the build stored its solve; slowest request "
              f"{max(slowest) * 1000:.0f} ms; " + poller.report("all along"))
        assert after != before
        assert last["status"] == "finished"
        assert results["hands_analysing"] == 0
        assert results["adjusted_hands"] == results["hands_played"]
        assert max(slowest) < REQUEST_BOUND
        assert poller.codes == {200}
        assert max(poller.latencies) < HEALTHZ_BOUND, poller.report("/healthz")
    finally:
        server.stop()
    _assert_clean(server)


def _signed_up_key(api: httpx.Client) -> str:
    """A key of a new account, made through the pages as a browser makes it."""
    signed = api.post("/account/signup", data={"csrf_token": csrf_token(api),
                                               "username": "bob", "password": PASSWORD})
    assert signed.status_code == 303, signed.text
    made = api.post("/account/keys", data={"csrf_token": csrf_token(api), "name": "k"},
                    follow_redirects=True)  # the key is shown once, on the page redirected to
    assert made.status_code == 200, made.text
    found = re.search(r'id="new-key-value"[^>]*>\s*([^<\s]+)', made.text)
    assert found is not None, made.text[:2000]
    return found.group(1)


def _analysed(api: httpx.Client, headers: dict[str, str], match_id: str) -> dict[str, object]:
    """The match's results once the hands waiting for their analysis have it (a Dudo hand's
    takes about 0.3 s of CPU, after the answer)."""
    deadline = time.monotonic() + 300
    while True:
        results = api.get(f"{API}/matches/{match_id}", headers=headers).json()
        if not results["hands_analysing"] or time.monotonic() > deadline:
            return dict(results)
        time.sleep(0.2)


def _assert_clean(server: Server) -> None:
    log = server.log()
    assert "Traceback" not in log and " 500 " not in log, log[-4000:]

