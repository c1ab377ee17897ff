"""The one way a solve goes into the strategy store, whatever made it.

Every job ends the same way: it describes its solve as a `SolveRecord` (the game, how it was
solved, how good it is, the strategy as rows of information sets or as tables, and the figures
its game needs beside it) and hands it to `store_solve`, which opens the store (creating it if
needed), stamps the solver's version and saves it in one transaction, then works out the
strategy's style figures and stores them with it (`solver.evaluation.style`), so that the app
reads them instead of computing them on a request.  `solve_and_store` is the job of an exact
solve: `solve`, then the strategy as one row per information set with the action values, the
public tree's nodes and the convergence trace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import solver
from solver.algorithms.action_values import action_values
from solver.algorithms.solve import Checkpoint, SolveResult, solve
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.engine.progress import phase
from solver.engine.tree import PublicTree
from solver.evaluation.style import add_style
from solver.games import get_game
from strategies import (
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StrategyStore,
    TracePoint,
)
from strategies.tables import TableStrategy

StorePath = str | os.PathLike[str] | None
"""A strategy store's file; None (or empty) for the default store."""


@dataclass(frozen=True, slots=True)
class SolveRecord:
    """One solve as the store keeps it.  `exploitability` is the real game's, infinity where it
    could not be measured; `abstraction` the descriptor of the abstract game solved (empty for
    the real game); a solve too big for a row per information set gives `table` instead of
    `strategy`; `value_ci95` is the half-width of the 95% interval of a sampled `value`; an
    exploitable `opponent` of the game (`solver.runs.opponents`) names itself and carries what a
    best reply wins against it in each seat; `figures` are stored with the solve, by name
    (`strategies.figures`)."""

    game: str
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float
    value: float
    strategy: Iterable[InfosetStrategy] = ()
    trace: Sequence[TracePoint] = ()
    nodes: Sequence[PublicNode] = ()
    abstraction: str = ""
    table: TableStrategy | None = None
    value_ci95: float | None = None
    opponent: str = ""
    best_reply: tuple[float, float] | None = None
    figures: Mapping[str, Any] | None = None


def store_solve(record: SolveRecord, store_path: StorePath = None) -> tuple[SolveInfo, Path]:
    """Save `record` in the store at `store_path`, creating the store if needed, with its style
    figures; the solve's row and the store's path."""
    with StrategyStore.open(store_path or None, create=True) as store:
        info = store.save_solve(
            game=record.game, algorithm=record.algorithm, iterations=record.iterations,
            seconds=record.seconds, exploitability=record.exploitability, value=record.value,
            strategy=record.strategy, trace=record.trace, solver_version=solver.__version__,
            abstraction=record.abstraction, nodes=record.nodes, value_ci95=record.value_ci95,
            table=record.table, opponent=record.opponent, best_reply=record.best_reply,
            figures=record.figures)
        add_style(store, get_game(record.game), info)
    return info, Path(store.path)


@dataclass(frozen=True, slots=True)
class StoredSolve:
    result: SolveResult
    info: SolveInfo  # the solve's row in the store
    store: Path


def infoset_rows(tree: PublicTree, strategy: np.ndarray) -> list[InfosetStrategy]:
    """The flat (infoset, action) `strategy` as the store's rows: key, player, labels and
    probabilities of every information set, and, where the tree allows it, the value of each
    action, the set's value and its reach under the strategy (`solver.algorithms.action_values`)."""
    # Python lists, sliced per set: converting element by element from the arrays took most
    # of the time of storing dudo-2v1's 3.5 million sets.
    offsets = tree.infoset_regret_offset.tolist()
    probabilities = np.asarray(strategy, np.float64).tolist()
    players = tree.infoset_player.tolist()
    nodes = tree.infoset_node.tolist() if tree.node_keys else None
    known = action_values(tree, strategy) if tree.unit_arrays() is not None else None
    q = known.q.tolist() if known is not None else []
    v = known.v.tolist() if known is not None else []
    reaches = known.reach.tolist() if known is not None else []
    weighted = (known.weight > 0.0).tolist() if known is not None else []
    rows = []
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = offsets[i], offsets[i + 1]
        values = value = reach = None
        if known is not None:
            reach = reaches[i]
            if weighted[i]:
                values = tuple(q[lo:hi])
                value = v[i]
        rows.append(InfosetStrategy(key, players[i], tree.infoset_labels[i],
                                    tuple(probabilities[lo:hi]), values, value, reach,
                                    nodes[i] if nodes is not None else None))
    return rows


def node_rows(tree: PublicTree) -> list[PublicNode]:
    """The tree's public nodes, for the explorer (none if the engine did not name them)."""
    if not tree.node_keys:
        return []
    a = tree.arrays
    return [PublicNode(n, tree.node_keys[n], int(a.parent[n]), tree.node_labels[n],
                       _kind_name(int(a.kind[n])), int(a.actor[n]))
            for n in range(tree.num_nodes)]


def _kind_name(kind: int) -> str:
    """Every kind but chance and decision is a terminal of some sort."""
    return "decision" if kind == DECISION_NODE else "chance" if kind == CHANCE_NODE else "terminal"


def solve_and_store(game: str, algorithm: str, *, iterations: int | None = None,
                    target: float | None = None, seconds: float | None = None,
                    store_path: StorePath = None, seed: int = 0,
                    on_checkpoint: Callable[[Checkpoint], None] | None = None,
                    pruning: bool | None = None, memory_checked: bool = False
                    ) -> StoredSolve:
    """`solve` the game called `game` (same limits and `on_checkpoint`), then save the average
    strategy and the trace in the store at `store_path` (default: the default store), creating
    it if needed.  `pruning` and `memory_checked` as `solve` takes them (None: what the game
    declares; True: the caller has checked the memory the solve needs).

    Example::

        from solver.runs.store_solve import solve_and_store

        stored = solve_and_store("kuhn", "dcfr", target=1e-5, store_path="kuhn.sqlite")
        stored.info.id                   # the solve's row in the store (1 in a new store)
        stored.result.exploitability     # at most 1e-5
    """
    solved = get_game(game)  # stored under its own name: a spec's canonical writing
    result = solve(solved, algorithm, iterations=iterations,
                   target_exploitability=target, seconds=seconds, seed=seed,
                   on_checkpoint=on_checkpoint, pruning=pruning,
                   memory_checked=memory_checked)
    phase("storing")
    record = SolveRecord(
        game=solved.name, algorithm=algorithm, iterations=result.iterations,
        seconds=result.seconds,
        exploitability=result.exploitability, value=result.value,
        strategy=infoset_rows(result.tree, result.strategy), nodes=node_rows(result.tree),
        trace=[TracePoint(p.iteration, p.seconds, p.exploitability, p.value)
               for p in result.trace])
    info, path = store_solve(record, store_path)
    return StoredSolve(result, info, path)
