"""Hand buckets: the card abstraction of the hold'em family, and its descriptor ``buckets=...``.

A position of the real game is (own hole cards, the board round by round, the betting).  The
abstraction keeps the betting and replaces the cards by a *bucket*:

* the first round is lossless: the hand's class up to suits (169 for 52 cards);
* each later round that deals cards sorts its hands by E[HS²] (`solver.cards.strength`, one
  random opponent hand, the rest of the board averaged over) and cuts them into ``k``
  percentiles of equal weight, a hand weighing as often as it is dealt (the number of deals in
  its class up to suits);
* with ``recall=perfect`` the cut is made inside each bucket of the round before, so the
  bucket remembers the whole sequence (the key writes it: ``32s.5.1``); with
  ``recall=imperfect`` a round's bucket is its own percentile over all the round's hands and
  the earlier ones are forgotten (``*.*.1``).  Imperfect recall merges what perfect recall
  tells apart, for fewer information sets per bucket.

``k`` is given per round after the first (``k:8,8,8`` for hold'em's flop, turn and river);
``all`` keeps every class of a round apart (lossless), as does any ``k`` at least the number of
classes to cut.  A round that deals no card keeps the bucket of the round before (its ``k`` is
ignored).

Keys are ``<buckets>|<betting of each round so far>``: ``32s.5.1|rc|cr|`` is a suited
three-deuce in bucket 5 of its preflop class after the second round's cards (0 is the
weakest) and bucket 1 of that after the third round's, having seen ``rc`` and ``cr`` and
nothing yet in the third round.  The board is not in the key: it is what the
bucket summarises.  The descriptor kind ``buckets`` is registered with `solver.abstractions`,
so the app's bot plays a stored abstract strategy with no knowledge of it.

The tables (a bucket per class of each round) are built on first use from the E[HS²] tables and
the suit-isomorphism indexers; perfect recall indexes each round's cards as separate rounds
(the order the board came in matters), which is fine for small members and out of reach for
full hold'em's river (2.4 billion classes).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.abstractions.holdem.histograms import equity_histograms, histogram_buckets
from solver.abstractions.words import AbstractionText
from solver.cards.deck import RANK_CHARS
from solver.cards.isomorphism import HandIndexer, IndexerTables, unindex_hand
from solver.cards.strength import Streets, ehs_tables
from solver.games.base import Game, State
from solver.games.holdem.game import HoldemState
from solver.games.holdem.rules import HoldemRules

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

RECALLS = ("perfect", "imperfect")
METRICS = ("ehs2", "hist")
MAX_CLASSES = 20_000_000
"""The most classes of one round the tables are built for (weights, strengths and a sort of
each, in memory): full hold'em's turn fits, its river (123 M classes with the board as one
set, 2.4 G in the order it came) does not yet."""


@dataclass(frozen=True, slots=True)
class BucketSpec:
    """How many buckets each round after the first has (None: every class apart) and whether
    a bucket remembers the earlier ones."""

    k: tuple[int | None, ...]
    recall: str = "perfect"
    metric: str = "ehs2"
    """How a round before the last is cut: ``ehs2``, percentiles of E[HS²]; ``hist``, k-means
    of equity histograms (`solver.abstractions.holdem.histograms`; imperfect recall only).
    The last round is cut by E[HS²] (its HS²) either way."""

    def __post_init__(self) -> None:
        if self.recall not in RECALLS:
            raise ValueError(f"recall is perfect or imperfect, not {self.recall!r}")
        if any(k is not None and k < 1 for k in self.k):
            raise ValueError(f"a round needs at least one bucket: {self.k}")
        if self.metric not in METRICS:
            raise ValueError(f"buckets are cut by {' or '.join(METRICS)}, not {self.metric!r}")
        if self.metric == "hist" and self.recall != "imperfect":
            raise ValueError("histogram buckets are built with imperfect recall")

    @property
    def descriptor(self) -> str:
        ks = ",".join("all" if k is None else str(k) for k in self.k)
        metric = "" if self.metric == "ehs2" else f";metric={self.metric}"
        return f"buckets=k:{ks};recall={self.recall}{metric}"

    @classmethod
    def parse(cls, parameters: str) -> BucketSpec:
        """The spec of a descriptor's parameters: ``k:8,8,8;recall=perfect``."""
        fields: dict[str, str] = {}
        for part in parameters.split(";"):
            name, sep, value = part.replace(":", "=", 1).partition("=")
            if not sep or name.strip() not in ("k", "recall", "metric") or \
                    name.strip() in fields:
                raise ValueError(f"buckets take k:K1,K2,..., recall=perfect|imperfect and "
                                 f"metric=ehs2|hist, not {parameters!r}")
            fields[name.strip()] = value.strip()
        if "k" not in fields:
            raise ValueError(f"buckets need k:K1,K2,... (one per round after the first), not "
                             f"{parameters!r}")
        ks: list[int | None] = []
        for text in fields["k"].split(","):
            text = text.strip()
            if text == "all":
                ks.append(None)
            elif text.isdigit() and int(text) >= 1:
                ks.append(int(text))
            else:
                raise ValueError(f"a round's k is a positive number or 'all', not {text!r}")
        return cls(tuple(ks), fields.get("recall", "perfect"), fields.get("metric", "ehs2"))


# --- the pieces: class weights and percentiles -------------------------------------------------


def suit_permutations(num_suits: int) -> IntArray:
    return np.array(list(itertools.permutations(range(num_suits))), np.int64)


@njit(cache=True)
def _class_weights(t: IndexerTables, perms: IntArray, out: IntArray) -> None:
    """Deals per class: the suit permutations over those that map the class's representative
    to itself, round by round."""
    size = t.round_start[t.rounds.shape[0]]
    deal = np.empty(size, np.int64)
    suits = t.num_suits
    for i in range(out.shape[0]):
        unindex_hand(t, i, deal)
        fixed = 0
        for p in range(perms.shape[0]):
            same = True
            for r in range(t.rounds.shape[0]):
                mine = 0
                moved = 0
                for j in range(t.round_start[r], t.round_start[r + 1]):
                    c = deal[j]
                    mine |= 1 << c
                    moved |= 1 << ((c // suits) * suits + perms[p, c % suits])
                if mine != moved:
                    same = False
                    break
            if same:
                fixed += 1
        out[i] = perms.shape[0] // fixed


def class_weights(indexer: HandIndexer) -> IntArray:
    """How many deals each class of `indexer` holds (their sum is every deal of its rounds)."""
    out = np.empty(indexer.size, np.int64)
    _class_weights(indexer.tables, suit_permutations(indexer.deck.num_suits), out)
    return out


@njit(cache=True)
def _cut(order: IntArray, starts: IntArray, weight: FloatArray, k: int, out: IntArray) -> None:
    """Per group (``order[starts[g]:starts[g + 1]]``, sorted weakest first): ``min(k, size)``
    contiguous buckets, each boundary where the cumulative weight is nearest to its share, kept
    strictly increasing so that no bucket is empty."""
    for g in range(starts.shape[0] - 1):
        lo, hi = starts[g], starts[g + 1]
        n = hi - lo
        m = min(k, n)
        total = 0.0
        for i in range(lo, hi):
            total += weight[order[i]]
        cum = np.empty(n)
        running = 0.0
        for i in range(n):
            running += weight[order[lo + i]]
            cum[i] = running
        previous = 0  # first position of the current bucket
        for b in range(m):
            if b == m - 1:
                end = n
            else:
                target = total * (b + 1) / m
                end = previous + 1
                while end < n and cum[end - 1] < target:
                    end += 1
                # `end` is the first cut with weight >= target before it; one less may be nearer
                if end - 1 > previous and abs(cum[end - 2] - target) <= abs(cum[end - 1] - target):
                    end -= 1
                end = min(max(end, previous + 1), n - (m - 1 - b))
            for i in range(previous, end):
                out[order[lo + i]] = b
            previous = end


def percentile_buckets(strength: FloatArray, weight: FloatArray, group: IntArray,
                       k: int | None) -> IntArray:
    """Each item's bucket, 0 (weakest) to ``min(k, size of its group) - 1``: the items of a
    group sorted by `strength` (ties by position) and cut into `k` runs of about equal
    `weight`; every item apart when `k` is None or at least the group's size."""
    n = len(strength)
    order = np.lexsort((np.arange(n), strength, group)).astype(np.int64)
    sorted_groups = group[order]
    starts = np.flatnonzero(np.diff(sorted_groups, prepend=-1) != 0)
    starts = np.append(starts, n).astype(np.int64)
    out = np.empty(n, np.int64)
    _cut(order, starts, np.asarray(weight, np.float64), n if k is None else int(k), out)
    return out


def preflop_name(cards: Sequence[int], num_suits: int) -> str:
    """``AKs``, ``AKo``, ``QQ``: a class of two hole cards; one card is its rank."""
    ranks = sorted((c // num_suits for c in cards), reverse=True)
    text = "".join(RANK_CHARS[r] for r in ranks)
    if len(cards) == 2 and ranks[0] != ranks[1]:
        text += "s" if cards[0] % num_suits == cards[1] % num_suits else "o"
    return text


# --- the tables --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Round:
    """How a round's cards become a bucket code: the indexer of the deal (hole cards, then the
    board, ordered by round for perfect recall or as one set for imperfect), the code of each
    of its classes, and how to write a code."""

    indexer: HandIndexer
    board_rounds: tuple[int, ...]  # which betting rounds' board cards the deal holds
    code: IntArray  # per class
    radices: tuple[int, ...]  # perfect recall: the digits' radices, first round's first


@dataclass(frozen=True, slots=True, eq=False)
class HandBuckets:
    """A member's bucket of every hand in every round, under `spec`."""

    rules: HoldemRules
    spec: BucketSpec
    rounds: tuple[_Round, ...] = field(init=False)
    first_names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        d, spec = self.rules, self.spec
        if len(spec.k) != d.num_rounds - 1:
            raise ValueError(f"{d.spec} has {d.num_rounds} rounds: k needs {d.num_rounds - 1} "
                             f"entries (one per round after the first), not {len(spec.k)}")
        if d.hole_cards != 2:
            raise ValueError("hand buckets need two hole cards (E[HS²] is built for two)")
        dealt = tuple(b for b in d.board_cards if b)
        if not dealt:
            raise ValueError(f"{d.spec} deals no board: there is nothing to bucket")
        if 1 + len(dealt) > 4:
            raise ValueError("the suit indexers take at most four rounds of cards")
        streets = Streets(d.deck, d.hole_cards, dealt)
        last = (HandIndexer((d.hole_cards, *dealt), d.deck) if spec.recall == "perfect"
                else streets.indexer(streets.last))
        _check_size(last, d.num_rounds - 1)  # the most classes, before any table is built
        tables = ehs_tables(streets, progress=False)
        first_rounds = (d.hole_cards,) + ((d.board_cards[0],) if d.board_cards[0] else ())
        first = HandIndexer(first_rounds, d.deck)
        reps = first.unindex_many(np.arange(first.size))
        if len(first_rounds) == 1:
            names = tuple(preflop_name(tuple(int(c) for c in row), d.num_suits) for row in reps)
        else:
            names = tuple(f"c{i}" for i in range(first.size))
        built = [_Round(first, (0,) if d.board_cards[0] else (), np.arange(first.size),
                        (first.size,))]
        for r in range(1, d.num_rounds):
            previous = built[-1]
            if d.board_cards[r] == 0:
                built.append(previous)
                continue
            carries = previous.board_rounds + (r,)
            street = len(carries)  # streets count the board rounds dealt
            k = spec.k[r - 1]
            if spec.recall == "perfect":
                indexer = HandIndexer((d.hole_cards,) + tuple(d.board_cards[q] for q in carries),
                                      d.deck)
                deals = indexer.unindex_many(np.arange(indexer.size))
                parent = previous.code[previous.indexer.index_many(
                    deals[:, :previous.indexer.num_cards])]
                strength = tables.lookup(street, streets.indexer(street).index_many(deals))[1]
                bucket = percentile_buckets(strength, class_weights(indexer).astype(float),
                                            parent, k)
                radix = int(bucket.max()) + 1 if k is None else k
                built.append(_Round(indexer, carries, parent * radix + bucket,
                                    previous.radices + (radix,)))
            elif spec.metric == "hist" and street < streets.last:
                indexer = streets.indexer(street)
                bucket = histogram_buckets(equity_histograms(streets, tables, street),
                                           class_weights(indexer).astype(float), k)
                built.append(_Round(indexer, carries, bucket, ()))
            else:
                indexer = streets.indexer(street)
                strength = tables.lookup(street, np.arange(indexer.size))[1]
                bucket = percentile_buckets(strength, class_weights(indexer).astype(float),
                                            np.zeros(indexer.size, np.int64), k)
                built.append(_Round(indexer, carries, bucket, ()))
        object.__setattr__(self, "rounds", tuple(built))
        object.__setattr__(self, "first_names", names)

    def codes(self, round_: int, hands: IntArray, board: Sequence[Sequence[int]]) -> IntArray:
        """The bucket codes in round `round_` of the hands (rows of hole cards) on a board
        given round by round (``board[r]``: the cards dealt before betting round r)."""
        info = self.rounds[round_]
        cards = [c for q in info.board_rounds for c in board[q]]
        deals = np.hstack([np.asarray(hands, np.int64).reshape(len(hands), -1),
                           np.broadcast_to(np.array(cards, np.int64), (len(hands), len(cards)))])
        return info.code[info.indexer.index_many(deals)]

    def text(self, round_: int, code: int) -> str:
        """How a key writes a code of round `round_`."""
        if round_ == 0:
            return self.first_names[code]
        cards_rounds = sum(1 for r in range(1, round_ + 1) if self.rules.board_cards[r])
        if self.spec.recall == "imperfect":
            if cards_rounds == 0:
                return self.first_names[code]
            return "*." * cards_rounds + str(code)
        radices = self.rounds[round_].radices
        digits = []
        for radix in reversed(radices[1:]):
            code, digit = divmod(code, radix)
            digits.append(str(digit))
        return ".".join([self.first_names[code], *reversed(digits)])

    def sizes(self) -> list[int]:
        """Distinct codes per round."""
        return [len(np.unique(info.code)) for info in self.rounds]


def _check_size(indexer: HandIndexer, round_: int) -> None:
    if indexer.size > MAX_CLASSES:
        raise ValueError(f"round {round_ + 1} has {indexer.size:,} hand classes; the bucket "
                         f"tables are built for at most {MAX_CLASSES:,}")


@cache
def hand_buckets(rules: HoldemRules, spec: BucketSpec) -> HandBuckets:
    return HandBuckets(rules, spec)


def abstract_key(bucket: str, betting: Sequence[str]) -> str:
    """The abstract information set's key: the bucket, then each round's betting."""
    return "|".join((bucket, *betting))


class Buckets:
    """The `solver.abstractions.Abstraction` of a hold'em member under a `BucketSpec`."""

    def __init__(self, rules: HoldemRules, spec: BucketSpec) -> None:
        self.rules = rules
        self.spec = spec
        self.descriptor = spec.descriptor
        hand_buckets(rules, spec)  # builds (and so checks) the tables now, not at play

    def __repr__(self) -> str:
        return f"Buckets({self.descriptor!r})"

    @property
    def tables(self) -> HandBuckets:
        return hand_buckets(self.rules, self.spec)

    def strategy_key(self, state: State, player: int) -> str:
        if not isinstance(state, HoldemState) or state.game.definition != self.rules:
            raise ValueError(f"not a position of {self.rules.spec}")
        game = state.game
        betting = state.betting.rounds
        round_ = len(betting) - 1
        board = state.board()
        by_round = [board[game.board_start[r]:game.board_start[r + 1]]
                    for r in range(self.rules.num_rounds)]
        hole = np.array([state.hole(player)], np.int64)
        code = int(self.tables.codes(round_, hole, by_round)[0])
        return abstract_key(self.tables.text(round_, code), betting)


def parse_buckets(game: Game, parameters: str) -> Buckets:
    """The `Buckets` of a descriptor's parameters for a member of the hold'em family."""
    rules = getattr(game, "definition", None)
    if not isinstance(rules, HoldemRules):
        raise ValueError(f"hand buckets are for the hold'em family, not {game.name!r}")
    return Buckets(rules, BucketSpec.parse(parameters))


def bucket_counts(ks: Sequence[int | None]) -> str:
    """``128 a round``, ``8, 16, every class by round``."""
    words = ["every class" if k is None else str(k) for k in ks]
    return f"{words[0]} a round" if len(set(words)) == 1 else ", ".join(words) + " by round"


def describe_buckets(parameters: str) -> AbstractionText:
    spec = BucketSpec.parse(parameters)
    memory = ("each bucket remembering the earlier ones" if spec.recall == "perfect" else
              "forgetting the earlier rounds' buckets")
    similar = ("similar strength" if spec.metric == "ehs2" else
               "similar chances on the cards to come")
    return AbstractionText(
        f"an abstract game with the real betting, in which a hand is known before the board "
        f"by its class and on each later round only by its bucket of {similar} "
        f"({bucket_counts(spec.k)}), {memory}",
        "Its exploitability in the real game has not been measured.",
        f"hands grouped by how strong they are ({bucket_counts(spec.k)}) rather than told "
        "apart card by card")


def count_deals(rules: HoldemRules, round_: int) -> int:
    """Deals of one player's hole cards and the board up to `round_`: what the weights of a
    round's classes add up to."""
    n = rules.num_cards
    out = math.comb(n, rules.hole_cards)
    left = n - rules.hole_cards
    for r in range(round_ + 1):
        out *= math.comb(left, rules.board_cards[r])
        left -= rules.board_cards[r]
    return out
