"""What the pages say is true: the chart's caption describes only what is drawn, the coach calls
nothing costly that cost nothing, seats are named as the game's players name them, and the
explorer offers every move there is (through FastAPI's TestClient, as a browser without
JavaScript plays)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from solver.games import get_view
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_pages import (
    Node,
    action_form,
    csrf,
    page,
    play_form,
    post_action,
    probabilities,
    start,
)


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app(seed=5)


def test_the_caption_describes_the_band_only_once_it_is_drawn(web: AppHandle) -> None:
    client = web.client
    url = start(client, "rps")
    seen_band = False
    for hand in range(1, 25):
        post_action(client, play_form(page(client, url)), "rock")
        doc = page(client, url)
        caption = doc.by_id("chart-caption").text
        band = doc.by_id("results-chart").find("path", cls="c-band")
        # A band of zero width (equal results) is no band to speak of.
        drawn = band is not None and len(set(band.attrs["d"].split())) > 2 * hand
        assert drawn == ("shaded band is where" in caption), (hand, caption)
        if hand == 1:
            assert not drawn and "appears once your results have a spread" in caption
        seen_band = seen_band or drawn
        if seen_band:
            break
        client.post(f"{url}/next", data=csrf(client))
    assert seen_band


def play_hands(client: TestClient, url: str, hands: int,
               pick: Callable[[dict[str, float]], str]) -> list[Node]:
    """Play `hands` hands with the hint on, choosing with `pick(hint probabilities)`; the
    pages after each hand."""
    seen: list[Node] = []
    for number in range(hands):
        doc = page(client, f"{url}?hint=1")
        while (form := action_form(doc)) is not None:
            hint = probabilities(doc.by_id("hint"))
            post_action(client, form, pick(hint))
            doc = page(client, f"{url}?hint=1")
        seen.append(doc)
        if number < hands - 1:
            client.post(f"{url}/next", data=csrf(client))
    return seen


@pytest.mark.slow
def test_equilibrium_play_gives_up_nothing_and_lists_nothing_costly(web: AppHandle) -> None:
    """Always the equilibrium's likeliest action: every decision is worth the mix up to the
    solve's own error, so the coach never says "gave up 0.000" or "gained 0.000", the match
    lists no decision that cost nothing and gives up "none"."""
    client = web.client
    url = start(client, "kuhn")
    docs = play_hands(client, url, 6, lambda hint: max(hint, key=lambda a: hint[a]))
    words = [p.text for doc in docs for p in doc.by_id("coach").find_all("p", cls="coach-words")]
    assert len(words) >= 6
    assert not [w for w in words if "0.000" in w or "gained" in w], words
    assert sum("nothing given up" in w for w in words) > len(words) / 2, words
    last = docs[-1]
    assert last.by_id("stat-lost").text.startswith("none")
    assert "gained" not in last.by_id("stat-lost").text
    costly = last.find(id="costliest")
    assert costly is None or "0.000" not in costly.text


def test_costly_decisions_show_what_they_cost(web: AppHandle) -> None:
    """The least likely action each time: what is listed as costly cost something."""
    client = web.client
    url = start(client, "kuhn")
    docs = play_hands(client, url, 6, lambda hint: min(hint, key=lambda a: hint[a]))
    costliest = docs[-1].by_id("costliest").find_all("li")
    assert costliest
    for item in costliest:
        given_up = float(item.text.rsplit(" ", 1)[1])
        assert given_up >= 0.001, item.text
    words = [p.text for doc in docs for p in doc.by_id("coach").find_all("p", cls="coach-words")]
    assert any("gave up" in w for w in words)
    assert not any("0.000" in w for w in words), words


def test_every_move_of_a_secret_choice_can_be_followed(web: AppHandle) -> None:
    """Rock-Paper-Scissors' first move is secret, so all three lead to one public node, which
    the stored tree files under the first: the explorer offers all three, as its legend
    shows them, and each leads there."""
    client = web.client
    doc = page(client, "/games/rps/strategy")
    links = doc.by_id("tree").first("div", cls="tree-children").find_all("a")
    legend = [i.text for i in doc.by_id("tree").find_all("span", cls="legend-item")]
    assert [a.text for a in links] == legend == ["rock", "paper", "scissors"]
    targets = {a.attrs["href"] for a in links}
    assert len(targets) == 1
    doc = page(client, targets.pop())
    assert "rock, paper or scissors (secret)" in doc.by_id("tree").first("nav").text
    assert [a.text.split()[0] for a in doc.by_id("tree").first(
        "div", cls="tree-children").find_all("a")] == ["rock", "paper", "scissors"]
    api = client.get("/api/v1/games/rps/tree", params={"node": 0}).json()
    assert [c["label"] for c in api["children"]] == ["rock", "paper", "scissors"]
    assert {c["idx"] for c in api["children"]} == {1}
    # A game without secret moves is unchanged: one child per move, none marked secret.
    leduc = client.get("/api/v1/games/leduc/tree", params={"node": 0}).json()
    assert len({c["idx"] for c in leduc["children"]}) == len(leduc["children"]) > 1
    assert not any(c["hidden_moves"] for c in leduc["children"] + leduc["path"])


def test_seats_are_named_as_poker_players_name_them(web: AppHandle) -> None:
    """Seat 0 of the hold'em family posts the big blind and acts second before the board,
    first after it: the table, the results, the play page, the explorer and the API say so,
    and the first move of hand 1 (the human in seat 0) is indeed the bot's."""
    client = web.client
    game = client.get("/api/v1/games/holdem-mini").json()
    assert [s["name"] for s in game["seats"]] == ["the big blind", "the small blind (the button)"]
    assert game["seats"][1]["order"] == "first in round 1, second in round 2"
    url = start(client, "holdem-mini")
    doc = page(client, url)
    toolbar = doc.by_id("your-turn-order").text
    assert toolbar == "you are the big blind: you act second in round 1, first in round 2"
    moves = [li.first("span", cls="who").text
             for li in doc.first("ol", cls="events").find_all("li")]
    assert next(m for m in moves if m != "Dealer") == "Bot"  # the small blind acted first
    assert "Bot · small blind" in doc.by_id("bot-seat").text
    assert "You · big blind" in doc.by_id("your-seat").text
    assert "value per hand for the big blind" in doc.by_id("results").text
    assert "in hand 1 you are the big blind" in page(client, "/play/holdem-mini").by_id(
        "seat-swap").text
    explorer = page(client, "/games/holdem-mini/strategy")
    assert "for the big blind" in explorer.text
    assert "The small blind (the button) to act" in explorer.by_id("tree").text
    assert "first to act" not in explorer.text and "Seat 2" not in explorer.text
    search = page(client, "/games/holdem-mini/strategy?view=search")
    badges = {b.text for b in search.by_id("infosets").find_all("span", cls="badge")}
    assert badges <= {"big blind to act", "small blind to act"} and badges
    # A game whose seats are known by their turn keeps saying so.
    kuhn = page(client, start(client, "kuhn"))
    assert kuhn.by_id("your-turn-order").text == "you act first"
    assert "value per hand for the first player" in kuhn.by_id("results").text


def test_the_lobby_explains_its_figures_and_which_bots_are_exact(
        make_app: AppFactory, match_store: Path) -> None:
    """Exploitability and the solve are explained in words that open with a tap (<details>);
    an exact bot says so, an abstraction bot says what its abstract game forgets and how
    exploitable such a strategy was measured to be, and no page promises that an abstraction
    bot cannot be beaten."""
    client = make_app(store=match_store).client
    lobby = page(client, "/")
    assert "You cannot beat it in the long run" not in lobby.text
    kuhn = lobby.by_id("game-kuhn")
    assert "exact" in kuhn.first("dd", cls="bot-nature").text
    explained = {d.first("summary").text: d.text for d in kuhn.find_all("details", cls="explain")}
    exploitability = next(t for s, t in explained.items() if "×10" in s)
    assert "perfect opponent" in exploitability and "nobody wins more" in exploitability
    solve = next(t for s, t in explained.items() if "iterations of the solver" in s)
    assert "the solver's name for it: pdcfr+" in solve
    assert "predictive discounted CFR+" in solve.lower().replace("cfr+", "CFR+")
    match = lobby.by_id("game-dudo-match")
    nature = match.first("dd", cls="bot-nature").text
    assert "abstraction" in nature and "only the last bid" in nature
    measured = next(d.text for d in match.find_all("details", cls="explain")
                    if d.first("summary").text == "not known exactly")
    assert "Not measured in this game" in measured and "remembering 1 bid, by 0.17" in measured
    assert "nobody wins more" not in match.text
    api = client.get("/api/v1/games/dudo-match").json()
    assert api["bot"]["exact"] is False and api["solve"]["abstraction"] == "recall=1"
    assert "FSICFR" in api["solve"]["algorithm_words"]
    kuhn_bot = client.get("/api/v1/games/kuhn").json()["bot"]
    assert {k: kuhn_bot[k] for k in ("exact", "abstraction", "measured", "plain")} == {
        "exact": True, "abstraction": None, "measured": None, "plain": None}
    assert kuhn_bot["summary"].startswith("It plays an equilibrium of the game itself")
    play = page(client, "/play/dudo-match").by_id("bot-nature").text
    assert "It plays an equilibrium of a simplified game, not of the game itself: a player " \
           "remembers its dice but only the last bid." in play
    assert "An equilibrium of a game in which a player remembers" in play  # technically


def test_keys_are_said_in_words_and_kept_for_the_curious(web: AppHandle) -> None:
    client = web.client
    url = start(client, "leduc")
    doc = page(client, url)
    while (form := action_form(doc)) is not None:
        post_action(client, form, "call" if "call" in form.text else "check")
        doc = page(client, url)
    for decision in doc.by_id("outcome").find_all("div", cls="decision"):
        key = decision.attrs["data-infoset"]
        words = decision.first("span", cls="situation").text
        assert decision.first("code", cls="key").text == key  # the key, for the curious
        assert key not in words and "History" not in words
        assert words.startswith(("You held", "It held"))
        assert "Opening move" in words or "Round 1: " in words
    assert get_view("kuhn").describe_history("pbb") == "Moves so far: check, bet, call"
    assert get_view("leduc").describe_history("rc|Qh|cr") == (
        "Round 1: bet, call; board Q♥; round 2: check, bet")
