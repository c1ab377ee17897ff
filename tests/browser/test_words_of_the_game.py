"""The game's own words in a real browser, at a phone's width (touch) and a desktop's: a
leaderboard shows beside each skill figure what equilibrium play scores from that player's
seats, whole and with its words, and a hand's explanation draws its cards as the table does
(a suit symbol, never ``Qh``)."""

from __future__ import annotations

import random
import re
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.test_phone import fits, play_out, start
from tests.browser.test_play import next_hand, snap
from tests.browser.test_players import call, sign_up
from tests.browser.test_visual import nothing_clipped, width

CARD_WORD = re.compile(r"\b[2-9TJQKA][shdc]\b")
"""A card written as a rank and a suit's letter."""


def test_a_board_shows_what_equilibrium_play_scores(any_page: Page, server: str,
                                                    shots: Path) -> None:
    page = any_page
    name = f"yardstick{uuid.uuid4().hex[:8]}"
    sign_up(page, name)
    page.fill("#key-name", "random bot")
    page.locator("#key-form").get_by_role("button").click()
    key = page.locator("#new-key-value").inner_text().strip()
    rng = random.Random(5)
    match = call(server, "POST", "/matches", key, {"game": "kuhn"})
    for _ in range(30):
        view = call(server, "POST", f"/matches/{match['match_id']}/hands", key)
        while view["status"] == "in_progress":
            view = call(server, "POST", f"/hands/{view['hand_id']}/actions", key,
                        {"action": rng.choice(view["legal_actions"]), "seq": view["seq"]})
    page.goto("/leaderboards/kuhn?kind=programs")
    expect(page.locator("#board thead th").nth(4)).to_have_text("Par / hand")
    cell = page.locator(f'#board tr[data-player="{name}"] td').nth(4)
    expect(cell).to_be_visible()
    expect(cell).to_have_text(re.compile(r"^(0|[+−]0\.\d{1,3})$"))
    box = cell.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width(page), box
    words = page.locator("#board-reference")
    expect(words).to_be_visible()
    expect(words).to_contain_text("a hand as the first player")
    nothing_clipped(page.locator("#board").locator("xpath=.."), "the leaderboard")
    if width(page) < 500:
        fits(page, "a leaderboard")
    snap(page, shots, f"leaderboard-reference-{width(page)}")


def test_an_explanation_draws_its_cards(any_page: Page, shots: Path) -> None:
    page = any_page
    start(page, "leduc")
    play_out(page, prefer="call")
    for _ in range(8):  # until a hand reaches the showdown
        if "Showdown" in page.locator("#explanation").inner_text():
            break
        next_hand(page)
        play_out(page, prefer="call")
    explanation = page.locator("#explanation")
    expect(explanation).to_contain_text("Showdown with ")
    card = explanation.locator(".playing-card").first
    expect(card).to_be_visible()
    expect(card).to_have_attribute("aria-label", re.compile(r"^(Jack|Queen|King) of \w+$"))
    text = explanation.inner_text()
    assert not CARD_WORD.search(text), text
    snap(page, shots, f"explanation-cards-{width(page)}")
