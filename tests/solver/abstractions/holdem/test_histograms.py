"""Distribution-aware buckets: each hand's histogram of equity over the next card, exactly, and
k-means of those histograms into buckets numbered weakest first."""

from __future__ import annotations

import numpy as np
import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.buckets import Buckets, BucketSpec, class_weights, hand_buckets
from solver.abstractions.holdem.histograms import equity_histograms, histogram_buckets
from solver.cards.strength import Streets, ehs, ehs_tables
from solver.games import get_game
from solver.games.holdem import HoldemGame

SIXTEEN = "holdem(numRanks=4,numSuits=4,numBoardCards=0 1 1,maxRaises=1 1 1)"


def _streets() -> tuple[HoldemGame, Streets]:
    game = get_game(SIXTEEN)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    return game, Streets(rules.deck, 2, (1, 1))


def test_a_histogram_counts_the_next_cards_by_their_equity() -> None:
    """Every row sums to one; a class's row is what its hand's E[HS] after each next card,
    looked up one by one, puts in each bin."""
    _, streets = _streets()
    tables = ehs_tables(streets, progress=False)
    histograms = equity_histograms(streets, tables, 1, bins=10)
    indexer = streets.indexer(1)
    assert histograms.shape == (indexer.size, 10)
    assert np.allclose(histograms.sum(axis=1), 1.0)
    for index in (0, indexer.size // 2, indexer.size - 1):
        hand = tuple(int(c) for c in indexer.unindex_many(np.array([index]))[0])
        counts = np.zeros(10)
        for card in range(streets.deck.num_cards):
            if card not in hand:
                equity = ehs(hand + (card,), streets, tables)[0]
                counts[min(int(equity * 10), 9)] += 1
        assert np.allclose(histograms[index], counts / counts.sum())


def test_clusters_are_numbered_weakest_first_and_fixed_by_the_seed() -> None:
    rng = np.random.default_rng(0)
    strong = np.zeros((50, 10))
    strong[np.arange(50), rng.integers(7, 10, 50)] = 1.0
    weak = np.zeros((50, 10))
    weak[np.arange(50), rng.integers(0, 3, 50)] = 1.0
    histograms = np.vstack([strong, weak])
    buckets = histogram_buckets(histograms, np.ones(100), 2)
    assert set(buckets[:50].tolist()) == {1} and set(buckets[50:].tolist()) == {0}
    assert np.array_equal(buckets, histogram_buckets(histograms, np.ones(100), 2))
    means = histograms @ np.arange(10)
    apart = histogram_buckets(histograms, np.ones(100), None)
    assert np.array_equal(np.argsort(apart), np.argsort(means, kind="stable"))


def test_the_descriptor_and_the_tables() -> None:
    game, streets = _streets()
    descriptor = "buckets=k:4,4;recall=imperfect;metric=hist"
    abstraction = abstraction_for(game, descriptor)
    assert isinstance(abstraction, Buckets) and abstraction.descriptor == descriptor
    assert BucketSpec.parse("k:4,4;recall=imperfect").metric == "ehs2"
    tables = hand_buckets(game.definition, BucketSpec((4, 4), "imperfect", "hist"))
    assert tables.sizes()[1:] == [4, 4]
    # The histogram round differs from E[HS²]'s percentiles; the last round is the same cut.
    ehs2 = hand_buckets(game.definition, BucketSpec((4, 4), "imperfect"))
    assert not np.array_equal(tables.rounds[1].code, ehs2.rounds[1].code)
    assert np.array_equal(tables.rounds[2].code, ehs2.rounds[2].code)
    weights = class_weights(streets.indexer(1))
    shares = np.bincount(tables.rounds[1].code, weights=weights) / weights.sum()
    assert shares.min() > 0.0
    with pytest.raises(ValueError, match="imperfect recall"):
        BucketSpec((4, 4), "perfect", "hist")
    with pytest.raises(ValueError, match="ehs2 or hist"):
        abstraction_for(game, "buckets=k:4,4;recall=imperfect;metric=emd")
