"""Tests of the HTML pages (app/web/) through FastAPI's TestClient.

Everything here is played the way a browser without JavaScript plays: plain form posts answered
by 303 redirects. The htmx variants (partials, out-of-band results) are checked separately.
The pages are parsed with a small stdlib HTML tree builder (no parser dependency).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from app.db.models import Hand, Match
from solver.games import get_game, get_view, play
from strategies import StrategyStore
from tests.conftest import stored_infoset

from .conftest import AppFactory, AppHandle

GAMES = ("rps", "kuhn", "leduc", "dudo", "dudo-calzo", "holdem-mini")
HX = {"HX-Request": "true", "HX-Target": "table"}

# ---- a tiny DOM ------------------------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)
    parent: Node | None = None

    @property
    def text(self) -> str:
        parts = [child if isinstance(child, str) else child.text for child in self.children]
        return re.sub(r"\s+", " ", "".join(parts)).strip()

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Node]:
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        out: list[Node] = []
        for node in self.iter():
            if tag is not None and node.tag != tag:
                continue
            if cls is not None and cls not in node.classes:
                continue
            if any(node.attrs.get(k.rstrip("_").replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(node)
        return out

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node | None:
        found = self.find_all(tag, cls, **attrs)
        return found[0] if found else None

    def first(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node:
        """`find` for an element the page must have: the test fails if there is none."""
        found = self.find(tag, cls, **attrs)
        assert found is not None, f"no <{tag or '*'}> of class {cls} {attrs} under <{self.tag}>"
        return found

    def by_id(self, node_id: str) -> Node:
        found = self.find_all(id=node_id)
        assert len(found) == 1, f"expected one element #{node_id}, found {len(found)}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.current)
        self.current.children.append(node)

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


# ---- helpers -----------------------------------------------------------------------------------


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app(seed=7)


def csrf(client: TestClient) -> dict[str, str]:
    """The form field that every page's POST needs: this session's CSRF token, read from the
    lobby the way a browser gets it (the token lives in the session cookie)."""
    meta = parse(client.get("/").text).find("meta", name="csrf-token")
    assert meta is not None and meta.attrs["content"]
    return {"csrf_token": meta.attrs["content"]}


def start(client: TestClient, game: str) -> str:
    """Start a match with the lobby's Play form; its table's URL."""
    response = client.post(f"/play/{game}", data=csrf(client), follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert re.fullmatch(r"/matches/[0-9a-f]{32}", location)
    return location


def page(client: TestClient, url: str) -> Node:
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    return parse(response.text)


def action_form(doc: Node) -> Node | None:
    forms = [f for f in doc.find_all("form") if f.attrs.get("action", "").endswith("/act")]
    return forms[0] if forms else None


def enabled_actions(form: Node) -> list[str]:
    return [b.attrs["value"] for b in form.find_all("button", name="action")
            if "disabled" not in b.attrs]


def hidden_inputs(form: Node) -> dict[str, str]:
    return {i.attrs["name"]: i.attrs.get("value", "") for i in form.find_all("input")
            if i.attrs.get("type") == "hidden"}


def play_form(doc: Node) -> Node:
    """The action form of a table where the human is to act: the test fails if there is none."""
    form = action_form(doc)
    assert form is not None, "no action form on the table"
    return form


def post_action(client: TestClient, form: Node, label: str,
                headers: dict[str, str] | None = None) -> Response:
    return client.post(form.attrs["action"], data={**hidden_inputs(form), "action": label},
                       headers=headers or {}, follow_redirects=False)


def hand_record(handle: AppHandle, match_url: str) -> tuple[str, Hand, list[int]]:
    """The game, the match's newest hand and its action ids, read from the play database."""
    match_id = match_url.rsplit("/", 1)[1]
    with handle.app.state.sessionmaker() as session:
        match = session.query(Match).filter_by(public_id=match_id).one()
        hand = match.hands[-1]
        return match.game, hand, [a.action for a in hand.actions]


def bot_private_view(handle: AppHandle, match_url: str) -> str:
    game, hand, actions = hand_record(handle, match_url)
    state = play(get_game(game), actions)
    return get_view(game).private_view(state, 1 - hand.human_seat)


def probabilities(node: Node) -> dict[str, float]:
    return {li.attrs["data-label"]: float(li.attrs["data-probability"])
            for li in node.find_all("li", cls="prob")}


# ---- lobby -------------------------------------------------------------------------------------


def test_lobby_lists_every_game_with_its_solve(web: AppHandle, store_path: Path) -> None:
    doc = page(web.client, "/")
    with StrategyStore.open(store_path) as store:
        for name in GAMES:
            game = get_game(name)
            card = doc.by_id(f"game-{name}")
            assert game.title in card.text
            for line in get_view(game.name).rules.splitlines():
                assert line in card.text
            info = store.latest_solve(name)
            assert info is not None
            assert info.algorithm in card.text
            assert f"{info.iterations:,} iteration" in card.text
            play_form = card.find("form", action=f"/play/{name}")
            assert play_form is not None and play_form.attrs["method"] == "post"
            assert card.find("a", href=f"/games/{name}/strategy") is not None
            assert "unavailable" not in card.classes


def test_lobby_shows_unsolved_games_as_unavailable(make_app: AppFactory,
                                                   store_without_leduc: Path) -> None:
    handle = make_app(store=store_without_leduc)
    doc = page(handle.client, "/")
    leduc = doc.by_id("game-leduc")
    assert "unavailable" in leduc.classes
    assert doc.by_id("badge-leduc").text == "not built"
    assert "has not been built on this server yet" in leduc.text
    command = handle.client.get("/api/v1/games/leduc").json()["build_command"]
    assert command.startswith("python -m solver ")
    assert command in leduc.first("details").text  # a tap away
    assert leduc.find("form") is None  # nothing to post
    assert "unavailable" not in doc.by_id("game-kuhn").classes
    # Trying anyway gives a friendly page (409: the server is up, the game not built yet),
    # not JSON, saying so, with what builds it a tap away.
    response = handle.client.post("/play/leduc", data=csrf(handle.client),
                                  follow_redirects=False)
    assert response.status_code == 409
    assert response.headers["content-type"].startswith("text/html")
    shown_page = parse(response.text).by_id("main")
    assert shown_page.first("h1").text == "Leduc hold'em is not built on this server"
    assert command in shown_page.first("details").text
    for url in ("/games/leduc/strategy", "/play/leduc"):
        shown = handle.client.get(url)
        assert shown.status_code == 409 and "<html" in shown.text, url
        assert "is not built on this server" in shown.text, url


def test_lobby_when_the_store_is_missing(make_app: AppFactory, tmp_path: Path) -> None:
    handle = make_app(store=tmp_path / "missing.sqlite")
    response = handle.client.get("/")
    assert response.status_code == 200
    doc = parse(response.text)
    assert all("unavailable" in doc.by_id(f"game-{g}").classes for g in GAMES)
    assert "strategy store is unavailable" in response.text


# ---- playing a Kuhn hand without JavaScript --------------------------------------------------


def test_full_kuhn_hand_with_plain_form_posts(web: AppHandle, store_path: Path) -> None:
    client = web.client
    url = start(client, "kuhn")
    doc = page(client, url)
    _, hand, _ = hand_record(web, url)
    assert hand.human_seat == 0  # hand 1: the human acts first
    bot_card = bot_private_view(web, url)
    moves = 0
    while (form := action_form(doc)) is not None:
        # Mid-hand the bot's card is face down and named nowhere on the page.
        bot_seat = doc.by_id("bot-seat")
        assert bot_seat.find(cls="back") is not None
        assert not [c for c in bot_seat.find_all(cls="playing-card") if "back" not in c.classes]
        assert f"Dealt to the bot: {bot_card}" not in doc.text
        assert "Dealt to the bot: hidden" in doc.text
        assert doc.find(id="outcome") is None
        legal = enabled_actions(form)
        assert legal and set(legal) <= {"check", "bet", "call", "fold"}
        assert form.attrs["method"] == "post"
        response = post_action(client, form, legal[0])
        assert response.status_code == 303, response.text
        assert response.headers["location"] == url
        doc = page(client, url)
        moves += 1
        assert moves <= 3
    # The hand is over: the bot's card is revealed with the probabilities behind its decisions.
    outcome = doc.by_id("outcome")
    reveal = doc.by_id("reveal")
    assert bot_card in reveal.text or any(
        c.attrs.get("aria-label", "").startswith({"J": "Jack", "Q": "Queen", "K": "King"}[bot_card])
        for c in reveal.find_all(cls="playing-card"))
    assert f"Dealt to the bot: {bot_card}" in doc.text
    _game, hand, _actions = hand_record(web, url)
    assert hand.status == "finished"
    result = outcome.by_id("outcome-title").text
    assert result.startswith(("You won", "You lost"))
    decisions = doc.by_id("bot-decisions").find_all(cls="decision")
    bot_moves = [a for a in hand.actions if a.actor == 1 - hand.human_seat]
    assert len(decisions) == len(bot_moves) >= 1
    with StrategyStore.open(store_path) as store:
        for node, move in zip(decisions, bot_moves, strict=True):
            key = node.attrs["data-infoset"]
            assert key.startswith(bot_card + "|")
            stored = stored_infoset(store, "kuhn", key)
            shown = probabilities(node)
            assert set(shown) == set(stored.labels)
            for label, p in zip(stored.labels, stored.probabilities, strict=True):
                assert shown[label] == pytest.approx(p, abs=1e-6)
            assert math.isclose(sum(shown.values()), 1.0, abs_tol=1e-5)
            chosen = node.find("li", cls="chosen")
            assert chosen is not None and chosen.attrs["data-label"] == move.label
    # The results panel counts the hand.
    assert doc.by_id("stat-hands").text == "1"
    assert doc.by_id("history").find("tr", data_hand=hand.public_id) is not None
    # No more actions to take: a stale post is refused with a message, not an error page.
    response = client.post(f"{url}/act", data={"action": "bet", "hand": hand.public_id,
                                               **csrf(client)})
    assert response.status_code == 409
    assert "This hand is over" in parse(response.text).by_id("table-message").text


def test_next_hand_swaps_seats_and_updates_results(web: AppHandle) -> None:
    client = web.client
    url = start(client, "kuhn")
    for number in (1, 2, 3, 4, 5):
        doc = page(client, url)
        _, hand, _ = hand_record(web, url)
        assert hand.number == number
        assert hand.human_seat == (number - 1) % 2
        while (form := action_form(doc)) is not None:
            # Bet or call in odd hands, check or fold in even ones: results that differ.
            choice = enabled_actions(form)[-1 if number % 2 else 0]
            assert post_action(client, form, choice).status_code == 303
            doc = page(client, url)
        assert doc.by_id("stat-hands").text == str(number)
        rows = doc.by_id("history").find_all("tr", cls=None)
        numbers = [r.first("td").text for r in rows if r.find("td") is not None]
        assert numbers == [f"#{n}" for n in range(number, 0, -1)]  # newest first
        chart = doc.by_id("results-chart").find("polyline", cls="c-actual")
        assert chart is not None and len(chart.attrs["points"].split()) == number + 1
        next_form = doc.find("form", action=f"{url}/next")
        assert next_form is not None
        response = client.post(f"{url}/next", data=csrf(client), follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == url
        if number < 5:  # no interval yet, and the page says why
            shown = doc.by_id("stat-ci").text
            assert "…" not in shown
            assert "after 5 hands" in shown or "every result so far is the same" in shown
    # After 5 hands (with some spread: these differ) the CI is shown and the chart has its band.
    doc = page(client, url)
    assert "…" in doc.by_id("stat-ci").text
    assert doc.by_id("results-chart").find("path", cls="c-band") is not None
    # Asking for another hand while one is in progress is refused with a message.
    response = client.post(f"{url}/next", data=csrf(client))
    assert response.status_code == 409
    assert "still in progress" in response.text


def test_hint_shows_the_equilibrium_for_my_information_set(web: AppHandle,
                                                           store_path: Path) -> None:
    client = web.client
    url = start(client, "kuhn")
    doc = page(client, url)
    assert doc.find(id="hint") is None  # off by default
    toggle = doc.by_id("hint-toggle")
    assert toggle.attrs["href"] == f"{url}?hint=1"
    doc = page(client, toggle.attrs["href"])
    game, hand, actions = hand_record(web, url)
    state = play(get_game(game), actions)
    key = state.information_state_key(hand.human_seat)
    with StrategyStore.open(store_path) as store:
        stored = stored_infoset(store, "kuhn", key)
    shown = probabilities(doc.by_id("hint"))
    assert shown == pytest.approx(dict(zip(stored.labels, stored.probabilities, strict=True)),
                                  abs=1e-6)
    # The hint is kept across a move (hidden field, redirect back with ?hint=1).
    form = play_form(doc)
    assert hidden_inputs(form).get("hint") == "1"
    response = post_action(client, form, enabled_actions(form)[0])
    assert response.headers["location"] == f"{url}?hint=1"


def test_illegal_action_rerenders_the_table_with_a_message(web: AppHandle) -> None:
    client = web.client
    url = start(client, "kuhn")
    form = play_form(page(client, url))
    response = post_action(client, form, "raise")
    assert response.status_code == 409
    doc = parse(response.text)
    assert "illegal action 'raise'" in doc.by_id("table-message").text
    assert action_form(doc) is not None  # the table is still there to play on
    # The same through htmx: the table partial with the message.
    response = post_action(client, form, "raise", headers=HX)
    assert response.status_code == 409
    assert "<html" not in response.text
    assert "illegal action" in parse(response.text).by_id("table-message").text


def test_htmx_action_returns_table_and_out_of_band_results(web: AppHandle) -> None:
    client = web.client
    url = start(client, "kuhn")
    form = play_form(page(client, url))
    assert form.attrs["hx-post"] == form.attrs["action"]
    assert form.attrs["hx-target"] == "#table"
    response = post_action(client, form, enabled_actions(form)[0], headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.text
    doc = parse(response.text)
    assert doc.by_id("table").parent is doc  # a top-level fragment replacing #table
    results = doc.by_id("results")
    assert results.attrs.get("hx-swap-oob") == "true"


def test_other_browsers_cannot_open_my_match(web: AppHandle) -> None:
    url = start(web.client, "kuhn")
    with TestClient(web.app) as stranger:
        response = stranger.get(url)
        assert response.status_code == 403
        assert response.headers["content-type"].startswith("text/html")
        assert "This match belongs to another player" in response.text
        # With the stranger's own (valid) CSRF token: refused because the match is not theirs.
        token = csrf(stranger)
        response = stranger.post(f"{url}/act", data={"action": "bet", **token},
                                 follow_redirects=False)
        assert response.status_code == 403
        assert "This match belongs to another player" in response.text
        response = stranger.post(f"{url}/next", data=token, follow_redirects=False)
        assert response.status_code == 403
        assert "This match belongs to another player" in response.text
    missing = web.client.get("/matches/" + "0" * 32)
    assert missing.status_code == 404 and "No match" in missing.text and "<html" in missing.text


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_every_game_plays_to_the_end_without_js(web: AppHandle, game: str) -> None:
    client = web.client
    url = start(client, game)
    doc = page(client, url)
    for _ in range(40):
        form = action_form(doc)
        if form is None:
            break
        legal = enabled_actions(form)
        if game.startswith("dudo"):
            # The 12 bids are always shown; only stronger ones are enabled.
            bids = form.find_all("button", cls="grid-action")
            assert len(bids) == 12
        choice = "dudo" if "dudo" in legal else legal[0]
        assert post_action(client, form, choice).status_code == 303
        doc = page(client, url)
    assert doc.find(id="outcome") is not None
    assert doc.by_id("stat-hands").text == "1"


def test_dudo_shows_the_die_and_the_bid_grid(web: AppHandle) -> None:
    client = web.client
    url = start(client, "dudo")
    doc = page(client, url)
    _game, hand, actions = hand_record(web, url)
    my_face = actions[hand.human_seat] + 1
    mine = doc.by_id("your-seat").first(cls="die")
    assert mine.text == "⚀⚁⚂⚃⚄⚅"[my_face - 1]
    assert doc.by_id("bot-seat").find(cls="hidden") is not None
    form = play_form(doc)
    bids = form.find_all("button", cls="grid-action")
    assert [b.attrs["value"] for b in bids][:3] == ["1x2", "1x3", "1x4"]
    assert not [b for b in bids if "disabled" in b.attrs]  # opening: every bid is legal
    dudo = form.find("button", value="dudo")
    assert dudo is not None and "disabled" in dudo.attrs  # nothing to challenge yet
    response = post_action(client, form, "1x5")
    assert response.status_code == 303
    doc = page(client, url)
    if (next_form := action_form(doc)) is not None:  # the bot raised: only stronger bids remain
        enabled = enabled_actions(next_form)
        assert "1x5" not in enabled and "1x2" not in enabled and "dudo" in enabled
        assert "you 1×" in doc.by_id("public-state").text


# ---- strategy explorer -------------------------------------------------------------------------


def infoset_keys(doc: Node) -> list[str]:
    return [n.attrs["data-key"] for n in doc.find_all("article", cls="infoset")]


def test_explorer_lists_kuhn_and_filters(web: AppHandle, store_path: Path) -> None:
    client = web.client
    doc = page(client, "/games/kuhn/strategy?view=search")
    keys = infoset_keys(doc)
    assert len(keys) == 12
    assert {k.split("|")[0] for k in keys} == {"J", "Q", "K"}
    assert doc.find("svg", cls="convergence-chart") is not None
    assert doc.find("polyline", cls="c-curve") is not None
    # The filter form works without JavaScript (GET with query parameters) ...
    form = doc.first("form", cls="filters")
    assert form.attrs["method"] == "get" and form.attrs["hx-get"] == "/games/kuhn/strategy"
    only_k = infoset_keys(page(client, "/games/kuhn/strategy?card=K"))
    assert len(only_k) == 4 and all(k.startswith("K|") for k in only_k)
    after_pb = infoset_keys(page(client, "/games/kuhn/strategy?history=pb"))
    assert sorted(after_pb) == ["J|pb", "K|pb", "Q|pb"]
    one = page(client, "/games/kuhn/strategy?card=Q&history=pb")
    assert infoset_keys(one) == ["Q|pb"]
    with StrategyStore.open(store_path) as store:
        stored = stored_infoset(store, "kuhn", "Q|pb")
    assert probabilities(one) == pytest.approx(
        dict(zip(stored.labels, stored.probabilities, strict=True)), abs=1e-6)
    # ... and htmx gets only the list.
    response = client.get("/games/kuhn/strategy?card=J",
                          headers={"HX-Request": "true", "HX-Target": "infosets"})
    assert response.status_code == 200 and "<html" not in response.text
    assert len(infoset_keys(parse(response.text))) == 4
    empty = page(client, "/games/kuhn/strategy?history=zzz")
    assert infoset_keys(empty) == [] and "No information set matches" in empty.text


def test_explorer_pages_through_dudo(web: AppHandle) -> None:
    client = web.client
    doc = page(client, "/games/dudo/strategy?view=search")
    assert "24,576" in doc.by_id("infosets").text
    first = infoset_keys(doc)
    assert len(first) == 48
    second_page = infoset_keys(page(client, "/games/dudo/strategy?view=search&page=2"))
    assert len(second_page) == 48 and not set(first) & set(second_page)
    assert "49–96" in page(client, "/games/dudo/strategy?view=search&page=2").text
    last = page(client, "/games/dudo/strategy?view=search&page=100000")  # the last page
    assert "page 512 of 512" in last.text
    filtered = infoset_keys(page(client, "/games/dudo/strategy?card=3&history=1x2,"))
    assert filtered and all(k.startswith("3|1x2,") for k in filtered)
    die = page(client, "/games/dudo/strategy?card=3").first("article", cls="infoset")
    assert die.first(cls="die").text == "⚂"
    bad = client.get("/games/dudo/strategy?card=9")
    assert bad.status_code == 404 and "No die '9'" in parse(bad.text).text


def test_unknown_game_pages_are_friendly_404s(web: AppHandle) -> None:
    for url in ("/games/chess/strategy", "/play/chess"):
        response = web.client.get(url)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert "Unknown game 'chess'" in parse(response.text).text
    response = web.client.post("/play/chess", data=csrf(web.client), follow_redirects=False)
    assert response.status_code == 404


def test_play_page_lists_my_matches(web: AppHandle) -> None:
    url = start(web.client, "leduc")
    doc = page(web.client, "/play/leduc")
    assert doc.find("a", href=url) is not None
    assert doc.find("form", action="/play/leduc") is not None


def test_unknown_urls_get_an_html_404_for_browsers(web: AppHandle, tmp_path: Path) -> None:
    from app.main import create_app

    with TestClient(create_app(web.settings)) as client:
        response = client.get("/no/such/page", headers={"Accept": "text/html"})
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert "There is no page at this address" in response.text
        # The API and clients asking for JSON keep FastAPI's JSON errors.
        api = client.get("/api/v1/no/such/thing", headers={"Accept": "text/html"})
        assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
        plain = client.get("/no/such/page", headers={"Accept": "application/json"})
        assert plain.status_code == 404 and plain.json() == {"detail": "Not Found"}


# ---- a newcomer's table ------------------------------------------------------------------------


def test_action_buttons_are_neutral_and_rps_has_no_turn_order(web: AppHandle) -> None:
    """No action is drawn as the primary button (that reads like advice), and in a game where
    both choose at once nobody acts "first"."""
    for game in ("kuhn", "rps"):
        doc = page(web.client, start(web.client, game))
        form = action_form(doc)
        assert form is not None
        assert not [b for b in form.find_all("button") if "btn-primary" in b.classes]
    table = doc.by_id("table").text
    assert "act first" not in table and "act second" not in table
    assert "both choose at once" in table
    assert "first" not in doc.by_id("bot-seat").text and "first" not in doc.by_id("your-seat").text


def test_dudo_explains_the_bids_and_the_count(web: AppHandle) -> None:
    client = web.client
    url = start(client, "dudo")
    doc = page(client, url)
    notes = doc.by_id("how-to-play").text
    assert "1s are wild" in notes and "outranks the same quantity" in notes
    while (form := action_form(doc)) is not None:
        legal = enabled_actions(form)
        post_action(client, form, "dudo" if "dudo" in legal else legal[0])
        doc = page(client, url)
    explanation = doc.by_id("explanation").text
    assert re.match(r"(You|The bot) called dudo on \d+x\d: .*: 1 to (you|the bot)\.$",
                    explanation), explanation
    _, hand, actions = hand_record(web, url)
    state = play(get_game("dudo"), actions)
    names = ("you", "the bot") if hand.human_seat == 0 else ("the bot", "you")
    assert explanation == get_view("dudo").outcome_text(state, names)


def test_favicon(web: AppHandle) -> None:
    response = web.client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert parse(web.client.get("/").text).find("link", rel="icon") is not None


def test_two_wins_give_no_verdict_on_the_page(web: AppHandle) -> None:
    """Two identical results: no interval of zero width is shown as a verdict."""
    client = web.client
    url = start(client, "rps")
    for _ in range(2):
        doc = page(client, url)
        post_action(client, play_form(doc), "rock")
        client.post(f"{url}/next", data=csrf(client))
    doc = page(client, url)
    verdict = doc.find("p", cls="verdict")
    assert verdict is not None and verdict.attrs["data-verdict"] == "too_few_hands"
    assert "more hands for a verdict" in verdict.text


# ---- after the hand: the coach, the replay, the export -----------------------------------------


def test_coach_replay_and_csv(web: AppHandle) -> None:
    client = web.client
    url = start(client, "leduc")
    doc = page(client, url)
    while (form := action_form(doc)) is not None:
        post_action(client, form, enabled_actions(form)[0])
        doc = page(client, url)
    coach = doc.by_id("coach")
    decisions = coach.find_all("div", cls="coach")
    _, hand, actions = hand_record(web, url)
    state = play(get_game("leduc"), [])
    mine = []
    for a in actions:
        if state.current_player() == hand.human_seat:
            mine.append(state.information_state_key())
        state = state.apply_action(a)
    assert [d.attrs["data-infoset"] for d in decisions] == mine
    assert doc.by_id("stat-adjusted") is not None and doc.by_id("stat-accuracy") is not None
    assert doc.by_id("results-chart").find("polyline", cls="c-adjusted") is not None
    # The replay: every step of the finished hand, both hands shown.
    replay_url = f"{url}/hands/{hand.public_id}"
    assert doc.find("a", href=replay_url) is not None
    last = page(client, f"{replay_url}?step={len(actions) - 1}")
    # The game's sentence, its cards drawn as the pages draw them (a card's code, ``Qs``, in
    # the game's words is a card face on the page, named for a screen reader).
    said = last.by_id("explanation")
    words = re.sub(r"\s+", " ", "".join(c if isinstance(c, str) else "{card}"
                                         for c in said.children)).strip()
    outcome = get_view("leduc").outcome_text(
        state, ("you", "the bot") if hand.human_seat == 0 else ("the bot", "you"))
    codes = re.findall(r"\b[2-9TJQKA][cdhs]\b", outcome)
    assert words == re.sub(r"\b[2-9TJQKA][cdhs]\b", "{card}", outcome)
    drawn = said.find_all(cls="playing-card")
    assert [c.attrs["title"] for c in drawn] == [c.attrs["aria-label"] for c in drawn]
    assert len(drawn) == len(codes)
    assert len(last.by_id("bot-seat").find_all(cls="playing-card")) == 1
    assert not [c for c in last.by_id("bot-seat").find_all(cls="playing-card")
                if "back" in c.classes]
    assert len(last.first("ol", cls="events").find_all("li")) == len(actions)
    first_mine = next(i for i, a in enumerate(actions) if i >= 2)  # after the two deals
    step = page(client, f"{replay_url}?step={first_mine}")
    assert step.by_id("replay-detail").find("div", cls="decision") is not None
    # Another match's hand is not this match's.
    other = start(client, "leduc")
    assert client.get(f"{other}/hands/{hand.public_id}").status_code == 404
    # The CSV: a header and this hand.
    response = client.get(f"{url}/export.csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    lines = response.text.strip().splitlines()
    assert lines[0].startswith("hand,your_seat,your_private,bot_private")
    assert len(lines) == 2 and lines[1].startswith(f"1,{hand.human_seat},")  # the API's seat


def test_the_tree_walks_from_the_root_with_whole_ranges(web: AppHandle,
                                                        store_path: Path) -> None:
    """Kuhn from the root: the first player's whole range (J, Q, K), a move to follow, the
    second player's range after a bet, the breadcrumb back; the figures are the store's."""
    client = web.client
    root = page(client, "/games/kuhn/strategy")
    assert root.find("a", id="search-tab") is not None
    rows = root.by_id("range").find_all("tr", cls=None)[1:]
    assert sorted(r.attrs["data-key"] for r in rows) == ["J|", "K|", "Q|"]
    shares = [float(r.find_all("td")[2].text.rstrip("%")) for r in rows]
    assert shares == pytest.approx([33.3, 33.3, 33.3], abs=0.1)
    bet = next(a for a in root.by_id("tree").find_all("a") if a.text.startswith("bet"))
    after_bet = page(client, bet.attrs["href"])
    facing_rows = after_bet.by_id("range").find_all("tr")[1:]
    order = [r.attrs["data-key"][0] for r in facing_rows]
    assert sorted(order) == ["J", "K", "Q"]
    assert "Start" in after_bet.first("nav", cls="tree-path").text
    with StrategyStore.open(store_path) as store:
        bets = {c: stored_infoset(store, "kuhn", f"{c}|") for c in "JQK"}
        facing = {c: store.infoset("kuhn", f"{c}|b") for c in "JQK"}
    # The second player's range after a bet: its card is one the bettor does not hold, each
    # of those weighed by how often the first player bets with it.
    bet_with = {c: bets[c].probabilities[1] for c in "JQK"}
    weights = {c: sum(bet_with[o] for o in "JQK" if o != c) for c in "JQK"}
    shown = [float(r.find_all("td")[2].text.rstrip("%").lstrip("<>")) for r in facing_rows]
    total = sum(weights.values())
    assert shown == pytest.approx([100 * weights[c] / total for c in order], abs=0.1)
    assert all(f is not None and f.values is not None for f in facing.values())
    api = client.get("/api/v1/games/kuhn/tree", params={"node": bet.attrs["data-node"]}).json()
    by_key = {r["key"]: r for r in api["range"]}
    assert sorted(by_key) == ["J|b", "K|b", "Q|b"]
    facing_k = facing["K"]
    assert facing_k is not None and facing_k.values is not None
    assert by_key["K|b"]["values"] == pytest.approx(list(facing_k.values), abs=1e-9)
    assert client.get("/api/v1/games/kuhn/tree", params={"node": 10**6}).status_code == 404
