"""Distribution-aware buckets: hands clustered by their histogram of equity to come.

E[HS²] ranks a hand by one number, so a steady medium hand and a draw that ends strong or weak
can share a bucket.  Johanson, Burch, Valenzano & Bowling (2013) cluster instead each hand's
*histogram* of equity over the cards still to come, by k-means under the earth mover's
distance, and measured that this beats E[HS²] buckets of the same size.  Here a hand class of a
round that is not the last gets the histogram of the next round's E[HS] over every next board
card (on the round before the last, that is its equity once the board is complete), in `BINS`
equal bins of [0, 1].  The counts come from one numba pass over the round's classes (HULHE's
turn: 14 million classes times 46 river cards, about a minute on two cores), kept as bytes.

Between two histograms on a line the earth mover's distance is the L1 distance of their
cumulative distributions.  The clustering is scikit-learn's `MiniBatchKMeans` on those
cumulative vectors, each class weighted by the deals it holds: a well-kept, tested k-means that
takes sample weights and scales to millions of points in mini-batches; it minimises the squared
L2 distance of the cumulative vectors (the Cramér distance, EMD's L2 sibling), so the buckets
are EMD-like clusters rather than exact EMD k-medians.  A round of more than `FIT_SAMPLE`
classes is fitted on that many classes drawn by their weight (each then weighing the same),
and every class is then assigned to its nearest centre, in blocks.  The centres are numbered by
their mean equity, weakest first, and the seed is fixed, so a descriptor always yields the same
buckets.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from solver.cards.isomorphism import IndexerTables, index_hand, unindex_hand
from solver.cards.strength import MAX_THREADS, Streets, StrengthTables

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
BINS = 20
SEED = 20
BATCH = 4096
FIT_SAMPLE = 500_000
"""The most classes k-means is fitted on; a bigger round is sampled by weight."""
ASSIGN_BLOCK = 200_000


@njit(cache=True, parallel=True)
def _histograms(here: IndexerTables, there: IndexerTables, num_cards: int,
                last: NDArray[np.uint16], scale: float, expected: NDArray[np.float32],
                bins: int, start: int, stop: int, out: NDArray[np.uint8]) -> None:
    """Classes ``start .. stop - 1`` of a street: per bin, how many of the next street's cards
    leave the hand's E[HS] in it, read from `expected` (the next street's table) or from `last`
    times `scale` (HS) when the next street is the last (pass an empty `expected`)."""
    size = here.round_start[here.rounds.shape[0]]
    chunk = max(1, min(4096, (stop - start) // 8))
    for c in prange((stop - start + chunk - 1) // chunk):
        deal = np.empty(size + 1, dtype=np.int64)
        seen = np.zeros(num_cards, dtype=np.bool_)
        for i in range(start + c * chunk, min(stop, start + (c + 1) * chunk)):
            unindex_hand(here, i, deal)
            for card in deal[:size]:
                seen[card] = True
            for card in range(num_cards):
                if seen[card]:
                    continue
                deal[size] = card
                index = index_hand(there, deal)
                equity = expected[index, 0] if expected.shape[0] else last[index] * scale
                out[i, min(int(equity * bins), bins - 1)] += 1
            for card in deal[:size]:
                seen[card] = False


def histogram_counts(streets: Streets, tables: StrengthTables, street: int,
                     bins: int = BINS, start: int = 0, stop: int | None = None
                     ) -> NDArray[np.uint8]:
    """Per class ``start .. stop - 1`` of `street` (not the last): how many of the next
    street's cards leave it with an E[HS] in each of `bins` equal bins of [0, 1]."""
    if not 1 <= street < streets.last:
        raise ValueError(f"histograms are of the streets before the last, not {street}")
    if streets.board[street] != 1:
        raise ValueError("equity histograms are built for rounds that deal one card")
    here = streets.indexer(street)
    there = streets.indexer(street + 1)
    stop = here.size if stop is None else stop
    out = np.zeros((here.size, bins), np.uint8)
    following = (tables.expected[street + 1] if street + 1 < streets.last
                 else np.empty((0, 2), np.float32))
    previous = numba.get_num_threads()
    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # (not in the stubs)
    numba.set_num_threads(max(1, min(MAX_THREADS, most)))
    try:
        _histograms(here.tables, there.tables, streets.deck.num_cards, tables.last,
                    1.0 / (2 * streets.opponents), np.asarray(following), bins, start, stop,
                    out)
    finally:
        numba.set_num_threads(previous)
    return out[start:stop]


def equity_histograms(streets: Streets, tables: StrengthTables, street: int,
                      bins: int = BINS) -> FloatArray:
    """Per class of `street` (not the last): the share of the next street's cards that leave
    it with an E[HS] in each of `bins` equal bins of [0, 1]."""
    counts: FloatArray = histogram_counts(streets, tables, street, bins).astype(np.float64)
    counts /= counts.sum(axis=1, keepdims=True)
    return counts


def histogram_buckets(histograms: NDArray[np.floating] | NDArray[np.integer],
                      weight: FloatArray, k: int | None, seed: int = SEED) -> IntArray:
    """Each class's bucket, 0 (the weakest centre by mean equity) to ``k - 1``: k-means of the
    cumulative histograms (rows of counts or of shares: each is made a distribution), classes
    weighted by `weight`; every class apart when `k` is None or at least the number of
    classes."""
    n, bins = histograms.shape
    if k is None or k >= n:
        means = _cumulative(histograms).sum(axis=1)  # the larger, the weaker
        return np.argsort(np.argsort(-means, kind="stable"), kind="stable").astype(np.int64)
    if n > FIT_SAMPLE:
        rng = np.random.default_rng(seed)
        drawn = rng.choice(n, FIT_SAMPLE, replace=True, p=weight / weight.sum())
        fit_rows, fit_weight = _cumulative(histograms[drawn]), None
    else:
        fit_rows, fit_weight = _cumulative(histograms), weight
    from sklearn.cluster import MiniBatchKMeans  # seconds to import: only a build clusters
    fit = MiniBatchKMeans(n_clusters=k, random_state=seed, batch_size=BATCH, n_init=3,
                          max_iter=200).fit(fit_rows, sample_weight=fit_weight)
    labels = (np.asarray(fit.labels_, np.int64) if n <= FIT_SAMPLE else
              np.concatenate([fit.predict(_cumulative(histograms[s:s + ASSIGN_BLOCK]))
                              for s in range(0, n, ASSIGN_BLOCK)]).astype(np.int64))
    # A centre's mean equity, from its cumulative histogram (bins of width 1 / bins).
    centre_means = bins - np.asarray(fit.cluster_centers_).sum(axis=1)
    rank = np.empty(k, np.int64)
    rank[np.argsort(centre_means, kind="stable")] = np.arange(k)
    return rank[labels]


def _cumulative(rows: NDArray[np.floating] | NDArray[np.integer]) -> NDArray[np.float32]:
    shares = rows.astype(np.float32)
    shares /= shares.sum(axis=1, keepdims=True)
    return np.cumsum(shares, axis=1)
