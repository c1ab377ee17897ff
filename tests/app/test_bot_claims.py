"""What every page says of a bot's strength matches the bot's stored figures: for each game of
the test store, and for an abstracted hold'em bot (a small table blueprint of holdem-mini, and
the same tables re-solving the last round at play time), the lobby's card and its choice of
opponents, the game's page, the strategy page, the API's description and a match's "Against"
line say what the stored solve is (an equilibrium of the game itself or of a simplified game)
and quote the exploitability where it was measured exactly; none calls an abstraction's
strategy an equilibrium of the game itself, unbeatable, or its exploitability a rounding
error."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.services.analysis.results import signed
from app.services.bots.strength import sci
from solver.abstractions import describe
from solver.games import get_game
from solver.resolving.kind import ResolvingSpec
from strategies import SolveInfo, StrategyStore
from tests.app.conftest import ABSTRACTED, AppFactory
from tests.app.test_pages import csrf, page
from tests.conftest import REPO_ROOT

UNBEATABLE = ("no way of playing wins", "rounding error", "nobody wins more",
              "equilibrium of the game itself", "the equilibrium strategy", "The equilibrium.")
"""What may be said only of an equilibrium of the game itself."""


@dataclass(frozen=True)
class Stored:
    """A game's stored figures, read from the store itself."""

    game: str
    solve: SolveInfo
    opponents: list[SolveInfo]

    @property
    def exact(self) -> bool:
        return not self.solve.abstraction

    @property
    def exploitability(self) -> float | None:
        e = self.solve.exploitability
        return e if math.isfinite(e) else None


def stored(path: Path) -> list[Stored]:
    with StrategyStore.open(path) as store:
        out = []
        for game in sorted(set(store.games())):
            solve = store.latest_solve(game)
            if solve is not None:
                out.append(Stored(game, solve, store.opponents(game)))
        return out


def check_claim(text: str, bot: Stored, where: str) -> None:
    """`text`, a page's words about the game's own bot, against its stored figures."""
    if bot.exact:
        assert "equilibrium of the game itself" in text, (where, text)
        assert "simplified game" not in text, (where, text)
        if bot.exploitability is not None:
            assert sci(bot.exploitability) in text, (where, text)
        else:
            assert "not measured" in text, (where, text)
        return
    for words in UNBEATABLE:
        assert words not in text, (where, words, text)
    assert "not of the game itself" in text and "cannot be beaten" in text, (where, text)
    described = describe(bot.solve.abstraction)
    assert described is not None and described.plain in text, (where, text)


def start_against(client: TestClient, game: str, opponent: str) -> str:
    response = client.post(f"/play/{game}", data={**csrf(client), "opponent": opponent},
                           follow_redirects=False)
    assert response.status_code == 303, response.text
    return str(response.headers["location"])


def check_pages(client: TestClient, figures: list[Stored]) -> None:
    lobby = page(client, "/")
    for bot in figures:
        g = bot.game
        card = lobby.by_id(f"game-{g}")
        check_claim(card.first("dd", cls="bot-nature").text, bot, f"lobby {g}")
        if bot.exploitability is not None:
            assert sci(bot.exploitability) in card.text
        else:
            measured = describe(bot.solve.abstraction)
            assert measured is not None and measured.measured in card.text
        titles = {o.attrs["value"]: o.text for o in card.find_all("option")}
        strengths = [li.text for li in card.first("details", cls="opponent-strengths")
                     .find_all("li")] if titles else []
        for opponent in bot.opponents:
            assert f"{titles[opponent.opponent]}: {signed(opponent.exploitability)} per hand" \
                in strengths, (g, opponent.opponent, strengths)
        if titles:
            assert (titles["equilibrium"] == "The equilibrium") == bot.exact
            mine = next(s for s in strengths if s.startswith(titles["equilibrium"] + ": "))
            assert ("not measured" in mine) == (bot.exploitability is None), mine
        check_claim(page(client, f"/play/{g}").by_id("bot-nature").text, bot, f"play {g}")
        strategy = page(client, f"/games/{g}/strategy")
        title = strategy.first("h1").text
        assert title.endswith("the equilibrium strategy" if bot.exact else
                              "the bot's strategy"), title
        check_claim(strategy.first("dd", cls="bot-nature").text, bot, f"strategy {g}")
        api = client.get(f"/api/v1/games/{g}").json()
        check_claim(api["bot"]["summary"], bot, f"API {g}")
        assert api["bot"]["exact"] is bot.exact
        match = page(client, start_against(client, g, "equilibrium"))
        against = match.by_id("opponent-target").text
        check_claim(against, bot, f"match {g}")
        assert against.startswith("Against: The equilibrium." if bot.exact else
                                  "Against: The solved bot.")
        if not bot.exact:
            measured = describe(bot.solve.abstraction)
            assert measured is not None and measured.measured in against
        for opponent in bot.opponents:
            against = page(client, start_against(client, g, opponent.opponent)).by_id(
                "opponent-target").text
            # Over both seats; after a first hand (the bot may fold at once), in seat 0.
            targets = {signed(opponent.exploitability)} | (
                {signed(opponent.best_reply[0])} if opponent.best_reply else set())
            assert any(f"A perfect exploiter wins {t} per hand" in against for t in targets), (
                g, opponent.opponent, against)


@pytest.mark.slow
def test_every_page_says_what_the_stored_solves_are(make_app: AppFactory,
                                                     store_path: Path) -> None:
    figures = stored(store_path)
    assert {bot.game for bot in figures} >= {"kuhn", "leduc", ABSTRACTED}
    check_pages(make_app().client, figures)


def test_what_every_page_says_of_all_the_bots_holds_for_an_abstracted_one(
        make_app: AppFactory, abstracted_stores: tuple[Path, Path]) -> None:
    """The footer and the description every page carries speak of all the bots at once; with
    an abstraction's bot among them they may not call every bot an equilibrium, and say which
    are equilibria of simplified games."""
    path = abstracted_stores[0]
    assert any(not bot.exact for bot in stored(path))
    doc = page(make_app(store=path).client, "/")
    footer = doc.first("footer").text
    meta = next(m for m in doc.find_all("meta") if m.attrs.get("name") == "description")
    for words in (footer, meta.attrs["content"]):
        assert "simplified game" in words and "equilibri" in words, words
        for wrong in ("from equilibrium strategies", "play a CFR-solved equilibrium"):
            assert wrong not in words, words


@pytest.mark.parametrize("latest", ["blueprint", "resolving"])
def test_an_abstracted_bot_is_never_called_unbeatable(
        make_app: AppFactory, abstracted_stores: tuple[Path, Path], latest: str) -> None:
    path = abstracted_stores[latest == "resolving"]
    figures = [bot for bot in stored(path) if bot.game == ABSTRACTED]
    assert len(figures) == 1 and not figures[0].exact
    assert figures[0].solve.abstraction.startswith(
        "resolving=" if latest == "resolving" else "ehs2=")
    check_pages(make_app(store=path).client, figures)


def test_the_readme_quotes_what_the_default_hold_em_build_says_of_itself() -> None:
    """The README's table of games quotes the hold'em bot's measured strength (it once said 228
    mbb/hand, the figure of a bot the build no longer makes): every figure its row quotes is in
    the words the default build's descriptor carries, which the pages show."""
    command = get_game("holdem").build.command
    spec = ResolvingSpec(from_round=int(command[command.index("--resolve-from") + 1]))
    described = describe(spec.descriptor)
    assert described is not None
    readme = (REPO_ROOT / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| ") and "(`holdem`)" in line]
    assert len(rows) == 1, "the README's table of games has no row of its own for holdem"
    said = rows[0].split(" | ")[2]  # the row's measured strength
    quoted = re.findall(r"\d+(?:\.\d+)?(?: ± \d+(?:\.\d+)?)?", said)
    assert quoted, said
    for figure in quoted:
        assert figure in described.measured, (figure, described.measured)
    assert "228" not in said
