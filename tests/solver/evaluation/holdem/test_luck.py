"""The luck terms of a hand (`solver.evaluation.holdem.luck`): check-down values against a
brute-force showdown, and every term's mean zero over what could have happened."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver.cards.evaluator import evaluate
from solver.evaluation.holdem.luck import CheckDownLuck
from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting
from solver.games.holdem.game import HoldemGame


def _luck(mini: HoldemGame, seat: int, cards: list[int]) -> CheckDownLuck:
    return CheckDownLuck(mini.definition, seat, np.array(cards[:2]), np.array(cards[2:4]),
                         np.random.default_rng(0))


def test_check_down_values_by_brute_force(mini: HoldemGame) -> None:
    """Equity over every board card still to come; a fold pays the stakes; a called river is
    the larger stake won or lost."""
    deck = mini.definition.deck
    rng = np.random.default_rng(1)
    for _ in range(20):
        cards = rng.permutation(8).tolist()
        luck = _luck(mini, 0, cards)
        mine, theirs = tuple(cards[:2]), tuple(cards[2:4])
        wins = [(evaluate(mine + (c,), deck) > evaluate(theirs + (c,), deck))
                + 0.5 * (evaluate(mine + (c,), deck) == evaluate(theirs + (c,), deck))
                for c in cards[4:]]
        assert luck.equity(np.zeros(0, np.int64)) == pytest.approx(np.mean(wins))
        river = Betting.start(mini.definition).apply(CALL).apply(CALL).apply(RAISE)
        board = np.array(cards[4:5])
        share = luck.equity(board)
        assert share == wins[0]
        assert luck.value(river, board) == pytest.approx(max(river.spent) * (2 * share - 1))
        # Seat 0 raised: if seat 1 folds, seat 0 wins what seat 1 put in; a call matches it.
        assert river.player == 1 and river.spent[0] > river.spent[1]
        assert luck.value(river.apply(FOLD), board) == river.spent[1]
        assert luck.value(river.apply(CALL), board) == pytest.approx(
            river.spent[0] * (2 * share - 1))


def test_the_hole_cards_luck_is_zero_over_every_deal(mini: HoldemGame) -> None:
    start = Betting.start(mini.definition)
    total = [_luck(mini, 0, list(a + b)).holes(start)
             for a in itertools.combinations(range(8), 2)
             for b in itertools.combinations(sorted(set(range(8)) - set(a)), 2)]
    assert len(total) == 28 * 15
    assert max(map(abs, total)) > 0.5
    assert np.mean(total) == pytest.approx(0.0, abs=1e-12)


def test_a_board_cards_and_an_actions_luck_are_zero_on_average(mini: HoldemGame) -> None:
    """Over the cards that could come (all equally likely) and over the bot's actions (at its
    probabilities) each term averages to exactly zero, and is not zero itself."""
    rules = mini.definition
    river = Betting.start(rules).apply(RAISE).apply(CALL)
    rng = np.random.default_rng(2)
    for _ in range(10):
        cards = rng.permutation(8).tolist()
        luck = _luck(mini, int(rng.integers(2)), cards)
        terms = [luck.cards(river, np.zeros(0, np.int64), np.array([c])) for c in cards[4:]]
        assert np.mean(terms) == pytest.approx(0.0, abs=1e-12)
        board = np.array(cards[4:5])
        facing = river.apply(RAISE)
        probabilities = rng.dirichlet(np.ones(3))
        terms = [luck.action(facing, board, (FOLD, CALL, RAISE), probabilities, a)
                 for a in (FOLD, CALL, RAISE)]
        assert float(probabilities @ terms) == pytest.approx(0.0, abs=1e-12)
        assert max(map(abs, terms)) > 0
