"""What a match's results claim: no interval before it means something, a verdict judged on the
luck-adjusted estimate where there is one, and no negative zero in any number shown."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from scipy.stats import t as scipy_t
from sqlalchemy.orm import Session

from app import services
from app.db import hand_store
from app.db.engine import create_tables, make_engine, make_sessionmaker
from app.db.hand_store import Finish
from app.services.analysis import results
from app.services.bots.strategy_source import StrategySource
from app.web.routes.table import results_panel
from app.web.templating import templates
from tests.app.conftest import AppFactory
from tests.app.test_pages import csrf, hand_record, page, play_form, post_action, start

BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


@pytest.fixture
def session_and_source(tmp_path: Path, store_path: Path) -> Iterator[tuple[Session,
                                                                           StrategySource]]:
    engine = make_engine(f"sqlite:///{tmp_path / 'play.sqlite'}")
    create_tables(engine)
    source = StrategySource(store_path)
    assert source.open() is None
    with make_sessionmaker(engine)() as session:
        yield session, source
    source.close()
    engine.dispose()


def test_an_interval_needs_enough_hands_and_some_spread() -> None:
    two_losses = results.shown_interval(results.summarize([-1.0, -1.0]))
    assert (two_losses.low, two_losses.high) == (None, None)
    assert "every result so far is the same" in str(two_losses.note)
    one = results.shown_interval(results.summarize([1.0]))
    assert one.low is None and "after 5 hands" in str(one.note)
    four = results.shown_interval(results.summarize([1.0, -1.0, 0.0, 1.0]))
    assert four.low is None and "after 5 hands" in str(four.note)
    same = results.shown_interval(results.summarize([-1.0] * 12))
    assert same.low is None and "every result so far is the same" in str(same.note)
    five = results.summarize([1.0, -1.0, 0.0, 1.0, -1.0])
    shown = results.shown_interval(five)
    assert (shown.low, shown.high, shown.note) == (five.ci95_low, five.ci95_high, None)
    assert shown.low is not None and shown.high is not None and shown.low < 0 < shown.high


def test_numbers_in_words_have_no_negative_zero() -> None:
    assert results.signed(-0.0) == "0.000"
    assert results.signed(-0.0004) == "0.000"
    assert results.signed(0.0) == "0.000"
    assert results.signed(-0.056) == "−0.056"
    assert results.signed(0.0555) == "+0.056"
    assert results.signed(-2.0, 1) == "−2.0"


def _excluded_after(stats: results.Stats, expected: float, more: int) -> bool:
    """Whether, after `more` hands with the same mean and spread, the 95% interval (Student's
    t, from SciPy's distribution here) leaves `expected`."""
    assert stats.mean is not None and stats.std is not None
    hands = stats.n + more
    half = scipy_t.ppf(0.975, hands - 1) * stats.std / math.sqrt(hands)
    return bool(abs(stats.mean - expected) > half)


def test_hands_needed_until_the_interval_excludes_the_expected_result() -> None:
    """Ten results of 0 and 2: mean 1, s = sqrt(10/9). Against an expected 0.5 the interval
    (t(9) = 2.262: 1 ± 0.754) holds it; Student's t leaves it behind at 20 hands (t(19) =
    2.093: ± 0.4933), 10 more, where a large-sample 1.96 would have said 18."""
    ten = results.summarize([0.0, 2.0] * 5)
    assert ten.std == pytest.approx(math.sqrt(10 / 9))
    assert ten.ci95_low is not None and ten.ci95_low < 0.5
    assert results.hands_needed(ten, 0.5) == 10
    assert _excluded_after(ten, 0.5, 10) and not _excluded_after(ten, 0.5, 9)
    assert results.hands_needed(ten, 1.5) == 10  # the same distance above
    assert results.hands_needed(ten, -0.5) == 0  # excluded already
    assert results.hands_needed(ten, 1.0) is None  # a mean on the value never leaves it
    assert results.hands_needed(ten, None) is None
    assert results.hands_needed(results.summarize([0.0, 2.0]), 0.5) is None  # no interval
    assert results.hands_needed(results.summarize([1.0] * 10), 0.5) is None  # no spread
    tight = results.summarize([0.5, 1.5] * 5)
    assert results.hands_needed(tight, 0.5) == 0
    wider = results.summarize([0.8, 1.2] * 5)
    more = results.hands_needed(wider, 0.9)
    assert more is not None and _excluded_after(wider, 0.9, more)
    assert not _excluded_after(wider, 0.9, more - 1)


def test_no_interval_is_said_to_exclude_what_it_holds() -> None:
    """The audit's 12 Kuhn hands: the interval shown holds the expected 0, but a large-sample
    projection (1.96 in place of t(11) = 2.201) put it outside already and the page said it
    "already excludes the expected result". 0 only where the interval shown excludes it, and
    the fewest more hands after which it would, at the boundary either way."""
    rng = [(-1.0) ** k * 1.0 - 0.6 for k in range(12)]  # mean -0.6, s = 1.044
    twelve = results.summarize(rng)
    interval = results.shown_interval(twelve)
    assert interval.low is not None and interval.high is not None
    assert interval.low < 0.0 < interval.high
    assert 1.96 * (twelve.std or 0.0) / math.sqrt(12) < 0.6  # where 1.96 said "excluded"
    more = results.hands_needed(twelve, 0.0)
    assert more is not None and more >= 1
    assert _excluded_after(twelve, 0.0, more) and not _excluded_after(twelve, 0.0, more - 1)
    for n in range(5, 40):  # every interval shown, at its edges and just beyond
        xs = [(-1.0) ** k for k in range(n)]
        stats = results.summarize(xs)
        shown = results.shown_interval(stats)
        assert shown.low is not None and shown.high is not None
        for expected, outside in ((shown.low, False), (shown.high, False),
                                  (shown.low - 1e-9, True), (shown.high + 1e-9, True)):
            needed = results.hands_needed(stats, expected)
            assert (needed == 0) == outside, (n, expected, needed)
            if needed:
                assert _excluded_after(stats, expected, needed)
            if needed and needed > 1:  # at 0 more it is the interval shown, judged above
                assert not _excluded_after(stats, expected, needed - 1)


def _stats(mean: float, half: float, n: int = 30) -> results.Stats:
    """Stats of `n` results with this mean and this 95% half-width."""
    std = half * math.sqrt(n) / results.t_quantile(n - 1)
    return results.Stats(n, mean * n, mean, std, mean - half, mean + half)


def test_the_verdict_judges_the_luck_adjusted_estimate_where_there_is_one() -> None:
    """The audit's 30 Kuhn hands: the raw interval holds the expectation (0 with as many hands
    in each seat) while the luck-adjusted one, −0.099 … −0.014, lies below it."""
    raw = _stats(-0.2, 0.6)
    adjusted = _stats(-0.0565, 0.0425)
    judged = results.verdict(raw, -0.0, adjusted)
    assert (judged.kind, judged.basis) == ("worse", "luck_adjusted")
    assert "without the luck" in judged.text and "the expected 0.000 per hand" in judged.text
    assert "−0.099 … −0.014" in judged.text
    assert "-0.000" not in judged.text and "−0.000" not in judged.text
    assert results.verdict(raw, -0.0).basis == "raw"  # no adjusted estimate: the raw results
    assert results.verdict(raw, -0.0).kind == "consistent"
    # The adjusted estimate must cover every hand, and have an interval, to be judged.
    assert results.verdict(raw, 0.0, _stats(-0.0565, 0.0425, n=29)).basis == "raw"
    flat = results.Stats(30, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert results.verdict(raw, 0.0, flat).basis == "raw"
    better = results.verdict(raw, -0.3, _stats(0.1, 0.05))
    assert (better.kind, better.basis) == ("better", "luck_adjusted")
    assert results.verdict(raw, 0.12, _stats(0.1, 0.05)).kind == "consistent"


def test_match_results_and_their_panel_after_thirty_kuhn_hands(
        session_and_source: tuple[Session, StrategySource]) -> None:
    """Thirty hands, fifteen in each seat, whose luck-adjusted results lie clearly below the
    expectation while the raw ones are all over the place: the API's verdict is judged on the
    adjusted interval and says so, and the panel shows no negative zero."""
    session, source = session_and_source
    created = services.create_match(session, source, "kuhn")
    access = services.TokenAccess(created.token)
    row = hand_store.find_match(session, created.match_id)
    for number in range(1, 31):
        payoff = (2.0, -1.0, 1.0, -2.0, -1.0)[number % 5]
        adjusted = -0.06 + 0.02 * ((number % 3) - 1)
        hand = hand_store.new_hand(row, number, (number - 1) % 2)
        hand_store.insert_hand(session, hand, [], Finish(payoff, adjusted=adjusted, ev_lost=0.0))
    out = services.match_results(session, source, created.match_id, access)
    assert out.hands_played == out.adjusted_hands == 30
    assert out.expected_mean == 0.0
    assert out.ci95_low is not None and out.ci95_high is not None
    assert out.ci95_low < 0.0 < out.ci95_high
    assert out.adjusted_ci95_high is not None and out.adjusted_ci95_high < 0.0
    assert (out.verdict, out.verdict_basis) == ("worse", "luck_adjusted")
    assert "without the luck" in out.verdict_text and "expected 0.000" in out.verdict_text
    shown = html.unescape(templates.env.get_template("partials/results.html").render(
        results=out, panel=results_panel(out), game=services.game_description("kuhn")))
    assert out.verdict_text in shown
    assert not re.search(r"[-−]0(\.0+)?(?![.\d])", shown), [
        line for line in shown.splitlines() if re.search(r"[-−]0(\.0+)?(?![.\d])", line)]


def test_two_equal_results_show_no_interval_and_say_why(make_app: AppFactory) -> None:
    """Two Rock-Paper-Scissors hands with the same result: no [−1, −1] or [0, 0] on the page,
    but a note saying why."""
    web = make_app(seed=7)
    client = web.client
    url = start(client, "rps")
    post_action(client, play_form(page(client, url)), "rock")
    _, first, _ = hand_record(web, url)
    assert client.post(f"{url}/next", data=csrf(client), follow_redirects=False
                       ).status_code == 303
    _, second, _ = hand_record(web, url)
    assert second.human_seat == 1 and second.actions  # the bot chose first, hidden from us
    bot = second.actions[0].label
    wanted = {1.0: _beating(bot), 0.0: bot, -1.0: BEATS[bot]}[float(first.human_payoff or 0.0)]
    post_action(client, play_form(page(client, url)), wanted)
    _, second, _ = hand_record(web, url)
    assert second.human_payoff == first.human_payoff
    doc = page(client, url)
    shown = doc.by_id("stat-ci").text
    assert "…" not in shown and "every result so far is the same" in shown, shown


def _beating(move: str) -> str:
    return next(m for m, beaten in BEATS.items() if beaten == move)



def test_two_equal_results_in_the_api(session_and_source: tuple[Session, StrategySource]
                                      ) -> None:
    session, source = session_and_source
    created = services.create_match(session, source, "rps")
    row = hand_store.find_match(session, created.match_id)
    for number in (1, 2):
        hand = hand_store.new_hand(row, number, (number - 1) % 2)
        hand_store.insert_hand(session, hand, [], Finish(-1.0, adjusted=0.0, ev_lost=0.0))
    out = services.match_results(session, source, created.match_id,
                                 services.TokenAccess(created.token))
    assert out.std == 0.0 and out.ci95_low is None and out.ci95_high is None
    assert "every result so far is the same" in str(out.ci95_note)
    assert out.adjusted_ci95_low is None and out.adjusted_ci95_note is not None
    assert (out.verdict, out.verdict_basis) == ("too_few_hands", None)
