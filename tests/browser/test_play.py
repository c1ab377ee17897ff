"""Playing in a real browser: headless Chromium driven by Playwright against a uvicorn server.

Every test saves screenshots of the pages it visits under pytest's temporary directory (the
``shots`` fixture; the path is printed), so a person can look at what a player sees.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, Route, expect

from solver.games import game_names, get_game

MATCH_URL = re.compile(r"/matches/[0-9a-f]{32}(\?hint=1)?$")
DICE = "⚀⚁⚂⚃⚄⚅"


def snap(page: Page, shots: Path, name: str) -> Path:
    path = shots / f"{name}.png"
    # Hiding the caret, Playwright would leave an empty style attribute on the form's fields,
    # which htmx then copies: an inline style the pages' policy refuses.
    page.screenshot(path=str(path), full_page=True, caret="initial")
    return path


def start_match(page: Page, game: str) -> None:
    page.goto("/")
    page.locator(f"#game-{game}").get_by_role("button", name="Play").click()
    page.wait_for_url(MATCH_URL)
    # A marker that a full page load would wipe: the table must update through htmx.
    page.evaluate("window.__sameDocument = true")


def event_count(page: Page) -> int:
    return page.locator("#table .events li").count()


def click_and_wait(page: Page, button: Locator) -> None:
    """Click an action button and wait until htmx has swapped in the new table."""
    before = event_count(page)
    old_table = page.locator("#table").element_handle()
    button.click()
    page.wait_for_function("t => !t.isConnected", arg=old_table)
    assert event_count(page) > before


def attribute(locator: Locator, name: str) -> str:
    """The attribute `name` of the element, which must have it."""
    value = locator.get_attribute(name)
    assert value is not None, f"no {name} attribute"
    return value


def next_step(page: Page) -> None:
    """Show the replay's next step and wait until it has replaced the one shown: clicking again
    on a fixed pause could catch the link while htmx was swapping it out."""
    old_replay = page.locator("#replay").element_handle()
    page.locator(".replay-steps a", has_text="Next").click()
    page.wait_for_function("r => !r.isConnected", arg=old_replay)


def settled(page: Page) -> None:
    """Wait until the finished hand is no longer being analysed: the coach's poll then redraws
    the table and the results beside it, and a click or a measurement taken during that swap
    would act on elements on their way out."""
    page.wait_for_function(
        "() => document.querySelector('#coach[data-analysis=pending]') === null",
        timeout=30_000)


def next_hand(page: Page) -> None:
    """Deal the next hand, once the finished one is analysed (`settled`), and wait until a table
    of another hand has replaced it: a swapped table alone is not enough, since the coach's poll
    also redraws the finished hand."""
    settled(page)
    old_hand = page.locator("#table").get_attribute("data-hand")
    page.locator("#next-hand").click()
    page.wait_for_function(
        "h => { const t = document.getElementById('table');"
        " return t !== null && t.dataset.hand !== undefined && t.dataset.hand !== h; }",
        arg=old_hand)


def still_same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def test_lobby_lists_the_games(page: Page, shots: Path) -> None:
    page.goto("/")
    listed = [g for g in game_names() if get_game(g).listed]
    expect(page.locator(".game-card")).to_have_count(len(listed))
    for title in ("Rock-Paper-Scissors", "Kuhn poker", "Leduc hold'em", "Dudo",
                  "Dudo with calzo", "Hold'em mini", *(get_game(g).title for g in listed)):
        expect(page.get_by_role("heading", name=re.compile(re.escape(title)))
               .first).to_be_visible()
    expect(page.locator("#game-kuhn")).to_contain_text("Exploitability")
    expect(page.locator("#game-kuhn").get_by_role("link", name="Strategy")).to_be_visible()
    # htmx is served from node_modules and loaded without errors.
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.evaluate("htmx.version").startswith("2.")
    snap(page, shots, "lobby")


def test_full_kuhn_hand_by_clicking(page: Page, shots: Path) -> None:
    start_match(page, "kuhn")
    expect(page.locator("#table")).to_contain_text("you act first")
    # The bot's card is face down; mine is face up.
    expect(page.locator("#bot-seat .playing-card.back")).to_be_visible()
    expect(page.locator("#your-seat .playing-card:not(.back)")).to_be_visible()
    expect(page.locator("#table .events")).to_contain_text("Dealt to the bot: hidden")

    # The hint toggle shows the equilibrium for my information set, through htmx.
    expect(page.locator("#hint")).to_have_count(0)
    page.locator("#hint-toggle").click()
    expect(page.locator("#hint")).to_be_visible()
    expect(page).to_have_url(re.compile(r"\?hint=1$"))
    hint = page.locator("#hint li.prob")
    expect(hint).to_have_count(2)
    total = sum(float(attribute(hint.nth(i), "data-probability")) for i in range(2))
    assert abs(total - 1) < 1e-4
    expect(page.locator("#table form button[name=action] .hint-prob").first).to_be_visible()
    snap(page, shots, "kuhn-hint")

    for _ in range(3):
        if page.locator("#outcome").count():
            break
        click_and_wait(page, page.locator("#table form button[name=action]").first)
    expect(page.locator("#outcome")).to_be_visible()
    # The end: the bot's card is revealed with its probabilities at each decision.
    expect(page.locator("#bot-seat .playing-card.back")).to_have_count(0)
    expect(page.locator("#bot-seat .playing-card")).to_be_visible()
    expect(page.locator("#reveal .playing-card")).to_have_count(2)
    expect(page.locator("#table .events")).not_to_contain_text("hidden")
    decisions = page.locator("#bot-decisions .decision")
    assert decisions.count() >= 1
    expect(decisions.first.locator("li.prob.chosen")).to_have_count(1)
    expect(page.locator("#outcome-title")).to_have_text(re.compile(r"You (won|lost) \d"))
    # The results panel followed (out-of-band swap): one hand, a 2-point line on the chart.
    expect(page.locator("#stat-hands")).to_have_text("1")
    points = page.locator("#results-chart polyline.c-actual").get_attribute("points")
    assert points is not None and len(points.split()) == 2
    expect(page.locator("#history tbody tr")).to_have_count(1)
    assert still_same_document(page)
    snap(page, shots, "kuhn-end")

    # Next hand: seats swap; the history lists both hands, newest first.
    page.locator("#next-hand").click()
    expect(page.locator("#table")).to_contain_text("you act second")
    expect(page.locator("#history tbody tr")).to_have_count(2)
    expect(page.locator("#history tbody tr").first).to_contain_text("#2")
    assert still_same_document(page)


def test_full_holdem_mini_hand_by_clicking(page: Page, shots: Path) -> None:
    """Two hole cards each, a board card dealt face down until the flop, checks and calls to
    a showdown that names both hands; drawn from what the game says, like every game."""
    for _ in range(20):
        start_match(page, "holdem-mini")
        if not page.locator("#outcome").count():
            break
        # In hand 1 the bot is the small blind, who acts first, and it may fold at once: that
        # hand has nothing to click, so start another match.
        expect(page.locator("#explanation")).to_contain_text("The bot folded")
    expect(page.locator("#your-seat .playing-card:not(.back)")).to_have_count(2)
    expect(page.locator("#bot-seat .playing-card.back")).to_have_count(2)
    expect(page.locator("#public-state .board .playing-card.back")).to_have_count(1)
    expect(page.locator("#public-state")).to_contain_text("round 1 of 2")
    snap(page, shots, "holdem-mini-start")
    for _ in range(10):
        if page.locator("#outcome").count():
            break
        passive = page.locator("#table form button[name=action][value=check], "
                               "#table form button[name=action][value=call]")
        click_and_wait(page, passive.first)
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#public-state .board .playing-card:not(.back)")).to_have_count(1)
    expect(page.locator("#bot-seat .playing-card:not(.back)")).to_have_count(2)
    expect(page.locator("#outcome")).to_contain_text("Showdown: ")
    assert still_same_document(page)
    snap(page, shots, "holdem-mini-end")


def test_a_new_hand_asked_for_during_the_analysis_is_shown(page: Page) -> None:
    """The coach's poll and the new hand both replace the table: the new hand's answer, held
    back here past the poll's first ask (a fifth of a second), is the one shown, and the
    hand's analysis is not fetched over it."""
    start_match(page, "holdem-mini")
    for _ in range(40):
        if page.locator("#coach[data-analysis=pending]").count():
            break
        if page.locator("#outcome").count():
            next_hand(page)
            continue
        click_and_wait(page, page.locator("#table form button[name=action]:enabled").first)
    else:
        raise AssertionError("no hand ended with its analysis pending")
    old_hand = attribute(page.locator("#table"), "data-hand")

    def held(route: Route) -> None:
        page.wait_for_timeout(1_500)
        route.continue_()

    page.route(re.compile(r"/matches/[0-9a-f]{32}/next$"), held)
    page.locator("#next-hand").click()
    page.wait_for_function(
        "h => document.getElementById('table')?.dataset.hand !== h", arg=old_hand)
    expect(page.locator("#table")).not_to_have_attribute("data-hand", old_hand)
    page.wait_for_timeout(2_500)  # a poll that slipped through would redraw the old hand now
    assert attribute(page.locator("#table"), "data-hand") != old_hand


def test_full_dudo_hand_by_clicking(page: Page, shots: Path) -> None:
    start_match(page, "dudo")
    die = page.locator("#your-seat .die").inner_text()
    assert die in DICE
    expect(page.locator("#bot-seat .die.hidden")).to_be_visible()
    bids = page.locator("#table .grid-actions button.grid-action")
    expect(bids).to_have_count(12)
    expect(page.locator("#table button[value=dudo]")).to_be_disabled()
    page.locator("#hint-toggle").click()
    expect(page.locator("#hint li.prob")).to_have_count(12)
    snap(page, shots, "dudo-start")

    for _ in range(12):
        if page.locator("#outcome").count():
            break
        dudo = page.locator("#table button[value=dudo]")
        if dudo.is_enabled():
            click_and_wait(page, dudo)
        else:
            click_and_wait(page, page.locator(
                "#table .grid-actions button.grid-action:not([disabled])").first)
            if page.locator("#outcome").count() == 0:
                # Only bids stronger than the bot's answer are still enabled.
                last = page.locator(".bid-history .bid-chip").last.inner_text()
                assert last.startswith("bot")
    expect(page.locator("#outcome")).to_be_visible()
    revealed = page.locator("#bot-seat .die").inner_text()
    assert revealed in DICE
    # The count is explained: who called on which bid, what the dice make, who pays.
    expect(page.locator("#explanation")).to_contain_text(re.compile(
        r"called dudo on \d+x\d: .* (make|makes|wild 1|at all).*(stands|fails): "
        r"1 to (you|the bot)"))
    expect(page.locator("#bot-decisions .decision").first).to_be_visible()
    expect(page.locator("#stat-hands")).to_have_text("1")
    assert still_same_document(page)
    snap(page, shots, "dudo-end")


def test_a_hand_without_javascript(browser: Browser, server: str, shots: Path) -> None:
    context = browser.new_context(java_script_enabled=False, base_url=server,
                                  viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto("/")
        page.locator("#game-kuhn").get_by_role("button", name="Play").click()
        page.wait_for_url(MATCH_URL)
        with page.expect_navigation():
            page.locator("#hint-toggle").click()
        expect(page.locator("#hint")).to_be_visible()
        for _ in range(3):
            if page.locator("#outcome").count():
                break
            with page.expect_navigation():
                page.locator("#table form button[name=action]").last.click()
            assert MATCH_URL.search(page.url)
        expect(page.locator("#outcome")).to_be_visible()
        expect(page.locator("#stat-hands")).to_have_text("1")
        snap(page, shots, "kuhn-no-js")
        with page.expect_navigation():
            page.locator("#next-hand").click()
        expect(page.locator("#table")).to_contain_text("Hand 2")
    finally:
        context.close()


def test_another_browser_cannot_open_my_match(page: Page, browser: Browser, server: str,
                                              shots: Path) -> None:
    start_match(page, "kuhn")
    url = page.url
    stranger = browser.new_context(base_url=server)
    try:
        other = stranger.new_page()
        response = other.goto(url)
        assert response is not None and response.status == 403
        expect(other.get_by_role("heading", name="Not your match")).to_be_visible()
        expect(other.locator("main")).to_contain_text("belongs to another player")
        snap(other, shots, "forbidden")
    finally:
        stranger.close()


def test_strategy_explorer_filters_live(page: Page, shots: Path) -> None:
    page.goto("/games/dudo/strategy?view=search")
    expect(page.locator("#infosets")).to_contain_text("24,576")
    expect(page.locator("svg.convergence-chart polyline.c-curve")).to_have_count(1)
    page.evaluate("window.__sameDocument = true")
    page.select_option("#f-card", "3")
    page.wait_for_function(
        "() => [...document.querySelectorAll('article.infoset')]"
        ".every(a => a.dataset.key.startsWith('3|'))")
    page.locator("#f-history").fill("1x2,")
    page.wait_for_function(
        "() => { const a = [...document.querySelectorAll('article.infoset')];"
        " return a.length > 0 && a.every(x => x.dataset.key.startsWith('3|1x2,')); }")
    expect(page).to_have_url(re.compile(r"card=3"))
    expect(page).to_have_url(re.compile(r"history=1x2"))
    expect(page.locator("article.infoset .die").first).to_have_text("⚂")
    page.get_by_role("link", name="Next ›").click()
    expect(page.locator(".pager")).to_contain_text("page 2 of")
    assert still_same_document(page)
    snap(page, shots, "explorer-dudo")
    page.goto("/games/leduc/strategy?card=Kh")
    expect(page.locator("article.infoset").first).to_contain_text("K♥")
    snap(page, shots, "explorer-leduc")


def test_pages_fit_a_phone(browser: Browser, server: str, shots: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=server,
                                  is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.goto("/")
        snap(page, shots, "phone-lobby")
        page.locator("#game-leduc").get_by_role("button", name="Play").click()
        page.wait_for_url(MATCH_URL)
        # Nothing wider than the screen: no horizontal scrolling.
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide on a 390px screen"
        expect(page.locator("#table form button[name=action]").first).to_be_visible()
        snap(page, shots, "phone-leduc")
    finally:
        context.close()


# ---- security: headers, Content-Security-Policy, CSRF, stale clicks ---------------------------


def test_pages_run_under_the_content_security_policy(page: Page, server: str) -> None:
    """Every page is served with a strict policy (no inline script or style) and still works:
    htmx loads and swaps, the charts draw. The ``page`` fixture fails the test on any
    violation; here we also check that the watcher does see one when it happens."""
    from tests.browser.conftest import csp_violations, watch_csp

    response = page.goto("/")
    assert response is not None
    headers = response.headers
    policy = headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    page.wait_for_function("() => window.htmx !== undefined")
    # htmx did not inject its indicator <style> (it would be refused): the config says so.
    assert page.evaluate("htmx.config.includeIndicatorStyles") is False
    assert page.locator("head style").count() == 0
    # The charts' inline <style> is allowed by its hash: the curve is drawn with its stroke.
    page.goto("/games/kuhn/strategy?view=search")
    stroke = page.locator("svg.convergence-chart polyline.c-curve").evaluate(
        "el => getComputedStyle(el).strokeWidth")
    assert stroke == "2.5px"
    # An htmx swap on this page (the filter) works under the policy.
    page.select_option("#f-card", "K")
    page.wait_for_function(
        "() => [...document.querySelectorAll('article.infoset')]"
        ".every(a => a.dataset.key.startsWith('K|'))")
    # A probability bar has its width from a class, not an inline style.
    bar = page.locator("article.infoset li.prob .bar > span").first
    assert bar.get_attribute("style") is None
    percent = int(str(bar.get_attribute("class")).removeprefix("w-"))
    width = float(bar.evaluate("el => el.getBoundingClientRect().width"))
    track = float(bar.evaluate("el => el.parentElement.getBoundingClientRect().width"))
    assert track > 0 and abs(width - track * percent / 100) <= 1.5, (width, track, percent)

    # The watcher is not blind: an inline style injected now is refused and reported.
    other = page.context.new_page()
    reports = watch_csp(other)
    other.goto(server + "/")
    other.evaluate("document.head.insertAdjacentHTML('beforeend', '<style>body{}</style>')")
    other.wait_for_function("() => window.__cspViolations.length > 0")
    assert any("style-src" in v for v in csp_violations(other, reports))
    other.close()


def test_forms_carry_the_csrf_token_and_a_forged_post_is_refused(page: Page, server: str,
                                                                 browser: Browser) -> None:
    start_match(page, "kuhn")
    url = page.url
    token = page.locator("meta[name=csrf-token]").get_attribute("content")
    assert token
    for form in page.locator("form[method=post]").all():
        assert form.locator("input[name=csrf_token]").get_attribute("value") == token
    assert token in (page.locator("body").get_attribute("hx-headers") or "")
    # htmx sends it as a header with each request (and the form's field with a post).
    with page.expect_request(lambda r: r.url.endswith("?hint=1")) as request_info:
        page.locator("#hint-toggle").click()
    assert request_info.value.headers.get("x-csrf-token") == token
    expect(page.locator("#hint")).to_be_visible()
    # A page on another site can make this browser post (the cookie is SameSite=Lax, so a
    # top-level form post from elsewhere would not even carry it); without the token the app
    # refuses either way. Simulate the forged post from this very browser, cookie included.
    before = event_count(page)
    response = page.request.post(f"{url}/act", form={"action": "bet"})
    assert response.status == 403
    assert "security token" in response.text()
    response = page.request.post(f"{url}/act", form={"action": "bet", "csrf_token": "x" * 43})
    assert response.status == 403
    # The hand is unchanged: the forged action was not played.
    page.reload()
    assert event_count(page) == before


def test_a_second_tab_gets_the_hand_as_it_is_now_not_a_second_action(page: Page) -> None:
    start_match(page, "leduc")
    tab_b = page.context.new_page()
    tab_b.goto(page.url)
    seq = page.locator("#table form input[name=seq]").get_attribute("value")
    assert seq is not None and seq.isdigit()
    assert tab_b.locator("#table form input[name=seq]").get_attribute("value") == seq
    # A check never ends a Leduc hand, whatever the bot answers: the hand goes on.
    click_and_wait(page, page.locator("#table form button[value=check]"))
    events_after_a = event_count(page)
    # Tab B still shows the old hand: its click must not be played as another action.
    old_table = tab_b.locator("#table").element_handle()
    tab_b.locator("#table form button[value=check]").click()
    tab_b.wait_for_function("t => !t.isConnected", arg=old_table)
    expect(tab_b.locator("#table-message")).to_contain_text("earlier view of this hand")
    assert event_count(tab_b) == events_after_a  # the hand as tab A left it
    tab_b.close()


def test_the_tree_and_ranges(page: Page, shots: Path) -> None:
    """Leduc's tree from the root: a click on a move swaps in the next node through htmx, with
    the whole range of the player to move as stacked bars; the breadcrumb leads back."""
    page.goto("/games/leduc/strategy")
    page.evaluate("window.__sameDocument = true")
    expect(page.locator("#range tbody tr")).to_have_count(6)
    expect(page.locator("#range .stacked").first).to_be_visible()
    page.locator("#tree .tree-children a", has_text="bet").first.click()
    expect(page.locator(".tree-path")).to_contain_text("bet")
    expect(page.locator("#range tbody tr")).to_have_count(6)
    page.locator("#tree .tree-children a", has_text="call").first.click()
    expect(page.locator("#tree")).to_contain_text("A card is dealt")
    page.locator("#tree .tree-children a").first.click()  # the board card
    expect(page.locator("#range tbody tr")).to_have_count(5)  # one card is on the board
    assert still_same_document(page)
    snap(page, shots, "tree-leduc")
    page.locator(".tree-path a", has_text="Start").click()
    expect(page.locator("#range tbody tr")).to_have_count(6)


def test_the_coach_and_the_replay(page: Page, shots: Path) -> None:
    start_match(page, "leduc")
    for _ in range(8):
        if page.locator("#outcome").count():
            break
        click_and_wait(page, page.locator("#table form button[name=action]").first)
    expect(page.locator("#coach")).to_be_visible()
    expect(page.locator("#coach .decision.coach").first).to_be_visible()
    expect(page.locator("#stat-adjusted")).to_be_visible()
    snap(page, shots, "coach-leduc")
    page.locator("#coach a", has_text="Replay").click()
    expect(page.locator("#replay")).to_be_visible()
    while page.locator(".replay-steps a", has_text="Next").count():
        next_step(page)
    expect(page.locator("#explanation")).to_be_visible()
    snap(page, shots, "replay-leduc")


def test_a_poker_range_as_a_grid_of_hand_classes(page: Page, shots: Path) -> None:
    """holdem-mini's tree: the range of the player to move as the grid of hand classes (pairs
    on the diagonal, suited above, offsuit below), each cell a stacked bar; it follows a move."""
    page.goto("/games/holdem-mini/strategy")
    grid = page.locator("#range-grid")
    expect(grid.locator("tr")).to_have_count(4)
    expect(grid.locator("td")).to_have_count(16)
    expect(grid.locator("td[data-class='55']")).to_be_visible()
    expect(grid.locator("td[data-class='54s'] .stacked")).to_be_visible()
    page.locator("#tree .tree-children a", has_text="call").first.click()
    expect(page.locator(".tree-path")).to_contain_text("call")
    expect(page.locator("#range-grid td")).to_have_count(16)
    snap(page, shots, "range-grid-holdem-mini")
