"""The explorer for hold'em, whose solve is an abstraction with no public tree: the grid of
hand classes at a spot named by a board and a betting line, from the stored strategy and from
the bot's re-solve, through the page and the API.

The store holds a tiny HULHE blueprint (8 buckets a round, one short epoch), its latest solve
marked to re-solve the river with few iterations (as in `test_resolving_bot`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.errors import StrategyUnavailableError
from app.services.bots.bot import StoredStrategyBot
from app.services.bots.strategy_source import StrategySource
from solver.abstractions import abstraction_for
from solver.cli import main
from solver.games import get_game
from solver.games.holdem import HoldemGame, HoldemState
from solver.resolving.kind import ResolvingSpec
from solver.resolving.store import store_resolving
from strategies import StrategyStore
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_pages import page, parse
from tests.conftest import copy_store

API = "/api/v1"
RIVER = "Ah Kd 7c 2s 3h"


@pytest.fixture(scope="module")
def resolving_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = copy_store(store_path, tmp_path_factory.mktemp("explorer") / "resolving.sqlite")
    assert main(["hulhe", "--buckets", "8,8,8", "--epochs", "1", "--epoch-iterations", "20000",
                 "--algorithm", "cs", "--metric", "ehs2",
                 "--workers", "0", "--checkpoint", "none", "--self-play-deals", "0",
                 "--resolve-from", "4", "--quiet", "--json", "--store", str(path)]) == 0
    store_resolving(str(path), "holdem", ResolvingSpec(4, "maxmargin", 40))
    return path


@pytest.fixture
def web(make_app: AppFactory, resolving_store: Path) -> AppHandle:
    return make_app(store=resolving_store)


def deal(game: HoldemGame, hand: str, board: str, line: str) -> HoldemState:
    """The position after `line` with `hand` held by the player to act (written out here, not
    through the explorer's own dealing)."""
    ids = {n: c for c, n in enumerate(game.card_names)}
    mine = [ids[hand[:2]], ids[hand[2:]]]
    flop = [ids[c] for c in board.split()]
    spare = [c for c in range(52) if c not in mine + flop][:2]
    for player in (0, 1):
        state = game.initial_state()
        for card in (mine + spare if player == 0 else spare + mine):
            state = state.apply_action(card)
        left = list(flop)
        for letter in line:
            while state.is_chance():
                state = state.apply_action(left.pop(0))
            state = state.apply_action("fcr".index(letter))
        while state.is_chance():
            state = state.apply_action(left.pop(0))
        if state.current_player() == player:
            return state
    raise AssertionError("unreachable")


def cell(grid: dict[str, Any], label: str) -> dict[str, float]:
    cells = [c for row in grid["cells"] for c in row if c["label"] == label]
    assert len(cells) == 1
    return {a["label"]: a["probability"] for a in cells[0]["actions"]}


def stored(path: Path, state: HoldemState) -> dict[str, float]:
    """The stored strategy's row for `state`, read from the store itself."""
    game = state.game
    with StrategyStore.open(path) as store:
        info = store.latest_solve("holdem")
        assert info is not None
        key = abstraction_for(game, info.abstraction).strategy_key(state,
                                                                    state.current_player())
        row = store.infoset("holdem", key)
    assert row is not None
    return dict(zip(row.labels, row.probabilities, strict=True))


@pytest.mark.parametrize("line", ["", "r", "rr"])
@pytest.mark.slow
def test_the_preflop_grid_is_the_stored_strategy(web: AppHandle, resolving_store: Path,
                                                 line: str) -> None:
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    body = web.client.get(f"{API}/games/holdem/grid", params={"line": line}).json()
    assert len(body["blueprint"]["cells"]) == 13
    assert all(len(row) == 13 for row in body["blueprint"]["cells"])
    assert body["blueprint"]["cells"][0][0]["label"] == "AA"
    assert body["blueprint"]["cells"][0][1]["label"] == "AKs"
    assert body["blueprint"]["cells"][1][0]["label"] == "AKo"
    assert [body["blueprint"]["cells"][r][c]["hands"] for r, c in ((0, 0), (0, 1), (1, 0))] == [
        6, 4, 12]
    for label, hand in (("AA", "AsAh"), ("AKs", "AdKd"), ("72o", "7h2c"), ("T9s", "Tc9c")):
        want = stored(resolving_store, deal(game, hand, "", line))
        got = cell(body["blueprint"], label)
        assert got == pytest.approx(want, abs=1e-12), label
    # The bot re-solves the river only: before it, it plays the stored strategy.
    assert body["computed"] is None and "later round" in body["computed_note"]
    assert [m["line"] for m in body["moves"]] == [line + "f", line + "c", line + "r"]
    assert body["back"] == (None if not line else
                            {"letter": "", "label": "back", "board": "", "line": line[:-1]})


def test_a_river_grid_averages_the_hands_and_shows_the_re_solve(
        web: AppHandle, resolving_store: Path) -> None:
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    line = "rccccc"
    body = web.client.get(f"{API}/games/holdem/grid",
                          params={"board": RIVER, "line": line}).json()
    # 22 with the 2s on the board: three hands; the cell is their plain mean.
    hands = ("2h2d", "2h2c", "2d2c")
    bot = StoredStrategyBot(StrategySource(resolving_store))
    states = [deal(game, h, RIVER, line) for h in hands]
    rows = [stored(resolving_store, s) for s in states]
    want = {a: sum(r[a] for r in rows) / 3 for a in rows[0]}
    assert cell(body["blueprint"], "22") == pytest.approx(want, abs=1e-12)
    # AKo with A♥ and K♦ on the board: 3 × 3 hands less the two suited ones.
    assert {c["label"]: c["hands"] for row in body["blueprint"]["cells"] for c in row
            if c["label"] in ("22", "AA", "AKo", "AKs")} == {"22": 3, "AA": 3, "AKo": 7,
                                                            "AKs": 2}
    # One step back is the turn's first check, with the turn's board.
    assert body["back"]["board"] == "Ah Kd 7c 2s" and body["back"]["line"] == "rcccc"
    # The re-solve: the very call the bot plays with, hand by hand.
    assert body["computed"] is not None
    played = [bot.policy(game, s).as_dict() for s in states]
    want = {a: sum(p[a] for p in played) / 3 for a in played[0]}
    assert cell(body["computed"], "22") == pytest.approx(want, abs=1e-9)
    assert cell(body["computed"], "22") != pytest.approx(cell(body["blueprint"], "22"))


@pytest.mark.parametrize(("board", "line", "status", "words"), [
    ("Zz Kd 7c", "rc", 422, "written rank then suit"),
    ("Ah Kd 7C", "rc", 422, "written rank then suit"),
    ("Ah\tKd 7c", "rc", 422, "written rank then suit"),
    ("", "rx", 422, "c (check or call), r (bet or raise) and f (fold)"),
    ("Ah Ah 7c", "rc", 404, "appears twice"),
    ("Ah Kd", "rc", 404, "a board has 0, 3, 4 or 5 cards"),
    ("", "rrrrr", 404, "legal: f (fold), c (call)"),
    ("", "rc", 404, "give the board's next 3 card(s)"),
    ("Ah Kd 7c", "c", 404, "more than the line reaches"),
    ("", "f", 404, "ends the hand"),
])
def test_a_bad_board_or_line_says_what_is_legal(
        web: AppHandle, board: str, line: str, status: int, words: str) -> None:
    """Written otherwise than the schema's patterns say: a 422 (FastAPI's, naming the query
    parameter, on the API). Written so, but naming no spot of the betting: a 404, like an
    unknown id, whose message says what is legal; so a request the schema calls valid is never
    refused for its input."""
    api = web.client.get(f"{API}/games/holdem/grid", params={"board": board, "line": line})
    assert api.status_code == status, api.text
    assert (words in api.text) is (status == 404)  # the 422 is the schema's own
    assert "/tmp" not in api.text and ".sqlite" not in api.text
    html = web.client.get("/games/holdem/strategy", params={"board": board, "line": line})
    assert html.status_code == status
    doc = parse(html.text)
    assert words in doc.by_id("spot-error").text
    assert doc.find("form", action="/games/holdem/strategy") is not None  # to fix it


@pytest.mark.slow
def test_the_page_draws_the_grids_and_walks_the_betting(web: AppHandle) -> None:
    doc = page(web.client, "/games/holdem/strategy")
    assert "c checks or calls" in doc.by_id("spot-legend").text  # the game's words
    grid = doc.by_id("spot-grid")
    assert len(grid.find_all("td")) == 169
    assert [td.attrs["data-class"] for td in grid.find_all("td")][:3] == ["AA", "AKs", "AQs"]
    steps = [a.attrs["href"] for a in doc.by_id("spot").find_all("a")]
    assert "/games/holdem/strategy?board=&line=r" in steps
    # The partial htmx swaps in when an action is clicked.
    partial = web.client.get("/games/holdem/strategy?board=&line=r", headers={
        "HX-Request": "true", "HX-Target": "spot"})
    assert partial.status_code == 200 and partial.text.lstrip().startswith('<div id="spot">')
    assert "Preflop: raise" in partial.text
    river = page(web.client, f"/games/holdem/strategy?board={RIVER}&line=rccccc")
    assert len(river.by_id("computed-grid").find_all("td")) == 169
    assert "River (3♥)" in river.by_id("spot").text


class TablesMissing(StrategySource):
    """A source whose latest solve lost its tables (a store written by hand, say)."""

    def table_strategy(self, game: str) -> None:
        return None


def test_a_bot_without_tables_says_so_without_the_store_path(resolving_store: Path) -> None:
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    state = deal(game, "2h2d", RIVER, "rccccc")
    with pytest.raises(StrategyUnavailableError) as raised:
        StoredStrategyBot(TablesMissing(resolving_store)).policy(game, state)
    message = str(raised.value)
    assert "has no tables to play from" in message
    assert str(resolving_store) not in message and ".sqlite" not in message
