"""Solving a whole Dudo match: every round's strategy and the table of match-winning chances.

The bot plays to win the match.  A round whose opener holds a dice and the other b is a game of
Dudo whose calls pay in match-winning chances: if the opener loses the call it holds a - 1 dice
and opens the next round, and wins the match with probability ``P(a - 1, b)``; if the other
loses, that one opens with b - 1 dice against a, and the opener wins with ``1 - P(b - 1, a)``
(``P(0, n) = 0``: no dice, no match).  In zero-sum form the opener is paid ``2P - 1``, so the
one-die round is the course's game and ``P(1, 1) = (1 - 7/258) / 2``.  Solving a round gives its
value v for the opener, and ``P(a, b) = (1 + v) / 2``.

So the rounds are solved from the end: (1, 1) first, then each (a, b) once (a - 1, b) and
(b - 1, a) are known.  That dependency graph runs on Dask: one task per round, each taking its
two predecessors' results, on a `distributed.LocalCluster` of the machine's cores by default or
on the cluster of a given scheduler.  Rounds small enough are solved exactly
(`solver.games.dudo.tree` and the CFR kernels, to a target exploitability measured exactly); the
others in the recall abstraction (`solver.abstractions.dudo_recall`, `solver.algorithms.fsicfr`),
for a number of iterations.  A `solver.abstractions.dudo_recall.remembered_bids.Recall` says
which is which; it becomes the stored solve's descriptor, so the app's bot finds each round's
strategy under ``AvB:dice|bids``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from solver.abstractions.dudo_recall.graph import real_strategy, recall_graph
from solver.abstractions.dudo_recall.remembered_bids import Memory, Recall
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.fsicfr import FSICFRSolver
from solver.algorithms.solve import MAX_ITERATIONS, checkpoint_after, make_solver
from solver.games.dudo.match import NAME, loser_payoffs
from solver.games.dudo.rules import MAX_DICE, DudoRules
from solver.games.dudo.tree import compile_dudo
from solver.runs.store_solve import SolveRecord, StorePath, store_solve
from strategies import InfosetStrategy
from strategies.figures import WIN_CHANCES

Counts = tuple[int, int]
"""A round's dice: the opener's, then the other's."""
EXACT_UP_TO = 3
"""Rounds with at most this many dice in play can be measured in the real game."""


def default_recall() -> Recall:
    """Exact with one die each; four bids remembered with three dice in play, three with four,
    two with five or six, one beyond.  That keeps the full table's solve within a quarter of
    an hour on two cores (300 iterations a round) and its strategy at 1.4 million stored
    information sets (660 MB): an exact round of one die against two alone has 3.5 million
    (1 GB in the store), and four bids cost little there (exploitability 0.003-0.005:
    docs/games/dudo.md)."""
    rounds: dict[Counts, Memory] = {}
    for a in range(1, MAX_DICE + 1):
        for b in range(1, MAX_DICE + 1):
            n = a + b
            rounds[(a, b)] = (None if n == 2 else 4 if n == 3 else 3 if n == 4
                              else 2 if n <= 6 else 1)
    return Recall(1, {c: m for c, m in rounds.items() if m != 1})


@dataclass(frozen=True, slots=True)
class MatchSetup:
    """What to solve: rounds up to `max_dice` each, remembering as `recall` says; exact rounds
    to exploitability `target`, abstract ones for `iterations` FSICFR iterations."""

    max_dice: int = MAX_DICE
    recall: Recall = field(default_factory=default_recall)
    target: float = 1e-4
    iterations: int = 300
    algorithm: str = "dcfr"

    def rounds(self) -> list[Counts]:
        """Every round, each after the rounds it depends on."""
        return sorted(((a, b) for a in range(1, self.max_dice + 1)
                       for b in range(1, self.max_dice + 1)), key=lambda c: (sum(c), c))


def depends_on(counts: Counts) -> list[Counts]:
    """The rounds whose values a round's calls pay in."""
    a, b = counts
    return [c for c in ((a - 1, b), (b - 1, a)) if min(c) >= 1]


@dataclass(frozen=True, slots=True)
class RoundSolve:
    """One round's solve: the opener's value and match-winning chance, and the strategy laid
    out as the round's tree (exact) or graph (abstract) lays out its information sets."""

    counts: Counts
    memory: Memory
    value: float
    iterations: int
    seconds: float
    exploitability: float | None  # in the real round, where it could be measured
    strategy: np.ndarray

    @property
    def win(self) -> float:
        return (1.0 + self.value) / 2.0


def prefix(counts: Counts) -> str:
    return f"{counts[0]}v{counts[1]}:"


def solve_round(counts: Counts, memory: Memory, payoffs: tuple[float, float], setup: MatchSetup
                ) -> RoundSolve:
    """Solve one round (see the module's doc)."""
    rules = DudoRules(counts)
    if memory is None:
        return _solve_exact(counts, rules, payoffs, setup)
    graph = recall_graph(rules, memory, payoffs, prefix(counts))
    solver = FSICFRSolver(graph.graph, setup.algorithm)
    started = time.perf_counter()
    solver.iterate(setup.iterations)
    seconds = time.perf_counter() - started
    strategy = solver.average_strategy()
    exploitability = None
    if sum(counts) <= EXACT_UP_TO:
        tree = compile_dudo("round", rules, payoffs)
        exploitability = evaluate_strategy(tree, real_strategy(tree, graph, strategy)
                                           ).exploitability
    return RoundSolve(counts, memory, solver.evaluate(strategy), setup.iterations, seconds,
                      exploitability, strategy)


def _solve_exact(counts: Counts, rules: DudoRules, payoffs: tuple[float, float],
                 setup: MatchSetup) -> RoundSolve:
    tree = compile_dudo("round", rules, payoffs)
    solver = make_solver(tree, setup.algorithm)
    seconds, check = 0.0, 1
    while True:
        started = time.perf_counter()
        solver.iterate(check - solver.iterations)
        seconds += time.perf_counter() - started
        evaluation = evaluate_strategy(tree, solver.average_strategy())
        if evaluation.exploitability <= setup.target or solver.iterations >= MAX_ITERATIONS:
            break
        check = checkpoint_after(solver.iterations)
    return RoundSolve(counts, None, evaluation.value, solver.iterations, seconds,
                      evaluation.exploitability, solver.average_strategy())


def round_task(counts: Counts, setup: MatchSetup, *before: RoundSolve) -> RoundSolve:
    """A Dask task: solve `counts` given the solves of the rounds it depends on."""
    table = {r.counts: r.win for r in before}
    return solve_round(counts, setup.recall.memory(counts), loser_payoffs(counts, table), setup)


def solve_match(setup: MatchSetup, client: Any,
                on_round: Callable[[RoundSolve], None] | None = None) -> dict[Counts, RoundSolve]:
    """Every round of `setup` on the Dask `client` (a `distributed.Client`), each submitted
    with the futures of the rounds it depends on; `on_round` as each finishes."""
    from distributed import as_completed  # heavy (a second): only when a match is solved

    futures: dict[Counts, Any] = {}
    for counts in setup.rounds():
        futures[counts] = client.submit(round_task, counts, setup,
                                        *(futures[c] for c in depends_on(counts)),
                                        key=f"dudo-round-{counts[0]}v{counts[1]}-"
                                            f"{time.time_ns()}", pure=False)
    results: dict[Counts, RoundSolve] = {}
    for future in as_completed(list(futures.values())):
        solved: RoundSolve = future.result()
        results[solved.counts] = solved
        if on_round is not None:
            on_round(solved)
    return results


def infoset_rows(solved: RoundSolve) -> Iterator[tuple[str, int, tuple[str, ...],
                                                        tuple[float, ...]]]:
    """(key, player, labels, probabilities) of a round's information sets, keys prefixed with
    its counts (``5v4:``)."""
    rules = DudoRules(solved.counts)
    if solved.memory is None:
        tree = compile_dudo("round", rules)
        offsets = tree.infoset_regret_offset
        head = prefix(solved.counts)
        for i, key in enumerate(tree.infoset_keys):
            yield (head + key, int(tree.infoset_player[i]), tree.infoset_labels[i],
                   tuple(float(x) for x in solved.strategy[offsets[i]:offsets[i + 1]]))
    else:
        graph = recall_graph(rules, solved.memory, prefix=prefix(solved.counts))
        yield from graph.infoset_rows(solved.strategy)


def store_match(results: dict[Counts, RoundSolve], setup: MatchSetup,
                store_path: StorePath = None) -> tuple[int, Path]:
    """Save the rounds as one solve of the match (the union of their strategies, under the
    setup's descriptor) with its table of winning chances, in one transaction; (solve id,
    store path)."""
    table = {f"{a}v{b}": r.win for (a, b), r in sorted(results.items())}
    top = results[(setup.max_dice, setup.max_dice)]
    measured = [r.exploitability for r in results.values() if r.exploitability is not None]
    rows = (InfosetStrategy(*row) for r in results.values() for row in infoset_rows(r))
    info, store = store_solve(SolveRecord(
        game=NAME, algorithm=f"{setup.algorithm}+fsicfr",
        iterations=sum(r.iterations for r in results.values()),
        seconds=sum(r.seconds for r in results.values()),
        # The match as a whole is not measured: the real game is far too big.  What is
        # stored is the worst of the rounds measured exactly, if every round was.
        exploitability=max(measured) if len(measured) == len(results) else math.inf,
        value=top.value, strategy=rows, abstraction=setup.recall.descriptor,
        figures={WIN_CHANCES: table}), store_path)
    return info.id, store
