"""The bucket abstraction solved on holdem-mini and measured exactly in the real game."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.bucket_solve import BucketSolve, abstract_game, solve_buckets
from solver.abstractions.holdem.buckets import BucketSpec
from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.compile import compile_game
from solver.games import get_game

GAME = "holdem-mini"
ITERATIONS = 300


@cache
def _solve(k: int | None, recall: str) -> BucketSolve:
    return solve_buckets(get_game(GAME), BucketSpec((k,), recall), ITERATIONS, "dcfr")


@cache
def _exact() -> tuple[float, float]:
    tree = compile_game(get_game(GAME))
    solver = CFRSolver(tree, "dcfr")
    solver.iterate(ITERATIONS)
    evaluation = evaluate_strategy(tree, solver.average_strategy())
    return evaluation.value, evaluation.exploitability


@pytest.mark.parametrize("recall", ["perfect", "imperfect"])
def test_lossless_buckets_solve_as_the_real_game(recall: str) -> None:
    """Every class apart (holdem-mini deals one board card, so even imperfect recall forgets
    nothing): the abstract game is the real one up to suits, and the same DCFR iterates give
    the same strategy, value and exploitability."""
    value, exploitability = _exact()
    solved = _solve(None, recall)
    assert solved.exploitability == pytest.approx(exploitability, rel=1e-9)
    assert solved.value == pytest.approx(value, rel=1e-9)
    assert solved.abstract.num_infosets < compile_game(get_game(GAME)).num_infosets  # suits merged


@pytest.mark.slow
def test_coarser_buckets_cost_more_in_the_real_game() -> None:
    _, exact = _exact()
    assert exact < 2e-3
    perfect = [_solve(k, "perfect").exploitability for k in (2, 4, None)]
    imperfect = [_solve(k, "imperfect").exploitability for k in (2, 16, None)]
    for costs in (perfect, imperfect):
        assert costs[0] > costs[1] > costs[2]
        assert costs[1] > 50 * exact  # a real abstraction, far above the equilibrium
    # Remembering the preflop class is worth more than twice the buckets without it.
    assert _solve(2, "perfect").exploitability < _solve(4, "imperfect").exploitability


@pytest.mark.parametrize(("name", "k"), [
    (GAME, (2,)),
    # The board's first card before the first round: that round's classes hold it.
    ("holdem(numRanks=3,numSuits=2,numBoardCards=1 1,maxRaises=1 1)", (3,)),
    # A last round with no card keeps the second round's bucket.
    ("holdem(numRanks=3,numSuits=2,numBoardCards=0 1 0,maxRaises=2 1 1)", (2, 5)),
])
def test_abstract_information_sets_are_the_keys_the_bot_looks_up(
        name: str, k: tuple[int, ...]) -> None:
    """The abstract key of every real information set, as the solver maps it, is what
    `strategy_key` gives for a position of it."""
    game = get_game(name)
    for recall in ("perfect", "imperfect"):
        spec = BucketSpec(k, recall)
        abstract = abstract_game(game, spec)
        abstraction = abstraction_for(game, spec.descriptor)
        tree = abstract.tree
        real = {key: i for i, key in enumerate(tree.infoset_keys)}
        rng = random.Random(3)
        checked = 0
        for _ in range(300):
            state = game.initial_state()
            while not state.is_terminal():
                if not state.is_chance():
                    i = real[state.information_state_key()]
                    first = abstract.to_abstract[tree.infoset_regret_offset[i]]
                    j = int(np.searchsorted(abstract.offsets, first, side="right")) - 1
                    assert abstract.offsets[j] == first
                    assert abstraction.strategy_key(state, state.current_player()) == (
                        abstract.keys[j])
                    assert abstract.labels[j] == tree.infoset_labels[i]
                    checked += 1
                state = state.apply_action(rng.choice(state.legal_actions()))
        assert checked > 300
        assert len(set(abstract.keys)) == abstract.num_infosets


def test_every_hand_of_a_bucket_plays_the_same_strategy() -> None:
    solved = _solve(4, "imperfect")
    abstract = solved.abstract
    real = abstract.real_strategy(solved.strategy)
    tree = abstract.tree
    by_key: dict[str, np.ndarray] = {}
    for i in range(tree.num_infosets):
        lo, hi = tree.infoset_regret_offset[i], tree.infoset_regret_offset[i + 1]
        j = int(np.searchsorted(abstract.offsets, abstract.to_abstract[lo], side="right")) - 1
        seen = by_key.setdefault(abstract.keys[j], real[lo:hi])
        assert np.array_equal(seen, real[lo:hi])
    assert len(by_key) == abstract.num_infosets


@pytest.mark.slow
def test_three_rounds_perfect_recall_nests_and_imperfect_recall_forgets() -> None:
    """Six cards, a board card before each of two later rounds.  Every class apart with
    perfect recall is the real game; imperfect recall forgets the order the board came in,
    which costs something even with every class apart."""
    game = get_game("holdem(numRanks=3,numSuits=2,numBoardCards=0 1 1,maxRaises=1 1 1)")
    tree = compile_game(game)
    solver = CFRSolver(tree, "dcfr")
    solver.iterate(ITERATIONS)
    exact = evaluate_strategy(tree, solver.average_strategy()).exploitability

    def cost(k: int | None, recall: str) -> BucketSolve:
        return solve_buckets(game, BucketSpec((k, k), recall), ITERATIONS, "dcfr")

    lossless = cost(None, "perfect")
    assert lossless.exploitability == pytest.approx(exact, rel=1e-9)
    forgetful = cost(None, "imperfect")
    assert forgetful.abstract.num_infosets < lossless.abstract.num_infosets
    assert forgetful.exploitability > exact
    coarse = [cost(2, "imperfect"), cost(2, "perfect"), cost(3, "perfect")]
    costs = [solved.exploitability for solved in coarse]
    assert costs[0] > costs[1] > costs[2] > 10 * exact
