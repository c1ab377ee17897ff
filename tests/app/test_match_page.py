"""A whole Dudo match on the pages (a quick build of its bot, `match_store`): the bids laid out
by quantity and face with the 1s in a column of their own, each round apart with the dice each
side had, the bot's decisions as their likeliest few bids, the dice left at the end as the
seats show them, and the explorer's words for a stored round."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app.conftest import AppFactory, AppHandle, new_match
from tests.app.test_pages import Node, action_form, enabled_actions, page, post_action, start

DIE = "⚀⚁⚂⚃⚄⚅"
FACES = (2, 3, 4, 5, 6, 1)


@pytest.fixture
def web(make_app: AppFactory, match_store: Path) -> AppHandle:
    return make_app(store=match_store, seed=4)


def count_dice(text: str) -> int:
    return sum(text.count(d) for d in DIE)


def play(client, url: str, moves: int) -> Node:
    """Up to `moves` of my moves: dudo when I may, else the weakest bid open to me."""
    doc = page(client, url)
    for _ in range(moves):
        form = action_form(doc)
        if form is None:
            break
        legal = enabled_actions(form)
        post_action(client, form, "dudo" if "dudo" in legal else legal[0])
        doc = page(client, url)
    return doc


def test_a_match_by_rounds(web: AppHandle) -> None:
    client = web.client
    url = start(client, "dudo-match")
    doc = page(client, url)
    grid = action_form(doc).find("div", cls="grid-actions")
    assert "cols-6" in grid.classes
    labels = [b.attrs["value"] for b in grid.find_all("button")]
    assert labels == [f"{q}x{f}" for q in range(1, 11) for f in FACES]  # 1s in their column

    doc = play(client, url, 6)
    rounds = doc.by_id("rounds")
    finished = rounds.find_all("details", cls="round")
    assert len(finished) >= 2
    held = [5, 5]
    for number, folded in enumerate(finished, 1):
        summary = folded.find("summary").text
        assert summary.startswith(f"Round {number} · you {held[0]} dice, the bot {held[1]}")
        # "You ⚀⚂ · the bot ⚁⚅ <why>": the explanation names faces as digits, not dice.
        mine, theirs = folded.find("p", cls="round-result").text.split("·", 1)
        assert (count_dice(mine), count_dice(theirs)) == tuple(held)
        loser = 0 if "you lost a die" in summary else 1
        assert ("the bot lost a die" in summary) == (loser == 1)
        held[loser] -= 1
        # Each round's events are its own: two rolls, then the bids and the call.
        events = folded.find("ol", cls="events").find_all("li")
        assert [e.find("span", cls="who").text for e in events][:2] == ["Dealer", "Dealer"]
        assert events[-1].text.endswith("dudo")
    current = rounds.find("section", cls="round")
    if current is not None:
        assert f"you {held[0]} " in current.find("h3").text
        assert doc.by_id("pieces-held").text.startswith(f"Dice in play: you {held[0]} ")
        chips = doc.find("div", cls="bid-history").find_all("span", cls="bid-chip")
        moves = [e for e in current.find_all("li") if e.find("span", cls="who").text != "Dealer"]
        assert len(chips) == len(moves)  # this round's bids only

    doc = play(client, url, 400)
    assert doc.find(id="outcome") is not None
    left = doc.by_id("pieces-held").text
    assert left.startswith("Dice left: ")
    mine_left, bot_left = (int(n) for n in re.findall(r"\d+", left)[:2])
    assert 0 in (mine_left, bot_left)
    for seat, count in (("your-seat", mine_left), ("bot-seat", bot_left)):
        shown = count_dice(doc.by_id(seat).find("div", cls="seat-pieces").text)
        # A seat whose dice are gone shows its last roll, and says so.
        assert (shown == count) != ("in the last round" in doc.by_id(seat).text)
    decisions = doc.by_id("bot-decisions").find_all("div", cls="decision")
    assert decisions
    for decision in decisions:
        listed = decision.find_all("li", cls="prob")
        assert len(listed) <= 5
        chosen = decision.find("span", cls="chosen").text.removeprefix("chose ")
        assert [li for li in listed if "chosen" in li.classes], chosen
        assert decision.find("strong").text.startswith("Round ")
    assert any(d.find("p", cls="more-moves") is not None for d in decisions)


def test_the_explorer_words_a_stored_round(web: AppHandle) -> None:
    doc = page(web.client, "/games/dudo-match/strategy?view=search")
    cards = doc.by_id("infosets").find_all("article", cls="infoset")
    assert cards
    for card in cards:
        key, words = card.attrs["data-key"], card.find("div", cls="history-line").text
        assert "match" not in words
        if key.startswith("1v1:"):
            assert "round of 1 die each" in card.text
        if key.endswith("|"):
            assert words == "The opening bid of a round"


def test_a_whole_match_is_judged_round_by_round(web: AppHandle) -> None:
    """A finished match is analysed after the answer (its rounds' recall graphs): every one of
    my bids and challenges valued in match units, the match's result without the dice luck of
    each round, and the results as chances of winning beside the bot's own (in the API: an API
    match is not the browser's to see)."""
    client = web.client
    match_id, headers = new_match(client, "dudo-match")
    view = client.post(f"/api/v1/matches/{match_id}/hands", headers=headers).json()
    while view["status"] == "in_progress":
        legal = view["legal_actions"]
        view = client.post(f"/api/v1/hands/{view['hand_id']}/actions", headers=headers,
                           json={"action": "dudo" if "dudo" in legal else legal[0],
                                 "seq": view["seq"]}).json()
    assert view["outcome"]["analysis"] == "pending"
    done = client.get(f"/api/v1/hands/{view['hand_id']}", headers=headers).json()["outcome"]
    assert done["analysis"] == "done"
    mine = [e["label"] for e in view["events"] if e["actor"] == "you"]
    assert [d["chosen"] for d in done["coach"]] == mine
    for d in done["coach"]:
        assert d["exact"] and all(-1.0 - 1e-9 <= a["value"] <= 1.0 + 1e-9 for a in d["actions"])
        assert d["value"] == pytest.approx(sum(a["probability"] * a["value"]
                                               for a in d["actions"]))
    assert done["adjusted_payoff"] is not None
    results = client.get(f"/api/v1/matches/{match_id}", headers=headers).json()
    assert results["adjusted_hands"] == 1 and results["hands_analysing"] == 0
    chances = results["win_chances"]
    assert chances["won"] == (1.0 if view["outcome"]["human_payoff"] > 0 else 0.0)
    assert chances["adjusted"] == pytest.approx((1 + done["adjusted_payoff"]) / 2)
    assert chances["expected"] is not None and 0.0 < chances["expected"] < 1.0
