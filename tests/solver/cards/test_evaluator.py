from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np
import pytest
from numba import njit
from numpy.typing import NDArray
from pokerkit import StandardHighHand, StandardLookup

from solver.cards import evaluator as ev
from solver.cards.deck import STANDARD, Deck
from solver.cards.evaluator import Category, category, evaluate
from tests.solver.cards import universal_poker
from tests.solver.cards.hands import random_hands

# Counts of every 5-card and 7-card hand by category: the textbook frequencies.
FIVE_CARD_COUNTS = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
SEVEN_CARD_COUNTS = [23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848,
                     41584]


def test_examples() -> None:
    assert evaluate("AsKsQsJsTs") == ev.NUM_CLASSES - 1
    assert evaluate("7c5d4h3s2c") == 0
    assert category(evaluate("Ac2d3h4s5c")) == Category.STRAIGHT
    assert evaluate("Ac2d3h4s5c") < evaluate("2d3h4s5c6c")  # the wheel is the lowest straight
    assert evaluate("Ac2c3c4c5c") < evaluate("2d3d4d5d6d")
    assert category(evaluate("Ac2c3c4c5c")) == Category.STRAIGHT_FLUSH
    assert evaluate("AsAdAhKcKd") > evaluate("KsKdKhAcAd")
    assert evaluate("AsAdKhKcQd") > evaluate("AsAdKhKcJd")  # the kicker counts
    assert evaluate("AsAdKhKcQdQh2c") == evaluate("AsAdKhKcQd")  # two of three pairs count
    assert evaluate("2c3c4c5c7c8d9d") > evaluate("AsAdAhKcQdJs9h")  # flush over trips
    assert category(evaluate("AsAdAhKcKdKh2c")) == Category.FULL_HOUSE
    assert category(evaluate("AsAdAhAcKdKhKc")) == Category.QUADS
    assert evaluate(STANDARD.parse_cards("9h8h")) == evaluate([STANDARD.parse("9h"), 26])


def test_bad_input() -> None:
    for cards in ([], [1] * 2, list(range(8)), [52]):
        with pytest.raises(ValueError):
            evaluate(cards)
    with pytest.raises(ValueError):
        evaluate([8], Deck(4, 2))
    assert evaluate("5d4d", Deck(4, 2)) == evaluate("5d4d")
    with pytest.raises(ValueError):
        category(ev.NUM_CLASSES)


@njit(cache=True)
def _all_five() -> NDArray[np.int64]:
    counts = np.zeros(ev.NUM_CLASSES, dtype=np.int64)
    cards = np.empty(5, dtype=np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        cards[0], cards[1], cards[2], cards[3], cards[4] = a, b, c, d, e
                        counts[ev.rank_cards(cards)] += 1
    return counts


@njit(cache=True)
def _all_seven() -> NDArray[np.int64]:
    counts = np.zeros(ev.NUM_CLASSES, dtype=np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        for f in range(e + 1, 52):
                            for g in range(f + 1, 52):
                                counts[ev.rank7(a, b, c, d, e, f, g)] += 1
    return counts


def _by_category(counts: NDArray[np.int64]) -> list[int]:
    start = ev.CATEGORY_START
    return [int(counts[start[c] : start[c + 1]].sum()) for c in range(len(Category))]


def test_every_five_card_hand() -> None:
    counts = _all_five()
    assert _by_category(counts) == FIVE_CARD_COUNTS
    assert np.count_nonzero(counts) == ev.NUM_CLASSES  # every value is some five-card hand


def test_every_seven_card_hand() -> None:
    counts = _all_seven()  # all 133,784,560 of them, in about two seconds
    assert _by_category(counts) == SEVEN_CARD_COUNTS
    assert np.count_nonzero(counts) == 4824  # the known number of distinct 7-card values


def test_incremental_state_equals_whole_hand() -> None:
    hands = random_hands(1000, 7, seed=3)
    for hand in hands:
        board_key = ev.CARD_KEY[hand[2:]].sum()
        board_bits = np.bitwise_or.reduce(ev.CARD_BIT[hand[2:]])
        key = board_key + ev.CARD_KEY[hand[0]] + ev.CARD_KEY[hand[1]]
        bits = board_bits | ev.CARD_BIT[hand[0]] | ev.CARD_BIT[hand[1]]
        assert ev.rank_state(key, bits) == ev.rank7(*hand) == evaluate(hand)


@pytest.mark.parametrize("size", [6, 7])
def test_more_than_five_cards_is_the_best_five(size: int) -> None:
    for hand in random_hands(3000, size, seed=size):
        assert evaluate(hand) == max(evaluate(five) for five in itertools.combinations(hand, 5))


class PokerkitReferee:
    """pokerkit's ranking of 5-card hands, for whole arrays of hands at once.

    pokerkit needs ~240 µs for one 7-card hand (it builds a hand for each of the 21 five-card
    subsets), so a million of them would take four minutes.  Its lookup ranks a five-card hand
    by its ranks and whether it is suited, so asking it once for each of the 7,462 classes gives
    its whole ranking; the test then takes the best of the 21 subsets itself, in numpy."""

    def __init__(self) -> None:
        lookup = StandardLookup()
        self.strength = np.full(13**5 * 2, -1, dtype=np.int64)
        for ranks in itertools.combinations_with_replacement(range(13), 5):
            if max(ranks.count(r) for r in ranks) > 4:
                continue
            seen: dict[int, int] = {}
            cards = []
            for r in ranks:  # repeated ranks take different suits; five distinct ones mix
                suit = seen.get(r, -1) + 1 if len(set(ranks)) < 5 else int(r == ranks[-1])
                seen[r] = suit
                cards.append(r * 4 + suit)
            self.strength[self._key(np.array([ranks]), np.array([False]))] = (
                lookup.get_entry(STANDARD.names(cards)).index)
            if len(set(ranks)) == 5:
                suited = [r * 4 for r in ranks]
                self.strength[self._key(np.array([ranks]), np.array([True]))] = (
                    lookup.get_entry(STANDARD.names(suited)).index)

    @staticmethod
    def _key(sorted_ranks: NDArray[np.int64], suited: NDArray[np.bool_]) -> NDArray[np.int64]:
        code = np.zeros(sorted_ranks.shape[0], dtype=np.int64)
        for column in range(5):
            code = code * 13 + sorted_ranks[:, column]
        return code * 2 + suited

    def best(self, hands: NDArray[np.int64]) -> NDArray[np.int64]:
        """pokerkit's strength of each row: the best of its five-card subsets."""
        best = np.full(hands.shape[0], -1, dtype=np.int64)
        for subset in itertools.combinations(range(hands.shape[1]), 5):
            five = hands[:, subset]
            suits = five & 3
            suited = (suits == suits[:, :1]).all(axis=1)
            strength = self.strength[self._key(np.sort(five >> 2, axis=1), suited)]
            assert (strength >= 0).all()
            best = np.maximum(best, strength)
        return best


@pytest.fixture(scope="module")
def referee() -> PokerkitReferee:
    return PokerkitReferee()


def assert_same_order(ours: NDArray[np.integer], theirs: NDArray[np.integer]) -> None:
    """Both sort the hands the same way and tie the same pairs: after sorting by (ours,
    theirs), each steps up exactly where the other does.  This compares every pair."""
    order = np.lexsort((theirs, ours))
    a, b = np.diff(ours[order].astype(np.int64)), np.diff(theirs[order].astype(np.int64))
    assert (b >= 0).all()
    assert ((a > 0) == (b > 0)).all()


def test_referee_agrees_with_pokerkit_hands(referee: PokerkitReferee) -> None:
    hands = random_hands(1500, 7, seed=11)
    theirs = referee.best(hands)
    order = np.argsort(theirs, kind="stable")
    pokerkit = [StandardHighHand.from_game(STANDARD.names(h[:2]), STANDARD.names(h[2:]))
                for h in hands[order]]
    for i in range(len(order) - 1):
        stronger = theirs[order[i + 1]] > theirs[order[i]]
        assert (pokerkit[i] < pokerkit[i + 1]) == stronger
        assert (pokerkit[i] == pokerkit[i + 1]) == (not stronger)


@pytest.mark.slow
def test_a_million_seven_card_hands_order_like_pokerkit(referee: PokerkitReferee) -> None:
    hands = random_hands(1_000_000, 7, seed=2024)
    assert_same_order(ev.rank_hands(hands), referee.best(hands))


@pytest.mark.parametrize("size", [5, 6])
def test_five_and_six_card_hands_order_like_pokerkit(referee: PokerkitReferee,
                                                     size: int) -> None:
    hands = random_hands(200_000, size, seed=size)
    assert_same_order(ev.rank_hands(hands), referee.best(hands))


def _agrees_with_universal_poker(deck: Deck, hole: int, board: tuple[int, ...],
                                 deals: Sequence[tuple[int, ...]]) -> None:
    game = universal_poker.load(deck.num_ranks, deck.num_suits, hole, board)
    for deal in deals:
        shared = deal[2 * hole :]
        ours = [evaluate([*deal[p * hole : (p + 1) * hole], *shared], deck) for p in (0, 1)]
        returned = universal_poker.showdown(game, deal, hole, board)
        assert np.sign(returned) == np.sign(ours[0] - ours[1]), deck.names(deal, " ")


def test_three_card_hands_of_the_eight_card_deck_rank_like_openspiel() -> None:
    # Two hole cards and one board card from 2c..5d: every deal, in dealing order.
    deck = Deck(num_ranks=4, num_suits=2)
    deals = list(itertools.permutations(range(deck.num_cards), 5))
    _agrees_with_universal_poker(deck, 2, (0, 1), deals)


@pytest.mark.parametrize(("ranks", "suits", "hole", "board"), [
    (6, 3, 2, (0, 1)),  # three cards: trips are possible
    (5, 4, 2, (0, 2)),  # four cards: quads, two pair, four to a flush or straight
    (13, 4, 1, (0, 1)),  # two cards
    (7, 2, 2, (0, 3)),  # five cards of a short deck
    (13, 4, 2, (0, 3, 1, 1)),  # hold'em
])
def test_short_and_small_deck_hands_rank_like_openspiel(ranks: int, suits: int, hole: int,
                                                        board: tuple[int, ...]) -> None:
    deck = Deck(ranks, suits)
    rng = random.Random(ranks * 100 + suits)
    deals = [tuple(rng.sample(range(deck.num_cards), 2 * hole + sum(board)))
             for _ in range(3000)]
    _agrees_with_universal_poker(deck, hole, board, deals)
