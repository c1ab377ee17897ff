"""Accounts, the profile, the leaderboards and API keys in a real browser: sign up after
playing, sign in from a second browser (another context: other cookies) and find the same
history, a program's key playing a match over HTTP and landing on the programs' board; the new
pages fit a 390 px phone screen without sideways scrolling."""

from __future__ import annotations

import json
import random
import re
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.browser.conftest import csp_violations, watch_csp
from tests.browser.test_play import click_and_wait, snap, start_match

PASSWORD = "correct horse battery"
PHONE: ViewportSize = {"width": 390, "height": 844}


def sign_up(page: Page, name: str) -> None:
    page.goto("/account")
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORD)
    page.locator("#signup-form").get_by_role("button").click()
    page.wait_for_url(re.compile(r"/profile$"))


def sign_in(page: Page, name: str) -> None:
    page.goto("/account")
    page.fill("#signin-name", name)
    page.fill("#signin-password", PASSWORD)
    page.locator("#signin-form").get_by_role("button").click()
    page.wait_for_url(re.compile(r"/profile$"))


def fits_the_phone(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide on a {PHONE['width']} px phone"


def profile_matches(page: Page) -> list[str]:
    return [str(m) for m in page.locator("#matches tr[data-match]").evaluate_all(
        "rows => rows.map(r => r.dataset.match)")]


def test_sign_up_then_sign_in_elsewhere_sees_the_same_history(page: Page, browser: Browser,
                                                               server: str,
                                                               shots: Path) -> None:
    name = f"player{uuid.uuid4().hex[:8]}"
    start_match(page, "kuhn")
    match_url = page.url.split("?")[0]
    # Play the hand out by clicking the first enabled action each time.
    while page.locator("#table .outcome").count() == 0:
        click_and_wait(page, page.locator("#table form button[name=action]:enabled").first)
    sign_up(page, name)
    expect(page.locator("#profile-name")).to_have_text(name)
    expect(page.locator("#record-kuhn-guest .hands")).to_contain_text("1")
    history = profile_matches(page)
    assert history == [match_url.rsplit("/", 1)[1]]
    snap(page, shots, "profile")

    phone = browser.new_context(viewport=PHONE, base_url=server)
    other = phone.new_page()
    reports = watch_csp(other)
    try:
        other.goto(match_url)
        expect(other.locator(".error-page")).to_be_visible()  # not this browser's match
        sign_in(other, name)
        assert profile_matches(other) == history
        expect(other.locator(".accuracy-chart")).to_be_visible()
        fits_the_phone(other)
        snap(other, shots, "profile-phone")
        other.goto(match_url)
        expect(other.locator("#results")).to_be_visible()
        other.goto("/account")  # signed in: the account page is the profile
        other.wait_for_url(re.compile(r"/profile$"))
        other.locator("#sign-out").click()
        other.wait_for_url(re.compile(r"/$"))
        other.goto(match_url)
        expect(other.locator(".error-page")).to_be_visible()
        other.goto("/account")
        fits_the_phone(other)
        snap(other, shots, "account-phone")
        assert not csp_violations(other, reports)
    finally:
        phone.close()


def call(server: str, method: str, path: str, key: str,
         body: dict[str, Any] | None = None) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server}/api/v1{path}", method=method,
        headers={"content-type": "application/json", "authorization": f"Bearer {key}"},
        data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.load(response))


def test_a_programs_key_plays_a_match_and_makes_the_board(page: Page, browser: Browser,
                                                          server: str, shots: Path) -> None:
    name = f"botmaker{uuid.uuid4().hex[:8]}"
    sign_up(page, name)
    page.fill("#key-name", "random bot")
    page.locator("#key-form").get_by_role("button").click()
    key = page.locator("#new-key-value").inner_text().strip()
    assert key.startswith("sbk_")
    page.goto("/profile")
    expect(page.locator("#new-key")).to_have_count(0)  # shown once
    expect(page.locator("#keys")).to_contain_text("random bot")

    rng = random.Random(7)
    match = call(server, "POST", "/matches", key, {"game": "kuhn"})
    for _ in range(30):
        view = call(server, "POST", f"/matches/{match['match_id']}/hands", key)
        while view["status"] == "in_progress":
            view = call(server, "POST", f"/hands/{view['hand_id']}/actions", key,
                        {"action": rng.choice(view["legal_actions"]), "seq": view["seq"]})
    results = call(server, "GET", f"/matches/{match['match_id']}", key)
    assert results["hands_played"] == 30

    page.goto("/profile")
    expect(page.locator("#record-kuhn-program .hands")).to_contain_text("30")
    assert match["match_id"] in profile_matches(page)
    page.goto("/leaderboards/kuhn?kind=programs")
    expect(page.locator(f'#board tr[data-player="{name}"]')).to_be_visible()
    snap(page, shots, "leaderboard")

    phone = browser.new_context(viewport=PHONE, base_url=server)
    small = phone.new_page()
    try:
        for url in ("/leaderboards", "/leaderboards/kuhn?kind=programs"):
            small.goto(url)
            fits_the_phone(small)
        snap(small, shots, "leaderboard-phone")
    finally:
        phone.close()
