"""Subtrees cut out of a compiled tree run the kernels as the whole tree does."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from solver.engine import kernels
from solver.engine.compile import compile_game
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.engine.tree import PublicTree
from solver.games import get_game
from solver.resolving.subtree import cut_of, subtree, subtree_ends


def _random_strategy(tree: PublicTree, seed: int) -> NDArray[np.float64]:
    rng = np.random.default_rng(seed)
    raw = rng.random(tree.num_regrets) + 0.05
    sums: NDArray[np.float64] = np.add.reduceat(raw, tree.infoset_regret_offset[:-1])
    return raw / np.repeat(sums, np.diff(tree.infoset_regret_offset))


def test_the_root_cut_is_the_whole_tree() -> None:
    tree = compile_game(get_game("holdem-mini"))
    a = tree.arrays
    whole = subtree(a, cut_of(a, 0, subtree_ends(a.parent)))
    for name in ("kind", "parent", "regret_offset", "slot_offset", "slot_count", "slot_parent",
                 "slot_edge", "slot_hand", "terminal_value"):
        assert np.array_equal(getattr(whole, name), getattr(a, name)), name


@pytest.mark.parametrize("game", ["holdem-mini", "leduc"])
def test_values_in_a_subtree_are_the_whole_trees(game: str) -> None:
    """A best response below a node against the whole tree's reach at the subtree's slots gives
    the whole tree's values at every slot of the subtree (the terminals keep their chance
    weights, so the units are the whole tree's)."""
    tree = compile_game(get_game(game))
    a = tree.arrays
    strategy = _random_strategy(tree, 1)
    ends = subtree_ends(a.parent)
    reach = [np.zeros(tree.num_slots(p)) for p in (0, 1)]
    for p in (0, 1):
        kernels.reach_probabilities(a, p, strategy, reach[p])
    whole = [np.zeros(tree.num_slots(p)) for p in (0, 1)]
    scratch = np.zeros(tree.num_regrets)
    for p in (0, 1):
        kernels.best_response(a, p, reach[1 - p], whole[p], scratch)
    below_chance = np.flatnonzero(a.kind[a.parent.clip(0)] == CHANCE_NODE)
    decisions = np.flatnonzero(a.kind == DECISION_NODE)
    for node in (int(below_chance[3]), int(decisions[5]), int(decisions[-7])):
        cut = cut_of(a, node, ends)
        part = subtree(a, cut)
        assert part.kind.shape[0] == ends[node] - node
        for p in (0, 1):
            lo, hi = cut.slots[1 - p], cut.slot_stop[1 - p]
            values = np.zeros(cut.slot_stop[p] - cut.slots[p])
            kernels.best_response(part, p, reach[1 - p][lo:hi], values,
                                  np.zeros(cut.regret_stop - cut.regrets))
            assert np.allclose(values, whole[p][cut.slots[p]:cut.slot_stop[p]], atol=1e-15)

