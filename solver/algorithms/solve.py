"""Run any solver until a stopping rule holds, recording the convergence trace on the way.

This is what `solver.runs.store_solve.solve_and_store` (and so the CLI's `solve` and `build`)
calls.
The trace is measured exactly (a full best response at each checkpoint), but the time spent
measuring is kept out of the reported solver seconds, the same rule the benchmark applies to
OpenSpiel.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from solver.algorithms.cfr import SCHEDULES, CFRSolver, normalize
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.mccfr import MCCFRSolver
from solver.algorithms.regret_matching import RegretMatchingSolver
from solver.algorithms.streaming_cfr import StreamingCFRSolver, uniform_slots
from solver.algorithms.streaming_cfr import warm_up as warm_up_streaming
from solver.engine import memory, progress
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree, smallest_tree
from solver.games import game_names, get_game
from solver.games.base import CountsItself, Game, MatrixGame

SAMPLING_ALGORITHMS = ("es-mccfr", "os-mccfr")
MATRIX_ALGORITHMS = ("rm",)
"""Regret matching in self-play, for the games that are one simultaneous move (`MatrixGame`)."""
ALGORITHMS = (*SCHEDULES, *SAMPLING_ALGORITHMS, *MATRIX_ALGORITHMS)
DEFAULT_ALGORITHM = "auto"
"""What the game declares (`Game.build.algorithm`): the schedule that reached exploitability
1e-4 in the least time on it."""
DEFAULT_TARGET = 1e-4
DEFAULT_SAMPLING_SECONDS = 30.0
"""Sampling solvers stop after this long by default: they rarely reach `DEFAULT_TARGET`."""
MAX_ITERATIONS = 10_000_000
STREAMING_NODES = 100_000
"""Trees bigger than this whose every node holds every private state (Dudo with more dice) run
the streaming kernel of `solver.algorithms.streaming_cfr`, which reads and writes less per
iteration."""
SLOW_CHECK = 0.1
"""Seconds an exact check must take before its cost spaces the checkpoints (`next_checkpoint`):
about a millisecond on the games solved in tests, 0.3 to 0.6 s on dudo-1v2 and dudo-2v1."""
CHECK_SHARE = 0.25
"""The share of a solve's time that slow checks may take."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    iteration: int
    seconds: float  # solver time only
    exploitability: float
    value: float
    cpu_seconds: float = 0.0  # the process's CPU time over the same iterations (all threads)


@dataclass(frozen=True, slots=True)
class SolveResult:
    tree: PublicTree
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float
    value: float
    strategy: np.ndarray  # flat average strategy, laid out as `tree.infoset_actions`
    trace: tuple[Checkpoint, ...]
    pruning: bool = False  # whether the solver skipped what was not reached


def resolve_algorithm(game: Game, algorithm: str) -> str:
    """`algorithm`, checked; ``auto`` is the one `game` declares the fastest."""
    if algorithm == "auto":
        return game.build.algorithm
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of: auto, "
                         f"{', '.join(ALGORITHMS)}")
    return algorithm


class Solver(Protocol):
    """What `solve` drives: `CFRSolver`, `MCCFRSolver` and `RegretMatchingSolver` all are one.

    `average_strategy()` is laid out like the tree's flat (infoset, action) arrays, so
    `evaluate_strategy` measures any of them the same way."""

    iterations: int  # completed so far

    def iterate(self, iterations: int = 1) -> None: ...

    def average_strategy(self) -> np.ndarray: ...


def resolve_pruning(game: Game, algorithm: str, pruning: bool | None) -> bool:
    """Whether to prune (`solver.engine.pruning`): `pruning`, checked against `algorithm`
    (already resolved); None is what the game declares (`Game.build.pruning`), where the
    algorithm allows it."""
    allowed = algorithm in SCHEDULES and not SCHEDULES[algorithm].predictive
    if pruning is None:
        return allowed and game.build.pruning
    if pruning and not allowed:
        raise ValueError(f"pruning applies to cfr, cfr+, lcfr and dcfr, not {algorithm}")
    return pruning


def make_solver(tree: PublicTree, algorithm: str, seed: int = 0,
                game: Game | None = None, pruning: bool = False) -> Solver:
    """The solver of `algorithm` on `tree`; `seed` seeds the sampling ones.  `game` is the game
    `tree` was compiled from: the sampling algorithms walk its histories and regret matching
    reads its payoff matrix (a tree alone serves the CFR family).  `pruning` skips what the
    other player does not reach (CFR family but the predictive schedules)."""
    if algorithm in SCHEDULES:
        if (len(tree.arrays.kind) > STREAMING_NODES and not SCHEDULES[algorithm].predictive
                and uniform_slots(tree)):
            return StreamingCFRSolver(tree, algorithm, pruning=pruning)
        return CFRSolver(tree, algorithm, pruning=pruning)
    if algorithm in SAMPLING_ALGORITHMS:
        if game is None:
            raise ValueError(f"{algorithm} samples the game's histories: pass the game")
        return MCCFRSolver(game, algorithm, seed=seed)
    if algorithm == "rm":
        if not isinstance(game, MatrixGame):
            matrix_games = [g for g in game_names() if isinstance(get_game(g), MatrixGame)]
            raise ValueError(f"regret matching (rm) solves the matrix game "
                             f"{', '.join(matrix_games)} only; use a CFR algorithm for extensive "
                             f"games")
        row_start, col_start = game.regret_matching_start
        return RegretMatchingSolver(np.asarray(game.payoff_matrix(), np.float64),
                                    np.asarray(row_start), np.asarray(col_start))
    raise ValueError(f"unknown algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}")


def warm_up(algorithm: str, game: Game, solver: Solver, pruning: bool = False) -> None:
    """Compile (or load from numba's cache) the kernels of `solver`, running `algorithm` on
    `game`, off the clock: the full-width ones on the smallest tree (numba compiles per type of
    argument, not per tree) and the pruned one for `solver`'s tree shape, the sampling ones on
    the game's own history tree (compiled for the solve anyway), and the exact evaluation."""
    tiny = smallest_tree()
    if algorithm in SCHEDULES:
        CFRSolver(tiny, algorithm, pruning=pruning).iterate(1)
        if isinstance(solver, CFRSolver):
            solver.warm_up()
        if isinstance(solver, StreamingCFRSolver):
            warm_up_streaming(algorithm, pruning)
    elif algorithm in SAMPLING_ALGORITHMS:
        MCCFRSolver(game, algorithm).iterate(1)
    else:
        RegretMatchingSolver(np.eye(2)).iterate(1)
    evaluate_strategy(tiny, normalize(tiny, np.zeros(tiny.num_regrets)))


def memory_estimate(game: Game, tree: PublicTree | None = None) -> memory.MemoryEstimate:
    """What an exact solve of `game` needs (`solver.engine.memory`): from its counts where it
    counts itself without being built (`CountsItself`: Dudo, the hold'em family), else from its
    compiled `tree` (the games whose trees are walked from their states are small)."""
    if isinstance(game, CountsItself):
        sizes: dict[str, object] = dict(game.sizes())
    else:
        tree = tree if tree is not None else compile_game(game)
        sizes = {"information_sets": tree.num_infosets,
                 "information_set_actions": tree.num_regrets, "public_nodes": tree.num_nodes,
                 "slots": tree.num_slots(0) + tree.num_slots(1)}
    estimate = memory.exact_estimate(game.name, sizes)
    own = [word for word in game.build.command if word != "--quiet"]
    if own[:1] != ["solve"]:
        estimate = memory.MemoryEstimate(
            estimate.what, estimate.bytes, estimate.detail,
            f"build it the way it fits: python -m solver {' '.join(own)}")
    return estimate


def checkpoint_after(iteration: int) -> int:
    """The next iteration at which to measure: every one up to 10, then about 4% apart."""
    return iteration + max(1, iteration // 25) if iteration >= 10 else iteration + 1


def next_checkpoint(iteration: int, solver_seconds: float, check_seconds: Sequence[float]) -> int:
    """`checkpoint_after`, unless the exact checks are slow (each of two or more took
    `SLOW_CHECK` seconds or more; one slow check may be the machine's hiccup): then not before
    the iterations, at the rate so far, that keep the checks' time within `CHECK_SHARE` of the
    solve's.  On dudo-2v1 a check costs as much as ten iterations, and checking 4% apart took
    longer than the solve itself."""
    after = checkpoint_after(iteration)
    if len(check_seconds) < 2 or min(check_seconds) < SLOW_CHECK or solver_seconds <= 0.0:
        return after
    owed = sum(check_seconds) * (1.0 - CHECK_SHARE) / CHECK_SHARE - solver_seconds
    return max(after, iteration + math.ceil(owed * iteration / solver_seconds))


def solve(
    game: Game,
    algorithm: str = DEFAULT_ALGORITHM,
    *,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    seconds: float | None = None,
    seed: int = 0,
    on_checkpoint: Callable[[Checkpoint], None] | None = None,
    pruning: bool | None = None,
    memory_checked: bool = False,
) -> SolveResult:
    """Solve `game` until the first of the given limits is reached.

    `iterations` is an exact count; `target_exploitability` stops at the first checkpoint at or
    below it; `seconds` caps the solver time.  With no limit it stops at `DEFAULT_TARGET`.

    Example::

        from solver.algorithms.solve import solve
        from solver.games import get_game

        result = solve(get_game("leduc"), "dcfr", target_exploitability=1e-3)
        result.iterations, result.exploitability, result.value   # value about -0.0856
        result.strategy       # the average strategy, laid out as result.tree's information sets

    A solve that would not fit in the memory available is refused before it allocates
    (`solver.engine.memory.NotEnoughMemoryError`), unless the caller has checked that already
    (`memory_checked`: a command's `solver.runs.run_plan.RunPlan.start`).
    """
    for name, limit in (("iterations", iterations), ("target exploitability",
                                                      target_exploitability),
                        ("seconds", seconds)):
        if limit is not None and not (limit > 0 and math.isfinite(limit)):
            raise ValueError(f"{name} must be a positive number, got {limit}")
    algorithm = resolve_algorithm(game, algorithm)
    counted = isinstance(game, CountsItself)
    if counted and not memory_checked:  # before the tree is built: where memory runs out first
        memory.check(memory_estimate(game))
    if iterations is None and target_exploitability is None and seconds is None:
        target_exploitability = DEFAULT_TARGET
        if algorithm in SAMPLING_ALGORITHMS or algorithm in MATRIX_ALGORITHMS:
            seconds = DEFAULT_SAMPLING_SECONDS
    pruning = resolve_pruning(game, algorithm, pruning)
    progress.phase("compiling the tree")
    tree = compile_game(game)
    if not counted and not memory_checked:
        memory.check(memory_estimate(game, tree))
    progress.phase("solving")
    solver = make_solver(tree, algorithm, seed, game, pruning)
    warm_up(algorithm, game, solver, pruning)
    cap = iterations if iterations is not None else MAX_ITERATIONS
    trace: list[Checkpoint] = []
    elapsed = cpu = 0.0
    checks: list[float] = []  # the exact checks' seconds
    next_check = 1
    while True:
        step = min(next_check, cap) - solver.iterations
        started, cpu_started = time.perf_counter(), time.process_time()
        solver.iterate(step)
        elapsed += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        check_started = time.perf_counter()
        evaluation = evaluate_strategy(tree, solver.average_strategy())  # settles nothing
        checks.append(time.perf_counter() - check_started)
        done = (solver.iterations >= cap
                or (target_exploitability is not None
                    and evaluation.exploitability <= target_exploitability)
                or (seconds is not None and elapsed >= seconds))
        if done and isinstance(solver, (CFRSolver, StreamingCFRSolver)):
            # What pruning still owes is the iterations' work: on the clock, once, as a solve
            # that checked nothing would pay it.
            started, cpu_started = time.perf_counter(), time.process_time()
            solver.settle()
            elapsed += time.perf_counter() - started
            cpu += time.process_time() - cpu_started
        point = Checkpoint(solver.iterations, elapsed, evaluation.exploitability, evaluation.value,
                           cpu)
        trace.append(point)
        if on_checkpoint is not None:
            on_checkpoint(point)
        if done:
            break
        next_check = next_checkpoint(solver.iterations, elapsed, checks)
    last = trace[-1]
    return SolveResult(tree, algorithm, last.iteration, last.seconds, last.exploitability,
                       last.value, solver.average_strategy(), tuple(trace), pruning)
