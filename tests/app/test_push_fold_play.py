"""Push or fold played over the API like any game of the lobby: each hand's payoff is the rules'
for what the database recorded, the bot samples its stored strategy, and the match's hands
download as PHH that pokerkit plays to the same stacks.  (Needs the table of all-in results:
a minute or more the first time, then cached.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pokerkit import HandHistory

from solver.games import get_game, play
from solver.runs.store_solve import solve_and_store
from tests.app.conftest import AppFactory, new_match
from tests.app.test_api import API, play_hand, recorded_actions
from tests.conftest import copy_store

GAME = "pushfold-10bb"
STACK = 1_000


@pytest.mark.slow
def test_hands_of_push_or_fold_over_the_api(tmp_path: Path, store_path: Path,
                                            make_app: AppFactory) -> None:
    store = copy_store(store_path, tmp_path / "with-push-or-fold.sqlite")
    solve_and_store(GAME, "dcfr", target=5e-5, store_path=store)
    api = make_app(store=store)
    match_id, headers = new_match(api.client, GAME)
    chooser = random.Random(5)
    finished = []
    for _ in range(12):
        view = play_hand(api, match_id, headers, chooser)
        actions = recorded_actions(api, view["hand_id"])
        state = play(get_game(GAME), [a.action for a in actions])
        assert state.is_terminal()
        assert view["outcome"]["human_payoff"] == state.returns()[view["human_seat"]]
        assert view["outcome"]["human_payoff"] in (-STACK, -100, -50, 0, 50, 100, STACK)
        for action in actions:
            if action.actor == view["bot_seat"]:
                assert action.probabilities is not None
                assert set(action.probabilities) <= {"fold", "call", f"raise to {STACK}"}
        finished.append((view, state))
    response = api.client.get(f"{API}/matches/{match_id}/hand-histories", headers=headers,
                              params={"limit": 50})
    assert response.status_code == 200 and response.json()["format"] == "phh"
    histories = list(HandHistory.loads_all(response.json()["text"]))
    assert len(histories) == len(finished)
    for history, (view, state) in zip(histories, reversed(finished), strict=True):
        assert history.hand == view["number"]
        final = list(history)[-1]
        assert [s - STACK for s in final.stacks] == list(state.returns())


@pytest.mark.slow
def test_the_charts_of_push_or_fold(tmp_path: Path, store_path: Path,
                                    make_app: AppFactory) -> None:
    """The lobby names both seats' charts; each is the spot's grid over the API and as the
    card's partial: aces always go all-in and call, seven-deuce offsuit never calls."""
    store = copy_store(store_path, tmp_path / "with-push-or-fold.sqlite")
    solve_and_store(GAME, "dcfr", target=5e-5, store_path=store)
    api = make_app(store=store)
    listed = {g["name"]: g for g in api.client.get(f"{API}/games").json()}
    charts = listed[GAME]["charts"]
    assert [(c["board"], c["line"]) for c in charts] == [("", ""), ("", "r")]
    assert listed["leduc"]["charts"] == []
    for chart, (move, weak) in zip(charts, (("raise to 1000", None), ("call", "72o")),
                                   strict=True):
        spot = api.client.get(f"{API}/games/{GAME}/grid", params={"line": chart["line"]})
        assert spot.status_code == 200, spot.text
        cells = {c["label"]: {a["label"]: a["probability"] for a in c["actions"]}
                 for row in spot.json()["blueprint"]["cells"] for c in row}
        assert len(cells) == 169 and cells["AA"][move] > 0.999
        if weak is not None:
            assert cells[weak][move] < 0.001
        page = api.client.get(f"/games/{GAME}/chart", params={"line": chart["line"]})
        assert page.status_code == 200 and page.text.count('data-class="') == 169
