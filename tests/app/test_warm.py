"""Warming the stored strategies in the background after start-up (`app.services.warm`)."""

from __future__ import annotations

import time
from pathlib import Path

from app.services import Policy, StoredStrategyBot, StrategySource, StrategyUnavailableError
from app.services.warm import warm
from solver.games import Game, State
from tests.app.conftest import AppFactory
from tests.conftest import copy_store


class CountingBot:
    """The stored bot, counting its decisions and failing for one game."""

    def __init__(self, source: StrategySource, broken: str) -> None:
        self.bot = StoredStrategyBot(source)
        self.broken = broken
        self.decisions: dict[str, int] = {}

    def policy(self, game: Game, state: State) -> Policy:
        if game.name == self.broken:
            raise StrategyUnavailableError("broken on purpose")
        self.decisions[game.name] = self.decisions.get(game.name, 0) + 1
        return self.bot.policy(game, state)

    def value(self, game: Game) -> float | None:
        return self.bot.value(game)


def test_warm_plays_every_stored_game_and_skips_one_that_fails(store_path: Path,
                                                                tmp_path: Path) -> None:
    store = copy_store(store_path, tmp_path / "strategies.sqlite", drop=("rps",))
    source = StrategySource(store)
    try:
        stored = set(source.store().games())
        bot = CountingBot(source, broken="leduc")
        took = warm(source, bot, hands=2)
    finally:
        source.close()
    assert "rps" not in stored and "leduc" in stored
    assert set(took) == stored - {"leduc"}
    assert all(seconds >= 0 for seconds in took.values())
    # Kuhn: two hands of at least two decisions each, every one asked of the bot.
    assert bot.decisions["kuhn"] >= 4
    assert set(bot.decisions) == stored - {"leduc"}


def test_the_app_warms_its_store_after_start_unless_told_not_to(
        make_app: AppFactory, store_path: Path, tmp_path: Path) -> None:
    warmed = make_app(warm=True)
    assert warmed.client.get("/healthz").status_code == 200  # answers while it warms
    deadline = time.monotonic() + 120
    while warmed.app.state.warmed is None and time.monotonic() < deadline:
        time.sleep(0.05)
    source = StrategySource(store_path)
    try:
        stored = set(source.store().games())
    finally:
        source.close()
    assert set(warmed.app.state.warmed) == stored
    cold = make_app(db=tmp_path / "cold.sqlite")
    assert cold.client.get("/healthz").status_code == 200
    assert cold.app.state.warmed is None
