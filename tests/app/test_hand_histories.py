"""A match's hands in the game's standard hand-history format, over the API (paged) and as a
download from the page; for a game without such a format there are none (404, naming the record
exports).

The app knows no format: the game's view writes its hands (`GameView.hand_histories`). Here
that is a game of the tests' own (Kuhn with four cards and a plain text format), so the test
sees what the app passes in — the hand numbers, the states, the players' names per seat — and
where pages join.
Heads-up limit hold'em's PHH itself is tested against pokerkit in
tests/solver/games/test_holdem_history.py.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.web.routes import replay
from solver.games import register_game, unregister_game
from solver.games.game_view import PlayedHand
from solver.runs.store_solve import solve_and_store
from tests.app.conftest import AppFactory, new_match, play_random_hand
from tests.app.test_pages import (
    action_form,
    enabled_actions,
    hidden_inputs,
    page,
    post_action,
    start,
)
from tests.conftest import copy_store
from tests.solver.games.kuhn4 import Kuhn4Game, Kuhn4View

API = "/api/v1"


class Kuhn4Game4h(Kuhn4Game):
    """Kuhn with four cards, under a name of its own."""

    name = "kuhn4h"


class Kuhn4WithHistories(Kuhn4View):
    """Its view, whose hands are written one line each."""

    @property
    def hand_history_format(self) -> str | None:
        return "k4h"

    def hand_histories(self, hands: Sequence[PlayedHand]) -> str:
        return "".join(
            f"[{hand.number}] {hand.players[0]} {self.private_view(hand.state, 0)} v "
            f"{hand.players[1]} {self.private_view(hand.state, 1)}: "
            f"{hand.state.returns()[0]:+g}\n"
            for hand in hands)


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, store_path: Path) -> Iterator[Path]:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path / "cache"))
    register_game("kuhn4h", Kuhn4Game4h, Kuhn4WithHistories)
    try:
        path = copy_store(store_path, tmp_path / "with-kuhn4h.sqlite")
        solve_and_store("kuhn4h", "dcfr", target=1e-4, store_path=path)
        yield path
    finally:
        unregister_game("kuhn4h")


def play_hands(client: TestClient, match_id: str, headers: dict[str, str],
               count: int) -> list[dict[str, Any]]:
    rng = random.Random(11)
    return [play_random_hand(client, match_id, headers, rng) for _ in range(count)]


def test_pages_of_hand_histories_join_into_one_file(store: Path, make_app: AppFactory) -> None:
    client = make_app(store=store).client
    match_id, headers = new_match(client, "kuhn4h")
    assert client.get(f"{API}/games/kuhn4h").json()["hand_history_format"] == "k4h"
    views = play_hands(client, match_id, headers, 5)
    client.post(f"{API}/matches/{match_id}/hands", headers=headers)  # a hand left unfinished

    url = f"{API}/matches/{match_id}/hand-histories"
    pages, before = [], None
    while True:
        response = client.get(url, headers=headers,
                              params={"limit": 2} | ({} if before is None else {"before": before}))
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["format"] == "k4h" and body["match_id"] == match_id
        pages.append(body["text"])
        before = body["next_cursor"]
        if before is None:
            break
    lines = "".join(pages).splitlines()
    assert [int(line[1:line.index("]")]) for line in lines] == [5, 4, 3, 2, 1]
    for line, view in zip(lines, reversed(views), strict=True):
        outcome, seat = view["outcome"], view["human_seat"]
        you = f"you {outcome['human_private_view']}"
        bot = f"bot {outcome['bot_private_view']}"
        seats = f"{you} v {bot}" if seat == 0 else f"{bot} v {you}"
        assert line.split("] ", 1)[1].startswith(seats)
        assert line.endswith(f"{outcome['human_payoff'] * (1 if seat == 0 else -1):+g}")

    assert client.get(url).status_code == 401
    _, other = new_match(client, "kuhn4h")
    assert client.get(url, headers=other).status_code == 403


def test_a_game_without_a_format_has_none_and_names_the_other_exports(
        make_app: AppFactory) -> None:
    client = make_app().client
    match_id, headers = new_match(client, "kuhn")
    assert client.get(f"{API}/games/kuhn").json()["hand_history_format"] is None
    response = client.get(f"{API}/matches/{match_id}/hand-histories", headers=headers)
    assert response.status_code == 404
    assert "CSV" in response.json()["detail"]


def test_the_page_offers_the_download_for_a_game_with_a_format(
        store: Path, make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "EXPORT_PAGE", 1)  # a download of several pages
    client = make_app(store=store).client
    url = start(client, "kuhn4h")
    doc = page(client, url)
    for hand in range(3):
        if hand:  # the next hand, by the table's own form
            forms = [f for f in doc.find_all("form") if f.attrs.get("action", "").endswith("/next")]
            assert forms, "no form deals the next hand"
            client.post(forms[0].attrs["action"], data=hidden_inputs(forms[0]))
            doc = page(client, url)
        while (form := action_form(doc)) is not None:
            post_action(client, form, enabled_actions(form)[0])
            doc = page(client, url)
    link = doc.by_id("export-hand-histories")
    assert link is not None and link.attrs["href"] == f"{url}/hand-histories"
    download = client.get(link.attrs["href"])
    assert download.status_code == 200
    assert download.headers["content-disposition"].endswith(f'match-{url.rsplit("/", 1)[1]}.k4h"')
    assert [line.split("]")[0] for line in download.text.splitlines()] == ["[3", "[2", "[1"]
    csv_lines = client.get(f"{url}/export.csv").text.strip().splitlines()
    assert [line.split(",")[0] for line in csv_lines[1:]] == ["3", "2", "1"]
    # Seats are the API's, from 0, in the CSV and in the order the history lists its players:
    # the first hand in seat 0, then alternating.
    assert csv_lines[0].split(",")[1] == "your_seat"
    seats = [int(line.split(",")[1]) for line in csv_lines[1:]]
    assert seats == [0, 1, 0]
    for seat, line in zip(seats, download.text.splitlines(), strict=True):
        players = line.split("] ", 1)[1].split(" v ")
        assert players[seat].startswith("you ") and players[1 - seat].startswith("bot ")

    kuhn = start(client, "kuhn")
    doc = page(client, kuhn)
    while (form := action_form(doc)) is not None:
        post_action(client, form, enabled_actions(form)[0])
        doc = page(client, kuhn)
    assert doc.by_id("export-csv") is not None and not doc.find_all(id="export-hand-histories")
    assert client.get(f"{kuhn}/hand-histories").status_code == 404
