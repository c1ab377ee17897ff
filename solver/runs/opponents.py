"""Opponents of every strength for an exactly solvable game, each measured exactly.

Beside the game's equilibrium (its latest solve), the store keeps exploitable opponents, each a
solve of the game with a name (`strategies.SolveInfo.opponent`):

* **early solves** (``early1``, ``early2``, ``early3``): the game's own algorithm run from
  scratch, and its average strategy at the first checkpoint whose exploitability is at most a
  third, a tenth and a thirtieth of the uniform strategy's, stored with the trace up to there;
* **styled bots**: the stored equilibrium bent in one stated direction at every information set
  by the game's own styles (`solver.games.opponents.Styled`: one that calls too much, ...).

Each is judged by the exact best response: its exploitability, what a best reply wins per hand
in each seat, and at every information set the value of each action followed by the best reply
(`solver.algorithms.action_values.best_reply_values`), which the coach reads to judge a player
against the best reply to that bot.  Its rows' probabilities are the bot's own strategy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solver.algorithms.action_values import best_reply_values
from solver.algorithms.cfr import normalize
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.solve import make_solver, resolve_algorithm
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.evaluation.stored import stored_strategy_array
from solver.games import get_game
from solver.games.base import Game
from solver.games.opponents import Styled
from solver.runs.store_solve import SolveRecord, StorePath, node_rows, store_solve
from strategies import InfosetStrategy, SolveInfo, StrategyStore, TracePoint

EARLY_LEVELS = (1 / 3, 1 / 10, 1 / 30)
"""An early solve's exploitability as a share of the uniform strategy's, one per early solve,
the weakest first."""
MAX_EARLY_ITERATIONS = 100_000


@dataclass(frozen=True, slots=True)
class Opponent:
    """One exploitable opponent, measured: `strategy` laid out as the tree's information sets."""

    name: str
    algorithm: str
    iterations: int
    seconds: float
    strategy: np.ndarray
    trace: tuple[TracePoint, ...] = ()


def early_solves(game: Game, tree: PublicTree, algorithm: str,
                 levels: tuple[float, ...] = EARLY_LEVELS) -> list[Opponent]:
    """The average strategies of `algorithm` on `game` at the first iteration whose exact
    exploitability is at most each of `levels` times the uniform strategy's (measured after
    every iteration, off the clock)."""
    uniform = evaluate_strategy(tree, normalize(tree, np.zeros(tree.num_regrets)))
    solver = make_solver(tree, algorithm, 0, game)
    pending = sorted(levels, reverse=True)
    found: list[Opponent] = []
    trace: list[TracePoint] = []
    elapsed = 0.0
    while pending and solver.iterations < MAX_EARLY_ITERATIONS:
        started = time.perf_counter()
        solver.iterate(1)
        elapsed += time.perf_counter() - started
        strategy = solver.average_strategy()
        evaluation = evaluate_strategy(tree, strategy)
        trace.append(TracePoint(solver.iterations, elapsed, evaluation.exploitability,
                                evaluation.value))
        while pending and evaluation.exploitability <= pending[0] * uniform.exploitability:
            pending.pop(0)
            found.append(Opponent(f"early{len(found) + 1}", algorithm, solver.iterations,
                                  elapsed, strategy.copy(), tuple(trace)))
    return found


def styled(game: Game, tree: PublicTree, equilibrium: np.ndarray) -> list[Opponent]:
    """The equilibrium bent by each of the game's styles (none for a game without)."""
    if not isinstance(game, Styled):
        return []
    offsets = tree.infoset_regret_offset
    bots = []
    for style in game.opponent_styles:
        bent = equilibrium.copy()
        for i, labels in enumerate(tree.infoset_labels):
            lo, hi = offsets[i], offsets[i + 1]
            bent[lo:hi] = game.bend(style.name, labels, equilibrium[lo:hi])
        bots.append(Opponent(style.name, "styled", 0, 0.0, bent))
    return bots


def opponent_rows(tree: PublicTree, strategy: np.ndarray
                  ) -> tuple[list[InfosetStrategy], tuple[float, float]]:
    """The store's rows of an opponent (its probabilities, the best reply's Q and V at every
    information set) and what the best reply wins in each seat."""
    reply = best_reply_values(tree, strategy)
    offsets = tree.infoset_regret_offset
    rows = []
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = offsets[i], offsets[i + 1]
        known = not np.isnan(reply.v[i])
        rows.append(InfosetStrategy(
            key, int(tree.infoset_player[i]), tree.infoset_labels[i],
            tuple(float(x) for x in strategy[lo:hi]),
            tuple(float(x) for x in reply.q[lo:hi]) if known else None,
            float(reply.v[i]) if known else None, None,
            int(tree.infoset_node[i]) if tree.node_keys else None))
    return rows, reply.seat_values


def build_opponents(game_name: str, store_path: StorePath = None, *, algorithm: str = "auto",
                    levels: tuple[float, ...] = EARLY_LEVELS,
                    on_stored: Callable[[SolveInfo], None] | None = None) -> list[SolveInfo]:
    """Measure and store every opponent of `game_name`: its early solves and, if the store
    holds its equilibrium, its styled bots.  Returns the stored solves."""
    game = get_game(game_name)
    tree = compile_game(game)
    algorithm = resolve_algorithm(game, algorithm)
    opponents = early_solves(game, tree, algorithm, levels)
    with StrategyStore.open(store_path or None, create=True) as store:
        solved = store.latest_solve(game_name)
        if solved is not None and not solved.abstraction:
            opponents += styled(game, tree, stored_strategy_array(store, game)[1])
    nodes = node_rows(tree)
    stored = []
    for opponent in opponents:
        rows, seat_values = opponent_rows(tree, opponent.strategy)
        evaluation = evaluate_strategy(tree, opponent.strategy)
        info, _ = store_solve(SolveRecord(
            game=game_name, algorithm=opponent.algorithm, iterations=opponent.iterations,
            seconds=opponent.seconds, exploitability=evaluation.exploitability,
            value=evaluation.value, strategy=rows, trace=opponent.trace, nodes=nodes,
            opponent=opponent.name, best_reply=seat_values), store_path)
        stored.append(info)
        if on_stored is not None:
            on_stored(info)
    return stored

