"""A game whose bot is being built, in Chromium at a desktop's width and a phone's: the lobby's
card says it is being built (not "unavailable"), and its page says what is being built, how far
it has come and what to play meanwhile, with no status code or internal id to decode; the
technical names open with a tap and stay open while the page follows the build."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from solver.engine.progress import write_status
from solver.runs.build_status import lock_path
from tests.app.server import Server, start_server
from tests.app.test_not_built import status_of_a_build
from tests.browser.conftest import new_page
from tests.browser.test_play import snap


@pytest.fixture(scope="module")
def building_server(browser_store: Path, tmp_path_factory: pytest.TempPathFactory
                    ) -> Iterator[Server]:
    """A server whose background build (this test holds its lock) is at work on hold'em."""
    tmp = tmp_path_factory.mktemp("building")
    status = tmp / "data" / "build-status.json"
    write_status(status, status_of_a_build(time.time()))
    fd = os.open(lock_path(status), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    running = start_server(tmp, database_url=f"sqlite:///{tmp / 'app.sqlite'}",
                           store=browser_store)
    try:
        yield running
    finally:
        running.stop()
        os.close(fd)


def no_overflow(page: Page, width: int, what: str) -> None:
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= width, f"{what} is {scrolled}px wide on a {width}px screen"


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_a_game_being_built_reads_as_such(browser: Browser, building_server: Server,
                                          shots: Path, width: int) -> None:
    page, close = new_page(browser, building_server.url, width)
    try:
        page.goto("/")
        card = page.locator("#game-holdem")
        expect(card.locator("#badge-holdem")).to_contain_text("being built")
        expect(card).not_to_contain_text("unavailable")
        no_overflow(page, width, "the lobby")

        response = page.goto("/play/holdem")
        assert response is not None and response.status == 409
        main = page.locator("#main")
        expect(main.locator("h1")).to_have_text("Heads-up limit Texas hold'em is being built")
        expect(main.locator("#building-holdem")).to_contain_text("(step 4 of 6)")
        expect(main.locator("#building-holdem")).to_contain_text("left for this game")
        expect(main.locator("progress")).to_be_visible()
        shown = main.inner_text()
        assert "409" not in shown and "holdem" not in shown and "yet:" not in shown
        meanwhile = main.locator("#meanwhile a")
        expect(meanwhile.first).to_be_visible()
        assert meanwhile.count() >= 6  # the quick games, and any long one already built
        no_overflow(page, width, "the not-built page")
        snap(page, shots, f"not-built-{width}")

        # The technical names are a tap away, and stay open while the page follows the build.
        technical = main.locator("#build-tech-holdem")
        expect(technical).to_be_hidden()
        summary = main.locator("details.build-technical summary")
        if width < 500:
            summary.tap()
        else:
            summary.click()
        expect(technical).to_be_visible()
        expect(technical).to_contain_text("solving holdem (ehs2=k:128,128,128)")
        with page.expect_response(lambda r: "/lobby/games/holdem/build" in r.url,
                                  timeout=15_000):
            pass
        page.wait_for_timeout(300)  # the swap after the answer
        expect(technical).to_be_visible()
        expect(main.locator("#building-holdem")).to_contain_text("(step 4 of 6)")
        no_overflow(page, width, "the not-built page with its details open")
        meanwhile.first.click()
        page.wait_for_url("**/play/rps")
    finally:
        close()
