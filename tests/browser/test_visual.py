"""Pages as a newcomer saw them at 1280 and 390 px (issue 50), each test a fault put right:
what a page shows, measured in a real browser at both widths."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from app.schemas import ActionProbability, GridCell, RangeGrid
from app.web.templating import templates
from tests.browser.test_phone import fits, play_out, start
from tests.browser.test_play import next_hand, settled, snap
from tests.browser.test_players import sign_up


def width(page: Page) -> int:
    size = page.viewport_size
    assert size is not None
    return int(size["width"])


def test_a_solve_without_a_curve_says_why(any_page: Page, shots: Path) -> None:
    page = any_page
    page.goto("/games/rps/strategy")
    expect(page.locator("#convergence-missing")).to_contain_text(
        "reached the equilibrium exactly at iteration 1")
    expect(page.locator("svg.convergence-chart")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("No convergence trace")
    if width(page) < 500:
        fits(page, "a strategy page without a curve")
    snap(page, shots, f"rps-strategy-{width(page)}")
    page.goto("/games/kuhn/strategy")
    expect(page.locator("#convergence-missing")).to_have_count(0)
    expect(page.locator("svg.convergence-chart")).to_be_visible()


TEXT_SIZES = """svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('text')].map(
    t => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale]);
}"""


def body_font(page: Page) -> float:
    return float(page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)"))


def text_like_the_page(page: Page, chart: Locator, what: str) -> None:
    """Every text of the SVG chart, as drawn at its width, is about the page's size: no
    smaller than a phone's small print, no bigger than the page's own text."""
    body = body_font(page)
    sizes = chart.evaluate(TEXT_SIZES)
    assert sizes, f"{what} has no text"
    for text, size in sizes:
        assert 0.7 * body <= size <= 1.1 * body, (
            f"{what}: {text!r} is drawn at {size:.1f} px beside the page's {body:.0f} px")


def test_the_charts_text_is_the_pages_size(any_page: Page, shots: Path) -> None:
    """The accuracy chart's text was about three times the page's at 1280 px (a chart's text
    scales with its width), and its legend's colour was not its points'."""
    page = any_page
    sign_up(page, f"charted{uuid.uuid4().hex[:8]}")
    start(page, "kuhn")
    play_out(page)
    text_like_the_page(page, page.locator("#results-chart svg"), "the results chart")
    page.goto("/games/kuhn/strategy")
    text_like_the_page(page, page.locator("svg.convergence-chart"), "the convergence chart")
    page.goto("/profile")
    for _ in range(40):  # the coach judges the hand's decisions in the background
        if page.locator(".accuracy-chart circle").count():
            break
        page.wait_for_timeout(500)
        page.reload()
    chart = page.locator(".accuracy-chart").first
    text_like_the_page(page, chart, "the accuracy chart")
    swatch = chart.locator(".c-legend circle")
    expect(swatch).to_have_count(1)
    fill = "e => getComputedStyle(e).fill"
    points = chart.locator("circle:not(.c-legend *)")
    assert points.count() >= 1
    assert {p.evaluate(fill) for p in points.all()} == {swatch.evaluate(fill)}
    line = chart.locator(".c-legend line")
    assert line.evaluate("e => getComputedStyle(e).stroke") == swatch.evaluate(fill)
    snap(page, shots, f"accuracy-chart-{width(page)}")


CLIPPED = """box => ({
  rows: box.scrollHeight - box.clientHeight,
  columns: box.scrollWidth - box.clientWidth,
})"""


def nothing_clipped(box: Locator, what: str) -> None:
    """The scroll box shows every row and column it holds."""
    hidden = box.evaluate(CLIPPED)
    assert hidden["rows"] <= 1, f"{what}: {hidden['rows']} px of rows hidden below the box"
    assert hidden["columns"] <= 1, f"{what}: {hidden['columns']} px hidden to the right"


def test_the_hand_history_hides_nothing_without_saying(any_page: Page, shots: Path) -> None:
    page = any_page
    start(page, "kuhn")
    for hand in range(12):
        play_out(page)
        if hand < 11:
            next_hand(page)
    rows = page.locator("#history tbody tr")
    expect(rows).to_have_count(12)
    box = page.locator("#history").locator("xpath=..")
    nothing_clipped(box, "the hand history")
    more = page.locator("label.show-more:has(#history-more)")
    expect(more).to_be_visible()
    expect(more).to_have_text("Show 2 older hands", use_inner_text=True)
    expect(rows.nth(9)).to_be_visible()
    expect(rows.nth(10)).to_be_hidden()
    more.click()
    expect(rows.nth(11)).to_be_visible()
    expect(rows.nth(11)).to_contain_text("#1")
    expect(more).to_have_text("Show fewer", use_inner_text=True)
    nothing_clipped(box, "the whole hand history")
    if width(page) < 500:
        fits(page, "a match with its whole hand history")
    snap(page, shots, f"hand-history-{width(page)}")


REPO_ROOT = Path(__file__).resolve().parents[2]


RANKS = "AKQJT98765432"


def test_the_13_by_13_grid_is_whole(any_page: Page, shots: Path) -> None:
    """The grid of hold'em's 169 hand classes, as the explorer draws it (the macro and the
    style sheet of the pages: a hold'em solve to show it takes minutes to build)."""
    page = any_page
    mix = [ActionProbability(label="fold", probability=0.2),
           ActionProbability(label="call", probability=0.3),
           ActionProbability(label="raise", probability=0.5)]
    cells = [[GridCell(label=RANKS[min(i, j)] + RANKS[max(i, j)]
                       + ("" if i == j else "s" if j > i else "o"),
                       hands=6 if i == j else 4 if j > i else 12, share=1 / 169, actions=mix)
              for j in range(13)] for i in range(13)]
    grid = templates.env.get_template("grid.html").module.range_grid(  # type: ignore[attr-defined]
        RangeGrid(ranks=RANKS, cells=cells), "spot-grid", "The stored strategy")
    page.set_content('<!doctype html><html lang="en"><head><meta name="viewport" '
                     'content="width=device-width, initial-scale=1"></head><body>'
                     f'<main class="wrap"><section class="panel" id="spot">{grid}</section>'
                     '</main></body></html>')
    page.add_style_tag(path=str(REPO_ROOT / "static" / "app.css"))
    cells_shown = page.locator("#spot-grid td")
    expect(cells_shown).to_have_count(169)
    box = page.locator("#spot-grid").locator("xpath=..")
    hidden = box.evaluate(CLIPPED)
    assert hidden["rows"] <= 1, f"{hidden['rows']} px of the grid's rows hidden"
    swipe = page.locator("#spot-grid-swipe")
    if width(page) >= 1000:
        assert hidden["columns"] <= 1, "the grid does not fit a desktop's page"
        expect(swipe).to_be_hidden()
        for label in ("AA", "A7o", "A2o", "22", "32o"):
            expect(page.locator(f"#spot-grid td[data-class='{label}']")).to_be_visible()
    else:  # a phone: the grid is wider than the screen, and a line says so
        expect(swipe).to_be_visible()
        expect(swipe).to_contain_text("swipe it sideways to see all 13 columns")
        fits(page, "the page around the grid")
    snap(page, shots, f"grid-13-{width(page)}")


def replays_whole(page: Page, box: Locator) -> None:
    """Every replay link lies inside the history's box, which scrolls nowhere."""
    links = page.locator("#history a[href*='/hands/']")
    expect(links.first).to_be_visible()
    assert links.count() > 0
    for link in links.all():
        if link.is_visible():
            # The box is read beside each link: a swap under way may replace it meanwhile.
            right = box.evaluate("b => b.getBoundingClientRect().right")
            edge = link.evaluate("a => a.getBoundingClientRect().right")
            assert edge <= right + 0.5, f"a replay link ends at {edge} px, the box at {right}"


def test_the_replay_column_is_whole_in_every_game(any_page: Page) -> None:
    page = any_page
    for game in ("holdem-mini", "dudo", "leduc"):
        start(page, game)
        for hand in range(2):
            play_out(page, prefer="dudo")
            if hand < 1:
                next_hand(page)
        settled(page)
        box = page.locator("#history").locator("xpath=..")
        nothing_clipped(box, f"the hand history of {game}")
        replays_whole(page, box)
        link = page.locator("#history a[href*='/hands/']").first
        expect(link).to_have_attribute("aria-label", re.compile(r"replay hand #\d+"))


OPTIONS_FIT = """select => {
  const style = getComputedStyle(select);
  const room = select.clientWidth - parseFloat(style.paddingLeft)
               - parseFloat(style.paddingRight);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return [...select.options].map(o => [o.text, context.measureText(o.text).width, room]);
}"""


def test_the_opponent_menu_is_a_field_with_its_choices_whole(any_page: Page,
                                                             shots: Path) -> None:
    page = any_page
    page.goto("/")
    menus = page.locator("select[name=opponent]")
    assert menus.count() >= 2
    body = body_font(page)
    for menu in menus.all():
        style = menu.evaluate("""s => { const c = getComputedStyle(s);
            return {font: parseFloat(c.fontSize), radius: parseFloat(c.borderTopLeftRadius),
                    height: s.getBoundingClientRect().height, border: c.borderTopStyle}; }""")
        assert style["font"] == body, f"the menu's text is {style['font']} px, the page's {body}"
        assert style["radius"] >= 6 and style["height"] >= 38 and style["border"] == "solid"
        for text, size, room in menu.evaluate(OPTIONS_FIT):
            assert size <= room, f"{text!r} needs {size:.0f} px, the menu has {room:.0f}"
    card = page.locator("#game-kuhn")
    expect(card.locator("label[for=opponent-kuhn]")).to_have_text("Against")
    strengths = card.locator(".opponent-strengths")
    strengths.locator("summary").click()
    expect(strengths).to_contain_text("Calls too much: +")
    if width(page) < 500:
        fits(page, "the lobby")
    snap(page, shots, f"lobby-opponents-{width(page)}")


def test_the_leaderboard_choices_are_two_rows_apart(any_page: Page, shots: Path) -> None:
    page = any_page
    page.goto("/leaderboards/kuhn?kind=programs&min_hands=300")
    groups = [page.locator("#board-kinds"), page.locator("#board-thresholds")]
    expect(groups[0].locator("a")).to_have_text(["People", "Programs"])
    expect(groups[1].locator("a")).to_have_text(["30 hands", "300 hands", "3,000 hands"])
    expect(groups[0]).to_contain_text("Players")
    expect(groups[1]).to_contain_text("Who played at least")
    for group in groups:
        tops = set(group.locator("a").evaluate_all(
            "links => links.map(a => Math.round(a.getBoundingClientRect().top))"))
        assert len(tops) == 1, f"{group.get_attribute('id')} wraps onto {len(tops)} lines"
    current = page.locator(".board-choices a[aria-current=page]")
    expect(current).to_have_text(["Programs", "300 hands"])
    first, second = (g.bounding_box() for g in groups)
    assert first is not None and second is not None
    apart = (first["x"] + first["width"] <= second["x"]
             or first["y"] + first["height"] <= second["y"])
    assert apart, "the two choices are drawn as one"
    if width(page) < 500:
        fits(page, "a leaderboard")
    snap(page, shots, f"leaderboard-choices-{width(page)}")


def test_the_profile_lists_matches_by_what_they_are(any_page: Page, shots: Path) -> None:
    page = any_page
    sign_up(page, f"lister{uuid.uuid4().hex[:8]}")
    for _ in range(10):
        start(page, "kuhn")
    page.goto("/")
    page.select_option("#game-kuhn select[name=opponent]", "calls")
    page.locator("#game-kuhn").get_by_role("button", name="Play").click()
    page.wait_for_url(re.compile(r"/matches/"))
    page.goto("/profile")
    rows = page.locator("#matches tbody tr")
    expect(rows).to_have_count(11)
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    newest = rows.first
    expect(newest.locator("td").first).to_contain_text("Kuhn poker Against: Calls too much "
                                                       f"Started {today}")
    expect(rows.nth(1)).to_contain_text("Against: The equilibrium")
    match_id = newest.get_attribute("data-match")
    assert match_id and match_id not in newest.inner_text()
    more = page.locator("label.show-more:has(#matches-more)")
    expect(more).to_have_text("Show 1 older match", use_inner_text=True)
    expect(rows.nth(10)).to_be_hidden()
    more.click()
    expect(rows.nth(10)).to_be_visible()
    nothing_clipped(page.locator("#matches").locator("xpath=.."), "the list of matches")
    if width(page) < 500:
        fits(page, "the profile")
    snap(page, shots, f"profile-matches-{width(page)}")
