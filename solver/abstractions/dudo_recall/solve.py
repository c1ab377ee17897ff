"""Solving a Dudo game in the recall abstraction: FSICFR on its graph (`graph`), the result
measured exactly in the real game wherever that compiles."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solver.abstractions.dudo_recall.graph import (
    RecallGraph,
    real_strategy,
    recall_estimate,
    recall_graph,
)
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.fsicfr import FSICFRSolver
from solver.engine.compile import compile_game
from solver.engine.memory import check
from solver.engine.progress import phase
from solver.games.base import Game
from solver.games.dudo.game import DudoGame


@dataclass(frozen=True, slots=True, eq=False)
class RecallSolve:
    """A Dudo game solved by FSICFR with `memory` bids remembered."""

    game: str
    graph: RecallGraph
    iterations: int
    seconds: float
    value: float  # player 0's, both playing the average strategy in the abstract game
    strategy: np.ndarray
    real_value: float | None  # the same strategy played in the real game, where it compiles
    exploitability: float | None  # its exploitability there, exact


REAL_GAME_NODES = 1 << 20
"""Real games up to this many decision nodes are compiled to measure an abstract strategy."""


def solve_recall(dudo: Game, memory: int, iterations: int, algorithm: str = "dcfr",
                 on_iteration: Callable[[int], None] | None = None,
                 memory_checked: bool = False) -> RecallSolve:
    """Solve the Dudo game `dudo` remembering `memory` bids, and measure the result in the real
    game if that is small enough to compile (2^(6n) bid sequences for n dice in play).

    Example::

        from solver.abstractions.dudo_recall.solve import solve_recall
        from solver.games import get_game

        solved = solve_recall(get_game("dudo"), memory=3, iterations=1000)
        solved.exploitability        # about 0.02 in the real game (docs/games/dudo.md's table)
    """
    if not isinstance(dudo, DudoGame):
        raise ValueError(f"the recall abstraction solves Dudo games (dudo, dudo-AvB), not "
                         f"{dudo.name!r}")
    measure = 1 << dudo.dudo_rules.num_bids <= REAL_GAME_NODES
    if not memory_checked:  # a command's plan checks it once (`solver.runs.run_plan.RunPlan.start`)
        check(recall_estimate(dudo.dudo_rules, memory,
                              f"solving {dudo.name} remembering {memory} bids", measure))
    phase("building the abstract game")
    graph = recall_graph(dudo.dudo_rules, memory)
    solver = FSICFRSolver(graph.graph, algorithm)
    phase("solving")
    started = time.perf_counter()
    solver.iterate(iterations, on_iteration)
    seconds = time.perf_counter() - started
    strategy = solver.average_strategy()
    real_value = exploitability = None
    if measure:
        tree = compile_game(dudo)
        evaluation = evaluate_strategy(tree, real_strategy(tree, graph, strategy))
        real_value, exploitability = evaluation.value, evaluation.exploitability
    return RecallSolve(dudo.name, graph, iterations, seconds, solver.evaluate(strategy), strategy,
                       real_value, exploitability)
