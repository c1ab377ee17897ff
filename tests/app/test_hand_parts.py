"""A hand's luck-adjusted result in its terms, each named for what it is: where the result
starts from (the seat's value, or the first decision's value where no exact start is known),
what the decisions gained or gave up (the coach's figures added up, nothing else), the bot's
corrections, the opening's luck taken out and the habits' part. The terms add up to the result,
the decisions' term is the coach's figures whatever the opening's correction does, and the
terms a page shows, rounded, add up to the total it shows.

A newcomer met a hold'em hand whose two decisions were each worth more than the mix while the
page said "EV given up 0.62" and "without the luck this hand counts -0.763": the opening's luck
was folded into figures named for the decisions. Simulated players play holdem-mini against a
bucket bot valued at play time (no exact start) that raises on the river (corrections), as in
`tests.app.test_coach_openings`."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from app.services.analysis import analyse
from app.services.play.views import result_parts
from app.web.format import rounded_parts
from solver.abstractions.holdem.bot import HulheBot
from solver.evaluation.values.holdem import HoldemValues
from solver.games import get_game
from solver.games.holdem.game import HoldemGame
from tests.app.conftest import AppFactory
from tests.app.simulated import RULES, chooser, play
from tests.app.test_coach_resolving import Playing, RaisesOnTheRiver
from tests.app.test_pages import Node, action_form, csrf, page, post_action
from tests.solver.evaluation.values.test_holdem_values import small_bot

HANDS = 60
"""Past the habits' warm-up (20 hands), with openings seen more than once."""


@pytest.fixture(scope="module")
def bot() -> HulheBot:
    return small_bot()


def test_the_terms_add_up_and_the_decisions_term_is_the_decisions(bot: HulheBot) -> None:
    mini = get_game("holdem-mini")
    assert isinstance(mini, HoldemGame)
    played = RaisesOnTheRiver(bot)
    valuer = HoldemValues(bot, played)
    opponent = Playing(played)
    rng = random.Random(5)
    choose = chooser(opponent, mini, RULES["uniform"], rng)
    state = analyse.MatchState()
    seen = {"first_decision": 0, "opening": 0, "bot": 0, "habits": 0}
    for n in range(HANDS):
        seat = n % 2
        payoff, trace = play(mini, opponent, seat, choose, rng)
        done = analyse.analyse(valuer, trace, seat, payoff, state, seed=n)
        state = done.state
        review = done.review
        parts = review.parts
        assert parts is not None
        assert parts.total == pytest.approx(review.adjusted, abs=1e-12)
        # The decisions' term is the coach's figures for them, added up: computed from the
        # values and the actions taken alone, so nothing of the opening can be in it.
        taken = sum(d["taken"] - d["value"] for d in done.record["decisions"])
        assert parts.decisions == pytest.approx(taken, abs=1e-12)
        assert parts.decisions == pytest.approx(-review.lost, abs=1e-12)
        change = done.record.get("opening", {}).get("change", [0.0])[0]
        assert parts.opening == change
        if review.decisions:
            assert parts.start_from == "first_decision"  # no exact start in this game
            assert parts.start == done.record["decisions"][0]["value"]
        seen["first_decision"] += parts.start_from == "first_decision"
        seen["opening"] += parts.opening != 0.0
        seen["bot"] += parts.bot != 0.0
        seen["habits"] += parts.habits != 0.0
        kept = analyse.review_of(done.record)
        assert kept is not None and kept.parts == parts
        shown = result_parts(mini, parts)
        assert math.fsum(p.value for p in shown) == pytest.approx(review.adjusted, abs=1e-12)
        assert [p.name for p in shown][:2] == ["start", "decisions"]
        rounded = rounded_parts([p.value for p in shown])
        assert round(sum(rounded), 3) == round(review.adjusted, 3)
    assert all(seen.values()), seen  # every kind of term came up


def test_rounded_parts_add_up_to_the_rounded_total() -> None:
    assert sorted(rounded_parts([0.1234, 0.1234])) == [0.123, 0.124]  # 0.2468 shows as 0.247
    assert rounded_parts([-0.9004, 0.1374]) == [-0.9, 0.137]
    rng = random.Random(3)
    for _ in range(2000):
        values = [rng.uniform(-2, 2) for _ in range(rng.randint(1, 5))]
        shown = rounded_parts(values)
        assert round(sum(shown), 3) == round(math.fsum(values), 3)
        assert all(abs(s - v) < 0.001 + 1e-12 for s, v in zip(shown, values, strict=True))


def _shown_parts(doc: Node) -> tuple[float, dict[str, float]]:
    block = doc.by_id("adjusted-parts")
    total = float(block.first("strong").attrs["data-total"])
    parts = {li.attrs["data-part"]: float(li.attrs["data-shown"])
             for li in block.find_all("li")}
    return total, parts


def test_a_hand_page_shows_terms_that_add_up(make_app: AppFactory,
                                             abstracted_stores: tuple[Path, Path]) -> None:
    """Hands of holdem-mini against an abstraction's bot (no exact start) on the pages: each
    finished hand lists its terms, which add up to the total shown, its decisions' term is the
    sum of the coach's figures shown, and the match's "EV given up" is what the decisions gave
    up, not the luck of the hands' openings."""
    client = make_app(store=abstracted_stores[0], seed=3).client
    response = client.post("/play/holdem-mini", data=csrf(client), follow_redirects=False)
    url = response.headers["location"]
    lost = 0.0
    for _ in range(5):
        doc = page(client, url)
        while (form := action_form(doc)) is not None:
            post_action(client, form, "call" if "call" in form.text else "check")
            doc = page(client, url)
        if doc.by_id("coach").attrs["data-analysis"] == "pending":
            doc = page(client, url)  # analysed after the answer that said "pending"
        coach = doc.by_id("coach")
        assert coach.attrs["data-analysis"] == "done"
        total, parts = _shown_parts(doc)
        assert round(sum(parts.values()), 3) == total
        assert list(parts)[:2] == ["start", "decisions"]
        decisions = [float(d.attrs["data-lost"]) for d in coach.find_all("div", cls="decision")]
        assert parts["decisions"] == pytest.approx(-sum(decisions), abs=0.0015)
        if decisions:
            assert "opening" in parts or "start" in parts
        lost += sum(decisions)
        replay = page(client, coach.first("a").attrs["href"] + "?step=999")
        assert _shown_parts(replay) == (total, parts)
        assert client.post(f"{url}/next", data=csrf(client),
                           follow_redirects=False).status_code == 303
    shown = page(client, url).by_id("stat-lost").text
    if lost >= 0.005:
        assert shown.startswith(f"{lost:.2f} "), (shown, lost)
    elif lost <= -0.005:
        assert shown.startswith("none") and f"decisions scored {-lost:.2f} above" in shown, (
            shown, lost)
    else:
        assert shown.startswith("none") and "scored" not in shown, (shown, lost)
