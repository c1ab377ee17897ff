"""A stored solve read back onto its game's compiled tree, to measure it exactly, export it or
play it as a policy.

The store knows information sets by key and action labels only, so a stored strategy survives a
recompiled tree; `stored_strategy_array` refuses one whose keys or labels no longer match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.algorithms.exploitability import Evaluation, evaluate_strategy
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.games.base import Game
from strategies import SolveInfo, StoreError, StrategyStore


def stored_strategy_array(store: StrategyStore, game: Game) -> tuple[PublicTree, np.ndarray]:
    """The latest stored strategy of `game`, flattened onto its compiled tree."""
    rows = store.strategy(game.name)
    if not rows:
        raise StoreError(f"no solve of {game.name!r} in {store.path}; run `python -m solver "
                         f"solve {game.name}` or `python -m solver build`")
    tree = compile_game(game)
    flat = np.zeros(tree.num_regrets)
    offsets = tree.infoset_regret_offset
    for i, key in enumerate(tree.infoset_keys):
        row = rows.get(key)
        if row is None or row.labels != tree.infoset_labels[i]:
            raise StoreError(f"the stored {game.name} strategy does not match the game "
                             f"(information set {key!r}); rebuild it with `python -m solver "
                             f"build`")
        flat[offsets[i]:offsets[i + 1]] = row.probabilities
    return tree, flat


@dataclass(frozen=True, slots=True)
class StoredEvaluation:
    """The exact exploitability and value of the latest stored solve of a game."""

    info: SolveInfo | None
    evaluation: Evaluation


def evaluate_stored(store: StrategyStore, game: Game) -> StoredEvaluation:
    """Measure the latest stored solve of `game` exactly, in the real game.  An abstract solve
    is refused: what it was measured at is in its row already (the real tree of a game solved
    so is usually far too big to compile)."""
    info = store.latest_solve(game.name)
    if info is not None and info.abstraction:
        raise ValueError(
            f"the stored {game.name} solve is abstract ({info.abstraction}); what it was "
            f"measured at when solved: exploitability {info.exploitability} in the real game "
            f"(inf: too big to measure), value {info.value}")
    tree, flat = stored_strategy_array(store, game)
    return StoredEvaluation(info, evaluate_strategy(tree, flat))
