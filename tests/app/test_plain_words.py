"""Plain words first, the technical name one tap away, on every device: no help only in a hover
``title`` (a phone never shows one), no information-set key as the main text of a coach line,
a replay or the explorer, and the hold'em bot's jargon (its safety gadget, E[HS²] buckets,
``pcs-cfr++resolving``) only behind a tap."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import AppFactory
from tests.app.test_accounts import signup
from tests.app.test_pages import Node, action_form, enabled_actions, page, post_action, start

JARGON = ("gadget", "E[HS", "pcs-cfr", "cs-cfr", "resolving", "bucket", "LBR", "max-margin")


def shown(node: Node) -> str:
    """The words of `node` a reader sees before opening anything: a closed <details> shows its
    <summary> only."""
    parts: list[str] = []
    for child in node.children:
        if isinstance(child, str):
            parts.append(child)
        elif child.tag == "details" and "open" not in child.attrs:
            parts.extend(shown(s) for s in child.find_all("summary")[:1])
        else:
            parts.append(shown(child))
    return " ".join(" ".join(parts).split())


def hover_only(doc: Node) -> list[str]:
    """Elements whose `title` says what nothing else on them does (a drawn piece whose title
    repeats its aria-label is fine: a screen reader and a hover say the same)."""
    return [f"<{n.tag} title={n.attrs['title']!r}>" for n in doc.iter()
            if "title" in n.attrs and n.attrs.get("aria-label") != n.attrs["title"]]


def finish_hand(client: TestClient, url: str) -> Node:
    doc = page(client, url)
    while (form := action_form(doc)) is not None:
        legal = enabled_actions(form)
        post_action(client, form, next((a for a in ("call", "check", "dudo") if a in legal),
                                       legal[0]))
        doc = page(client, url)
    return doc


@pytest.mark.slow
def test_no_help_hides_in_a_hover_title(make_app: AppFactory) -> None:
    client = make_app(seed=4).client
    assert signup(client, "plainwords").status_code == 303
    pages = ["/", "/play/kuhn", "/play/holdem-mini", "/games/leduc/strategy",
             "/games/leduc/strategy?view=search", "/games/holdem-mini/strategy",
             "/games/dudo/strategy?view=search", "/leaderboards", "/leaderboards/kuhn"]
    for game in ("leduc", "holdem-mini", "dudo"):
        url = start(client, game)
        finish_hand(client, url)
        pages += [url, f"{url}?hint=1"]
        doc = page(client, url)
        pages.append(doc.by_id("coach").first("a").attrs["href"])
    pages.append("/profile")
    for url in pages:
        doc = page(client, url)
        assert not hover_only(doc), (url, hover_only(doc))
    profile = page(client, "/profile")
    styled = [row for row in profile.iter() if "data-stat" in row.attrs]
    assert styled  # a game with style figures was played
    for row in styled:  # each figure's meaning, a tap away
        meaning = row.first("details", cls="explain")
        assert meaning.first("summary").text and meaning.first("span", cls="explain-text").text


def test_keys_and_jargon_are_one_tap_away(make_app: AppFactory,
                                          abstracted_stores: tuple[Path, Path]) -> None:
    client = make_app(seed=4).client
    url = start(client, "leduc")
    doc = finish_hand(client, url)
    keys = doc.by_id("outcome").find_all("code", cls="key")
    assert keys
    for decision in doc.by_id("outcome").find_all("div", cls="decision"):
        key = decision.attrs["data-infoset"]
        assert key not in shown(decision), shown(decision)
        code = decision.first("code", cls="key")
        assert code.text == key
        holder = code.parent
        while holder is not None and holder.tag != "details":
            holder = holder.parent
        assert holder is not None and holder.first("summary").text == "technical name"
    replay = page(client, doc.by_id("coach").first("a").attrs["href"])
    for step in replay.find_all("div", cls="decision"):
        assert step.attrs["data-infoset"] not in shown(step)
    search = page(client, "/games/leduc/strategy?view=search")
    for row in search.find_all("article", cls="infoset"):
        assert row.attrs["data-key"] not in shown(row)
    # The hold'em bot of the default build's kind (a blueprint re-solving its last round):
    # everyday words first, the technical description and the algorithm's name behind a tap.
    resolving = make_app(store=abstracted_stores[1]).client
    for url, where in (("/", "game-holdem-mini"), ("/play/holdem-mini", "bot-nature"),
                       ("/games/holdem-mini/strategy", None)):
        doc = page(resolving, url)
        part = doc.by_id(where) if where else doc.first("dl", cls="facts")
        words = shown(part)
        assert "works the rest of the hand out again" in words, words
        for jargon in JARGON:
            assert jargon not in words, (url, jargon, words)
        assert "max-margin's gadget" in part.text and "cs-cfr+resolving" in part.text


def test_the_results_explain_their_unit_with_a_tap(make_app: AppFactory) -> None:
    client = make_app(seed=2).client
    url = start(client, "holdem-mini")
    doc = finish_hand(client, url)
    unit = doc.by_id("stat-in-unit").first("dt")
    assert shown(unit) == "Mean, mbb/hand"
    assert "thousandths of the big blind" in unit.first("span", cls="explain-text").text
    accuracy = doc.by_id("stat-accuracy")
    assert "gave up at most 1% of the pot" in accuracy.first("details").text
    assert "gave up" not in shown(accuracy)
