"""Between the solvers and the strategy store: a solve goes in as one row per information set,
and a stored strategy comes back out as the flat (infoset, action) array the evaluators read.

The store knows information sets by key and action labels only, so a stored strategy survives a
recompiled tree; `stored_strategy_array` refuses one whose keys or labels no longer match.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import solver
from solver.action_values import action_values
from solver.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.progress import phase
from solver.public_tree import PublicTree, compile_game
from solver.solve import Checkpoint, SolveResult, solve
from strategies import (
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StoreError,
    StrategyStore,
    TracePoint,
)


@dataclass(frozen=True, slots=True)
class StoredSolve:
    result: SolveResult
    info: SolveInfo  # the solve's row in the store
    store: Path


def infoset_rows(tree: PublicTree, strategy: np.ndarray) -> list[InfosetStrategy]:
    """The flat (infoset, action) `strategy` as the store's rows: key, player, labels and
    probabilities of every information set, and, where the tree allows it, the value of each
    action, the set's value and its reach under the strategy (`solver.action_values`)."""
    offsets = tree.infoset_regret_offset
    known = action_values(tree, strategy) if tree.unit_arrays() is not None else None
    rows = []
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = offsets[i], offsets[i + 1]
        values = value = reach = None
        if known is not None:
            reach = float(known.reach[i])
            if known.weight[i] > 0.0:
                values = tuple(float(x) for x in known.q[lo:hi])
                value = float(known.v[i])
        rows.append(InfosetStrategy(key, int(tree.infoset_player[i]), tree.infoset_labels[i],
                                    tuple(float(x) for x in strategy[lo:hi]), values, value,
                                    reach, int(tree.infoset_node[i]) if tree.node_keys else None))
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
                    store_path: str | os.PathLike[str] | None = None, seed: int = 0,
                    on_checkpoint: Callable[[Checkpoint], None] | None = None) -> StoredSolve:
    """`solve` (same limits and `on_checkpoint`), then save the average strategy and the
    trace in the store at `store_path` (default: the default store), creating it if needed."""
    result = solve(game, algorithm, iterations=iterations, target_exploitability=target,
                   seconds=seconds, seed=seed, on_checkpoint=on_checkpoint)
    phase("storing")
    with StrategyStore.open(store_path or None, create=True) as store:
        info = store.save_solve(
            game=game,
            algorithm=algorithm,
            iterations=result.iterations,
            seconds=result.seconds,
            exploitability=result.exploitability,
            value=result.value,
            strategy=infoset_rows(result.tree, result.strategy),
            nodes=node_rows(result.tree),
            trace=[TracePoint(p.iteration, p.seconds, p.exploitability, p.value)
                   for p in result.trace],
            solver_version=solver.__version__,
        )
    return StoredSolve(result, info, Path(store.path))


def stored_strategy_array(store: StrategyStore, game: str) -> tuple[PublicTree, np.ndarray]:
    """The latest stored strategy of `game`, flattened onto its compiled tree."""
    rows = store.strategy(game)
    if not rows:
        raise StoreError(f"no solve of {game!r} in {store.path}; run `python -m solver solve "
                         f"{game}` or `python -m solver build`")
    tree = compile_game(game)
    flat = np.zeros(tree.num_regrets)
    offsets = tree.infoset_regret_offset
    for i, key in enumerate(tree.infoset_keys):
        row = rows.get(key)
        if row is None or row.labels != tree.infoset_labels[i]:
            raise StoreError(f"the stored {game} strategy does not match the game (information "
                             f"set {key!r}); rebuild it with `python -m solver build`")
        flat[offsets[i]:offsets[i + 1]] = row.probabilities
    return tree, flat
