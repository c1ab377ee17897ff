"""Plain words first and the technical name a tap away, at a phone's width (touch) and a
desktop's: an information set's key is not shown until its "technical name" is opened, the
help of the results, the explorer's columns and the bot's description opens with a tap or a
click, nothing is said only in a hover title, and a hand's result without the luck lists terms
that add up to the total it shows."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.browser.test_phone import play_out, start

HOVER_ONLY = """() => [...document.querySelectorAll('[title]')]
  .filter(e => e.getAttribute('aria-label') !== e.getAttribute('title'))
  .map(e => `${e.tagName}: ${e.getAttribute('title')}`)"""


def open_it(page: Page, summary: Locator) -> None:
    """A tap on a phone, a click elsewhere."""
    size = page.viewport_size
    if size is not None and size["width"] < 500:
        summary.tap()
    else:
        summary.click()


def test_keys_and_help_open_with_a_tap(any_page: Page) -> None:
    page = any_page
    start(page, "leduc")
    play_out(page, prefer="call")
    decision = page.locator("#coach .decision").first
    key = decision.locator("code.key")
    expect(key).to_be_hidden()
    expect(decision.locator(".situation")).to_be_visible()
    open_it(page, decision.locator("details.key-explain summary"))
    expect(key).to_be_visible()
    expect(key).to_have_text(decision.get_attribute("data-infoset") or "-")
    # The hand's terms add up to the total shown.
    total = float(page.locator("#adjusted-parts strong").get_attribute("data-total") or "nan")
    shown = [float(v or "nan") for v in page.locator(
        "#adjusted-parts li").evaluate_all("ls => ls.map(l => l.dataset.shown)")]
    assert round(sum(shown), 3) == total, (shown, total)
    expect(page.locator("#adjusted-parts li").first).to_be_visible()
    # The accuracy's definition.
    accuracy = page.locator("#stat-accuracy details")
    words = accuracy.locator(".explain-text")
    expect(words).to_be_hidden()
    open_it(page, accuracy.locator("summary"))
    expect(words).to_be_visible()
    expect(words).to_contain_text("1% of the pot")
    assert page.evaluate(HOVER_ONLY) == []
    # The explorer's columns.
    page.goto("/games/leduc/strategy")
    column = page.locator("#range thead details").first
    expect(column.locator(".explain-text")).to_be_hidden()
    open_it(page, column.locator("summary"))
    expect(column.locator(".explain-text")).to_contain_text("chance of holding it")
    assert page.evaluate(HOVER_ONLY) == []
    # A bot solved in an abstraction: its everyday description, the technical one a tap away.
    page.goto("/")
    nature = page.locator("#game-dudo-match .bot-nature")
    expect(nature).to_contain_text("remembers its dice but only the last bid")
    technical = nature.locator("details .explain-text")
    expect(technical).to_be_hidden()
    open_it(page, nature.locator("details summary"))
    expect(technical).to_be_visible()
    expect(technical).to_contain_text("An equilibrium of a game in which")
    assert page.evaluate(HOVER_ONLY) == []


def test_the_unit_of_the_results_opens_with_a_tap(any_page: Page) -> None:
    page = any_page
    start(page, "holdem-mini")
    play_out(page, prefer="call")
    unit = page.locator("#stat-in-unit dt details")
    expect(unit.locator("summary")).to_have_text("mbb/hand")
    expect(unit.locator(".explain-text")).to_be_hidden()
    open_it(page, unit.locator("summary"))
    expect(unit.locator(".explain-text")).to_be_visible()
    expect(unit.locator(".explain-text")).to_contain_text("thousandths of the big blind")
    # The coach's answer draws the results again; what the reader opened stays open.
    redrawn = page.evaluate(
        "() => new Promise(done => { document.body.addEventListener('htmx:afterSettle', "
        "() => done(document.getElementById('unit-meaning') !== null), {once: true}); "
        "htmx.ajax('GET', location.pathname, {target: '#table', swap: 'outerHTML'}); })")
    assert redrawn
    expect(unit.locator(".explain-text")).to_be_visible()
    assert page.evaluate(HOVER_ONLY) == []
