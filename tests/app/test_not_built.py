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

from app.core.config import REPO_ROOT
from solver.engine.progress import write_status
from solver.games import get_game
from solver.runs.build_status import STOPPED, lock_path
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_pages import Node, parse

API = "/api/v1"
LONG = ("holdem", "dudo-match", "dudo-2v2")
"""The lobby's games the test store lacks: the background build's."""


def status_of_a_build(now: float) -> dict[str, object]:
    """A background build 330 s into hold'em (its fourth phase of six, a fifth of its 1,500 s
    solve, of a fixed length, done), the match and Dudo 2v2 waiting; nothing has measured this
    machine's pace yet."""
    return {"current": "holdem", "pending": ["dudo-match", "dudo-2v2"], "failed": {},
            "position": 1, "of": 3, "started": now - 330, "build_started": now - 330,
            "estimates": {"dudo-match": 900, "dudo-2v2": 180}, "pending_seconds": 1080,
            "phases": [["hand-strength tables", 60, "working out how strong every hand is",
                        False],
                       ["hand buckets", 480, "grouping hands that play alike", False],
                       ["starting the workers", 15, "starting helper processes", False],
                       ["solving", 1500, "the bot learning its strategy by playing against "
                        "itself", True],
                       ["self-play", 60, "measuring the finished bot", False],
                       ["storing", 10, "saving it", False]],
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
    assert page.status_code == 409 and "Being built in the background" in page.text


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
        assert named == ["rps", "kuhn", "leduc", "dudo", "dudo-calzo", "holdem-mini",
                         "pushfold-5bb", "pushfold-10bb", "pushfold-15bb", "pushfold-20bb",
                         "nolimit-leduc", "holdem", "hunl", "dudo-match", "dudo-2v2"], detail
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


@pytest.mark.slow
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


def card(html_text: str, game: str) -> Node:
    """The build status block of `game`'s card (or of the not-built page)."""
    return parse(html_text).by_id(f"build-{game}")


def live(block: Node) -> Node:
    """The part of a build status block a player reads first (and that polls)."""
    found = [n for n in block.iter() if n.attrs.get("id", "").startswith("build-live-")]
    assert len(found) == 1
    return found[0]


def test_the_lobbys_build_cards_poll_while_something_builds(building: AppHandle) -> None:
    client = building.client
    lobby = client.get("/").text
    holdem = live(card(lobby, "holdem"))
    assert holdem.attrs["hx-get"] == "/lobby/games/holdem/build"
    assert holdem.attrs["hx-trigger"] == "every 5s"
    # 330 s of about 1,600 done; 1,270 s left for it, 2,350 s for the whole build at the
    # plan's pace, which nothing has measured yet: ranges around them.
    assert re.search(r"\(step 4 of 6\), 2[01]\.\d% done", holdem.text), holdem.text
    assert re.search(r"about 2[12] min left for this game, \d+ min–1 h \d+ min for the whole "
                     r"background build", holdem.text), holdem.text
    waiting = live(card(lobby, "dudo-2v2"))
    assert waiting.attrs["hx-trigger"] == "every 5s"
    assert re.search(r"it starts in \d+ min–1 h \d+ min", waiting.text), waiting.text
    # The partial the card asks for is its live part again, still polling, with the
    # technical details and the badge out of band (a <details> a player opened stays open).
    again = client.get("/lobby/games/holdem/build", headers={"HX-Request": "true"})
    assert again.status_code == 200 and "HX-Refresh" not in again.headers
    assert again.text.strip().startswith('<div class="build-live" id="build-live-holdem"')
    assert 'hx-trigger="every 5s"' in again.text and "step 4 of 6" in again.text
    doc = parse(again.text)
    assert doc.by_id("build-tech-holdem").attrs["hx-swap-oob"] == "true"
    assert doc.by_id("badge-holdem").attrs["hx-swap-oob"] == "true"
    assert not doc.find_all("details")
    # A game that is ready: the lobby reloads to show it playable.
    ready = client.get("/lobby/games/kuhn/build", headers={"HX-Request": "true"})
    assert ready.status_code == 200 and ready.headers["HX-Refresh"] == "true"
    assert client.get("/lobby/games/dudo-1v4/build").status_code == 404


def test_the_lobbys_estimates_come_from_this_machines_pace(make_app: AppFactory) -> None:
    """A build that found this machine twice as slow as its plan says so in the lobby: the
    whole build and the games waiting are estimated at that pace, in a narrower range."""
    handle = make_app()
    status = handle.settings.build_status
    now = time.time()
    write_status(status, {**status_of_a_build(now), "measured": [[60.0, 120.0], [480.0, 960.0]]})
    fd = os.open(lock_path(status), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        listed = {g["name"]: g for g in handle.client.get(f"{API}/games").json()}
    finally:
        os.close(fd)
    building = listed["holdem"]["building"]
    # Its solve's 1,200 s are a fixed length; self-play and storing at twice their plan.
    assert building["remaining_seconds"] == pytest.approx(1200 + 2 * 70, abs=15)
    assert building["remaining_low"] < building["remaining_seconds"] < building["remaining_high"]
    assert building["build_remaining_seconds"] == pytest.approx(1200 + 2 * (70 + 1080), abs=15)
    waiting = listed["dudo-2v2"]["building"]
    assert waiting["starts_in_seconds"] == pytest.approx(1200 + 2 * (70 + 900), abs=15)
    assert waiting["starts_in_low"] < waiting["starts_in_seconds"] < waiting["starts_in_high"]


def test_build_steps_are_told_in_plain_words_with_their_names_a_tap_away(
        building: AppHandle) -> None:
    """A player reads what is being done; the solver's names for it ("solving", "solving
    holdem (ehs2=k:...)") are in a <details> a tap opens on any device, never in a hover
    title."""
    for html in (building.client.get("/").text, building.client.get(
            "/play/holdem", headers={"accept": "text/html"}).text):
        block = card(html, "holdem")
        said = live(block).text
        assert "the bot learning its strategy by playing against itself (step 4 of 6)" in said
        assert "ehs2" not in said and "solving holdem" not in said
        details = block.first("details")
        assert details.first("summary").text == "Technical details"
        assert "“solving”, now at “solving holdem (ehs2=k:128,128,128)” (20% of it done)" in (
            details.text)
        assert not [n for n in block.iter() if "title" in n.attrs]
    api = building.client.get(f"{API}/games/holdem/strategy").json()
    assert api["building"]["doing"].startswith("the bot learning")
    assert api["building"]["phase_name"] == "solving"


def test_a_game_being_built_is_badged_so_not_unavailable(building: AppHandle) -> None:
    doc = parse(building.client.get("/").text)
    badges = {name: doc.by_id(f"badge-{name}").text for name in ("holdem", "dudo-match", "kuhn")}
    assert re.fullmatch(r"being built, 2[01]\.\d%", badges["holdem"]), badges
    assert badges["dudo-match"] == "waiting to be built" and badges["kuhn"] == "ready"
    assert "unavailable" not in doc.by_id("game-holdem").text
    for name in ("holdem", "dudo-match"):  # not dimmed as a broken game is
        assert "unavailable" not in doc.by_id(f"game-{name}").attrs["class"].split()


def test_the_not_built_page_tells_a_player_what_is_built_and_what_to_play(
        building: AppHandle) -> None:
    """No giant status code, no internal id, no message doubled: what is being built, how
    far it has come (following the build), and the games to play meanwhile."""
    response = building.client.get("/play/holdem", headers={"accept": "text/html"})
    assert response.status_code == 409
    doc = parse(response.text)
    main = doc.by_id("main")
    heading = main.first("h1").text
    assert heading == f"{get_game('holdem').title} is being built", heading
    technical = main.first("details", cls="build-technical")
    assert technical.parent is not None
    technical.parent.children.remove(technical)  # what a player sees before tapping it
    shown = main.text
    assert "409" not in shown and "holdem" not in shown
    assert shown.count("yet:") == 0 and "no solved strategy" not in shown.lower()
    assert re.search(r"\(step 4 of 6\), 2[01]\.\d% done", shown), shown
    assert live(card(response.text, "holdem")).attrs["hx-trigger"] == "every 5s"
    meanwhile = [a.attrs["href"] for a in doc.by_id("meanwhile").find_all("a")]
    assert meanwhile == [f"/play/{g}" for g in ("rps", "kuhn", "leduc", "dudo", "dudo-calzo",
                                                "holdem-mini")]
    waiting = parse(building.client.get("/play/dudo-2v2", headers={"accept": "text/html"}).text)
    assert waiting.by_id("main").first("h1").text.endswith("is waiting to be built")


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
    assert "The background build failed: the build process was killed (SIGKILL" in match.text
    assert "The app tries again when it next starts" in match.text
    assert "python -m solver match --quiet" in match.first("details").text
    assert parse(lobby).by_id("badge-dudo-match").text == "build failed"
    assert "has not been built on this server" in card(lobby, "holdem").text
    assert parse(lobby).by_id("badge-holdem").text == "not built"
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
        assert ("A newer bot is being built in the background: the bot learning its strategy "
                "by playing against itself (step 4 of 6)") in kuhn.text
        assert "this one plays until it is ready" in kuhn.text
        assert live(kuhn).attrs["hx-trigger"] == "every 5s"
        assert 'disabled' not in parse(client.get("/").text).by_id("game-kuhn").first(
            "button").attrs
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


def test_a_playable_game_whose_new_opponent_is_being_built_says_so(make_app: AppFactory) -> None:
    """The background build making a thinking opponent of a game that plays: the card names
    the opponent, and the game plays meanwhile."""
    handle = make_app()
    status = handle.settings.build_status
    write_status(status, {**status_of_a_build(time.time()), "current": "kuhn", "pending": [],
                          "making": "A bot that thinks"})
    fd = os.open(lock_path(status), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        kuhn = card(handle.client.get("/").text, "kuhn")
        assert ("A new opponent, “A bot that thinks”, is being built in the background: the bot "
                "learning its strategy by playing against itself (step 4 of 6)") in kuhn.text
        assert "the game and its other opponents play meanwhile" in kuhn.text
        listed = {g["name"]: g for g in handle.client.get(f"{API}/games").json()}
        assert listed["kuhn"]["building"]["making"] == "A bot that thinks"
        assert handle.client.post(f"{API}/matches", json={"game": "kuhn"}).status_code == 201
    finally:
        os.close(fd)
