"""Hands bucketed by E[HS²] percentile or by their equity histograms, with imperfect recall: the
card abstractions of the sampled hold'em solvers (`solver.abstractions.holdem.sampled_cfr`),
registered as the abstraction kinds ``ehs2`` and ``hist``.

In every round a hand is the canonical class of its hole cards and the board so far as one set
(`solver.cards.strength.Streets.indexer`).  The first round keeps every class (169 in hold'em,
lossless); each later round cuts its classes into ``k`` buckets of about equal *probability*
by E[HS²] (`solver.cards.strength`), or keeps them all (``k`` given as ``all``).  A bucket does
not remember the earlier ones (imperfect recall): what it forgets is what lets a river bucket be
fine without multiplying by the flop's and the turn's, and the key still holds the whole
betting.

Kind ``hist`` cuts every round before the last by the class's histogram of equity over the next
card instead (k-means, `solver.abstractions.holdem.histograms`: distribution-aware buckets, which
tell a draw from a steady hand of the same E[HS²]), and the last round by the same percentiles.

Percentiles are of the deals, not of the classes (a class of 24 suit-renamings weighs 24 times
one of 1): the cut points are the quantiles of E[HS²] over `SAMPLES` deals drawn uniformly with
a fixed seed, so the same descriptor always yields the same buckets.  On the last round HS² is
a function of the exact count ``2 * wins + ties`` that the strength table holds, so the cut is a
lookup table over those counts.  Each round's bucket of every class is one small-integer array
(123 million bytes on hold'em's river), saved in the disk cache and memory-mapped, so solver
processes share it.

The strategy of an abstract information set is stored under ``<bucket>|<betting>``: the
bucket written ``AKs`` (first round, the class's name) or ``r2:17`` (round 2's bucket 17), then
each round's betting as ACPC writes it, separated by ``|`` (``r3:5|rc|crc|c|r``).  Any table of
per-round bucket codes over those same canonical classes (helper branches build others) can
stand in for these: the solver reads only `RoundBuckets`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.abstractions.holdem import histograms
from solver.abstractions.holdem.buckets import (
    abstract_key,
    bucket_counts,
    class_weights,
    preflop_name,
)
from solver.abstractions.holdem.histograms import histogram_buckets, histogram_counts
from solver.abstractions.words import AbstractionText
from solver.cards import cache as disk
from solver.cards import isomorphism
from solver.cards import strength as strength_module
from solver.cards.isomorphism import HandIndexer, IndexerTables, index_hand
from solver.cards.strength import Streets, ehs_tables
from solver.engine.progress import progress_bar
from solver.games.base import Game, State
from solver.games.holdem.game import HoldemState
from solver.games.holdem.rules import HoldemRules

IntArray = NDArray[np.int64]
KIND = "ehs2"
HIST_KIND = "hist"
METRICS = (KIND, HIST_KIND)
HIST_BINS = 30
"""Bins of a ``hist`` round's equity histograms."""
SAMPLES = 2_000_000
"""Deals drawn per round to place the percentiles (the quantiles' error is ~1/sqrt of it)."""
SEED = 20261123


@dataclass(frozen=True, slots=True)
class PercentileSpec:
    """Buckets per round after the first (None: every class apart, which is lossless)."""

    k: tuple[int | None, ...]
    metric: str = KIND
    """How the rounds before the last are cut: ``ehs2`` (percentiles) or ``hist``."""

    def __post_init__(self) -> None:
        if any(k is not None and not 1 <= k <= 65535 for k in self.k):
            raise ValueError(f"a round has 1 to 65535 buckets, or 'all': {self.k}")
        if self.metric not in METRICS:
            raise ValueError(f"rounds are cut by {' or '.join(METRICS)}, not {self.metric!r}")

    @property
    def descriptor(self) -> str:
        return f"{self.metric}=k:" + ",".join("all" if k is None else str(k) for k in self.k)

    @classmethod
    def parse(cls, parameters: str, metric: str = KIND) -> PercentileSpec:
        """The spec of a descriptor's parameters: ``k:64,64,64`` (``all`` keeps a round's
        classes apart)."""
        name, sep, values = parameters.partition(":")
        if name.strip() != "k" or not sep or not values.strip():
            raise ValueError(f"{metric} buckets take k:K1,K2,... (one per round after the "
                             f"first), not {parameters!r}")
        ks: list[int | None] = []
        for text in values.split(","):
            text = text.strip()
            if text == "all":
                ks.append(None)
            elif text.isdigit():
                ks.append(int(text))
            else:
                raise ValueError(f"a round's k is a positive number or 'all', not {text!r}")
        return cls(tuple(ks), metric)


@dataclass(frozen=True, slots=True, eq=False)
class RoundBuckets:
    """One round's buckets: the indexer of its hands (hole cards, then the board so far as one
    set) and the bucket of each of its classes."""

    indexer: HandIndexer
    codes: NDArray[np.integer]
    count: int  # buckets: codes run over 0 .. count - 1


def check_rules(rules: HoldemRules) -> Streets:
    """The streets of a member the sampled solver handles: two hole cards, no board before the
    first round, board cards in every later round."""
    if rules.hole_cards != 2:
        raise ValueError(f"{rules.spec}: the buckets need two hole cards, not {rules.hole_cards}")
    if rules.board_cards[0] != 0 or 0 in rules.board_cards[1:]:
        raise ValueError(f"{rules.spec}: the buckets need the board dealt after the first round "
                         f"and some of it before each later one, not {rules.board_cards}")
    return Streets(rules.deck, 2, rules.board_cards[1:])


@njit(cache=True)
def _sample_classes(t: IndexerTables, num_cards: int, count: int, samples: int, seed: int,
                    out: IntArray) -> None:
    """The classes of `samples` deals of `count` cards drawn uniformly (hole cards first)."""
    np.random.seed(seed)
    deck = np.arange(num_cards)
    for i in range(samples):
        for j in range(count):  # a partial Fisher-Yates shuffle
            pick = j + np.random.randint(num_cards - j)
            deck[j], deck[pick] = deck[pick], deck[j]
        out[i] = index_hand(t, deck[:count])


def _cache_path(rules: HoldemRules, round_: int, k: int, metric: str = KIND) -> Path:
    if metric == HIST_KIND and round_ < check_rules(rules).last:
        digest = disk.source_digest(__file__, isomorphism.__file__, strength_module.__file__,
                                    histograms.__file__, extra=(
                                        rules.num_ranks, rules.num_suits, rules.board_cards,
                                        round_, k, HIST_BINS))
        return disk.cache_dir() / f"hist-buckets-{digest}.npy"
    digest = disk.source_digest(__file__, isomorphism.__file__, strength_module.__file__,
                                extra=(rules.num_ranks, rules.num_suits, rules.board_cards,
                                       round_, k, SAMPLES, SEED))
    return disk.cache_dir() / f"ehs2-buckets-{digest}.npy"


def _histogram_codes(streets: Streets, round_: int, k: int) -> NDArray[np.integer]:
    counts = histogram_counts(streets, ehs_tables(streets, progress=False), round_, HIST_BINS)
    weights = class_weights(streets.indexer(round_)).astype(np.float64)
    codes = histogram_buckets(counts, weights, k)
    return codes.astype(np.uint8 if k <= 256 else np.uint16)


def _percentile_codes(rules: HoldemRules, streets: Streets, round_: int, k: int
                      ) -> NDArray[np.integer]:
    tables = ehs_tables(streets, progress=False)
    indexer = streets.indexer(round_)
    drawn = np.empty(SAMPLES, np.int64)
    _sample_classes(indexer.tables, rules.num_cards, indexer.num_cards, SAMPLES,
                    SEED + round_, drawn)
    dtype = np.uint8 if k <= 256 else np.uint16
    quantiles = np.arange(1, k) / k
    if round_ == streets.last:  # HS² rises with the exact count: cut the counts
        last = np.asarray(tables.last)
        cuts = np.quantile(last[drawn].astype(np.float64), quantiles, method="inverted_cdf")
        lookup = np.searchsorted(cuts, np.arange(2 * streets.opponents + 1), side="right")
        return cast(NDArray[np.integer], lookup.astype(dtype)[last])
    values = np.asarray(tables.expected[round_][:, 1])
    cuts = np.quantile(values[drawn].astype(np.float64), quantiles, method="inverted_cdf")
    return np.searchsorted(cuts, values, side="right").astype(dtype)


def round_codes(rules: HoldemRules, round_: int, k: int | None, metric: str = KIND
                ) -> NDArray[np.integer]:
    """The bucket of every class of round `round_`: the class itself when `k` is None, else
    its bucket by `metric` (E[HS²] percentiles on the last round whatever the metric), from
    the disk cache or computed (and saved)."""
    streets = check_rules(rules)
    indexer = streets.indexer(round_)
    if k is None:
        return np.arange(indexer.size, dtype=np.int64)
    path = _cache_path(rules, round_, k, metric)
    loaded = disk.load(path, mmap=True)
    if loaded is not None and loaded.shape == (indexer.size,) and loaded.dtype.kind == "u":
        return cast(NDArray[np.integer], loaded)
    codes = (_histogram_codes(streets, round_, k) if metric == HIST_KIND and round_ < streets.last
             else _percentile_codes(rules, streets, round_, k))
    with contextlib.suppress(OSError):
        disk.save_atomic(path, codes)
    return codes


def round_bucket_counts(rules: HoldemRules, spec: PercentileSpec) -> tuple[int, ...]:
    """How many buckets each round has under `spec` (the first round's classes, then ``k``,
    or every class apart where ``k`` is None), known without making the buckets: what a
    table's size and a dry run's plan need."""
    streets = check_rules(rules)
    if len(spec.k) != rules.num_rounds - 1:
        raise ValueError(f"{rules.spec} has {rules.num_rounds} rounds: k needs "
                         f"{rules.num_rounds - 1} entries (one per round after the first), "
                         f"not {len(spec.k)}")
    return tuple(streets.indexer(r).size if k is None else k
                 for r, k in enumerate((None, *spec.k)))


@cache
def round_buckets(rules: HoldemRules, spec: PercentileSpec) -> tuple[RoundBuckets, ...]:
    """Every round's buckets under `spec` (the first round's classes, then ``k`` per round)."""
    streets = check_rules(rules)
    counts = round_bucket_counts(rules, spec)
    out = []
    # Reported to a background build's status and log only: minutes the first time, then
    # read from the cache at once.
    with progress_bar(total=rules.num_rounds, desc="hand buckets", unit="round",
                      disable=True) as bar:
        for r in range(rules.num_rounds):
            k = None if r == 0 else spec.k[r - 1]
            indexer = streets.indexer(r)
            codes = round_codes(rules, r, k, spec.metric)
            out.append(RoundBuckets(indexer, codes, counts[r]))
            bar.update(1)
    return tuple(out)


@cache
def first_round_names(rules: HoldemRules) -> tuple[str, ...]:
    """How keys write the first round's classes (`preflop_name`, by class index)."""
    indexer = check_rules(rules).indexer(0)
    reps = indexer.unindex_many(np.arange(indexer.size))
    return tuple(preflop_name(tuple(int(c) for c in row), rules.num_suits) for row in reps)


def bucket_text(rules: HoldemRules, round_: int, code: int) -> str:
    return first_round_names(rules)[code] if round_ == 0 else f"r{round_}:{code}"


def hand_codes(rules: HoldemRules, spec: PercentileSpec, round_: int, holes: IntArray,
               board: Sequence[int]) -> IntArray:
    """The buckets in round `round_` of the rows of `holes` (hole cards) with `board` (the
    board dealt so far, in the order dealt)."""
    holes = np.asarray(holes, np.int64).reshape(-1, 2)
    need = rules.board_dealt(round_)
    if len(board) < need:
        raise ValueError(f"round {round_} needs {need} board cards, not {len(board)}")
    cards = np.array(board[:need], np.int64)
    return deal_codes(rules, spec, round_,
                      np.hstack([holes, np.broadcast_to(cards, (len(holes), need))]))


def deal_codes(rules: HoldemRules, spec: PercentileSpec, round_: int, deals: IntArray
               ) -> IntArray:
    """The buckets in round `round_` of `deals`, rows of hole cards then the board dealt by
    then (each row its own board)."""
    info = round_buckets(rules, spec)[round_]
    return np.asarray(info.codes[info.indexer.index_many(deals)], np.int64)


class Percentiles:
    """The `solver.abstractions.Abstraction` of a hold'em member under a `PercentileSpec`."""

    def __init__(self, rules: HoldemRules, spec: PercentileSpec) -> None:
        check_rules(rules)
        self.rules = rules
        self.spec = spec
        self.descriptor = spec.descriptor

    def __repr__(self) -> str:
        return f"Percentiles({self.descriptor!r})"

    def strategy_key(self, state: State, player: int) -> str:
        if not isinstance(state, HoldemState) or state.game.definition != self.rules:
            raise ValueError(f"not a position of {self.rules.spec}")
        round_ = state.betting.round
        hole = np.array([state.hole(player)], np.int64)
        code = int(hand_codes(self.rules, self.spec, round_, hole, state.board())[0])
        return abstract_key(bucket_text(self.rules, round_, code), state.betting.rounds)


def parse_percentiles(game: Game, parameters: str, metric: str = KIND) -> Percentiles:
    rules = getattr(game, "definition", None)
    if not isinstance(rules, HoldemRules):
        raise ValueError(f"{metric} buckets are for the hold'em family, not {game.name!r}")
    return Percentiles(rules, PercentileSpec.parse(parameters, metric))


def parse_histograms(game: Game, parameters: str) -> Percentiles:
    return parse_percentiles(game, parameters, HIST_KIND)


def table_spec(descriptor: str) -> PercentileSpec:
    """The spec of a stored table solve's descriptor (``ehs2=k:...`` or ``hist=k:...``)."""
    kind, _, parameters = descriptor.partition("=")
    if kind not in METRICS:
        raise ValueError(f"a table solve's buckets are {' or '.join(METRICS)}, not "
                         f"{descriptor!r}")
    return PercentileSpec.parse(parameters, kind)


MEASURED = {
    "ehs2=k:128,128,128": "Its exploitability cannot be computed exactly. Local best response "
                          "(LBR), which gives a lower bound on it, won 221 ± 31 mbb/hand "
                          "against a build of this abstraction (100 million deals in 26.5 "
                          "minutes; docs/games/holdem.md).",
    "hist=k:1024,1024,1024": "Its exploitability cannot be computed exactly. Local best "
                             "response (LBR), which gives a lower bound on it, won 102 ± 32 "
                             "mbb/hand against the default build (37,600 boards in 50 "
                             "minutes), where it won 221 ± 31 against the earlier bot of 128 "
                             "E[HS²] buckets a round (docs/games/holdem.md).",
}
"""What was measured offline of a stored abstraction (`python -m solver.resolving.measure`)."""


def describe_percentiles(parameters: str, metric: str = KIND) -> AbstractionText:
    spec = PercentileSpec.parse(parameters, metric)
    similar = ("of hands of similar strength" if metric == KIND else
               "of hands whose chances on the next card are alike (on the river, of similar "
               "strength)")
    what = (f"an abstract game with the real betting, in which a hand is known before the "
            f"board by its class (pairs, suited or not) and on each later round only by its "
            f"bucket {similar} ({bucket_counts(spec.k)}), forgetting the earlier rounds' "
            f"buckets")
    return AbstractionText(what, MEASURED.get(
        spec.descriptor, "Its exploitability cannot be computed exactly and was not measured."),
        f"hands grouped by how strong they are ({bucket_counts(spec.k)}) rather than told "
        "apart card by card")


def describe_histograms(parameters: str) -> AbstractionText:
    return describe_percentiles(parameters, HIST_KIND)


def bucket_sizes(rules: HoldemRules, spec: PercentileSpec) -> list[int]:
    """Buckets per round."""
    return [info.count for info in round_buckets(rules, spec)]

