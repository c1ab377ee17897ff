"""Online outcome sampling (`solver.algorithms.oos`): unbiased as plain outcome sampling,
focused by targeting, and better with more thinking."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.oos import OOSSearch
from solver.games import get_game


@pytest.fixture(scope="module")
def kuhn() -> OOSSearch:
    return OOSSearch(get_game("kuhn"))


def test_untargeted_it_is_outcome_sampling_and_converges(kuhn: OOSSearch) -> None:
    kuhn.delta = 0.0
    try:
        strategy = kuhn.search(0, 1_000_000, seed=3)
    finally:
        kuhn.delta = 0.9
    assert evaluate_strategy(kuhn.tree, strategy).exploitability < 0.005


@pytest.mark.parametrize("delta", [0.9, 1.0])
def test_a_targeted_search_finds_the_unique_equilibrium_move(kuhn: OOSSearch,
                                                            delta: float) -> None:
    # The second player's Kuhn equilibrium is unique: holding the queen against a bet it
    # calls with probability 1/3, whatever equilibrium the first player plays.
    kuhn.delta = delta
    try:
        fold, call = kuhn.decide("Q|b", 1_000_000, seed=1)
    finally:
        kuhn.delta = 0.9
    assert call == pytest.approx(1 / 3, abs=0.03)
    assert fold + call == pytest.approx(1.0)


def test_more_thinking_plays_better_and_is_reproducible(kuhn: OOSSearch) -> None:
    short = kuhn.assembled(1_000, seed=0)
    long = kuhn.assembled(100_000, seed=0)
    quick, slow = (evaluate_strategy(kuhn.tree, s).exploitability for s in (short, long))
    assert slow < quick / 2, (quick, slow)
    assert np.array_equal(long, kuhn.assembled(100_000, seed=0))
    assert not np.array_equal(long, kuhn.assembled(100_000, seed=1))
