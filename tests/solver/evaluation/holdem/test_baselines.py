from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver.cards.strength import Streets, ehs
from solver.evaluation.holdem.baselines import (
    BASELINES,
    AlwaysCall,
    AlwaysRaise,
    EquityThreshold,
    Uniform,
    baseline,
)
from solver.evaluation.holdem.policy import exact_evaluation
from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting, walk
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy, hole_combos, legal_mask


def _positions(game: HoldemGame, limit: int) -> list[tuple[Betting, tuple[int, ...]]]:
    rng = np.random.default_rng(0)
    out = []
    for betting in itertools.islice(walk(game.definition), limit):
        if betting.over:
            continue
        dealt = game.definition.board_dealt(betting.round)
        board = tuple(int(c) for c in rng.permutation(game.definition.num_cards)[:dealt])
        out.append((betting, board))
    return out


@pytest.mark.parametrize("name", BASELINES)
def test_baselines_are_legal_distributions(mini: HoldemGame, name: str) -> None:
    policy = baseline(name, mini)
    assert isinstance(policy, HoldemPolicy)  # limit baselines answer a column per action
    holes = hole_combos(mini.definition)
    for betting, board in _positions(mini, 10_000):
        rows = policy.action_probabilities(betting, board, holes)
        assert rows.shape == (len(holes), 3)
        np.testing.assert_allclose(rows.sum(axis=1), 1.0)
        assert (rows >= 0).all()
        assert (rows[:, ~legal_mask(betting)] == 0).all()


@pytest.mark.parametrize("policy", [AlwaysCall(), AlwaysRaise(), Uniform()],
                         ids=lambda p: p.name)
def test_simple_baselines_on_hulhe(hulhe: HoldemGame, policy: HoldemPolicy) -> None:
    holes = hole_combos(hulhe.definition)
    for betting, board in _positions(hulhe, 300):
        rows = policy.action_probabilities(betting, board, holes)
        np.testing.assert_allclose(rows.sum(axis=1), 1.0)
        assert (rows[:, ~legal_mask(betting)] == 0).all()


def test_what_the_simple_baselines_do(mini: HoldemGame) -> None:
    start = Betting.start(mini.definition)
    capped = start.apply(RAISE).apply(RAISE).apply(RAISE)
    assert capped.legal_actions() == (FOLD, CALL)
    hand = np.array([[0, 1]])
    assert AlwaysCall().action_probabilities(start, (), hand).tolist() == [[0, 1, 0]]
    assert AlwaysRaise().action_probabilities(start, (), hand).tolist() == [[0, 0, 1]]
    assert AlwaysRaise().action_probabilities(capped, (), hand).tolist() == [[0, 1, 0]]
    np.testing.assert_allclose(Uniform().action_probabilities(capped, (), hand), [[0.5, 0.5, 0]])


def test_equity_bot_reads_exact_strength(mini: HoldemGame, equity: EquityThreshold) -> None:
    streets = Streets(mini.definition.deck, 2, (1,))
    holes = hole_combos(mini.definition)
    for board in [(), (5,)]:
        strength = equity.strength(board, holes)
        for hole, value in zip(holes.tolist(), strength, strict=True):
            if set(hole) & set(board):
                assert value == 0.0
            else:
                assert value == pytest.approx(ehs(tuple(hole) + board, streets)[0], abs=1e-6)


def test_equity_bot_follows_its_thresholds(mini: HoldemGame, equity: EquityThreshold) -> None:
    river = Betting.start(mini.definition).apply(CALL).apply(CALL)
    facing = river.apply(RAISE)
    board = (0,)
    holes = hole_combos(mini.definition)
    live = holes[~np.isin(holes, board).any(axis=1)]
    strength = equity.strength(board, live)
    high, low = equity.thresholds(river.round)
    assert (high, low) == (0.80, 0.60)  # the last round plays the river's thresholds
    open_rows = equity.action_probabilities(river, board, live)
    assert (open_rows[strength >= high, RAISE] == 1).all()
    assert (open_rows[strength < high, CALL] == 1).all()
    facing_rows = equity.action_probabilities(facing, board, live)
    assert (facing_rows[strength < low, FOLD] == 1).all()
    assert (facing_rows[(strength >= low) & (strength < high), CALL] == 1).all()
    assert (strength < low).any() and (strength >= high).any()


def test_equity_bot_beats_always_call_exactly(mini: HoldemGame, equity: EquityThreshold) -> None:
    as_first = exact_evaluation(mini, [equity, AlwaysCall()]).value
    as_second = -exact_evaluation(mini, [AlwaysCall(), equity]).value
    assert (as_first + as_second) / 2 > 1.0  # chips a hand: over 500 mbb


def test_equity_bot_needs_two_hole_cards() -> None:
    from solver.games import get_game

    game = get_game("holdem(numRanks=4,numSuits=2,numHoleCards=1,numBoardCards=0 1)")
    assert isinstance(game, HoldemGame)
    with pytest.raises(ValueError, match="two hole cards"):
        EquityThreshold(game)


def test_unknown_baseline_names_the_known_ones(mini: HoldemGame) -> None:
    with pytest.raises(ValueError, match="always-call, always-raise, uniform, equity"):
        baseline("nit", mini)
