"""What the pages say, in a real browser at a phone's width and a desktop's: seats named as
poker players name them, the chart's legend clear of its title, every move of a secret choice
to follow, a Dudo match laid out by rounds with its bid grid by quantity and face, the coach
calling nothing costly that cost nothing, and figures explained with a tap."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.test_phone import play_out, start
from tests.browser.test_play import next_hand, snap

OVERLAP = """([a, b]) => {
  const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
  return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
}"""


def width(page: Page) -> int:
    size = page.viewport_size
    assert size is not None
    return int(size["width"])


def test_hold_em_seats_the_coach_and_the_chart(any_page: Page, shots: Path) -> None:
    page = any_page
    start(page, "holdem-mini")
    # Hand 1: the human is seat 0, the big blind, who acts second before the board.
    expect(page.locator("#your-turn-order")).to_have_text(
        "you are the big blind: you act second in round 1, first in round 2")
    expect(page.locator("#bot-seat .seat-label")).to_contain_text("small blind")
    first_move = page.locator("#table .events li").filter(
        has_not=page.locator(".who.dealer")).first
    expect(first_move.locator(".who")).to_have_text("Bot")
    for hand in range(3):
        play_out(page, prefer="call")
        if hand < 2:
            next_hand(page)
    for words in page.locator("#coach .coach-words").all_inner_texts():
        assert "0.000" not in words and "gained" not in words, words
    expect(page.locator("#results")).to_contain_text("value per hand for the big blind")
    # The chart's title and its legend do not touch, whatever the width.
    chart = page.locator("#results-chart svg")
    title = chart.locator("text.c-title")
    assert chart.locator(".c-legend > *").count() >= 6
    for mark in chart.locator(".c-legend > *").all():
        assert not page.evaluate(OVERLAP, [title.element_handle(), mark.element_handle()])
    caption = page.locator("#chart-caption").inner_text()
    band = chart.locator("path.c-band").count()
    assert ("shaded band is where" in caption) == bool(band) or "every result" in caption
    snap(page, shots, f"holdem-mini-results-{width(page)}")


def test_every_move_of_a_secret_choice_is_offered(any_page: Page) -> None:
    page = any_page
    page.goto("/games/rps/strategy")
    moves = page.locator("#tree .tree-children a")
    expect(moves).to_have_text(["rock", "paper", "scissors"])
    expect(page.locator("#tree .range-legend .legend-item")).to_have_text(
        ["rock", "paper", "scissors"])
    moves.nth(1).click()  # paper
    expect(page.locator(".tree-path")).to_contain_text("rock, paper or scissors (secret)")
    expect(page.locator("#tree")).to_contain_text("The second player to act")
    expect(page.locator("#tree .tree-children a")).to_have_count(3)


def test_a_dudo_match_by_rounds(any_page: Page, shots: Path) -> None:
    page = any_page
    start(page, "dudo-match")
    buttons = page.locator("#table .grid-actions button.grid-action")
    expect(buttons).to_have_count(60)
    # Six to a row, a row per quantity, the 1s last: the rows line up by face.
    boxes = [buttons.nth(i).bounding_box() for i in range(12)]
    assert all(b is not None for b in boxes)
    tops = [round(b["y"]) for b in boxes if b is not None]
    assert len(set(tops[:6])) == 1 and len(set(tops[6:])) == 1 and tops[6] > tops[0]
    assert [buttons.nth(i).get_attribute("value") for i in (0, 5, 6, 11)] == [
        "1x2", "1x1", "2x2", "2x1"]
    for _ in range(3):  # three calls: rounds finish
        play_out_round(page)
    expect(page.locator("#rounds details.round").first).to_contain_text(
        "Round 1 · you 5 dice, the bot 5")
    snap(page, shots, f"dudo-match-rounds-{width(page)}")
    play_out(page, prefer="dudo")
    expect(page.locator("#pieces-held")).to_contain_text("Dice left")
    for decision in page.locator("#bot-decisions .decision").all():
        assert decision.locator("li.prob").count() <= 5


def play_out_round(page: Page) -> None:
    """Bid the weakest bid open, or call dudo when I may, until a round more has finished."""
    done = page.locator("#rounds details.round").count()
    for _ in range(60):
        if page.locator("#rounds details.round").count() > done or page.locator(
                "#outcome").count():
            return
        dudo = page.locator("#table form button[value=dudo]:not([disabled])")
        target = dudo if dudo.count() else page.locator(
            "#table form button[name=action]:not([disabled])").first
        old = page.locator("#table").element_handle()
        target.click()
        page.wait_for_function("t => !t.isConnected", arg=old)


def test_figures_open_into_words_with_a_tap(any_page: Page) -> None:
    page = any_page
    page.goto("/")
    card = page.locator("#game-kuhn")
    expect(card.locator(".bot-nature")).to_contain_text("exact")
    figure = card.locator("details.explain").first
    words = figure.locator(".explain-text")
    expect(words).to_be_hidden()
    summary = figure.locator("summary")
    if width(page) < 500:
        summary.tap()
    else:
        summary.click()
    expect(words).to_be_visible()
    expect(words).to_contain_text("perfect opponent")
    match = page.locator("#game-dudo-match")
    expect(match.locator(".bot-nature")).to_contain_text("abstraction")
    expect(page.locator("main")).not_to_contain_text("You cannot beat it")
