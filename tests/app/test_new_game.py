"""A new game is one module and one registry line: compiled, solved, stored, listed by the API,
played to the end over the API and drawn on the page, with no other edit.

The game is tests/solver/games/kuhn4.py (Kuhn poker with four cards), registered here for the
duration of the test."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from solver.algorithms.lp import solve_lp
from solver.games import game_names, register_game, unregister_game
from solver.runs.store_solve import solve_and_store
from tests.app.conftest import AppFactory, new_match
from tests.conftest import copy_store
from tests.solver.games.kuhn4 import Kuhn4Game, Kuhn4View

API = "/api/v1"


@pytest.fixture
def kuhn4(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path / "cache"))  # compiled afresh
    register_game("kuhn4", Kuhn4Game, Kuhn4View)
    try:
        yield "kuhn4"
    finally:
        unregister_game("kuhn4")


def test_a_game_of_its_own_goes_everywhere(kuhn4: str, make_app: AppFactory, store_path: Path,
                                           tmp_path: Path) -> None:
    assert kuhn4 in game_names()
    store = copy_store(store_path, tmp_path / "with-kuhn4.sqlite")
    stored = solve_and_store(kuhn4, "dcfr", target=1e-5, store_path=store)
    exact = solve_lp(Kuhn4Game()).value
    assert stored.result.exploitability <= 1e-5
    assert stored.result.value == pytest.approx(exact, abs=1e-4)

    api = make_app(store=store)
    listed = {g["name"]: g for g in api.client.get(f"{API}/games").json()}
    assert listed[kuhn4]["available"] and listed[kuhn4]["pieces"] == "cards"
    assert listed[kuhn4]["value"] == pytest.approx(exact, abs=1e-4)
    match_id, headers = new_match(api.client, kuhn4)
    rng = random.Random(4)
    for number in (1, 2):
        view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        assert view["number"] == number and view["private_pieces"][0]["kind"] == "card"
        while view["status"] == "in_progress":
            view = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": rng.choice(view["legal_actions"]),
                                         "seq": view["seq"]}).json()
        assert view["outcome"]["explanation"].endswith("takes the pot of "
                                                       f"{view['public']['pot']}.")
    results = api.client.get(f"{API}/matches/{match_id}", headers=headers).json()
    assert results["hands_played"] == 2

    web = make_app(store=store)
    lobby = web.client.get("/")
    assert 'id="game-kuhn4"' in lobby.text and "Kuhn poker with four cards" in lobby.text
    csrf = lobby.text.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    started = web.client.post(f"/play/{kuhn4}", data={"csrf_token": csrf},
                              follow_redirects=False)
    assert started.status_code == 303
    table = web.client.get(started.headers["location"])
    assert table.status_code == 200
    assert 'class="playing-card' in table.text and "Your move" in table.text
    strategy = web.client.get(f"/games/{kuhn4}/strategy?card=A")
    assert strategy.status_code == 200 and 'data-key="A|' in strategy.text
