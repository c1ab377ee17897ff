"""Games that cannot be played yet, as the API and the pages say it: one being built in the
background (409 with its progress, not 503), one waiting its turn, one whose build failed or
whose build process died, one not offered at all (404 naming the lobby's games), and no answer
anywhere that names a path of the server."""

from __future__ import annotations

import fcntl
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config import REPO_ROOT
from solver.engine.progress import write_status
from solver.runs.build_status import STOPPED, lock_path
from tests.app.conftest import AppFactory, AppHandle

API = "/api/v1"
LONG = ("holdem", "dudo-match", "dudo-2v2")
"""The lobby's games the test store lacks: the background build's."""


def status_of_a_build(now: float) -> dict[str, object]:
    """A background build 330 s into hold'em (its fourth phase of six, a fifth of its 1,500 s
    solve done), the match and Dudo 2v2 waiting."""
    return {"current": "holdem", "pending": ["dudo-match", "dudo-2v2"], "failed": {},
            "position": 1, "of": 3, "started": now - 330, "build_started": now - 330,
            "estimates": {"dudo-match": 900, "dudo-2v2": 180}, "pending_seconds": 1080,
            "phases": [["hand-strength tables", 60], ["hand buckets", 480],
                       ["starting the workers", 15], ["solving", 1500], ["self-play", 60],
                       ["storing", 10]],
            "phase": 3, "phase_name": "solving", "phase_started": now - 300,
            "step": "solving holdem (ehs2=k:128,128,128)", "done": 300.0, "total": 1500.0,
            "unit": "s", "rate": 10.0, "remaining_seconds": 1200.0, "updated": now}


@pytest.fixture
def building(make_app: AppFactory, tmp_path: Path) -> Iterator[AppHandle]:
    """An app whose background build (this test holds its lock) is at work on hold'em."""
    handle = make_app()
    status = handle.settings.build_status
    write_status(status, status_of_a_build(time.time()))
    fd = os.open(lock_path(status), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield handle
    finally:
        os.close(fd)


def test_a_game_being_built_says_so_with_its_progress(building: AppHandle) -> None:
    client = building.client
    answers = [client.get(f"{API}/games/holdem/{part}")
               for part in ("strategy", "tree", "convergence")]
    answers.append(client.post(f"{API}/matches", json={"game": "holdem"}))
    for response in answers:
        assert response.status_code == 409, response.text
        body = response.json()
        assert "being built in the background" in body["detail"]
        assert "step 4 of 6" in body["detail"] and "python -m solver build" not in body["detail"]
        progress = body["building"]
        assert progress["state"] == "building" and (progress["phase"], progress["phases"]) == (
            4, 6)
        assert progress["step_fraction"] == pytest.approx(0.2)
        # 1,200 s of its solve, then self-play and storing, are left: 330 s of 1,600 are done.
        assert progress["remaining_seconds"] == pytest.approx(1270, abs=15)
        assert progress["fraction"] == pytest.approx(330 / 1600, abs=0.02)
        assert progress["build_remaining_seconds"] == pytest.approx(1270 + 1080, abs=15)
    waiting = client.get(f"{API}/games/dudo-2v2/strategy")
    assert waiting.status_code == 409
    assert waiting.json()["building"]["state"] == "waiting"
    assert waiting.json()["building"]["starts_in_seconds"] == pytest.approx(1270 + 900, abs=15)
    assert "waiting its turn" in waiting.json()["detail"]
    listed = {g["name"]: g for g in client.get(f"{API}/games").json()}
    assert listed["holdem"]["building"]["state"] == "building"
    assert listed["dudo-match"]["building"]["state"] == "waiting"
    page = client.get("/play/holdem")
    assert page.status_code == 409 and "being built in the background" in page.text
    assert "Not built yet" in page.text


def test_a_build_whose_process_died_is_reported_failed(make_app: AppFactory) -> None:
    """The status file says hold'em is being built, but no process holds the build's lock
    (it was killed): the game failed, with why, and so did those waiting for it."""
    handle = make_app()
    write_status(handle.settings.build_status, status_of_a_build(time.time()))
    response = handle.client.get(f"{API}/games/holdem/strategy")
    assert response.status_code == 409
    body = response.json()
    assert body["building"] == {**body["building"], "state": "failed", "message": STOPPED}
    assert "its background build failed" in body["detail"] and "tries again" in body["detail"]
    assert handle.client.get(f"{API}/games/dudo-2v2/strategy").json()["building"]["state"] == (
        "failed")


def test_a_game_not_offered_is_404_naming_the_lobbys_games(make_app: AppFactory) -> None:
    client = make_app().client
    answers = [client.get(f"{API}/games/dudo-1v4/{part}")
               for part in ("strategy", "tree", "convergence")]
    answers.append(client.post(f"{API}/matches", json={"game": "dudo-3v5"}))
    answers.append(client.get(f"{API}/games/chess/strategy"))
    for response in answers:
        assert response.status_code == 404, response.text
        detail = response.json()["detail"]
        named = detail.split("the games: ", 1)[1].split(", ")
        assert named == ["rps", "kuhn", "leduc", "dudo", "dudo-calzo", "holdem-mini", "holdem",
                         "dudo-match", "dudo-2v2"], detail
    assert "is not offered here" in answers[0].json()["detail"]
    assert client.get("/play/dudo-1v4").status_code == 404
    assert client.get("/games/dudo-3v5/strategy").status_code == 404
    # The catalogue still describes every game it knows.
    assert client.get(f"{API}/games/dudo-1v4").status_code == 200


# ---- no path of the server in any answer ------------------------------------------------------

TOP_LEVEL = {entry for entry in os.listdir("/") if entry not in ("static",)}
"""The first parts of this machine's absolute paths (``/usr``, ``/home``, ``/var``...): a
URL of the app (``/static/app.css``, ``/api/v1/...``) starts with none of them."""
ABSOLUTE = re.compile(r"(?<![\w.:/-])/([\w.@+~-]+)(?:/[\w.@+~-]+)+")


def path_like(text: str, *known: Path) -> list[str]:
    """What in `text` looks like a path of this machine."""
    found = [str(p) for p in known if str(p) in text]
    found += [m.group(0) for m in ABSOLUTE.finditer(text) if m.group(1) in TOP_LEVEL]
    if re.search(r"[A-Za-z]:\\\\\w", text):
        found.append("a Windows path")
    return found


def test_no_answer_names_a_path_of_the_server(make_app: AppFactory, tmp_path: Path,
                                              store_without_leduc: Path) -> None:
    """Error answers of the API, the pages and /healthz, with a missing store, a corrupt one,
    a store without a game, a background build that failed with a path in its error and one
    whose process died: none holds anything that looks like a path of this machine."""
    corrupt = tmp_path / "deep" / "folder" / "corrupt.sqlite"
    corrupt.parent.mkdir(parents=True)
    corrupt.write_bytes(b"this is not a database" * 100)
    stores = [tmp_path / "nowhere" / "missing.sqlite", corrupt, store_without_leduc]
    texts: list[tuple[str, str]] = []

    def collect(handle: AppHandle) -> None:
        client = handle.client
        for method, url, body in (
                ("get", "/healthz", None), ("get", "/", None), ("get", f"{API}/games", None),
                ("post", f"{API}/matches", {"game": "leduc"}),
                ("post", f"{API}/matches", {"game": "holdem"}),
                ("post", f"{API}/matches", {"game": "dudo-3v5"}),
                ("post", f"{API}/matches", {"game": "kuhn"}),
                ("get", f"{API}/games/leduc/strategy", None),
                ("get", f"{API}/games/holdem/tree", None),
                ("get", f"{API}/games/dudo-2v2/convergence", None),
                ("get", f"{API}/games/dudo-1v4/strategy", None),
                ("get", f"{API}/games/kuhn/strategy?infoset=X%7Czz", None),
                ("get", "/play/holdem", None), ("get", "/play/leduc", None),
                ("get", "/games/holdem/strategy", None), ("get", "/games/kuhn/strategy", None),
                ("get", "/play/dudo-1v4", None), ("get", "/nowhere", None)):
            response = client.request(method, url, json=body, headers={"accept": "text/html"}
                                      if not url.startswith(API) and url != "/healthz" else {})
            texts.append((f"{method.upper()} {url} {response.status_code}", response.text))

    for store in stores:
        handle = make_app(store=store)
        now = time.time()
        failed: dict[str, Any] = {"current": None, "pending": [], "finished": now, "failed": {
            "holdem": f"error: the strategy store {tmp_path}/strategies.sqlite is locked",
            "dudo-match": f"`python -m solver match --store {REPO_ROOT}/data/s.sqlite` "
                          "exited with 1"}}
        write_status(handle.settings.build_status, failed)
        collect(handle)
        write_status(handle.settings.build_status, status_of_a_build(now))  # died
        collect(handle)
    statuses = {label.rsplit(" ", 1)[1] for label, _ in texts}
    assert {"200", "404", "409", "503"} <= statuses, statuses
    home = Path.home()
    leaks = {label: found for label, text in texts
             if (found := path_like(text, tmp_path, REPO_ROOT, home))}
    assert not leaks, leaks
    # The same scan does find a path where there is one.
    assert path_like(f"no store at {tmp_path}/x.sqlite", tmp_path)
    assert path_like("see /usr/lib/python3/x.py")


# ---- the lobby's build cards refresh themselves -----------------------------------------------


def card(html_text: str, game: str) -> str:
    """The build status block of `game`'s card."""
    found = re.search(rf'<div class="build-status" id="build-{game}".*?</div>', html_text, re.S)
    assert found is not None, html_text[:2000]
    return found.group(0)


def test_the_lobbys_build_cards_poll_while_something_builds(building: AppHandle) -> None:
    client = building.client
    lobby = client.get("/").text
    holdem = card(lobby, "holdem")
    assert 'hx-get="/lobby/games/holdem/build"' in holdem and 'hx-trigger="every 5s"' in holdem
    # 330 s of about 1,600 done; 1,270 s left for it, 2,350 s for the whole build (a few
    # seconds less by the time the page is drawn).
    assert re.search(r"\(step 4 of 6\), 2[01]\.\d% done", holdem), holdem
    assert re.search(r"about 2[12] min left for this game, (39|40) min for the whole "
                     r"background build", holdem), holdem
    waiting = card(lobby, "dudo-2v2")
    assert 'hx-trigger="every 5s"' in waiting
    assert re.search(r"it starts in about 3[67] min", waiting), waiting
    # The partial the card asks for is the card's block again, still polling.
    again = client.get("/lobby/games/holdem/build", headers={"HX-Request": "true"})
    assert again.status_code == 200 and "HX-Refresh" not in again.headers
    assert again.text.strip().startswith('<div class="build-status" id="build-holdem"')
    assert 'hx-trigger="every 5s"' in again.text and "step 4 of 6" in again.text
    # A game that is ready: the lobby reloads to show it playable.
    ready = client.get("/lobby/games/kuhn/build", headers={"HX-Request": "true"})
    assert ready.status_code == 200 and ready.headers["HX-Refresh"] == "true"
    assert client.get("/lobby/games/dudo-1v4/build").status_code == 404


def test_the_lobby_stops_polling_when_nothing_builds(make_app: AppFactory) -> None:
    """A build that failed, or none at all: the cards say why and nothing polls."""
    handle = make_app()
    write_status(handle.settings.build_status, {
        "current": None, "pending": [], "finished": time.time(),
        "failed": {"dudo-match": "the build process was killed (SIGKILL, most likely by the "
                                 "kernel for lack of memory)"}})
    lobby = handle.client.get("/").text
    assert "hx-trigger" not in lobby
    match = card(lobby, "dudo-match")
    assert "The background build failed: the build process was killed (SIGKILL" in match
    assert "The app tries again when it next starts" in match
    assert "python -m solver match --quiet" in match
    assert "No solved strategy is stored" in card(lobby, "holdem")
    partial = handle.client.get("/lobby/games/dudo-match/build")
    assert partial.status_code == 200 and "hx-trigger" not in partial.text


def test_a_playable_game_whose_newer_bot_is_being_built_stays_playable(
        make_app: AppFactory) -> None:
    """A store holding an earlier default bot (`BuildPlan.supersedes`) keeps serving it while
    the background build makes the new one: the card says so, polls, and plays."""
    handle = make_app()
    status = handle.settings.build_status
    write_status(status, {**status_of_a_build(time.time()), "current": "kuhn", "pending": []})
    fd = os.open(lock_path(status), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        client = handle.client
        kuhn = card(client.get("/").text, "kuhn")
        assert "A newer bot is being built in the background (step 4 of 6)" in kuhn
        assert "this one plays until it is ready" in kuhn
        assert 'hx-trigger="every 5s"' in kuhn and "disabled" not in kuhn
        partial = client.get("/lobby/games/kuhn/build", headers={"HX-Request": "true"})
        assert partial.status_code == 200 and "HX-Refresh" not in partial.headers
        assert "this one plays until it is ready" in partial.text
        listed = {g["name"]: g for g in client.get(f"{API}/games").json()}
        assert listed["kuhn"]["available"] and listed["kuhn"]["building"]["state"] == "building"
        assert client.post(f"{API}/matches", json={"game": "kuhn"}).status_code == 201
    finally:
        os.close(fd)
    # Once nothing builds any more, the card asks the lobby to reload.
    write_status(status, {"current": None, "pending": [], "failed": {}, "finished": time.time()})
    done = handle.client.get("/lobby/games/kuhn/build", headers={"HX-Request": "true"})
    assert done.headers.get("HX-Refresh") == "true"
