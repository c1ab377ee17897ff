"""Warming the bot's strategies in the background: after start-up, and whenever a build stores a
new solve while the app runs.

The store is read lazily, so ``/healthz`` answers within a few seconds whatever the store holds;
but a game's first hand pays for what its solve needs in memory: the biggest poker bot maps its
hand-strength tables, loads its compiled bucketing and compiles its re-solving kernels, a table
solve is decoded. `warm` plays a few hands of a game with the bot on both seats, nothing
written, so that this is done once per process and solve before a player asks, in a thread of
its own (`keep_warm`, started by `app.main`); a game's value function, the coach's, is built
by the first analysis that needs it, after an answer (`app.services.bots.valuers`). Until a solve is
warm, requests run off the event loop (`StrategySource.light`), so that a cold one slows its
own request, never the others. A game that cannot be played is skipped (and counted as warm:
its players are told at once that it is unavailable or not built).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable

from app.core.errors import StrategyUnavailableError
from app.services.bots.bot import Bot
from app.services.bots.strategy_source import StrategySource
from solver.games import CHANCE, action_from_label, game_names, get_game

log = logging.getLogger("app.warm")

HANDS = 3
"""Hands played per game: enough that some reach a showdown (a fold ends others early)."""
WATCH_SECONDS = 1.0
"""How often `keep_warm` looks for a solve stored since it last looked."""


def warm(source: StrategySource, bot: Bot, hands: int = HANDS,
         stop: threading.Event | None = None, games: Iterable[str] | None = None
         ) -> dict[str, float]:
    """Play `hands` hands of each game with a stored solve (of `games`, if given), the bot on
    both seats, and mark each solve warm in `source`. The seconds each game took (the games
    that failed are left out, and logged). Stops between two games once `stop` is set."""
    try:
        stored = set(source.store().games())
    except StrategyUnavailableError:
        return {}
    wanted = set(games) if games is not None else set(game_names())
    took: dict[str, float] = {}
    rng = random.Random(0)
    for name in game_names():
        if name not in stored or name not in wanted or (stop is not None and stop.is_set()):
            continue
        started = time.perf_counter()
        try:
            info = source.latest_solve(name)
        except StrategyUnavailableError:
            continue
        try:
            _play(bot, name, hands, rng)
        except Exception as exc:  # never let warming take a worker down
            log.warning("warming %s failed (its first hand pays instead): %s", name, exc)
            continue
        finally:
            if info is not None:
                source.mark_warm(info.id)
        took[name] = time.perf_counter() - started
    if took:
        log.info("strategies warmed: %s", ", ".join(f"{g} {s:.2f} s" for g, s in took.items()))
    return took


def _play(bot: Bot, name: str, hands: int, rng: random.Random) -> None:
    game = get_game(name)
    bot.value(game)
    for _ in range(hands):
        state = game.initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                policy = bot.policy(game, state)
                label = rng.choices(policy.labels, policy.probabilities)[0]
                action = action_from_label(state, label)
            state = state.apply_action(action)
        state.returns()


def keep_warm(source: StrategySource, bot: Bot, stop: threading.Event,
              on_warm: Callable[[dict[str, float]], None], every: float = WATCH_SECONDS
              ) -> None:
    """Warm every stored game (`on_warm` gets what it took), then, until `stop` is set, every
    `every` seconds, warm the games whose latest solve is not warm yet (stored by a build
    since)."""
    on_warm(warm(source, bot, stop=stop))
    while not stop.wait(every):
        try:
            cold = source.cold_games()
        except StrategyUnavailableError:
            continue
        if cold:
            warm(source, bot, stop=stop, games=cold)
