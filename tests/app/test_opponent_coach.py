"""The coach in a match against an exploitable bot judges each decision against the best reply to
that bot: what the best reply plays, what each action wins followed by it, and what the choice
gave up, in the API and on the page, checked on Kuhn against a brute force over every pure
strategy of the player's seat."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from app.services.analysis.results import signed
from solver.games import Game, State, get_game, legal_labels
from strategies import InfosetStrategy, StrategyStore
from tests.app.conftest import AppHandle
from tests.app.test_pages import action_form, csrf, enabled_actions, page, post_action
from tests.solver.runs.test_opponents import _value

OPPONENT = "folds"


def _histories(game: Game, state: State, seat: int, key: str, weight: float,
               bot: dict[str, InfosetStrategy]) -> Iterator[tuple[float, State]]:
    """The histories of `seat`'s information set `key`, each weighted by the chance and the
    bot's probability of reaching it."""
    if state.is_terminal():
        return
    if state.is_chance():
        for action, p in state.chance_outcomes():
            yield from _histories(game, state.apply_action(action), seat, key, weight * p, bot)
        return
    here = state.information_state_key(state.current_player())
    if state.current_player() == seat:
        if here == key:
            yield weight, state
            return
        for action in state.legal_actions():
            yield from _histories(game, state.apply_action(action), seat, key, weight, bot)
        return
    for action, p in zip(state.legal_actions(), bot[here].probabilities, strict=True):
        if p > 0:
            yield from _histories(game, state.apply_action(action), seat, key, weight * p, bot)


def brute_force_values(game: Game, seat: int, key: str, bot: dict[str, InfosetStrategy]
                       ) -> dict[str, float]:
    """Q(key, a) for each action a: the most `seat` wins in expectation, given it is at `key`,
    taking a there and then playing the best pure strategy against the bot (all 2^6 of
    Kuhn's)."""
    histories = list(_histories(game, game.initial_state(), seat, key, 1.0, bot))
    total = sum(w for w, _ in histories)
    labels = legal_labels(histories[0][1])
    mine = sorted(k for k, row in bot.items() if row.player == seat)
    values = {}
    for index, label in enumerate(labels):
        values[label] = max(
            sum(w * _value(game, s, seat, reply, bot) for w, s in histories) / total
            for choice in itertools.product((0, 1), repeat=len(mine))
            if (reply := dict(zip(mine, choice, strict=True)))[key] == index)
    return values


def _expected_advice(chosen: str, values: dict[str, float]) -> tuple[list[str], str]:
    best_value = max(values.values())
    best = [label for label, q in values.items() if q >= best_value - 1e-9]
    lost = best_value - values[chosen]
    if lost < 0.0005:
        return best, (f"You played as the best reply to this bot does here: {chosen}, worth "
                      f"{signed(best_value)}; nothing given up.")
    return best, (f"The best reply to this bot plays {' or '.join(best)} here (worth "
                  f"{signed(best_value)}); you chose {chosen} and gave up {lost:.3f}.")


@pytest.fixture
def bot(api: AppHandle) -> dict[str, InfosetStrategy]:
    with StrategyStore.open(api.settings.strategy_store) as store:
        info = store.latest_solve("kuhn", OPPONENT)
        assert info is not None
        return store.strategy("kuhn", info.id)


def test_the_api_coach_names_the_best_reply(api: AppHandle,
                                            bot: dict[str, InfosetStrategy]) -> None:
    game = get_game("kuhn")
    created = api.client.post("/api/v1/matches", json={"game": "kuhn", "opponent": OPPONENT})
    assert created.status_code == 201, created.text
    match_id, token = created.json()["match_id"], created.json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    rng = random.Random(2)
    costly = fine = 0
    for _ in range(12):
        view: dict[str, Any] = api.client.post(f"/api/v1/matches/{match_id}/hands",
                                               headers=headers).json()
        while view["status"] == "in_progress":
            # The passive action mostly: against a bot that folds too much it gives up.
            legal = view["legal_actions"]
            action = legal[0] if rng.random() < 0.8 else rng.choice(legal)
            view = api.client.post(f"/api/v1/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": action, "seq": view["seq"]}).json()
        seat = view["human_seat"]
        for d in view["outcome"]["coach"]:
            values = brute_force_values(game, seat, d["infoset"], bot)
            assert d["judged_against"] == "best_reply"
            assert {a["label"]: a["value"] for a in d["actions"]} == pytest.approx(values,
                                                                                 abs=1e-9)
            assert d["value"] == pytest.approx(max(values.values()), abs=1e-9)
            best, advice = _expected_advice(d["chosen"], values)
            assert d["best_reply"] == best
            assert d["lost_vs_best_reply"] == pytest.approx(
                max(values.values()) - values[d["chosen"]], abs=1e-9)
            assert d["advice"] == advice
            if d["lost_vs_best_reply"] >= 0.0005:
                costly += 1
            else:
                fine += 1
    assert costly and fine  # both kinds of sentence were checked


def test_the_page_coach_says_what_the_best_reply_plays(api: AppHandle,
                                                      bot: dict[str, InfosetStrategy]) -> None:
    client = api.client
    game = get_game("kuhn")
    said = []
    for _ in range(6):
        response = client.post("/play/kuhn", data={**csrf(client), "opponent": OPPONENT},
                               follow_redirects=False)
        assert response.status_code == 303, response.text
        url = response.headers["location"]
        doc = page(client, url)
        while (form := action_form(doc)) is not None:
            post_action(client, form, enabled_actions(form)[0])
            doc = page(client, url)
        for div in doc.by_id("coach").find_all("div", cls="coach"):
            key = div.attrs["data-infoset"]
            seat = bot[key].player  # the opponent is stored whole: both seats' rows
            values = brute_force_values(game, seat, key, bot)
            chosen = div.first("span", cls="chosen").text.removeprefix("you chose ").strip()
            _, advice = _expected_advice(chosen, values)
            words = div.first("p", cls="coach-words").text.strip()
            assert words == advice
            headers = [th.text for th in div.first("table").find_all("th")]
            assert headers[1] == "Best reply"
            said.append(words)
    assert any(s.startswith("The best reply to this bot plays") for s in said)

