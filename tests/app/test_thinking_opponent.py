"""A thinking opponent in the app: no-limit Leduc's DeepStack bot (built small) is offered beside
the equilibrium with its own description, and a match against it plays its stored strategy
with the coach judging against the best reply to it (the app names neither the game nor the
method: both come from the store and the solver)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from solver.cli import main
from solver.games import action_from_label, get_game
from solver.games.opponents import DEEPSTACK
from strategies import StrategyStore
from tests.app.conftest import AppFactory, AppHandle, play_random_hand
from tests.app.test_api import API
from tests.conftest import copy_store

pytestmark = pytest.mark.slow  # the opponent's build: about a minute

GAME = "nolimit-leduc"


@pytest.fixture(scope="module")
def thinking_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("thinking")
    path = copy_store(store_path, folder / "strategies.sqlite")
    assert main(["solve", GAME, "--iterations", "50", "--store", str(path), "--json"]) == 0
    assert main(["deepstack", "--situations", "300", "--hidden", "16,16", "--iterations", "30",
                 "--workers", "1", "--quiet", "--data", str(folder / "net"),
                 "--store", str(path)]) == 0
    return path


@pytest.fixture
def api(make_app: AppFactory, thinking_store: Path) -> AppHandle:
    return make_app(store=thinking_store, seed=3)


def test_it_is_offered_beside_the_equilibrium_saying_how_it_thinks(api: AppHandle) -> None:
    detail = api.client.get(f"{API}/games/{GAME}").json()
    opponents = {o["name"]: o for o in detail["opponents"]}
    assert next(iter(opponents)) == "equilibrium"
    found = opponents[DEEPSTACK.name]
    assert found["kind"] == "thinking" and found["title"] == DEEPSTACK.title
    assert found["description"] == DEEPSTACK.description
    with StrategyStore.open(api.settings.strategy_store) as store:
        info = store.latest_solve(GAME, DEEPSTACK.name)
    assert info is not None
    assert found["exploitability"] == pytest.approx(info.exploitability)
    page = api.client.get("/").text
    assert f'value="{DEEPSTACK.name}"' in page and DEEPSTACK.title in page


def test_a_match_plays_its_stored_strategy_and_the_coach_judges_against_the_reply(
        api: AppHandle) -> None:
    created = api.client.post(f"{API}/matches",
                              json={"game": GAME, "opponent": DEEPSTACK.name})
    assert created.status_code == 201, created.text
    body = created.json()
    headers = {"Authorization": f"Bearer {body['token']}"}
    with StrategyStore.open(api.settings.strategy_store) as store:
        info = store.latest_solve(GAME, DEEPSTACK.name)
        assert info is not None
        rows = store.strategy(GAME, info.id)
    game = get_game(GAME)
    rng = random.Random(11)
    for _ in range(6):
        view = play_random_hand(api.client, body["match_id"], headers, rng)
        replay = api.client.get(f"{API}/hands/{view['hand_id']}/replay", headers=headers).json()
        state = game.initial_state()
        for step in replay["steps"]:
            if step["actor"] == "bot":
                row = rows[state.information_state_key(state.current_player())]
                stored = {label: p for label, p in zip(row.labels, row.probabilities,
                                                       strict=True) if p > 0}
                played = {p["label"]: p["probability"] for p in step["bot_probabilities"]
                          if p["probability"] > 0}
                assert played == pytest.approx(stored)
            state = state.apply_action(action_from_label(state, step["label"]))
        for decision in replay["outcome"]["coach"]:
            values = [a["value"] for a in decision["actions"]]
            assert decision["value"] == pytest.approx(max(values))
    match = api.client.get(f"{API}/matches/{body['match_id']}", headers=headers).json()
    assert match["opponent"]["description"] == DEEPSTACK.description
