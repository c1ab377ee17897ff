"""Every kind of page on a phone (390 px wide, touch): nothing scrolls sideways, and the
figures that a desktop shows on hover are on the page."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import new_page
from tests.browser.test_play import MATCH_URL, click_and_wait, next_hand, next_step, snap

PHONE = 390


def fits(page: Page, what: str) -> None:
    """No horizontal overflow: the document is no wider than the screen."""
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5)
        .slice(0, 5).map(e => `${e.tagName}.${e.className}#${e.id}`)""")
    assert width <= PHONE, f"{what} is {width}px wide on a {PHONE}px screen: {wide}"


def play_out(page: Page, prefer: str | None = None, moves: int = 400) -> None:
    """Play the hand to its end: `prefer` when it is open, else the first move open."""
    for _ in range(moves):
        if page.locator("#outcome").count():
            return
        buttons = page.locator("#table form button[name=action]:not([disabled])")
        wanted = buttons.and_(page.locator(f"[value='{prefer}']")) if prefer else buttons
        click_and_wait(page, wanted.first if wanted.count() else buttons.first)
    raise AssertionError("the hand did not end")


def start(page: Page, game: str) -> None:
    page.goto("/")
    page.locator(f"#game-{game}").get_by_role("button", name="Play").click()
    page.wait_for_url(MATCH_URL)


def test_every_page_fits_a_phone(browser: Browser, server: str, shots: Path) -> None:
    page, close = new_page(browser, server, PHONE)
    try:
        page.goto("/")
        fits(page, "the lobby")
        page.goto("/play/holdem-mini")
        fits(page, "a game's page")
        start(page, "holdem-mini")
        fits(page, "a hand in progress")
        play_out(page)
        expect(page.locator("#coach")).to_be_visible()
        fits(page, "a finished hand with the coach and the results")
        for _ in range(4):  # the interval is shown from the fifth hand on
            next_hand(page)
            play_out(page)
        expect(page.locator("#stat-ci")).to_contain_text("…")
        fits(page, "the results after five hands")
        snap(page, shots, "phone-results")
        page.locator("#coach a", has_text="Replay").click()
        page.wait_for_url(re.compile(r"/hands/"))
        expect(page.locator("#replay")).to_be_visible()
        while page.locator(".replay-steps a", has_text="Next").count():
            fits(page, "a replay step")
            next_step(page)
        fits(page, "the replay's last step")
        page.goto("/games/holdem-mini/strategy")
        expect(page.locator("#range-grid")).to_be_visible()
        fits(page, "the explorer with the grid")
        # The figures are on the page, not in a hover: in every cell and under every bar.
        cell = page.locator("#range-grid td[data-class='55'] .cell-figures")
        expect(cell).to_be_visible()
        assert sum(int(n) for n in cell.locator("span").all_inner_texts()) in (99, 100, 101)
        expect(page.locator("#range .bar-figures").first).to_be_visible()
        expect(page.locator("#range .bar-figures").first).to_contain_text("%")
        snap(page, shots, "phone-explorer")
        page.goto("/games/dudo/strategy?view=search")
        fits(page, "the explorer's search")
        start(page, "dudo-match")
        fits(page, "a Dudo match")
        play_out(page, prefer="dudo")
        fits(page, "the end of a Dudo match")
        snap(page, shots, "phone-dudo-match-end")
        page.goto("/no/such/page")
        expect(page.locator(".error-page")).to_be_visible()
        fits(page, "the error page")
        page.goto("/docs")
        expect(page.locator("#swagger-ui .opblock").first).to_be_visible()
        fits(page, "the API docs")
    finally:
        close()
