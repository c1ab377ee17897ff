"""The exact all-in table (`solver.cards.matchups`) against enumerating each pair's boards: on a
20-card deck for a sample of pairs, and on the whole deck for a few, whose boards are also
judged by pokerkit on a sample."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit
from numpy.typing import NDArray
from pokerkit import StandardHighHand

from solver.cards.deck import STANDARD
from solver.cards.evaluator import CARD_BIT, CARD_KEY, rank_state
from solver.cards.matchups import boards, compute, hands, table


@njit(cache=True)
def _enumerated(a: NDArray[np.int64], b: NDArray[np.int64], cards: int) -> int:
    """Sum of +1 / -1 / 0 for `a` against `b` over every board of the rest of `cards`."""
    dead = CARD_BIT[a[0]] | CARD_BIT[a[1]] | CARD_BIT[b[0]] | CARD_BIT[b[1]]
    left = np.array([c for c in range(cards) if CARD_BIT[c] & dead == 0], np.int64)
    key_a, bit_a = CARD_KEY[a[0]] + CARD_KEY[a[1]], CARD_BIT[a[0]] | CARD_BIT[a[1]]
    key_b, bit_b = CARD_KEY[b[0]] + CARD_KEY[b[1]], CARD_BIT[b[0]] | CARD_BIT[b[1]]
    total, n = 0, len(left)
    for i0 in range(n):
        for i1 in range(i0 + 1, n):
            for i2 in range(i1 + 1, n):
                for i3 in range(i2 + 1, n):
                    for i4 in range(i3 + 1, n):
                        key, bits = 0, 0
                        for c in (left[i0], left[i1], left[i2], left[i3], left[i4]):
                            key += CARD_KEY[c]
                            bits |= CARD_BIT[c]
                        ra = rank_state(key + key_a, bits | bit_a)
                        rb = rank_state(key + key_b, bits | bit_b)
                        total += (ra > rb) - (ra < rb)
    return total


def _sample_pairs(pairs: NDArray[np.int64], count: int, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[int, int]] = []
    while len(out) < count:
        a, b = (int(x) for x in rng.choice(len(pairs), 2, replace=False))
        if not set(pairs[a]) & set(pairs[b]):
            out.append((a, b))
    return out


def test_a_small_deck_is_its_boards_enumerated() -> None:
    pairs = hands(5)
    result = compute(5)
    assert boards(5) == 4_368
    assert (result == -result.T).all()
    for a, b in itertools.product(range(len(pairs)), repeat=2):
        if set(pairs[a]) & set(pairs[b]):
            assert result[a, b] == 0
    for a, b in _sample_pairs(pairs, 40, seed=1):
        assert result[a, b] == _enumerated(pairs[a], pairs[b], 20)


@pytest.mark.slow
def test_the_whole_deck_is_its_boards_enumerated_and_pokerkit_agrees() -> None:
    """The table on 52 cards (a minute or more the first time, then cached): a few pairs enumerated,
    and pokerkit's verdict on a sample of their boards the same as our evaluator's."""
    pairs, result = hands(), table()
    assert result.shape == (1_326, 1_326) and (result == -result.T).all()
    rng = np.random.default_rng(2)
    for a, b in _sample_pairs(pairs, 3, seed=3):
        assert result[a, b] == _enumerated(pairs[a], pairs[b], 52)
        left = [c for c in range(52) if c not in set(pairs[a]) | set(pairs[b])]
        for _ in range(200):
            board = [int(c) for c in rng.choice(left, 5, replace=False)]
            ours = _enumerated_one(pairs[a], pairs[b], board)
            theirs = [StandardHighHand.from_game(STANDARD.names(hole), STANDARD.names(board))
                      for hole in (pairs[a], pairs[b])]
            assert ours == (theirs[0] > theirs[1]) - (theirs[0] < theirs[1])
    aces, kings = (int(np.flatnonzero((pairs == pair).all(axis=1))[0])
                   for pair in ([48, 49], [44, 45]))
    # AcAd against KcKd: about 82 % of boards won and 17 % lost.
    assert result[aces, kings] == _enumerated(pairs[aces], pairs[kings], 52) == 1_117_676
    assert 0.64 < result[aces, kings] / boards() < 0.66


def _enumerated_one(a: NDArray[np.int64], b: NDArray[np.int64], board: list[int]) -> int:
    key = int(sum(CARD_KEY[c] for c in board))
    bits = int(np.bitwise_or.reduce(CARD_BIT[board]))
    ra = rank_state(key + int(CARD_KEY[a].sum()), bits | int(CARD_BIT[a[0]] | CARD_BIT[a[1]]))
    rb = rank_state(key + int(CARD_KEY[b].sum()), bits | int(CARD_BIT[b[0]] | CARD_BIT[b[1]]))
    return (ra > rb) - (ra < rb)

