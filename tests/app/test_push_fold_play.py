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
