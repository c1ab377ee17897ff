"""Heads-up no-limit hold'em at 200 big blinds through the app: a raise has 19,801 legal amounts,
so a hand view lists fold, call and the named amounts with the range beside them, the API takes
any amount of the range, a refusal names the range, the bot's recorded probabilities hold only
the moves it may play, the coach values the player's moves (each under its own label, as the
blueprint reads it), and the hands export as PHH that pokerkit plays back to the same result.

The store holds a tiny blueprint (8 buckets a round, one epoch of 20 boards, its value by
self-play of 500 deals) made once per module: the real build (`python -m solver hulhe --game
hunl`, about an hour) plays the same way, only better."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from pokerkit import HandHistory

from solver.abstractions.holdem.translated import TranslatedPolicy
from solver.cli import main
from solver.evaluation.holdem.report import make_policy
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.games.holdem.rules import HUNL
from solver.resolving.kind import ResolvingSpec
from solver.resolving.no_limit_bot import NoLimitResolvingBot
from solver.resolving.store import store_resolving
from tests.app.conftest import AppFactory, AppHandle, new_match
from tests.app.test_api import API
from tests.conftest import copy_store

pytestmark = pytest.mark.slow  # the blueprint's build: about half a minute


@pytest.fixture(scope="module")
def hunl_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = copy_store(store_path, tmp_path_factory.mktemp("hunl") / "strategies.sqlite")
    assert main(["hulhe", "--game", "hunl", "--buckets", "8,8,8", "--metric", "ehs2",
                 "--epochs", "1", "--epoch-iterations", "20", "--workers", "0",
                 "--checkpoint", "none", "--self-play-deals", "500", "--quiet", "--json",
                 "--store", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def resolving_store(hunl_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same blueprint, played by the bot that re-solves the river (as the default build's
    ``--resolve-from 4`` stores it)."""
    path = copy_store(hunl_store, tmp_path_factory.mktemp("hunl-resolving") / "strategies.sqlite")
    store_resolving(str(path), "hunl", ResolvingSpec(4, iterations=30))
    return path


@pytest.fixture(params=["blueprint", "re-solving"])
def api(request: pytest.FixtureRequest, make_app: AppFactory, hunl_store: Path,
        resolving_store: Path) -> AppHandle:
    return make_app(store=hunl_store if request.param == "blueprint" else resolving_store,
                    seed=7)


def _act(api: AppHandle, view: dict[str, Any], headers: dict[str, str],
         body: dict[str, Any]) -> dict[str, Any]:
    response = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                               json={**body, "seq": view["seq"]})
    assert response.status_code == 200, response.text
    assert len(response.content) < 20_000  # not thousands of labels
    answer: dict[str, Any] = response.json()
    return answer


def test_any_amount_over_the_api_with_short_lists(api: AppHandle) -> None:
    game = api.client.get(f"{API}/games/hunl").json()
    assert game["available"] and game["value_ci95"] is not None  # by self-play
    match_id, headers = new_match(api.client, "hunl")
    rng = random.Random(4)
    won: dict[int, float] = {}
    chosen = refused = analysed = 0
    for _ in range(6):
        view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            choice, legal = view["amount_choice"], view["legal_actions"]
            assert 2 <= len(legal) <= 6
            if choice is None:
                view = _act(api, view, headers, {"action": rng.choice(legal)})
                continue
            low, high = choice["min"], choice["max"]
            assert [q["label"] for q in choice["quick"]] == legal[-len(choice["quick"]):]
            if not refused:  # out of range: refused, the range named, nothing played
                bad = api.client.post(f"{API}/hands/{view['hand_id']}/actions",
                                      headers=headers, json={"action": choice["action"],
                                                             "amount": high + 1,
                                                             "seq": view["seq"]})
                assert bad.status_code == 409
                assert f"from {low} to {high}" in bad.json()["detail"]
                assert bad.json()["legal_actions"] == legal
                refused += 1
            if rng.random() < 0.5:
                view = _act(api, view, headers, {"action": rng.choice(legal[:2])})
                continue
            amount = rng.randint(low, min(high, low + 3 * (high - low) // 100 + 1))
            view = _act(api, view, headers, {"action": choice["action"], "amount": amount})
            assert view["new_events"][0]["label"] == f"{choice['prompt']} {amount}"
            chosen += 1
        outcome = view["outcome"]
        for decision in outcome["bot_decisions"]:
            probabilities = [p["probability"] for p in decision["probabilities"]]
            assert 0 < len(probabilities) <= 6 and min(probabilities) > 0
            assert sum(probabilities) == pytest.approx(1.0)
        won[view["number"]] = outcome["human_payoff"]
        done = api.client.get(f"{API}/hands/{view['hand_id']}", headers=headers).json()
        if done["outcome"]["analysis"] == "done":  # the coach, in the blueprint's game
            mine = [e["label"] for e in done["events"] if e["actor"] == "you"]
            assert [d["chosen"] for d in done["outcome"]["coach"]] == mine
            analysed += 1
    assert chosen and refused and analysed >= 4
    exported = api.client.get(f"{API}/matches/{match_id}/hand-histories",
                              headers=headers).json()
    hands = list(HandHistory.loads_all(exported["text"]))
    assert len(hands) == len(won)
    for hand in hands:  # pokerkit plays each hand, sizes and all, to the app's result
        final = list(hand)[-1]
        assert hand.players is not None and isinstance(hand.hand, int)
        you = hand.players.index("you")
        assert final.stacks[you] - (HUNL.stacks or (0, 0))[you] == won[hand.hand]


def test_the_re_solving_bot_answers_an_odd_bet_on_the_river(make_app: AppFactory,
                                                            resolving_store: Path) -> None:
    """Checked down to the river, where the player bets an amount no blueprint size is: the bot
    re-solves with that bet in its subgame and answers with moves it may play; the lobby's words
    say that it re-solves."""
    api = make_app(store=resolving_store, seed=3)
    game = api.client.get(f"{API}/games/hunl").json()
    assert "re-solves the rest of the hand" in str(game)
    match_id, headers = new_match(api.client, "hunl")
    rivers = 0
    for _ in range(8):
        view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            choice, legal = view["amount_choice"], view["legal_actions"]
            on_river = len(view["public"]["board"]) == 5
            if on_river and choice is not None:
                amount = choice["min"] + 7 if choice["min"] + 7 <= choice["max"] else choice["max"]
                view = _act(api, view, headers, {"action": choice["action"], "amount": amount})
                rivers += 1
                continue
            calls = [a for a in legal if a.lower().startswith(("check", "call"))]
            view = _act(api, view, headers, {"action": calls[0] if calls else legal[0]})
        for decision in view["outcome"]["bot_decisions"]:
            probabilities = [p["probability"] for p in decision["probabilities"]]
            assert 0 < len(probabilities) <= 6
            assert sum(probabilities) == pytest.approx(1.0)
        if rivers:
            break
    assert rivers


def test_the_evaluations_name_the_bot_or_its_blueprint(hunl_store: Path,
                                                       resolving_store: Path) -> None:
    """``evaluate-holdem --policy re-solving`` measures the re-solving bot, ``stored`` its
    blueprint alone; a store without the bot says how to add it."""
    hunl = get_game("hunl")
    assert isinstance(hunl, HoldemGame)
    assert isinstance(make_policy("re-solving", hunl, str(resolving_store)), NoLimitResolvingBot)
    assert isinstance(make_policy("stored", hunl, str(resolving_store)), TranslatedPolicy)
    with pytest.raises(ValueError, match=r"python -m solver\.resolving\.store --game hunl"):
        make_policy("re-solving", hunl, str(hunl_store))


def test_the_re_solving_bot_plays_a_match_against_its_blueprint(
        resolving_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--against stored`` sets the blueprint alone against the bot that re-solves it, deal by
    deal in both seats, as the baselines are."""
    assert main(["evaluate-holdem", "hunl", "--policy", "re-solving", "--against", "stored",
                 "--store", str(resolving_store), "--deals", "4", "--lbr-hands", "0",
                 "--no-self-play", "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    [match] = report["matches"]
    assert "self_play" not in report
    assert report["policy"] == "re-solving" and match["opponent"].startswith("hunl-solve-")
    assert match["deals"] == 4 and abs(match["mbb_per_hand"]) <= 200_000
