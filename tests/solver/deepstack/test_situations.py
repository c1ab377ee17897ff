"""The value function's training data: random ranges of every shape; each situation solved to
an equilibrium of the rest of the hand (both players' values add up to zero over their ranges,
and a best response gains next to nothing); DeepStack-Leduc's own example tree solved better
than the 1.0 chips its tutorial reports after the same 1,000 iterations."""

from __future__ import annotations

import numpy as np
import pytest

from solver.deepstack.situations import (
    HANDS,
    Situation,
    random_range,
    sample,
    solve,
    start_of_second_round,
    subgame,
    tutorial_tree,
)
from solver.engine import kernels
from solver.resolving.resolve import reach_from, resolve


def _best_responses(a: object, strategy: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Each player's best-response value at the root against the other playing `strategy`
    from its range, summed over its own range."""
    out = np.zeros(2)
    for player in (0, 1):
        other = 1 - player
        reach = np.zeros(int(a.slot_count[other].sum()))  # type: ignore[attr-defined]
        reach_from(a, other, strategy, ranges[other], reach)
        values = np.zeros(int(a.slot_count[player].sum()))  # type: ignore[attr-defined]
        kernels.best_response(a, player, reach, values, np.zeros(len(strategy)))
        roots = int(a.slot_count[player, 0])  # type: ignore[attr-defined]
        out[player] = float(ranges[player] @ values[:roots])
    return out


def test_ranges_take_every_shape() -> None:
    rng = np.random.default_rng(1)
    strength = np.array([0, 0, 1, 1, 2, 2])
    ranges = np.array([random_range(rng, strength) for _ in range(4000)])
    assert np.allclose(ranges.sum(axis=1), 1.0) and ranges.min() >= 0.0
    assert ranges.mean(axis=0).min() > 0.12 and ranges.mean(axis=0).max() < 0.21  # none starved
    assert (ranges.max(axis=1) > 0.8).mean() > 0.02  # some nearly one hand
    assert (ranges.min(axis=1) > 0.05).mean() > 0.05  # some nearly flat


def test_a_situation_is_solved_to_an_equilibrium_of_the_rest_of_the_hand() -> None:
    rng = np.random.default_rng(2)
    for _ in range(3):
        situation = sample(rng)
        assert situation.chips == 100 or 200 <= situation.chips < 1200
        values = solve(situation, iterations=1000)
        assert values.shape == (2, HANDS)
        assert float((situation.ranges * values).sum()) == pytest.approx(0.0, abs=1e-12)
        sub = subgame(situation.chips)
        solved = resolve(sub.arrays, 0, situation.ranges[0], mode="unsafe", iterations=1000,
                         opponent_range=situation.ranges[1])
        gains = _best_responses(sub.arrays, solved.strategy, situation.ranges)
        assert gains.sum() / situation.chips < 2e-3  # what both best responses gain, per chip
        longer = solve(situation, iterations=4000)  # the subgame's value is unique
        own = float(situation.ranges[0] @ values[0])
        assert own == pytest.approx(float(situation.ranges[0] @ longer[0]), abs=2e-3)


def test_deepstack_leducs_example_tree_is_solved_as_well_as_it_reports() -> None:
    """Its tutorial's tree: the second round after K♠ with 300 chips in from each, the bet
    sizes pot and all-in, both ranges uniform; 1,000 iterations of its CFR leave about 1.0
    chips of exploitability (the mean of the two best responses' gains)."""
    sub = tutorial_tree()
    hands = len(sub.root_hands)
    uniform = np.full((2, hands), 1.0 / hands)
    solved = resolve(sub.arrays, 0, uniform[0], mode="unsafe", iterations=1000,
                     opponent_range=uniform[1])
    exploitability = _best_responses(sub.arrays, solved.strategy, uniform).sum() / 2
    assert 0.0 <= exploitability < 0.1  # chips: a tenth of what the tutorial reports


def test_the_chips_in_are_the_situations() -> None:
    for chips in (100, 200, 600, 1199):
        betting = start_of_second_round(chips)
        assert betting.spent == (chips, chips) and betting.round == 1
    with pytest.raises(ValueError):
        start_of_second_round(150)
    assert Situation(600, np.zeros((2, HANDS))).pot_feature == pytest.approx(0.5)
