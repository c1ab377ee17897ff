"""The hold'em family's public tree, compiled from the rules, against the generic walk of the
states, the recursive evaluators and OpenSpiel's CFR+; its sizes against counts by hand."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

from solver.algorithms import reference
from solver.algorithms.cfr import CFRSolver, normalize
from solver.algorithms.exploitability import evaluate_strategy, policy_from_array, strategy_array
from solver.algorithms.policy import iter_states
from solver.engine import kernels
from solver.engine.compile import _build, _load, _save
from solver.engine.node_kinds import FOLD_NODE, SHOWDOWN_NODE
from solver.engine.tree import PublicTree, pack_tree
from solver.games import get_game
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.rules import HULHE
from solver.games.holdem.tree import HoldemEngine
from tests.solver.games.holdem.test_openspiel import playouts

WALKABLE = (
    # One card each, three rounds of one board card.
    "holdem(numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1 1,maxRaises=1 1 1)",
    # A board card before the first round, equal blinds, the big blind... both first.
    "holdem(numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=1 1,blind=1 1,"
    "firstPlayer=1 1,raiseSize=1 2,maxRaises=2 1)",
    # Two cards each from six, a round with no board card.
    "holdem(numRanks=3,numSuits=2,numBoardCards=0 1 0,maxRaises=2 1 1)",
    # No-limit under universal_poker's fcpa, and three rounds with half-pot raises too, where
    # an all-in called in the first round deals both later cards before the showdown.
    "holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,blind=2 1,"
    "firstPlayer=2 1,stack=10 10,bettingAbstraction=fcpa)",
    "holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1 1,"
    "blind=2 1,firstPlayer=2 1 1,stack=12 12,bettingAbstraction=0.5p p a)",
)
FLOP = "holdem(numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 3,maxRaises=1 2)"
"""A board of three cards at once: the walk cannot compile it (the order the cards come in
is not public), the recursive evaluators check it instead."""


def holdem(spec: str) -> HoldemGame:
    game = get_game(spec)
    assert isinstance(game, HoldemGame)
    return game


def on_tree(tree: PublicTree, source: PublicTree, strategy: np.ndarray) -> np.ndarray:
    """`strategy`, laid out on `source`, moved to `tree` by information-set key."""
    index = {key: i for i, key in enumerate(source.infoset_keys)}
    out = np.zeros(tree.num_regrets)
    for i, key in enumerate(tree.infoset_keys):
        j = index[key]
        out[tree.infoset_regret_offset[i]:tree.infoset_regret_offset[i + 1]] = strategy[
            source.infoset_regret_offset[j]:source.infoset_regret_offset[j + 1]]
    return out


def assert_same_game(direct: PublicTree, walked: PublicTree, seeds: int = 3) -> None:
    """Same information sets, actions and labels; same values and best responses for random
    strategies; the same CFR+ iteration from the same regrets.

    (Not whole runs of iterates: a regret that is zero in exact arithmetic comes out as 0 or
    as +-1e-17 depending on the order of the sums, and regret matching then plays uniformly
    or not at all, so two correct trees part ways after a few iterations.)"""
    assert sorted(direct.infoset_keys) == sorted(walked.infoset_keys)
    index = {key: i for i, key in enumerate(walked.infoset_keys)}
    for i, key in enumerate(direct.infoset_keys):
        assert direct.infoset_actions[i] == walked.infoset_actions[index[key]], key
        assert direct.infoset_labels[i] == walked.infoset_labels[index[key]], key
    assert direct.num_slots(0) == walked.num_slots(0) and direct.num_nodes == walked.num_nodes
    rng = np.random.default_rng(0)
    for _ in range(seeds):
        strategy = normalize(walked, rng.random(walked.num_regrets) ** 3)
        theirs = evaluate_strategy(walked, strategy)
        ours = evaluate_strategy(direct, on_tree(direct, walked, strategy))
        assert ours.value == pytest.approx(theirs.value, rel=1e-12, abs=1e-14)
        assert ours.best_response_values == pytest.approx(theirs.best_response_values,
                                                          rel=1e-12, abs=1e-14)
    theirs_solver = CFRSolver(walked, "cfr+")
    theirs_solver.iterate(20)
    ours_solver = CFRSolver(direct, "cfr+")
    for name in ("regrets", "average", "strategy"):
        getattr(ours_solver, name)[:] = on_tree(direct, walked, getattr(theirs_solver, name))
    ours_solver.iterations = theirs_solver.iterations
    kernels.reach_probabilities(direct.arrays, 0, ours_solver.strategy, ours_solver._reach[0])
    ours_solver.iterate(1)
    theirs_solver.iterate(1)
    for name in ("regrets", "average"):  # (the strategy: regret matching on the noise too)
        assert np.allclose(getattr(ours_solver, name),
                           on_tree(direct, walked, getattr(theirs_solver, name)),
                           rtol=1e-9, atol=1e-12), name


@pytest.mark.slow  # the engine's generic walk of holdem-mini's states, to compare with
def test_holdem_mini_compiles_to_the_walks_tree() -> None:
    game = holdem("holdem-mini")
    direct = game.compile_public_tree()
    assert direct.num_infosets == 9_632
    kinds = np.bincount(direct.arrays.kind, minlength=5)
    assert kinds[FOLD_NODE] > 0 and kinds[SHOWDOWN_NODE] > 0 and kinds[0] == 0  # no matrices
    assert_same_game(direct, _build(game))


@pytest.mark.parametrize("spec", WALKABLE)
def test_small_members_compile_to_the_walks_tree(spec: str) -> None:
    game = holdem(spec)
    assert_same_game(game.compile_public_tree(), _build(game))


@pytest.mark.slow
def test_a_flop_against_the_recursive_evaluators() -> None:
    game = holdem(FLOP)
    tree = game.compile_public_tree()
    rng = np.random.default_rng(1)
    policy = policy_from_array(tree, normalize(tree, rng.random(tree.num_regrets) ** 3))
    fast = evaluate_strategy(tree, strategy_array(tree, policy))
    assert fast.value == pytest.approx(reference.expected_value(game, policy), abs=1e-12)
    for p in (0, 1):
        assert fast.best_response_values[p] == pytest.approx(
            reference.best_response_value(game, policy, p), abs=1e-12)


@pytest.mark.parametrize("spec", [*WALKABLE, FLOP, "holdem-mini"])
def test_sizes_are_the_trees(spec: str) -> None:
    game = holdem(spec)
    sizes = game.sizes()
    tree = game.compile_public_tree()
    assert sizes["information_sets"] == tree.num_infosets
    assert sizes["public_nodes"] == tree.num_nodes
    assert sizes["slots"] == tree.num_slots(0) + tree.num_slots(1)
    if spec != "holdem-mini":  # a million states: counted once below
        assert sizes["histories"] == sum(1 for _ in iter_states(game))


def test_holdem_sizes() -> None:
    assert holdem("holdem-mini").sizes()["histories"] == 1_025_201
    sizes = holdem("holdem").sizes()
    assert sizes["betting_sequences"] == 6_378
    assert sizes["canonical_hands"] == {"round 1": 169, "round 2": 1_286_792,
                                        "round 3": 13_960_050, "round 4": 123_156_254}
    assert f"{sizes['information_sets']:.3g}" == "3.19e+14"  # the published count


def test_the_full_game_is_refused_before_it_is_built() -> None:
    with pytest.raises(ValueError, match="needs an abstraction"):
        HoldemEngine("holdem", HULHE).arrays()


@pytest.mark.parametrize(("algorithm", "iterations"), [("cfr+", 600), ("dcfr", 400)])
def test_small_members_solve(algorithm: str, iterations: int) -> None:
    for spec in (WALKABLE[0], FLOP, "holdem(numRanks=3,numSuits=2,numBoardCards=0 1,"
                                    "maxRaises=2 2)"):
        solver = CFRSolver(holdem(spec).compile_public_tree(), algorithm)
        solver.iterate(20)
        early = evaluate_strategy(solver.tree, solver.average_strategy()).exploitability
        solver.iterate(iterations - 20)
        late = evaluate_strategy(solver.tree, solver.average_strategy()).exploitability
        assert late <= 1e-3 and late < early / 10, spec


@pytest.mark.slow
def test_cfr_plus_iterates_are_openspiels() -> None:
    """Two cards each from six and one board card: OpenSpiel's C++ CFR+ on universal_poker
    and ours go through the same first iterates.  (From the third on they part: regrets that
    are zero in exact arithmetic come out as 0 or +-1e-17, as in `assert_same_game`.)"""
    spec = "holdem(numRanks=3,numSuits=2,numBoardCards=0 1,maxRaises=2 2)"
    game = holdem(spec)
    playouts(spec, 200, seed=3)
    assert game.openspiel is not None
    theirs_game = pyspiel.load_game(game.openspiel.game_string)
    theirs = pyspiel.CFRPlusSolver(theirs_game)
    ours = CFRSolver(game.compile_public_tree(), "cfr+")
    for _ in range(2):
        theirs.evaluate_and_update_policy()
        ours.iterate(1)
        expected = pyspiel.exploitability(theirs_game, theirs.average_policy())
        got = evaluate_strategy(ours.tree, ours.average_strategy()).exploitability
        assert got == pytest.approx(expected, rel=1e-12)


def test_compiled_trees_keep_their_card_fields_on_disk(tmp_path: Path) -> None:
    tree = holdem("holdem-mini").compile_public_tree()
    _save(tree, tmp_path / "mini.npz")
    loaded = _load("holdem-mini", tmp_path / "mini.npz")
    for field in tree.arrays._fields:
        assert np.array_equal(getattr(tree.arrays, field), getattr(loaded.arrays, field)), field
    assert loaded.infoset_keys == tree.infoset_keys


def test_pack_tree_checks_the_card_fields() -> None:
    arrays = holdem("holdem-mini").compile_public_tree().arrays
    from solver.engine.tree import CardTerminals

    count = arrays.slot_count
    slots = [np.asarray(arrays.slot_hand[p, :count[p].sum()]) for p in (0, 1)]
    parents = [arrays.slot_parent[p, :count[p].sum()] for p in (0, 1)]
    # Slot parents back to the pack_tree numbering; action indices from the edges.
    actions = []
    for p in (0, 1):
        edge = arrays.slot_edge[p, :count[p].sum()]
        node = np.repeat(np.arange(len(arrays.kind)), count[p])
        above = np.maximum(arrays.parent[node], 0)
        local_parent = parents[p] - arrays.slot_offset[p, above]
        actions.append(np.where(edge >= 0, edge - arrays.regret_offset[above]
                                - local_parent * arrays.num_actions[above], -1))
    base: dict[str, Any] = {
        "kind": arrays.kind, "actor": arrays.actor, "parent": arrays.parent,
        "num_actions": arrays.num_actions, "slot_count": count, "slot_parent": parents,
        "slot_action": actions, "payoffs": arrays.payoffs}
    cards = CardTerminals(arrays.terminal_value, arrays.showdown_offset, arrays.showdown_order,
                          arrays.showdown_strength, slots, arrays.hand_cards)
    packed = pack_tree(**base, cards=cards)
    for field in arrays._fields:
        assert np.array_equal(getattr(packed, field), getattr(arrays, field)), field
    with pytest.raises(ValueError, match="need the card fields"):
        pack_tree(**base)
    swapped = slots[1].copy()
    swapped[[-1, -2]] = swapped[[-2, -1]]
    with pytest.raises(ValueError, match="same hands in the same order"):
        pack_tree(**base, cards=cards._replace(slot_hand=[slots[0], swapped]))
    weakest_last = arrays.showdown_strength.copy()
    weakest_last[0] = weakest_last.max() + 1
    with pytest.raises(ValueError, match="weakest hand to the strongest"):
        pack_tree(**base, cards=cards._replace(showdown_strength=weakest_last))


def test_chance_weight_is_one_deal() -> None:
    """A fold right away: the small blind loses 1 whatever the deal, weighted by 1 / (28 x 15)
    per deal of two hands from eight cards."""
    tree = holdem("holdem-mini").compile_public_tree()
    first_fold = int(np.flatnonzero(tree.arrays.kind == FOLD_NODE)[0])
    assert tree.arrays.terminal_value[first_fold] == pytest.approx(
        1.0 / (math.comb(8, 2) * math.comb(6, 2)))
