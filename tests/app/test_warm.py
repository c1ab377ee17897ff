"""Warming the stored strategies in the background after start-up (`app.services.bots.warm`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from app.core.errors import StrategyUnavailableError
from app.services import Policy, StoredStrategyBot, StrategySource
from app.services.bots.valuers import Valuers
from app.services.bots.warm import keep_warm, warm
from solver.abstractions import register_kind
from solver.games import Game, State, get_game
from solver.runs.store_solve import solve_and_store
from strategies import StrategyStore
from strategies.tables import TableStrategy
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


def test_a_solve_stored_while_the_app_runs_is_warmed_and_until_then_requests_leave_the_loop(
        store_path: Path, tmp_path: Path) -> None:
    """Until every latest solve is warm, `light` sends the requests to the thread pool; a
    solve a build stores while the app runs makes its game cold again, and `keep_warm`
    warms it within its next look."""
    store = copy_store(store_path, tmp_path / "strategies.sqlite")
    source = StrategySource(store)
    source.warming = True
    stop = threading.Event()
    warmed: list[dict[str, float]] = []
    try:
        assert not source.light()
        assert set(warm(source, StoredStrategyBot(source), hands=1)) == set(
            source.store().games())
        assert source.light() and source.cold_games() == []
        stored = solve_and_store("kuhn", "cfr+", iterations=50, store_path=store)
        assert source.cold_games() == ["kuhn"] and not source.light()
        watcher = threading.Thread(target=keep_warm, args=(
            source, StoredStrategyBot(source), stop, warmed.append, 0.05), daemon=True)
        watcher.start()
        deadline = time.monotonic() + 120
        while not source.light() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert source.light() and source.solve("kuhn").id == stored.info.id
    finally:
        stop.set()
        source.close()


def test_a_re_solving_bot_keeps_every_request_off_the_loop(store_path: Path,
                                                           tmp_path: Path) -> None:
    """A bot that computes its strategy at play time (a fraction of a second a decision) is
    never asked on the event loop, warm or not."""
    register_kind("computedtest", lambda game, text: ComputedForTest())
    store = copy_store(store_path, tmp_path / "strategies.sqlite")
    source = StrategySource(store)
    try:
        assert source.light()
        with StrategyStore.open(store) as opened:
            opened.save_solve("kuhn", "test", 1, 0.0, 0.0, 0.0, [], [], "test",
                              abstraction=ComputedForTest.descriptor)
        assert not source.light()
    finally:
        source.close()


class ComputedForTest:
    """An abstraction whose strategy is computed at play time (never asked here)."""

    descriptor = "computedtest=1"

    def strategy_key(self, state: State, player: int) -> str:
        raise AssertionError("not asked")

    def play_time_policy(self, state: State, table: TableStrategy) -> tuple[float, ...]:
        raise AssertionError("not asked")

    def play_time_policies(self, states: Sequence[State], table: TableStrategy
                           ) -> list[tuple[float, ...]]:
        raise AssertionError("not asked")


def test_a_request_never_builds_a_big_value_function_nor_waits_for_one(
        store_path: Path) -> None:
    """`Valuers.at_once` is what the request that finishes a hand asks: a small game's value
    function (built at once, milliseconds), none for a big one (its hands are analysed after
    the answer, where it is built), and none while another thread uses the game's."""
    source = StrategySource(store_path)
    valuers = Valuers(source)
    try:
        kuhn, dudo = get_game("kuhn"), get_game("dudo")
        with valuers.at_once(dudo) as valuer:
            assert valuer is None
        assert "dudo" not in valuers._built  # nothing was built for it on the request
        with valuers.at_once(kuhn) as valuer:
            assert valuer is not None
        held = threading.Event()
        release = threading.Event()

        def hold() -> None:
            with valuers.using(kuhn):
                held.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(30)
        started = time.perf_counter()
        with valuers.at_once(kuhn) as valuer:
            assert valuer is None
        assert time.perf_counter() - started < 1.0
        release.set()
        holder.join()
    finally:
        source.close()
