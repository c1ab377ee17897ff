"""Values of a player's decisions in limit hold'em against a bucket-abstraction bot, at play time.

The bot's strategy is an input (`TableBot`: the rules, the buckets and the tables, as
`solver.abstractions.holdem.bot.HulheBot` holds them; a re-solved strategy that offers the
same can be valued the same way).  At a decision of the player (the *human*) with hole cards H
on board B:

* the bot's range: every hand that misses H and B, weighted by the probability that the bot's
  strategy took each of its actions so far with it (Bayes: its posterior given what the human
  saw, chance being uniform over the deals);
* the deals: a bot hand and the rest of the board.  Where they are few (the river: every hand;
  the turn: every hand with every river card, 990 x 44), all of them, each weighing its hand's
  posterior times one over the boards that hand leaves: the values are exact.  Where they are
  many (the flop and before), `samples` deals drawn from the same distribution (a hand by its
  posterior, then the board uniformly from the cards that hand and the human's leave), each
  weighing 1 / samples: an unbiased estimate, whose error is independent of the human's choice
  and so adds spread to the luck-adjusted result but no bias;
* on each deal the betting below the decision with both players following the tables
  (`solver.evaluation.values.holdem_kernel`, numba, every deal in one call).

The human's hand is one, so the work is the deals times the betting the two strategies reach.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.percentiles import PercentileSpec, round_buckets
from solver.abstractions.holdem.sampled_cfr import BettingTree, betting_tree, kernel_cards
from solver.abstractions.holdem.sampled_kernel import SLOTS, Cards
from solver.evaluation.holdem.policy import hole_combos
from solver.evaluation.values.base import (
    HABIT_PRIOR,
    DecisionValues,
    Habits,
    Segment,
    habit_counts,
    habit_mix,
)
from solver.evaluation.values.holdem_kernel import decision_values
from solver.games.base import State
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemState
from solver.games.holdem.rules import HoldemRules
from strategies.tables import TableStrategy

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

EXACT_DEALS = 60_000
"""Most deals enumerated for exact values (a HULHE turn decision has about 43,600)."""
SAMPLED_DEALS = 20_000
"""Deals sampled where there are more."""


class TableBot(Protocol):
    """A hold'em strategy over bucket tables (`solver.abstractions.holdem.bot.HulheBot`)."""

    @property
    def rules(self) -> HoldemRules: ...

    @property
    def spec(self) -> PercentileSpec: ...

    @property
    def table(self) -> TableStrategy: ...

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: IntArray) -> FloatArray: ...


@dataclass(frozen=True, slots=True, eq=False)
class Prepared:
    """What the kernel reads, built once per strategy."""

    tree: BettingTree
    cards: Cards
    tables: FloatArray  # (rows of every round, buckets, slots), rows normalised over legal
    row_start: IntArray  # per round: its first row in `tables`
    combos: IntArray  # every hand a player may hold: (hands, 2)


def prepare(bot: TableBot) -> Prepared:
    """The bot's tables as one float array over the betting tree's rows, legal slots
    normalised (an all-zero row plays uniformly, as `strategies.tables.dequantise` reads it)."""
    rules = bot.rules
    tree = betting_tree(rules)
    a = tree.arrays
    buckets = round_buckets(rules, bot.spec)
    widest = max(b.count for b in buckets)
    parts = []
    for r in range(rules.num_rounds):
        nodes = tree.decisions(r)
        legal = np.zeros((len(nodes), SLOTS))
        legal[a.row[nodes]] = a.child[nodes] >= 0
        grid = np.zeros((len(nodes), widest, SLOTS))
        grid[:, :buckets[r].count] = np.asarray(bot.table.tables[r], np.float64)
        grid *= legal[:, None, :]
        totals = grid.sum(axis=2, keepdims=True)
        uniform = legal[:, None, :] / legal.sum(axis=1)[:, None, None]
        parts.append(np.where(totals > 0, grid / np.where(totals > 0, totals, 1.0), uniform))
    row_start = np.cumsum([0] + [len(p) for p in parts])[:-1].astype(np.int64)
    return Prepared(tree, kernel_cards(rules, buckets), np.ascontiguousarray(np.vstack(parts)),
                    row_start, hole_combos(rules))


@dataclass(slots=True, eq=False)
class HoldemValues:
    """Values of a human's decisions against `bot` (see the module doc)."""

    bot: TableBot
    exact_deals: int = EXACT_DEALS
    samples: int = SAMPLED_DEALS
    prior: float = HABIT_PRIOR
    _prepared: Prepared | None = field(default=None, init=False, repr=False)

    @property
    def prepared(self) -> Prepared:
        if self._prepared is None:
            self._prepared = prepare(self.bot)
        return self._prepared

    @staticmethod
    def habit_key(state: HoldemState) -> str:
        """Where a player's habits are counted: the betting so far (cards aside)."""
        return state.betting.acpc()

    def segments(self, final: State, seat: int, habits: Habits | None,
                 rng: np.random.Generator) -> list[Segment]:
        """The hand as one segment whose start is not known exactly (the bot's value is only
        estimated by self-play): see `hand`."""
        if not isinstance(final, HoldemState):
            raise ValueError(f"{type(final).__name__} is not a hold'em position")
        return [Segment(None, None, tuple(self.hand(final, seat, rng, habits)))]

    def hand(self, final: HoldemState, seat: int, rng: np.random.Generator,
             habits: Habits | None = None) -> list[DecisionValues]:
        """Every decision of the player in `seat` in the hand that reached `final`, valued
        (with its habits too, if given)."""
        game = final.game
        combos = self.prepared.combos
        hole = final.hole(seat)
        weights = (~np.isin(combos, hole).any(axis=1)).astype(np.float64)
        out: list[DecisionValues] = []
        state = game.initial_state()
        for action in final.history:
            player = state.current_player()
            if player == seat:
                board = state.board()
                live = np.where(np.isin(combos, board).any(axis=1), 0.0, weights)
                out.append(self.decision(state.betting, board, hole, seat, live, rng, habits))
            elif player == 1 - seat:
                probabilities = self.bot.action_probabilities(state.betting, state.board(),
                                                              combos)
                weights = weights * probabilities[:, action]
            state = state.apply_action(action)
        return out

    def decision(self, betting: Betting, board: tuple[int, ...], hole: tuple[int, ...],
                 seat: int, posterior: FloatArray, rng: np.random.Generator,
                 habits: Habits | None = None) -> DecisionValues:
        """One decision: the human in `seat` holds `hole` on `board` after `betting`; the bot's
        hands (`prepared.combos`) weigh `posterior` (zero for those that cannot be)."""
        p = self.prepared
        rules = self.bot.rules
        if not posterior.sum() > 0:
            raise ValueError("no hand of the bot is consistent with the hand so far")
        decks, deal_weights, exact = self._deals(rules, betting.round, board, hole, seat,
                                                 posterior, rng)
        node = p.tree.node(betting)
        legal = betting.legal_actions()
        labels = tuple(betting.label(a) for a in legal)
        own = self.bot.action_probabilities(betting, board, np.array([hole], np.int64))[0]
        strategy = tuple(float(own[a]) for a in legal)
        values = np.zeros(SLOTS)
        decision_values(p.tree.arrays, node, seat, p.cards, p.tables, p.row_start, decks,
                        deal_weights, np.zeros((0, SLOTS)), self.prior, values)
        model_probabilities = model_values = None
        key = betting.acpc()
        counts = habit_counts(habits, key, labels)
        if habits is not None:
            model_probabilities = habit_mix(counts, strategy, self.prior)
            table = self._habit_table(habits)
            modelled = np.zeros(SLOTS)
            decision_values(p.tree.arrays, node, seat, p.cards, p.tables, p.row_start, decks,
                            deal_weights, table, self.prior, modelled)
            model_values = tuple(float(modelled[a]) for a in legal)
        q = tuple(float(values[a]) for a in legal)
        return DecisionValues(labels, strategy, q, math.fsum(s * x for s, x in zip(strategy, q,
                                                                                 strict=True)),
                              model_probabilities, model_values, exact, key)

    def _habit_table(self, habits: Habits) -> FloatArray:
        """The habits as counts per node of the betting tree (node, fold/call/raise)."""
        tree = self.prepared.tree
        table = np.zeros((tree.num_nodes, SLOTS))
        for key, counts in habits.items():
            node = tree.index.get(key)
            if node is None:
                continue
            for a, label in enumerate(("fold", "call", "raise")):
                table[node, a] = counts.get(label, 0.0)
            # A check counts as a call and a bet as a raise: the same action ids.
            table[node, 1] += counts.get("check", 0.0)
            table[node, 2] += counts.get("bet", 0.0)
        return table

    def _deals(self, rules: HoldemRules, round_: int, board: tuple[int, ...],
               hole: tuple[int, ...], seat: int, posterior: FloatArray,
               rng: np.random.Generator
               ) -> tuple[IntArray, FloatArray, bool]:
        """The deals (rows: player 0's hole cards, player 1's, the whole board) and their
        weights, every one if there are at most `exact_deals`, else a sample; and whether
        exact."""
        combos = self.prepared.combos
        live = np.flatnonzero(posterior > 0)
        share = posterior[live] / posterior[live].sum()
        unseen = np.setdiff1d(np.arange(rules.num_cards), np.array(hole + board, np.int64))
        later = rules.board_cards[round_ + 1:]
        to_come = sum(later)
        boards = 1
        left = len(unseen) - rules.hole_cards
        for count in later:
            boards *= math.comb(left, count)
            left -= count
        if len(live) * boards <= self.exact_deals:
            runouts = _runouts(unseen, later)
            hands = combos[live]
            clash = (runouts[None, :, :, None] == hands[:, None, None, :]).any(axis=(2, 3))
            h, r = np.nonzero(~clash)
            bot_holes, rest, weights = hands[h], runouts[r], share[h] / boards
            exact = True
        else:
            n = self.samples
            pick = rng.choice(len(live), size=n, p=share)
            bot_holes = combos[live[pick]]
            keys = rng.random((n, len(unseen)))
            keys[(unseen[None, :, None] == bot_holes[:, None, :]).any(axis=2)] = np.inf
            rest = unseen[np.argsort(keys, axis=1)[:, :to_come]]
            weights = np.full(n, 1.0 / n)
            exact = False
        count = len(bot_holes)
        mine = np.broadcast_to(np.array(hole, np.int64), (count, rules.hole_cards))
        seats = (mine, bot_holes) if seat == 0 else (bot_holes, mine)
        shown = np.broadcast_to(np.array(board, np.int64), (count, len(board)))
        decks = np.ascontiguousarray(np.hstack([*seats, shown, rest.reshape(count, to_come)]),
                                     np.int64)
        return decks, np.ascontiguousarray(weights, np.float64), exact


def _runouts(unseen: IntArray, later: tuple[int, ...]) -> IntArray:
    """Every way to deal `later` cards per round from `unseen` (a set per round, rounds in
    order): shape (runouts, sum(later))."""
    rows: list[tuple[int, ...]] = [()]
    for count in later:
        rows = [row + combo for row in rows
                for combo in itertools.combinations([int(c) for c in unseen
                                                     if c not in row], count)]
    return np.array(rows, np.int64).reshape(len(rows), sum(later))
