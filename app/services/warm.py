"""Warming the bot's strategies after start-up, in the background.

The store is read lazily, so ``/healthz`` answers within a few seconds whatever the store holds;
but a game played in an abstraction pays for it on its first hand: the biggest poker bot maps
its hand-strength tables and loads its compiled bucketing (1.6-1.9 s on the 2-core VM), and a
table solve is decoded. `warm` plays a few hands of every stored game with the bot on both
seats, nothing written, so that this is done once per process before a player asks, in a thread
of its own after the app has started (`app.main`). A game that cannot be played is skipped: its
players get the usual 503 or 409 when they ask.
"""

from __future__ import annotations

import logging
import random
import threading
import time

from app.services.bot import Bot
from app.services.errors import StrategyUnavailableError
from app.services.strategy_source import StrategySource
from solver.games import CHANCE, action_from_label, game_names, get_game

log = logging.getLogger("app.warm")

HANDS = 3
"""Hands played per game: enough that some reach a showdown (a fold ends others early)."""


def warm(source: StrategySource, bot: Bot, hands: int = HANDS,
         stop: threading.Event | None = None) -> dict[str, float]:
    """Play `hands` hands of each game with a stored solve, the bot on both seats; the seconds
    each game took (the games that failed are left out, and logged). Stops between two games
    once `stop` is set."""
    try:
        stored = set(source.store().games())
    except StrategyUnavailableError:
        return {}
    took: dict[str, float] = {}
    rng = random.Random(0)
    for name in game_names():
        if name not in stored or (stop is not None and stop.is_set()):
            continue
        game = get_game(name)
        started = time.perf_counter()
        try:
            bot.value(game)
            for _ in range(hands):
                state = game.initial_state()
                while not state.is_terminal():
                    if state.current_player() == CHANCE:
                        outcomes = state.chance_outcomes()
                        action = rng.choices([a for a, _ in outcomes],
                                             [p for _, p in outcomes])[0]
                    else:
                        policy = bot.policy(game, state)
                        label = rng.choices(policy.labels, policy.probabilities)[0]
                        action = action_from_label(state, label)
                    state = state.apply_action(action)
                state.returns()
        except Exception as exc:  # never let warming take a worker down
            log.warning("warming %s failed (its first hand pays instead): %s", name, exc)
            continue
        took[name] = time.perf_counter() - started
    log.info("strategies warmed: %s", ", ".join(f"{g} {s:.2f} s" for g, s in took.items()))
    return took
