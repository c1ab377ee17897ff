"""Solve a hold'em member in its bucket abstraction (`solver.abstractions.holdem.buckets`) and
measure the result in the real game.

The abstract game is solved on the real game's compiled public tree: the reach and values are
the real tree's vectors of hands per public node, but the regrets, the average and the strategy
live on the *abstract* information sets, (betting, bucket).  At each of the traverser's
decision nodes, the instantaneous regret of every hand is added to its abstract information
set, and so is its reach-weighted strategy; after the bottom-up pass each abstract information
set's regrets are discounted and updated once, as `solver.engine.kernels.cfr_update` does for a real
one, regret matching gives its next strategy, and that is copied back to every hand in it.
The sums run over every board and every hand of a bucket, so this is full-width CFR on the
abstract game (no sampling).  With imperfect recall an abstract information set also spans the
earlier buckets its key forgets; its regrets are summed over all of them all the same (the
usual way to run CFR on an imperfect-recall abstraction, which then has no convergence
guarantee).  With every class apart (``k:all``, perfect recall) the abstract game is the real
one up to suits and the iterates are the real game's (a test checks it).

The average strategy, copied to every real information set from its abstract one, is a strategy
of the real game, whose exploitability `solver.algorithms.exploitability` measures exactly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.abstractions.holdem.buckets import BucketSpec, HandBuckets, abstract_key, hand_buckets
from solver.algorithms.cfr import SCHEDULES
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.solve import memory_estimate
from solver.engine.compile import compile_game
from solver.engine.kernels import (
    card_terminal_values,
    expected_action_value,
    matched_probability,
    normalized,
    pass_up,
    positive_regret,
    reach_probabilities,
    root_value,
    terminal_values,
)
from solver.engine.memory import check
from solver.engine.node_kinds import DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree
from solver.games.base import Game
from solver.games.holdem import HoldemGame

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr")
"""The schedules the abstract solver runs (the predictive ones keep per-slot state it has not)."""


@dataclass(frozen=True, slots=True, eq=False)
class AbstractGame:
    """A member's real tree and its abstract information sets.

    ``to_abstract[i]`` is, for every real (information set, action) index `i` of `tree`, the
    index of the abstract (information set, action) it belongs to; the abstract information
    sets are listed with their keys, players, labels and where their actions start."""

    tree: PublicTree
    spec: BucketSpec
    to_abstract: IntArray
    keys: tuple[str, ...]
    players: IntArray
    labels: tuple[tuple[str, ...], ...]
    offsets: IntArray  # per abstract information set, and one past the end

    @property
    def num_infosets(self) -> int:
        return len(self.keys)

    @property
    def num_regrets(self) -> int:
        return int(self.offsets[-1])

    def real_strategy(self, abstract: FloatArray) -> FloatArray:
        """An abstract strategy played in the real game: each real information set takes its
        abstract one's probabilities."""
        return np.ascontiguousarray(abstract[self.to_abstract])


def _betting_and_board(game: HoldemGame, public: str) -> tuple[tuple[str, ...],
                                                                  list[tuple[int, ...]]]:
    """A public key (`HoldemState.public_key`) split into each round's betting and each round's
    board cards."""
    d = game.definition
    segments = public.split("|")
    if d.board_cards[0] == 0:
        segments.insert(0, "")
    boards = segments[0::2]
    bets = tuple(segments[1::2])
    deck = d.deck
    cards = [tuple(deck.parse(text[i:i + 2]) for i in range(0, len(text), 2)) for text in boards]
    cards += [()] * (d.num_rounds - len(cards))
    return bets, cards


def abstract_game(holdem: Game, spec: BucketSpec) -> AbstractGame:
    """The abstract information sets of `holdem` under `spec`, mapped onto its compiled tree.

    Per decision node a few numpy calls (the hands' classes on its board, shared by every
    betting line on that board): done once, before any iteration."""
    if not isinstance(holdem, HoldemGame):
        raise ValueError(f"hand buckets are for the hold'em family, not {holdem.name!r}")
    tree = compile_game(holdem)
    buckets: HandBuckets = hand_buckets(holdem.definition, spec)
    a = tree.arrays
    decisions = np.flatnonzero(a.kind == DECISION_NODE)
    hand_masks = np.bitwise_or.reduce(np.left_shift(1, a.hand_cards), axis=1)
    codes_of_board: dict[tuple[int, tuple[tuple[int, ...], ...]], IntArray] = {}
    betting_ids: dict[tuple[str, ...], int] = {}
    node_betting = np.empty(len(decisions), np.int64)
    slot_codes = []
    for i, n in enumerate(decisions.tolist()):
        bets, board = _betting_and_board(holdem, tree.node_keys[n])
        node_betting[i] = betting_ids.setdefault(bets, len(betting_ids))
        p = int(a.actor[n])
        first, count = int(a.slot_offset[p, n]), int(a.slot_count[p, n])
        hands = a.slot_hand[p, first:first + count]
        round_ = len(bets) - 1
        cache_key = (round_, tuple(board))
        codes = codes_of_board.get(cache_key)
        if codes is None:  # every hand of the deck on this board, once
            codes = np.full(len(a.hand_cards), -1, np.int64)
            on_board = sum(1 << c for cards in board for c in cards)
            fits = np.flatnonzero((hand_masks & on_board) == 0)
            codes[fits] = buckets.codes(round_, a.hand_cards[fits], board)
            codes_of_board[cache_key] = codes
        slot_codes.append(codes[hands])
    counts = a.slot_count[a.actor[decisions], decisions]
    code = np.concatenate(slot_codes) if slot_codes else np.zeros(0, np.int64)
    if (code < 0).any():
        raise RuntimeError(f"{holdem.name}: a slot holds a hand that shares a card with the board")
    betting = np.repeat(node_betting, counts)
    radix = int(code.max()) + 1 if len(code) else 1
    abstract, real_to_abstract = np.unique(betting * radix + code, return_inverse=True)
    real_to_abstract = real_to_abstract.reshape(-1)
    # One real information set standing for each abstract one: its labels and player.
    witness = np.zeros(len(abstract), np.int64)
    witness[real_to_abstract[::-1]] = np.arange(len(real_to_abstract))[::-1]
    by_id = {v: k for k, v in betting_ids.items()}
    node_of = tree.infoset_node[witness]
    keys = tuple(
        abstract_key(buckets.text(len(by_id[int(b)]) - 1, int(c)), by_id[int(b)])
        for b, c in zip((abstract // radix).tolist(), (abstract % radix).tolist(), strict=True))
    sizes = a.num_actions[node_of]
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    real_sizes = np.diff(tree.infoset_regret_offset)
    to_abstract = (np.repeat(offsets[:-1][real_to_abstract], real_sizes)
                   + _within(real_sizes))
    return AbstractGame(tree, spec, to_abstract.astype(np.int64), keys,
                        tree.infoset_player[witness].astype(np.int64),
                        tuple(tree.infoset_labels[w] for w in witness.tolist()), offsets)


def _within(sizes: IntArray) -> IntArray:
    """0 .. size - 1 for each size, concatenated."""
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    within: IntArray = np.arange(int(sizes.sum())) - np.repeat(starts, sizes)
    return within


# --- the kernels -----------------------------------------------------------------------------


@njit(cache=True)
def abstract_update(tree, player, strategy, own_reach, opponent_reach, values, action_values,
                    to_abstract, instant, weighted):
    """The traverser's bottom-up pass under the real-tree `strategy` (each hand playing its
    abstract information set's strategy): adds each hand's instantaneous regrets, and its own
    reach times its strategy, to its abstract (information set, action) entries in `instant`
    and `weighted`.  Returns the traverser's expected payoff."""
    values[:] = 0.0
    action_values[:] = 0.0
    card_terminal_values(tree, player, opponent_reach, values)
    for n in range(tree.kind.shape[0] - 1, -1, -1):
        kind = tree.kind[n]
        if kind == DECISION_NODE:
            if tree.actor[n] == player:
                first = tree.slot_offset[player, n]
                count = tree.num_actions[n]
                for j in range(tree.slot_count[player, n]):
                    base = tree.regret_offset[n] + j * count
                    v = expected_action_value(strategy, action_values, base, count)
                    values[first + j] = v
                    w = own_reach[first + j]
                    for a in range(count):
                        x = to_abstract[base + a]
                        instant[x] += action_values[base + a] - v
                        weighted[x] += w * strategy[base + a]
        elif kind == TERMINAL_NODE:
            terminal_values(tree, n, player, opponent_reach, values)
        pass_up(tree, n, player, values, action_values)
    return root_value(tree, player, values)


@njit(cache=True)
def abstract_iterations(tree, strategy, reach, values, action_values, to_abstract, offsets,
                        players, regrets, average, abstract_strategy, instant, weighted, floor,
                        discounts):
    """One CFR iteration of the abstract game per row of `discounts` (as in
    `solver.engine.kernels.cfr_iterations`), players alternating.  `strategy` is the real tree's
    copy of `abstract_strategy`, and `reach[0]` player 0's reach under it, on entry and on
    return."""
    for t in range(discounts.shape[0]):
        positive, negative = discounts[t, 0], discounts[t, 1]
        keep, weight = discounts[t, 2], discounts[t, 3]
        for player in range(2):
            other = 1 - player
            reach_probabilities(tree, other, strategy, reach[other])
            instant[:] = 0.0
            weighted[:] = 0.0
            abstract_update(tree, player, strategy, reach[player], reach[other],
                            values[player], action_values, to_abstract, instant, weighted)
            for i in range(players.shape[0]):
                if players[i] != player:
                    continue
                lo, hi = offsets[i], offsets[i + 1]
                total = 0.0
                for x in range(lo, hi):
                    r = regrets[x]
                    r = r * positive if r > 0.0 else r * negative
                    r += instant[x]
                    if floor and r < 0.0:
                        r = 0.0
                    regrets[x] = r
                    average[x] = average[x] * keep + weight * weighted[x]
                    total += positive_regret(r)
                for x in range(lo, hi):
                    abstract_strategy[x] = matched_probability(regrets[x], total, hi - lo)
            for x in range(strategy.shape[0]):
                strategy[x] = abstract_strategy[to_abstract[x]]


def _normalize(offsets: IntArray, weights: FloatArray) -> FloatArray:
    out = np.empty(len(weights), np.float64)
    normalized(offsets, weights, out)
    return out


class AbstractSolver:
    """Runs one CFR schedule on a member's bucket abstraction (`solve_buckets` runs it and
    measures the result in the real game).

    Example::

        from solver.abstractions.holdem.bucket_solve import AbstractSolver, abstract_game
        from solver.abstractions.holdem.buckets import BucketSpec
        from solver.games import get_game

        abstract = abstract_game(get_game("holdem-mini"), BucketSpec.parse("k:8"))
        solver = AbstractSolver(abstract, "dcfr")
        solver.iterate(1000)
        real = abstract.real_strategy(solver.average_strategy())   # playable in the real game
    """

    def __init__(self, abstract: AbstractGame, algorithm: str = "dcfr") -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"the abstract solver runs {', '.join(ALGORITHMS)}, not "
                             f"{algorithm!r}")
        self.abstract = abstract
        self.schedule = SCHEDULES[algorithm]
        self.iterations = 0
        tree = abstract.tree
        size = abstract.num_regrets
        self.regrets = np.zeros(size)
        self.average = np.zeros(size)
        self.abstract_strategy = _normalize(abstract.offsets, np.zeros(size))
        self.strategy = abstract.real_strategy(self.abstract_strategy)
        self._instant = np.zeros(size)
        self._weighted = np.zeros(size)
        self._action_values = np.zeros(tree.num_regrets)
        self._reach = (np.zeros(tree.num_slots(0)), np.zeros(tree.num_slots(1)))
        self._values = (np.zeros(tree.num_slots(0)), np.zeros(tree.num_slots(1)))
        reach_probabilities(tree.arrays, 0, self.strategy, self._reach[0])

    def iterate(self, iterations: int, callback: Callable[[int], None] | None = None) -> None:
        done = 0
        while done < iterations:
            block = min(iterations - done, 1 if callback is not None else 64)
            discounts = np.array([self.schedule.discounts(self.iterations + 1 + i)
                                  for i in range(block)])
            a = self.abstract
            abstract_iterations(a.tree.arrays, self.strategy, self._reach, self._values,
                                self._action_values, a.to_abstract, a.offsets, a.players,
                                self.regrets, self.average, self.abstract_strategy,
                                self._instant, self._weighted, self.schedule.floor, discounts)
            self.iterations += block
            done += block
            if callback is not None:
                callback(done - 1)

    def average_strategy(self) -> FloatArray:
        """The abstract average strategy, per abstract (information set, action)."""
        return _normalize(self.abstract.offsets, self.average)


@dataclass(frozen=True, slots=True, eq=False)
class BucketSolve:
    """A member solved in its bucket abstraction, measured in the real game."""

    game: str
    abstract: AbstractGame
    algorithm: str
    iterations: int
    seconds: float
    strategy: FloatArray  # abstract average strategy
    value: float  # player 0's in the real game, both playing it
    exploitability: float  # in the real game, exact


def solve_buckets(game: Game, spec: BucketSpec, iterations: int, algorithm: str = "dcfr",
                  on_iteration: Callable[[int], None] | None = None) -> BucketSolve:
    """Solve `game` in the abstraction `spec` and measure the average strategy exactly in the
    real game.

    Example::

        from solver.abstractions.holdem.bucket_solve import solve_buckets
        from solver.abstractions.holdem.buckets import BucketSpec
        from solver.games import get_game

        solved = solve_buckets(get_game("holdem-mini"), BucketSpec.parse("k:8;recall=perfect"),
                               iterations=1000)
        solved.exploitability     # in the real game, exact
    """
    check(memory_estimate(game))  # the real game's tree is built and solved on, at most
    abstract = abstract_game(game, spec)
    solver = AbstractSolver(abstract, algorithm)
    started = time.perf_counter()
    solver.iterate(iterations, on_iteration)
    seconds = time.perf_counter() - started
    strategy = solver.average_strategy()
    evaluation = evaluate_strategy(abstract.tree, abstract.real_strategy(strategy))
    return BucketSolve(abstract.tree.game, abstract, algorithm, iterations, seconds, strategy,
                       evaluation.value, evaluation.exploitability)
