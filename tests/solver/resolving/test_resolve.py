"""Safe re-solving: never more exploitable than the blueprint, and less on a member where the
blueprint is a coarse abstraction (judged exactly on members whose tree compiles)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from solver.abstractions.holdem.buckets import BucketSpec
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine import kernels
from solver.engine.node_kinds import DECISION_NODE
from solver.engine.tree import PublicTree
from solver.resolving.measure_exactly import Row, blueprint, table
from solver.resolving.resolve import resolve
from solver.resolving.subtree import cut_of, subtree, subtree_ends

MINI = "holdem-mini"
THREE_ROUNDS = "holdem(numRanks=4,numSuits=2,numBoardCards=0 1 1,maxRaises=1 1 1)"
"""Eight cards, a board card before each of two later rounds, one bet a round: 4,762 public
nodes."""


@cache
def _blueprint(game: str, k: int) -> tuple[PublicTree, np.ndarray]:
    rounds = 2 if game == MINI else 3
    return blueprint(game, BucketSpec((k,) * (rounds - 1), "imperfect"), 300)


@cache
def _table(game: str, k: int, from_round: int,
           modes: tuple[str, ...] = ("unsafe", "resolve", "maxmargin")) -> dict[str, Row]:
    tree, strategy = _blueprint(game, k)
    return {row.mode: row for row in table(tree, strategy, from_round, 300, modes)}


@pytest.mark.parametrize(("game", "k", "from_round", "modes"), [
    (MINI, 8, 1, ("unsafe", "resolve", "maxmargin")),
    (THREE_ROUNDS, 3, 1, ("maxmargin",)),
    (THREE_ROUNDS, 3, 2, ("resolve", "maxmargin")),
])
@pytest.mark.slow
def test_safe_resolving_never_raises_exploitability(game: str, k: int, from_round: int,
                                                    modes: tuple[str, ...]) -> None:
    rows = _table(game, k, from_round, modes)
    base = rows["blueprint"].exploitability
    assert base > 0.2  # a coarse abstraction: there is something to gain
    for mode in (m for m in modes if m != "unsafe"):
        assert rows[mode].exploitability <= base + 1e-6, mode
        assert rows[mode].smallest_margin > -1e-3 * base, mode  # up to the solves' error
        assert rows[mode].resolves > 100


@pytest.mark.slow
def test_safe_resolving_lowers_exploitability_where_unsafe_raises_it() -> None:
    """holdem-mini with 8 buckets a round (imperfect recall): the safe gadgets more than halve
    the exploitability, while re-solving with the blueprint's ranges as if they were known
    more than doubles it (Libratus's Table 1 in small)."""
    rows = _table(MINI, 8, 1)
    base = rows["blueprint"].exploitability
    assert rows["resolve"].exploitability < 0.6 * base
    assert rows["maxmargin"].exploitability < 0.6 * base
    assert rows["unsafe"].exploitability > 1.5 * base


def test_a_resolve_from_an_equilibrium_keeps_it() -> None:
    """Re-solving a subgame of an (almost) exact solve with the gadget: the margins stay at
    zero up to the solve's error and the value to the player is the equilibrium's."""
    tree, strategy = _blueprint(MINI, 84)  # every class apart: the real game up to suits
    assert evaluate_strategy(tree, strategy).exploitability < 0.02
    a = tree.arrays
    reach = [np.zeros(tree.num_slots(p)) for p in (0, 1)]
    for p in (0, 1):
        kernels.reach_probabilities(a, p, strategy, reach[p])
    alternatives = np.zeros(tree.num_slots(1))
    kernels.best_response(a, 1, reach[0], alternatives, np.zeros(tree.num_regrets))
    ends = subtree_ends(a.parent)
    node = int(np.flatnonzero((a.kind == DECISION_NODE) & (a.actor == 0))[40])
    cut = cut_of(a, node, ends)
    lo, roots = cut.slots[1], int(a.slot_count[1, node])
    own = reach[0][cut.slots[0]:cut.slots[0] + int(a.slot_count[0, node])]
    solved = resolve(subtree(a, cut), 0, own, mode="resolve", iterations=2000,
                     alternatives=alternatives[lo:lo + roots])
    assert solved.margins is not None
    scale = np.abs(alternatives[lo:lo + roots]).max()
    assert solved.margins.min() > -0.02 * scale


def test_modes_and_shapes_are_checked() -> None:
    tree, _ = _blueprint(MINI, 8)
    a = tree.arrays
    part = subtree(a, cut_of(a, 0, subtree_ends(a.parent)))
    own = np.ones(int(a.slot_count[0, 0]))
    with pytest.raises(ValueError, match="modes are"):
        resolve(part, 0, own, mode="brave", iterations=1)
    with pytest.raises(ValueError, match="opponent's range"):
        resolve(part, 0, own, mode="unsafe", iterations=1)
    with pytest.raises(ValueError, match="alternative values"):
        resolve(part, 0, own, mode="maxmargin", iterations=1)
    with pytest.raises(ValueError, match="root slots"):
        resolve(part, 0, own[:-1], mode="unsafe", iterations=1, opponent_range=own)
