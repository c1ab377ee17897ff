"""Words that come from the game and the stored figures: the share of hands won says of what
("You won 0% of them" did not), Rock-Paper-Scissors' results and coach speak of no cards (it
deals none), a showdown's explanation draws the cards as the pages do (not ``Qh``), and a
leaderboard says what equilibrium play (or a best reply, against an exploitable bot) scores
beside each player's skill figure, from the stored solve."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db.models import Match
from app.services.analysis import results
from app.web.format import fmt_signed, pct
from strategies import StrategyStore
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_pages import (
    Node,
    action_form,
    csrf,
    enabled_actions,
    page,
    parse,
    post_action,
    start,
)
from tests.app.test_players import play_match, player

CARD_WORD = re.compile(r"\b[2-9TJQKA][cdhs]\b")


def finish_hand(client: TestClient, url: str, prefer: str = "call") -> Node:
    doc = page(client, url)
    while (form := action_form(doc)) is not None:
        legal = enabled_actions(form)
        post_action(client, form, prefer if prefer in legal else legal[0])
        doc = page(client, url)
    return doc


def next_hand(client: TestClient, url: str) -> None:
    response = client.post(f"{url}/next", data=csrf(client), follow_redirects=False)
    assert response.status_code == 303


def test_the_share_won_says_of_what(make_app: AppFactory) -> None:
    web = make_app(seed=5)
    client = web.client
    url = start(client, "dudo")
    for played in range(1, 4):
        doc = finish_hand(client, url, prefer="dudo")
        with web.app.state.sessionmaker() as session:
            match = session.query(Match).filter_by(public_id=url.rsplit("/", 1)[1]).one()
            won = sum(h.human_payoff > 0 for h in match.hands if h.human_payoff is not None)
        line = doc.by_id("win-chances").text
        assert line.startswith(f"You won {pct(won / played)} of your {played} "
                               f"hand{'s' if played > 1 else ''}"), line
        next_hand(client, url)


def test_rock_paper_scissors_speaks_of_no_cards(make_app: AppFactory) -> None:
    client = make_app(seed=1).client
    url = start(client, "rps")
    for _ in range(3):
        doc = finish_hand(client, url, prefer="rock")
        for where in ("results", "coach"):
            words = doc.by_id(where).text
            assert "card" not in words and "dice" not in words, (where, words)
        next_hand(client, url)
    caption = doc.by_id("chart-caption").text
    assert "with the luck of the bot's choices taken out" in caption
    judged = results.verdict(results.summarize([1.0, -1.0, 0.5] * 10), 0.0,
                             results.summarize([0.2, -0.2, 0.1] * 10),
                             results.luck_words("moves"))
    assert "without the luck of the bot's choices," in judged.text
    assert results.luck_words("dice") == "the luck of the dice and of the bot's choices"


def test_a_showdown_draws_its_cards(make_app: AppFactory) -> None:
    client = make_app(seed=9).client
    url = start(client, "leduc")
    doc = finish_hand(client, url, prefer="call")
    for _ in range(6):  # until a hand reaches the showdown
        if "Showdown" in doc.by_id("explanation").text:
            break
        next_hand(client, url)
        doc = finish_hand(client, url, prefer="call")
    explanation = doc.by_id("explanation")
    assert explanation.text.startswith("Showdown with ")
    card = explanation.first("span", cls="playing-card")
    assert re.fullmatch(r"(Jack|Queen|King) of (spades|hearts)", card.attrs["aria-label"])
    words = "".join(c for c in explanation.children if isinstance(c, str))
    assert not CARD_WORD.search(words), words  # no Qh in the words themselves
    replay = page(client, doc.by_id("coach").first("a").attrs["href"] + "?step=99")
    assert replay.by_id("explanation").find("span", cls="playing-card") is not None


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app(seed=12)


def test_a_board_says_what_equilibrium_play_scores(web: AppHandle, store_path: Path) -> None:
    client, headers = player(web, "yardstick")
    rng = random.Random(8)
    play_match(client, headers, "kuhn", 31, rng)  # 16 hands as the first player, 15 second
    match = client.post("/api/v1/matches", json={"game": "kuhn", "opponent": "calls"},
                        headers=headers).json()
    for _ in range(30):
        view = client.post(f"/api/v1/matches/{match['match_id']}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            view = client.post(f"/api/v1/hands/{view['hand_id']}/actions", headers=headers,
                               json={"action": rng.choice(view["legal_actions"]),
                                     "seq": view["seq"]}).json()
    with StrategyStore.open(store_path) as store:
        solve = store.latest_solve("kuhn")
        calls = next((o for o in store.opponents("kuhn") if o.opponent == "calls"), None)
    assert solve is not None and calls is not None and calls.best_reply is not None
    value = solve.value
    board = client.get("/api/v1/leaderboards/kuhn?kind=programs").json()
    entry = next(e for e in board["entries"] if e["name"] == "yardstick")
    assert board["reference"] == "equilibrium play"
    assert entry["reference"] == pytest.approx((16 * value - 15 * value) / 31)
    doc = parse(client.get("/leaderboards/kuhn?kind=programs").text)
    words = doc.by_id("board-reference").text
    assert words.startswith("Par is what equilibrium play scores"), words
    assert f"{results.signed(value)} a hand as the first player" in words
    assert f"{results.signed(-value)} as the second player" in words
    row = doc.first("tr", data_player="yardstick")
    assert [th.text for th in doc.by_id("board").find_all("th")][4] == "Par / hand"
    assert row.find_all("td")[4].text == fmt_signed(value / 31, 3)
    against = client.get("/api/v1/leaderboards/kuhn?kind=programs&opponent=calls").json()
    entry = next(e for e in against["entries"] if e["name"] == "yardstick")
    assert against["reference"] == "a best reply"
    assert entry["reference"] == pytest.approx((15 * calls.best_reply[0]
                                                + 15 * calls.best_reply[1]) / 30)
    shown = parse(client.get("/leaderboards/kuhn?kind=programs&opponent=calls").text)
    assert f"{results.signed(calls.best_reply[0])} a hand as the first player" in shown.by_id(
        "board-reference").text
