"""Opponents of every strength in the app: chosen when a match starts (API and page), remembered
by the match, shown with what a perfect exploiter wins, the coach judging against the best reply
to an exploitable bot, and a board per opponent."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from solver.games import action_from_label, get_game
from strategies import StrategyStore
from tests.app.conftest import AppHandle, play_random_hand
from tests.app.test_players import player


def _opponents(api: AppHandle, game: str) -> list[dict[str, Any]]:
    games = {g["name"]: g for g in api.client.get("/api/v1/games").json()}
    return list(games[game]["opponents"])


def test_games_list_their_opponents_measured(api: AppHandle) -> None:
    opponents = _opponents(api, "kuhn")
    names = [o["name"] for o in opponents]
    assert names[0] == "equilibrium"
    assert {"early1", "early2", "early3", "calls", "folds", "bets"} <= set(names)
    with StrategyStore.open(api.settings.strategy_store) as store:
        for o in opponents[1:]:
            info = store.latest_solve("kuhn", str(o["name"]))
            assert info is not None
            assert o["exploitability"] == pytest.approx(info.exploitability)
            assert o["best_reply_by_seat"] == pytest.approx(list(info.best_reply or ()))
    assert opponents[0]["exploitability"] < 1e-3 < opponents[-1]["exploitability"]
    # The most exploitable first, after the equilibrium.
    rest = [float(o["exploitability"]) for o in opponents[1:]]
    assert rest == sorted(rest, reverse=True)
    detail = api.client.get("/api/v1/games/dudo").json()
    assert {"doubts", "believes"} <= {o["name"] for o in detail["opponents"]}


def test_an_unknown_opponent_is_a_404_naming_the_games_opponents(api: AppHandle) -> None:
    response = api.client.post("/api/v1/matches", json={"game": "kuhn", "opponent": "shark"})
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert "shark" in detail and "early1" in detail and "equilibrium" in detail


def test_a_match_against_an_exploitable_bot(api: AppHandle) -> None:
    created = api.client.post("/api/v1/matches", json={"game": "kuhn", "opponent": "folds"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["opponent"] == "folds"
    headers = {"Authorization": f"Bearer {body['token']}"}
    match_id = body["match_id"]
    with StrategyStore.open(api.settings.strategy_store) as store:
        info = store.latest_solve("kuhn", "folds")
        assert info is not None and info.best_reply is not None
        rows = store.strategy("kuhn", info.id)
    before = api.client.get(f"/api/v1/matches/{match_id}", headers=headers).json()
    assert before["opponent"]["name"] == "folds"
    assert before["best_reply_mean"] == pytest.approx(info.exploitability)
    assert before["target_text"].startswith("A perfect exploiter wins +")
    rng = random.Random(5)
    seats = [0, 0]
    game = get_game("kuhn")
    for _ in range(8):
        view = play_random_hand(api.client, match_id, headers, rng)
        replay = api.client.get(f"/api/v1/hands/{view['hand_id']}/replay",
                                headers=headers).json()
        seat = replay["human_seat"]
        seats[seat] += 1
        state = game.initial_state()
        for step in replay["steps"]:
            if step["actor"] == "bot":
                # The bot plays the stored opponent, not the equilibrium.
                row = rows[state.information_state_key(state.current_player())]
                played = {p["label"]: p["probability"] for p in step["bot_probabilities"]}
                assert played == pytest.approx(dict(zip(row.labels, row.probabilities,
                                                        strict=True)))
            state = state.apply_action(action_from_label(state, step["label"]))
        decisions = replay["outcome"]["coach"]
        assert decisions
        for d in decisions:
            # Judged against the best reply: its value is the best action's, and the best
            # reply's choice is what the coach shows.
            values = [a["value"] for a in d["actions"]]
            assert d["value"] == pytest.approx(max(values))
            assert d["lost_vs_equilibrium"] == pytest.approx(d["lost_vs_best_reply"])
            best = [a for a in d["actions"] if a["probability"] > 0]
            assert all(a["value"] == pytest.approx(max(values)) for a in best)
        adjusted = replay["outcome"]["adjusted_payoff"]
        lost = sum(d["lost_vs_equilibrium"] for d in decisions)
        assert adjusted == pytest.approx(info.best_reply[seat] - lost)
    after = api.client.get(f"/api/v1/matches/{match_id}", headers=headers).json()
    expected = (seats[0] * info.best_reply[0] + seats[1] * info.best_reply[1]) / sum(seats)
    assert after["best_reply_mean"] == pytest.approx(expected)
    assert re.match(r"A perfect exploiter wins [+−]\d\.\d{3} per hand here; you are at ",
                    after["target_text"])


def test_the_page_offers_the_opponents(api: AppHandle) -> None:
    page = api.client.get("/").text
    assert 'name="opponent"' in page and 'value="calls"' in page
    assert "a perfect exploiter wins" in page


def test_each_opponent_has_its_board(api: AppHandle) -> None:
    client, headers = player(api, "exploiter")
    created = client.post("/api/v1/matches", json={"game": "kuhn", "opponent": "calls"},
                          headers=headers)
    assert created.status_code == 201, created.text
    rng = random.Random(1)
    for _ in range(30):
        play_random_hand(client, created.json()["match_id"], headers, rng)
    board = client.get("/api/v1/leaderboards/kuhn?kind=programs&opponent=calls").json()
    assert [e["name"] for e in board["entries"]] == ["exploiter"]
    assert board["opponent"] == "calls" and board["entries"][0]["hands"] == 30
    equilibrium = client.get("/api/v1/leaderboards/kuhn?kind=programs").json()
    assert equilibrium["entries"] == []
    profile = client.get("/api/v1/profile", headers=headers).json()
    (record,) = profile["games"]
    assert record["game"] == "kuhn" and record["opponent"] == "calls"
