"""Values of a player's decisions in limit hold'em against a bucket-abstraction bot, at play time.

The bot's strategy is an input (`TableBot`: the rules, the buckets and the tables, as
`solver.abstractions.holdem.bot.HulheBot` holds them).  A bot that re-solves the later rounds
at play time (`played`) is valued by its blueprint's tables after each decision, its range
following what it played: the values are then those of a bot that plays the blueprint from
the decision on, and each of its decisions where it played otherwise adds AIVAT's correction
(`HoldemValues.correction`), which keeps the luck-adjusted result unbiased.  The advice at the
player's decisions is what the bot plays there (`HoldemValues.as_played`: the hint's).

At a decision of the player (the *human*) with hole cards H on board B:

* the bot's range: every hand that misses H and B, weighted by the probability that the bot's
  strategy took each of its actions so far with it (Bayes: its posterior given what the human
  saw, chance being uniform over the deals);
* the deals: a bot hand and the rest of the board.  Where they are few (the river: every hand;
  the turn: every hand with every river card, 990 x 44), all of them, each weighing its hand's
  posterior times one over the boards that hand leaves: the values are exact.  Where they are
  many (the flop and before), `samples` deals drawn from the same distribution (a hand by its
  posterior, then the board uniformly from the cards that hand and the human's leave), each
  weighing 1 / samples: an unbiased estimate, whose error is independent of the human's choice
  and so adds spread to the luck-adjusted result but no bias
  (`solver.evaluation.values.holdem_deals`);
* on each deal the betting below the decision with both players following the tables
  (`solver.evaluation.values.holdem_kernel`, numba, every deal in one call): walked in full
  where the deals are all there, played out once per deal (each action drawn from the
  strategies) where they are sampled, which is unbiased too and takes a thousandth of the
  work of walking the whole preflop tree.

The human's hand is one, so the work is the deals times the betting the two strategies reach.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.betting_tree import BettingTree, betting_tree
from solver.abstractions.holdem.percentiles import PercentileSpec, hand_codes, round_buckets
from solver.abstractions.holdem.sampled_cfr import kernel_cards
from solver.abstractions.holdem.sampled_kernel import SLOTS, Cards
from solver.evaluation.values.base import (
    FROM_CHOICES,
    HABIT_PRIOR,
    DecisionValues,
    Habits,
    Reference,
    Segment,
    choices_key,
    from_choices,
    habit_model,
)
from solver.evaluation.values.holdem_deals import Deals, deals_for
from solver.evaluation.values.holdem_kernel import playout_values, range_values
from solver.evaluation.values.holdem_openings import OpeningChances
from solver.games.base import State
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemState
from solver.games.holdem.policy import HoldemPolicy, hole_combos, legal_slots, slot_of
from solver.games.holdem.rules import HoldemRules
from strategies.tables import TableStrategy

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

EXACT_DEALS = 60_000
"""Most deals enumerated for exact values (a HULHE turn decision has about 43,600)."""
SAMPLED_DEALS = 4_000
"""Deals sampled where there are more."""
SHIFT_TOLERANCE = 1e-12
"""Below this a re-solving bot's probabilities are its tables' (no correction to compute)."""
BUCKET_MARK = "@"
"""Between the betting and the bucket in a habit key (``rc/c@17``)."""
HabitTables = tuple[FloatArray, IntArray, FloatArray, FloatArray]
"""A player's habits as the kernels read them (`HoldemValues._habit_tables`)."""
_NO_HABITS: HabitTables = (np.zeros((0, SLOTS)), np.zeros(0, np.int64), np.zeros((0, 1, SLOTS)),
                           np.zeros((0, SLOTS)))
"""The bot's strategy for both players."""


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
    choice_keys: tuple[str, ...]  # the betting's sets of legal actions (`base.choices_key`)
    choice_of: IntArray  # per node of the betting tree: its set's index in `choice_keys`


def prepare(bot: TableBot) -> Prepared:
    """The bot's tables as one float array over the betting tree's rows, legal slots
    normalised (an all-zero row plays uniformly, as `strategies.tables.dequantise` reads it)."""
    rules = bot.rules
    tree = betting_tree(rules)
    a = tree.arrays
    buckets = round_buckets(rules, bot.spec)
    widest = max(b.count for b in buckets)
    parts = []
    width = tree.slots
    for r in range(rules.num_rounds):
        nodes = tree.decisions(r)
        legal = np.zeros((len(nodes), width))
        legal[a.row[nodes]] = a.child[nodes] >= 0
        grid = np.zeros((len(nodes), widest, width))
        grid[:, :buckets[r].count] = np.asarray(bot.table.tables[r], np.float64)
        grid *= legal[:, None, :]
        totals = grid.sum(axis=2, keepdims=True)
        uniform = legal[:, None, :] / legal.sum(axis=1)[:, None, None]
        parts.append(np.where(totals > 0, grid / np.where(totals > 0, totals, 1.0), uniform))
    row_start = np.cumsum([0] + [len(p) for p in parts])[:-1].astype(np.int64)
    keys: dict[str, int] = {}
    choice_of = np.array([keys.setdefault(choices_key(labels), len(keys))
                          for labels in tree.labels], np.int64)
    return Prepared(tree, kernel_cards(rules, buckets), np.ascontiguousarray(np.vstack(parts)),
                    row_start, hole_combos(rules), tuple(keys), choice_of)


@dataclass(slots=True, eq=False)
class HoldemValues:
    """Values of a human's decisions against `bot` (see the module doc)."""

    bot: TableBot
    played: HoldemPolicy | None = None
    """The strategy the bot plays, if not its tables (a re-solving bot): it gives the bot's range
    (the bot's actions were taken under it, so with the tables' probabilities a range could
    vanish); the values still follow the tables after each decision."""
    exact_deals: int = EXACT_DEALS
    samples: int = SAMPLED_DEALS
    prior: float = HABIT_PRIOR
    _prepared: Prepared | None = field(default=None, init=False, repr=False)
    _openings: OpeningChances | None = field(default=None, init=False, repr=False)
    reference: ClassVar[Reference] = "equilibrium"

    @property
    def prepared(self) -> Prepared:
        if self._prepared is None:
            self._prepared = prepare(self.bot)
        return self._prepared

    def segments(self, final: State, seat: int, habits: Habits | None,
                 rng: np.random.Generator) -> list[Segment]:
        """The hand as one segment whose start is not known exactly (the bot's value is only
        estimated by self-play), with its opening (`holdem_openings`) and the correction for a
        re-solving bot: see `walk`."""
        return self.segments_of(final, seat, rng, (habits,))[0]

    def both_starts(self, final: State, seat: int, habits: Habits, seed: int
                    ) -> tuple[list[Segment], list[Segment]]:
        """In one walk of the hand (`segments_of`), which draws the same deals for both
        starts and values what does not depend on the habits once."""
        first, second = self.segments_of(final, seat, np.random.default_rng(seed),
                                          (habits, from_choices(habits)))
        return first, second

    def segments_of(self, final: State, seat: int, rng: np.random.Generator,
                    models: Sequence[Habits | None]) -> list[list[Segment]]:
        """`segments` with each of `models` for the habits, in one walk of the hand: the
        plain values, the deals, the bot's range and its advice are every model's (valued
        apart, each would draw the same deals from a generator seeded alike)."""
        if not isinstance(final, HoldemState):
            raise ValueError(f"{type(final).__name__} is not a hold'em position")
        if self._openings is None:
            self._openings = OpeningChances(self.bot.rules.deck, self.prepared.combos)
        opening = self._openings.opening(
            final, seat, self.played if self.played is not None else self.bot)
        return [[Segment(None, None, tuple(decisions), correction, model_correction, opening)]
                for decisions, correction, model_correction
                in self.walk(final, seat, rng, models)]

    def hand(self, final: HoldemState, seat: int, rng: np.random.Generator,
             habits: Habits | None = None) -> list[DecisionValues]:
        """Every decision of the player in `seat` in the hand that reached `final`, valued
        (with its habits too, if given); a hand left at the player's decision (a forfeit) has
        that decision valued last."""
        return self.walk(final, seat, rng, (habits,))[0][0]

    def walk(self, final: HoldemState, seat: int, rng: np.random.Generator,
             models: Sequence[Habits | None]) -> list[tuple[list[DecisionValues], float, float]]:
        """Per model of `models`: `hand`'s decisions, and the sums of `correction` over the
        bot's decisions where `played` is not its tables and of `as_played`'s shifts over
        the player's (the plain one and the habits' one)."""
        combos = self.prepared.combos
        hole = final.hole(seat)
        weights = (~np.isin(combos, hole).any(axis=1)).astype(np.float64)
        out: list[list[DecisionValues]] = [[] for _ in models]
        corrections = np.zeros((len(models), 2))
        tables = [self._habit_tables(h) if h is not None else None for h in models]  # once
        state = final.game.initial_state()
        for action in (*final.history, None):
            player = state.current_player()
            if player == seat:
                board = state.board()
                live = np.where(np.isin(combos, board).any(axis=1), 0.0, weights)
                valued = self.decisions(state.betting, board, hole, seat, live, rng, models,
                                        tables)
                advice = (None if self.played is None else
                          self.advice(self.played, state.betting, board, hole))
                for m, (habits, decision) in enumerate(zip(models, valued, strict=True)):
                    if advice is not None:
                        decision, shift = self.as_played(advice, decision, habits)
                        if out[m]:  # the first decision's value is not in the result
                            corrections[m] += shift
                    out[m].append(decision)
            elif player == 1 - seat and action is not None:
                playing = self.played if self.played is not None else self.bot
                possible = ~np.isin(combos, state.board()).any(axis=1)  # others weigh 0
                probabilities = self._widened(playing.action_probabilities(
                    state.betting, state.board(), combos[possible]))
                weights = np.where(possible, weights, 0.0)
                if self.played is not None:
                    shift = np.zeros((len(combos), self.prepared.tree.slots))
                    shift[possible] = probabilities - self._widened(self.bot.action_probabilities(
                        state.betting, state.board(), combos[possible]))
                    if np.abs(shift).max() > SHIFT_TOLERANCE:
                        corrections += self.correction(state.betting, state.board(), hole,
                                                       seat, weights, shift, rng, tables)
                weights[possible] *= probabilities[:, slot_of(state.betting, action)]
            if action is not None:
                state = state.apply_action(action)
        return [(decisions, float(c[0]), float(c[1]))
                for decisions, c in zip(out, corrections, strict=True)]

    @staticmethod
    def advice(played: HoldemPolicy, betting: Betting, board: tuple[int, ...],
               hole: tuple[int, ...]) -> tuple[float, ...]:
        """What the bot plays in the player's place (`played`, a re-solve's strategy for the
        player's seat): the hint's advice, over the legal actions."""
        row = played.action_probabilities(betting, board, np.array([hole], np.int64))[0]
        return tuple(float(row[s]) for s in legal_slots(betting))

    def as_played(self, strategy: tuple[float, ...], valued: DecisionValues,
                  habits: Habits | None) -> tuple[DecisionValues, FloatArray]:
        """The decision with the `advice` of what the bot plays (`strategy`) instead of its
        tables', V(I) its mix of the same Q; and what that changes in V(I) (with the habits'
        too), which the segment's correction adds back: the result still telescopes with the
        tables' V."""
        if np.allclose(strategy, valued.probabilities, rtol=0.0, atol=SHIFT_TOLERANCE):
            return valued, np.zeros(2)
        value = math.fsum(p * q for p, q in zip(strategy, valued.values, strict=True))
        model = None
        if valued.model_probabilities is not None:
            model = habit_model(habits, valued.habit_keys, valued.labels, strategy, self.prior)
        mixed = replace(valued, probabilities=strategy, value=value, model_probabilities=model)
        shift = value - valued.value
        if mixed.model_value is not None and valued.model_value is not None:
            return mixed, np.array([shift, mixed.model_value - valued.model_value])
        return mixed, np.array([shift, shift])

    def correction(self, betting: Betting, board: tuple[int, ...], hole: tuple[int, ...],
                   seat: int, posterior: FloatArray, shift: FloatArray,
                   rng: np.random.Generator, habit_tables: Sequence[HabitTables | None] = (None,)
                   ) -> FloatArray:
        """AIVAT's term for a decision of the bot where it plays `shift` (per hand and
        action: its probabilities less its tables') away from the tables the values assume:
        ``sum over its hands h and actions a of posterior(h) shift(h, a) V(h, a)``, V the
        player's value after a with both following the tables; a row per entry of
        `habit_tables`: the plain term, and the term with the player following those habits
        (the plain one again where None).  The terms of the player's decisions add
        up to its payoff in expectation only if every bot decision is a zero-mean step of V;
        this one's step has this expectation, which the luck-adjusted result adds.  Exact
        where the deals are all there (the turn and the river), a sample where not, as
        `decision`'s values."""
        deals = self._deals(self.bot.rules, betting.round, board, hole, seat, posterior, rng)
        node = self.prepared.tree.node(betting)
        seed = int(rng.integers(2**31))

        def term(model: HabitTables) -> float:
            total = 0.0
            for a in legal_slots(betting):
                out = np.zeros(self.prepared.tree.slots)
                weighted = replace(deals, weights=deals.weights * shift[deals.rows, a])
                self._kernel(weighted, node, seat, hole, board, model, seed, out)
                total += out[a]
            return total

        plain = term(_NO_HABITS)
        return np.array([[plain, plain if t is None else term(t)] for t in habit_tables])

    def decision(self, betting: Betting, board: tuple[int, ...], hole: tuple[int, ...],
                 seat: int, posterior: FloatArray, rng: np.random.Generator,
                 habits: Habits | None = None, habit_tables: HabitTables | None = None
                 ) -> DecisionValues:
        """One decision: the human in `seat` holds `hole` on `board` after `betting`; the bot's
        hands (`prepared.combos`) weigh `posterior` (zero for those that cannot be)."""
        return self.decisions(betting, board, hole, seat, posterior, rng, (habits,),
                              (habit_tables,))[0]

    def decisions(self, betting: Betting, board: tuple[int, ...], hole: tuple[int, ...],
                  seat: int, posterior: FloatArray, rng: np.random.Generator,
                  models: Sequence[Habits | None], tables: Sequence[HabitTables | None]
                  ) -> list[DecisionValues]:
        """`decision` with each of `models` for the habits (`tables`: theirs, where built),
        over the same deals: the plain values are computed once."""
        p = self.prepared
        rules = self.bot.rules
        if not posterior.sum() > 0:
            raise ValueError("no hand of the bot is consistent with the hand so far")
        deals = self._deals(rules, betting.round, board, hole, seat, posterior, rng)
        exact = deals.runouts is not None
        node = p.tree.node(betting)
        legal = legal_slots(betting)
        labels = tuple(betting.label(a) for a in betting.legal_actions())
        own = self.bot.action_probabilities(betting, board, np.array([hole], np.int64))[0]
        strategy = tuple(float(own[a]) for a in legal)
        values = np.zeros(p.tree.slots)
        seed = int(rng.integers(2**31))
        self._kernel(deals, node, seat, hole, board, _NO_HABITS, seed, values)
        keys = self.habit_keys(betting, board, hole)
        q = tuple(float(values[a]) for a in legal)
        value = math.fsum(s * x for s, x in zip(strategy, q, strict=True))
        out = []
        for habits, table in zip(models, tables, strict=True):
            model_probabilities = model_values = None
            if habits is not None:
                model_probabilities = habit_model(habits, keys, labels, strategy, self.prior)
                modelled = np.zeros(p.tree.slots)
                self._kernel(deals, node, seat, hole, board,
                             table if table is not None else self._habit_tables(habits),
                             seed, modelled)
                model_values = tuple(float(modelled[a]) for a in legal)
            out.append(DecisionValues(labels, strategy, q, value, model_probabilities,
                                      model_values, exact, keys))
        return out

    def _kernel(self, deals: Deals, node: int, seat: int, hole: tuple[int, ...],
                board: tuple[int, ...], model: HabitTables, seed: int, out: FloatArray
                ) -> None:
        """Every deal's betting walked in full, over the whole range at once
        (`holdem_kernel.range_values`), where the deals are all there; played out once per deal
        (`holdem_kernel.playout_values`) where they are a sample: the same seed for both
        profiles (common random numbers again)."""
        p = self.prepared
        if deals.runouts is not None:
            range_values(p.tree.arrays, node, seat, p.cards, p.tables, p.row_start,
                         np.array(hole, np.int64), np.array(board, np.int64), deals.holes,
                         deals.weights, deals.runouts, float(deals.boards), *model, self.prior,
                         out)
        else:
            playout_values(p.tree.arrays, node, seat, p.cards, p.tables, p.row_start,
                           deals.decks, deals.weights, *model, self.prior, seed, out)

    def habit_keys(self, betting: Betting, board: tuple[int, ...], hole: tuple[int, ...]
                   ) -> tuple[str, str]:
        """Where a player's habits are counted: the betting so far (whatever it holds), and
        the betting with its hand's bucket in the bot's abstraction (``rc/c@17``)."""
        rules = self.bot.rules
        code = hand_codes(rules, self.bot.spec, betting.round, np.array([hole], np.int64),
                          board)[0]
        return betting.acpc(), f"{betting.acpc()}{BUCKET_MARK}{int(code)}"

    def _habit_tables(self, habits: Habits) -> HabitTables:
        """The habits as arrays over the betting tree: counts per node (node, fold/call/raise),
        per node and bucket (`bucket_row` of a node into the (rows, buckets, 3) counts), and,
        where the model starts from the player's choices (`base.from_choices`), per node the
        counts wherever the player had the node's choices."""
        p = self.prepared
        width = p.tree.slots
        choices = np.zeros((0, width))
        if FROM_CHOICES in habits:  # a handful of sets over thousands of nodes
            per_set = np.array([_slots(habits.get(key, {}), width) for key in p.choice_keys])
            choices = np.ascontiguousarray(per_set.reshape(-1, width)[p.choice_of])
        public = np.zeros((p.tree.num_nodes, width))
        rows = np.full(p.tree.num_nodes, -1, np.int64)
        specific: list[tuple[int, int, Mapping[str, float]]] = []
        for key, counts in habits.items():
            betting, mark, bucket = key.partition(BUCKET_MARK)
            node = p.tree.index.get(betting)
            if node is None:
                continue
            if mark:
                specific.append((node, int(bucket), counts))
            else:
                public[node] = _slots(counts, width)
        widest = p.tables.shape[1]
        table = np.zeros((len({n for n, _, _ in specific}), widest, width))
        for node, b, counts in specific:
            if rows[node] < 0:
                rows[node] = int((rows >= 0).sum())
            if 0 <= b < widest:
                table[rows[node], b] = _slots(counts, width)
        return public, rows, table, choices

    def _widened(self, rows: FloatArray) -> FloatArray:
        """`rows` (a policy's columns, as many as the node's widest slot needs) padded to the
        betting tree's slots."""
        out = np.zeros((len(rows), self.prepared.tree.slots))
        out[:, :rows.shape[1]] = rows
        return out

    def _deals(self, rules: HoldemRules, round_: int, board: tuple[int, ...],
               hole: tuple[int, ...], seat: int, posterior: FloatArray,
               rng: np.random.Generator) -> Deals:
        """`holdem_deals.deals_for` with this valuer's hands and sizes."""
        return deals_for(self.prepared.combos, rules, round_, board, hole, seat, posterior, rng,
                         exact_deals=self.exact_deals, samples=self.samples)


def _slots(counts: Mapping[str, float], width: int) -> list[float]:
    """Counts by label as fold, call, raise (a check is a call, a bet a raise: the same ids),
    then nothing in the slots of further raise sizes (limit betting's labels name none)."""
    return [counts.get("fold", 0.0), counts.get("call", 0.0) + counts.get("check", 0.0),
            counts.get("raise", 0.0) + counts.get("bet", 0.0)] + [0.0] * (width - SLOTS)
