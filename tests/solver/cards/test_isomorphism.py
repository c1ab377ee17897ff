from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest
from numpy.typing import NDArray

from solver.cards.deck import STANDARD, Deck
from solver.cards.isomorphism import HandIndexer
from tests.solver.cards.hands import random_hands

HOLDEM = {(2,): 169, (2, 3): 1_286_792, (2, 4): 13_960_050, (2, 5): 123_156_254}
SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))))


@pytest.mark.parametrize(("rounds", "size"), [
    *HOLDEM.items(),
    ((2, 3, 1, 1), 2_428_287_420),  # flop, turn and river apart: Waugh's figure
    ((3,), 1_755), ((4,), 16_432), ((5,), 134_459),  # boards alone
])
def test_number_of_classes(rounds: tuple[int, ...], size: int) -> None:
    assert HandIndexer(rounds).size == size


def _sample(indexer: HandIndexer, n: int, seed: int) -> NDArray[np.int64]:
    """Random indices, plus the first and last of every configuration."""
    offsets = indexer.tables.config_offset
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.integers(0, indexer.size, n), offsets[:-1], offsets[1:] - 1])


@pytest.mark.parametrize("rounds", [*HOLDEM, (2, 3, 1, 1)])
def test_index_of_the_representative_is_the_index(rounds: tuple[int, ...]) -> None:
    indexer = HandIndexer(rounds)
    indices = _sample(indexer, 200_000, seed=len(rounds))
    deals = indexer.unindex_many(indices)
    assert (indexer.index_many(deals) == indices).all()
    starts = np.cumsum((0, *rounds))
    for deal in deals[:1000]:
        assert len(set(deal)) == len(deal)
        for a, b in itertools.pairwise(starts):
            assert (np.diff(deal[a:b]) > 0).all()  # ascending within each round


@pytest.mark.parametrize("rounds", [*HOLDEM, (2, 3, 1, 1)])
def test_index_ignores_suit_names_and_order_within_a_round(rounds: tuple[int, ...]) -> None:
    indexer = HandIndexer(rounds)
    rng = np.random.default_rng(7)
    deals = random_hands(20_000, sum(rounds), seed=5)
    expected = indexer.index_many(deals)
    assert expected.min() >= 0 and expected.max() < indexer.size
    for permutation in SUIT_PERMUTATIONS:
        renamed = (deals >> 2 << 2) | permutation[deals & 3]
        start = 0
        for n in rounds:  # shuffle the cards inside each round too
            renamed[:, start : start + n] = rng.permuted(renamed[:, start : start + n], axis=1)
            start += n
        assert (indexer.index_many(renamed) == expected).all()


def test_different_classes_get_different_indices() -> None:
    # The representative of a deal's class is the deal with its suits renamed.
    indexer = HandIndexer((2, 5))
    deals = random_hands(5_000, 7, seed=9)
    representatives = indexer.unindex_many(indexer.index_many(deals))

    def canonical(deal: NDArray[np.int64]) -> tuple[tuple[int, ...], ...]:
        renamed = (deal >> 2 << 2) | SUIT_PERMUTATIONS[:, deal & 3]
        return min((tuple(sorted(r[:2])), tuple(sorted(r[2:]))) for r in renamed)

    for deal, representative in zip(deals, representatives, strict=True):
        assert canonical(deal) == canonical(representative)


def test_preflop_classes() -> None:
    indexer = HandIndexer((2,))
    kinds = {"pair": 0, "suited": 0, "offsuit": 0}
    for index in range(indexer.size):
        a, b = indexer.unindex(index)
        kind = "pair" if a >> 2 == b >> 2 else "suited" if a & 3 == b & 3 else "offsuit"
        kinds[kind] += 1
    assert kinds == {"pair": 13, "suited": 78, "offsuit": 78}
    assert indexer.index("AsAd") == indexer.index("AcAh") != indexer.index("AsKs")
    assert indexer.index("AsKs") == indexer.index("KhAh") != indexer.index("AsKd")
    assert STANDARD.names(indexer.unindex(indexer.index("7h2d"))) in ("2c7d", "2d7c")


def _deals(cards: set[int], rounds: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], ...]]:
    if not rounds:
        yield ()
        return
    for dealt in itertools.combinations(sorted(cards), rounds[0]):
        for rest in _deals(cards - set(dealt), rounds[1:]):
            yield (dealt, *rest)


@pytest.mark.parametrize(("ranks", "suits", "rounds"), [
    (4, 2, (2,)), (4, 2, (2, 1)), (3, 3, (2, 2)), (5, 4, (2, 2)), (4, 4, (1, 2, 1)),
    (6, 3, (2, 3)), (3, 4, (2, 3)), (13, 1, (2, 3)), (3, 4, (1, 1, 1, 1)),
])
@pytest.mark.slow
def test_small_decks_against_brute_force(ranks: int, suits: int,
                                         rounds: tuple[int, ...]) -> None:
    # Every deal; its class by brute force is the least deal over all renamings of the suits.
    deck = Deck(ranks, suits)
    indexer = HandIndexer(rounds, deck)
    renamings = list(itertools.permutations(range(suits)))
    index_of_class: dict[tuple[tuple[int, ...], ...], int] = {}
    for deal in _deals(set(range(deck.num_cards)), rounds):
        canonical = min(tuple(tuple(sorted(c - c % suits + p[c % suits] for c in r))
                              for r in deal) for p in renamings)
        index = indexer.index([c for r in deal for c in r])
        assert index_of_class.setdefault(canonical, index) == index
    assert sorted(index_of_class.values()) == list(range(indexer.size))
    for index in range(indexer.size):
        assert indexer.index(indexer.unindex(index)) == index


def test_bad_input() -> None:
    indexer = HandIndexer((2, 3))
    for cards in ([0, 1, 2, 3], [0, 1, 2, 3, 3], [0, 1, 2, 3, 52]):
        with pytest.raises(ValueError):
            indexer.index(cards)
    for index in (-1, indexer.size):
        with pytest.raises(ValueError):
            indexer.unindex(index)
    with pytest.raises(ValueError):
        indexer.index_many(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        HandIndexer((2, 5, 1, 1, 1))
    with pytest.raises(ValueError):
        HandIndexer((5, 5), Deck(2, 4))
