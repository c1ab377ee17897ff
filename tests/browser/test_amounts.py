"""No-limit in the browser, at a phone's width and a desktop's: a hand where the quick amounts,
the slider moved by the keyboard carrying the number field along, an amount out of range
refused with the range named (nothing played), and a raise typed and played with Enter; and
push or fold's charts opened on the lobby's card."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from solver.runs.store_solve import solve_and_store
from tests import nolimit_six
from tests.app.test_amounts import solved_store
from tests.browser.conftest import new_page, serve
from tests.browser.test_play import MATCH_URL, click_and_wait, next_hand, snap

pytestmark = pytest.mark.slow

PUSH_OR_FOLD = "pushfold-10bb"


@pytest.fixture(scope="module")
def amounts_server(store_path: Path, tmp_path_factory: pytest.TempPathFactory
                   ) -> Iterator[str]:
    """A server whose lobby has no-limit at six chips and push or fold at 10 big blinds,
    solved."""
    nolimit_six.register()
    try:
        store = solved_store(store_path, tmp_path_factory.mktemp("amounts-store"))
        solve_and_store(PUSH_OR_FOLD, "dcfr", target=5e-5, store_path=store)
        with serve(store, tmp_path_factory.mktemp("amounts-server"),
                   SOLVER_GAMES="tests.nolimit_six_plugin") as base:
            yield base
    finally:
        nolimit_six.unregister()


@pytest.mark.parametrize("width", [390, 1280], ids=["phone", "desktop"])
def test_a_raise_of_any_amount(browser: Browser, amounts_server: str, shots: Path,
                               width: int) -> None:
    page, close = new_page(browser, amounts_server, width)
    page.goto("/")
    page.locator(f"#game-{nolimit_six.GAME}").get_by_role("button", name="Play").click()
    page.wait_for_url(MATCH_URL)
    field = _until_a_raise(page)
    low, high = int(field.get_attribute("min") or 0), int(field.get_attribute("max") or 0)
    assert 0 < low < high <= 6
    expect(page.locator(".quick-amounts button").last).to_contain_text(f"all-in · {high}")
    slider = page.locator("#amount-slider")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(field).to_have_value(str(low + 1))
    snap(page, shots, f"no-limit-raise-{width}")
    seq = page.locator("input[name=seq]").first.get_attribute("value")
    # Past the browser's own check of the field's range, the server names the range.
    field.evaluate("f => { f.removeAttribute('max'); }")
    _type(page, field, str(high + 1))
    expect(page.locator("#table-message")).to_contain_text(f"from {low} to {high}")
    assert page.locator("input[name=seq]").first.get_attribute("value") == seq
    field = page.locator("#amount-field")
    before = page.locator("#table .events li").count()
    _type(page, field, str(low))
    expect(page.locator("#table .events li").nth(before)).to_contain_text(
        re.compile(f"(raise to|bet) {low}"))
    close()


def _type(page: Page, field: Locator, amount: str) -> None:
    """Type `amount` over the field's and press Enter, as a person does."""
    field.select_text()
    page.keyboard.type(amount)
    page.keyboard.press("Enter")


def _until_a_raise(page: Page) -> Locator:
    """Play the first legal button until the table offers an amount to choose."""
    for _ in range(30):
        field = page.locator("#amount-field")
        if field.count():
            return field
        if page.locator("#next-hand").count():
            next_hand(page)
            continue
        click_and_wait(page, page.locator("#table form button[name=action]:enabled").first)
    raise AssertionError("no raise was offered in 30 moves")


@pytest.mark.parametrize("width", [390, 1280], ids=["phone", "desktop"])
def test_push_or_fold_charts_on_the_lobby_card(browser: Browser, amounts_server: str,
                                               shots: Path, width: int) -> None:
    page, close = new_page(browser, amounts_server, width)
    page.goto("/")
    card = page.locator(f"#game-{PUSH_OR_FOLD}")
    card.locator("summary", has_text="charts").click()
    grids = card.locator(".range-grid")
    expect(grids).to_have_count(2)
    # Aces go all-in and call, always; seven-deuce offsuit does neither at 10 big blinds.
    expect(grids.nth(0).locator("td[data-class='AA']")).to_have_attribute(
        "aria-label", re.compile("raise to 1000 >99.9%"))
    expect(grids.nth(1).locator("td[data-class='AA']")).to_have_attribute(
        "aria-label", re.compile("call >99.9%"))
    expect(grids.nth(1).locator("td[data-class='72o']")).to_have_attribute(
        "aria-label", re.compile("fold >99.9%"))
    snap(page, shots, f"push-or-fold-charts-{width}")
    close()
