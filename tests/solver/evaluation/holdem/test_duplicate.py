from __future__ import annotations

import math

import numpy as np
import pytest

from solver.cards.evaluator import evaluate
from solver.evaluation.holdem.baselines import AlwaysCall, AlwaysRaise, EquityThreshold, Uniform
from solver.evaluation.holdem.duplicate import (
    Estimate,
    checked,
    deal,
    decision_uniforms,
    duplicate_match,
    mbb,
    play,
    sample_actions,
    self_play,
)
from solver.evaluation.holdem.policy import TabularPolicy, exact_evaluation
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy


def _exact_match(game: HoldemGame, first: HoldemPolicy, second: HoldemPolicy) -> float:
    """What `first` wins against `second` in mbb/hand, both seats averaged, exactly."""
    as_first = exact_evaluation(game, [first, second]).value
    as_second = -exact_evaluation(game, [second, first]).value
    return (as_first + as_second) / 2 * mbb(game.definition)


def _covers(estimate: Estimate, exact: float) -> bool:
    """`exact` within 1.5 times the 95% half-width (about 2.9 standard errors: a sampled
    estimate misses it one time in 270), so that the checks hold for any seed."""
    return abs(estimate.mean - exact) <= 1.5 * estimate.half_width


def test_interval_is_students_t() -> None:
    estimate = Estimate.of(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    t_975_4 = 2.7764451051977987  # the 97.5% quantile of Student's t with 4 degrees of freedom
    assert estimate.mean == 3.0
    assert estimate.std == pytest.approx(math.sqrt(2.5))
    assert estimate.half_width == pytest.approx(t_975_4 * math.sqrt(2.5) / math.sqrt(5))
    assert Estimate.of(np.array([1.0, 3.0]), scale=10).mean == 20.0
    with pytest.raises(ValueError, match="two samples"):
        Estimate.of(np.array([1.0]))


def test_deals_are_uniform_and_valued(mini: HoldemGame) -> None:
    rules = mini.definition
    deals = deal(rules, 4000, seed=5)
    cards = np.concatenate([deals.holes.reshape(len(deals), -1), deals.boards], axis=1)
    assert cards.shape == (4000, 5)
    assert all(len(set(row)) == 5 for row in cards.tolist())
    counts = np.bincount(cards.ravel(), minlength=8) / cards.size
    np.testing.assert_allclose(counts, 1 / 8, atol=0.01)
    for i in range(50):
        for seat in (0, 1):
            hand = tuple(deals.holes[i, seat]) + tuple(deals.boards[i])
            assert deals.values[i, seat] == evaluate(hand, rules.deck)
    again = deal(rules, 4000, seed=5)
    np.testing.assert_array_equal(again.holes, deals.holes)


def test_sample_actions_never_takes_an_impossible_action() -> None:
    rng = np.random.default_rng(1)
    probabilities = np.tile([0.25, 0.75, 0.0], (20_000, 1))
    actions = sample_actions(probabilities, rng.random(20_000))
    assert set(actions.tolist()) == {0, 1}
    assert (actions == 1).mean() == pytest.approx(0.75, abs=0.01)
    edge = sample_actions(np.array([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]]), np.array([1.0, 1.0]))
    assert edge.tolist() == [1, 1]


def test_checked_refuses_illegal_answers(mini: HoldemGame) -> None:
    class Folder:
        name = "folder"

        def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                                 holes: np.ndarray) -> np.ndarray:
            return np.tile([1.0, 0.0, 0.0], (len(holes), 1))

    start = Betting.start(mini.definition)
    checked(Folder(), start, (), np.array([[0, 1]]))  # facing the big blind, folding is legal
    unopened = start.apply(1).apply(1)
    with pytest.raises(ValueError, match=r"folder .* legal actions \(1, 2\)"):
        checked(Folder(), unopened, (5,), np.array([[0, 1]]))


@pytest.mark.parametrize("policy", [AlwaysCall(), AlwaysRaise(), Uniform()],
                         ids=lambda p: p.name)
@pytest.mark.slow
def test_a_policy_against_itself_scores_zero_on_every_deal(
        mini: HoldemGame, policy: HoldemPolicy) -> None:
    """The two games of a deal draw the same numbers seat by seat, so a policy against itself
    plays them identically, mixed (uniform) or not."""
    deals = deal(mini.definition, 3000, seed=2)
    uniforms = decision_uniforms(mini.definition, 3000, np.random.default_rng(0))
    as_first = play(mini, (policy, policy), deals, uniforms)
    as_second = -play(mini, (policy, policy), deals, uniforms)
    assert np.abs(as_first).sum() > 0  # the hands themselves are not all draws
    np.testing.assert_array_equal(as_first + as_second, 0.0)
    result = duplicate_match(mini, policy, policy, 3000, seed=2)
    assert result.estimate.mean == 0.0 and result.estimate.half_width == 0.0


@pytest.mark.slow
def test_the_solved_strategy_and_equity_against_themselves_score_zero(
        mini: HoldemGame, solved: TabularPolicy, equity: EquityThreshold) -> None:
    for policy in (solved, equity):
        result = duplicate_match(mini, policy, policy, 3000, seed=4)
        assert result.estimate.mean == 0.0 and result.estimate.half_width == 0.0


def test_common_random_numbers_follow_the_policies(mini: HoldemGame) -> None:
    """Each game alone is sampled as the policy plays: uniform's first action as the small
    blind (fold, call, raise a third each) has the right frequencies in the second game too."""
    deals = deal(mini.definition, 30_000, seed=9)
    uniforms = decision_uniforms(mini.definition, 30_000, np.random.default_rng(1))
    first = sample_actions(np.full((30_000, 3), 1 / 3), uniforms[:, 1, 0])
    np.testing.assert_allclose(np.bincount(first) / 30_000, 1 / 3, atol=0.01)
    returns = play(mini, (AlwaysCall(), Uniform()), deals, uniforms)
    folds = (returns == 1).mean()  # the small blind folds and loses its 1 chip... to seat 0
    assert folds == pytest.approx(1 / 3, abs=0.01)


def test_always_raise_against_always_call_is_zero_on_every_hulhe_deal(
        hulhe: HoldemGame) -> None:
    """Neither ever folds and both seats reach every cap, so a deal's two games pay the same
    pot in opposite directions."""
    result = duplicate_match(hulhe, AlwaysRaise(), AlwaysCall(), 300, seed=0)
    assert result.estimate.mean == 0.0 and result.estimate.half_width == 0.0
    # The luck terms of the two games cancel too: the same stakes on every street.
    assert result.adjusted.mean == pytest.approx(0.0, abs=1e-9)
    assert result.adjusted.half_width == pytest.approx(0.0, abs=1e-9)


@pytest.mark.slow
def test_matches_are_reproducible(mini: HoldemGame) -> None:
    one = duplicate_match(mini, Uniform(), AlwaysCall(), 2000, seed=7)
    two = duplicate_match(mini, Uniform(), AlwaysCall(), 2000, seed=7)
    other = duplicate_match(mini, Uniform(), AlwaysCall(), 2000, seed=8)
    assert one.estimate == two.estimate
    assert other.estimate != one.estimate


@pytest.mark.slow
def test_duplicate_estimates_cover_the_exact_values(mini: HoldemGame,
                                                    equity: EquityThreshold) -> None:
    pairs: list[tuple[HoldemPolicy, HoldemPolicy]] = [
        (equity, AlwaysCall()), (Uniform(), AlwaysCall()), (equity, Uniform())]
    for first, second in pairs:
        exact = _exact_match(mini, first, second)
        result = duplicate_match(mini, first, second, 20_000, seed=11)
        assert _covers(result.estimate, exact), (first.name, second.name, exact, result)
        assert _covers(result.adjusted, exact), (first.name, second.name, exact, result)
        # Taking the luck out narrows it (to 0.77, 0.34 and 0.80 of the plain interval).
        assert result.adjusted.half_width < 0.85 * result.estimate.half_width
    # The equity bot beats always-call clearly (the exact value is about +590 mbb/hand).
    assert duplicate_match(mini, equity, AlwaysCall(), 20_000, seed=12).estimate.low > 400


def test_self_play_covers_the_exact_value_of_seat_0(mini: HoldemGame,
                                                    solved: TabularPolicy) -> None:
    for policy in (solved, Uniform()):
        exact = exact_evaluation(mini, [policy]).value * mbb(mini.definition)
        estimate = self_play(mini, policy, 20_000, seed=3).estimate
        assert _covers(estimate, exact), (policy.name, exact, estimate)
        assert estimate.half_width < 40
