"""Local Best Response (LBR): a lower bound on a hold'em policy's exploitability, by playing it.

Lisý and Bowling (2017, "Equilibrium Approximation Quality of Current No-Limit Poker Bots")
measure bots whose game is far too big for an exact best response with a player that best
responds *locally*.  LBR sees its own cards and the public actions, and keeps the bot's range:
its posterior over the hands the bot may hold, which starts uniform over the hands that miss
LBR's cards and the board and is multiplied, at each of the bot's actions, by the probability
the bot gives that action with each hand (its answer for the whole range at once,
`solver.games.holdem.policy.answer`: Bayes' rule).  At each of its own decisions LBR takes the
action of greatest value, among those its setting allows in the round
(`solver.evaluation.holdem.lbr_settings`: in limit betting fold, call or raise; in no-limit the
paper's sets, such as fold, call, pot or all-in), under the assumption that from then on both
players only check and call to the showdown:

* ``wp``, the chance that LBR's hand wins at the showdown (ties half) against the range, over
  the board cards still to come (every completion when there are at most `rollouts`, otherwise
  `rollouts` sampled ones);
* check or call: ``wp × pot − (1 − wp) × asked`` (``pot`` both players' chips so far,
  ``asked`` what calling costs; values are relative to folding now);
* a bet or raise putting ``a`` chips beyond the call: the bot folds with ``fp``, the range's
  mean fold probability after the raise, and otherwise calls:
  ``fp × pot + (1 − fp) × (wp' × (pot + a) − (1 − wp') × (asked + a))``.  Here ``wp'`` is the
  winning chance against the range *that continues* (each hand weighted by its probability of
  not folding); the paper keeps ``wp``, which overrates a raise against a range that folds its
  weak hands;
* fold, facing a bet, when neither is positive.

LBR is one particular strategy, so what it wins against the bot, averaged over both seats, is at
most the bot's exploitability (what a best response wins, averaged over the seats): a lower
bound, sampled here with a 95% interval.  Every deal is played twice with LBR in each seat and
the same cards per seat (as in `solver.evaluation.holdem.duplicate`), and the interval is over deal
pairs.  The sampled completions make some of LBR's decisions noisy; that makes LBR a slightly
different (weaker) strategy, never an unsound bound.

Each hand is also scored with its luck taken out (`solver.evaluation.holdem.luck`: the cards'
and the bot's random choices, measured by check-down values with both hands known, AIVAT's
way): the same expectation with about half the variance, so the same interval from half the
deals.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.cards.evaluator import CARD_BIT, CARD_KEY, rank_state
from solver.engine.progress import progress_bar
from solver.evaluation.holdem.duplicate import (
    Deals,
    Estimate,
    checked,
    deal,
    mbb,
    sample_actions,
)
from solver.evaluation.holdem.lbr_settings import LBRSetting
from solver.evaluation.holdem.luck import CheckDownLuck
from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import AnyPolicy, hole_combos

ROLLOUTS = 200
"""Board completions LBR weighs when there are more: every turn and river card of HULHE is
looked at, flops and preflop boards are sampled (200 × 1,326 hands is a millisecond)."""


@njit(cache=True)
def win_probability(mine: NDArray[np.int64], board: NDArray[np.int64],
                    completions: NDArray[np.int64], combo_key: NDArray[np.int64],
                    combo_bits: NDArray[np.int64], combo_mask: NDArray[np.int64],
                    weights: NDArray[np.float64], card_key: NDArray[np.int64],
                    card_bit: NDArray[np.int64]) -> float:
    """The chance that hole cards `mine` win at the showdown (ties half) against an opponent
    holding hand ``h`` with weight ``weights[h]``, the board being `board` plus one row of
    `completions` (all equally likely).  Hand ``h`` is given by its evaluator sums
    ``combo_key[h]``/``combo_bits[h]`` and its cards as the bit mask ``combo_mask[h]`` (bit c
    for card id c); hands that share a card with a completion are left out of it (card
    removal).  `card_key`/`card_bit` are the evaluator's sums per card id of the member's deck.
    Returns 0.5 if no hand is possible."""
    base_key = 0
    base_bits = 0
    for c in board:
        base_key += card_key[c]
        base_bits |= card_bit[c]
    live = np.flatnonzero(weights > 0.0)
    won = 0.0
    total = 0.0
    for r in range(completions.shape[0]):
        key = base_key
        bits = base_bits
        used = 0
        for c in completions[r]:
            key += card_key[c]
            bits |= card_bit[c]
            used |= 1 << c
        my_key = key
        my_bits = bits
        for c in mine:
            my_key += card_key[c]
            my_bits |= card_bit[c]
        value = rank_state(my_key, my_bits)
        for h in live:
            if combo_mask[h] & used:
                continue
            theirs = rank_state(key + combo_key[h], bits | combo_bits[h])
            w = weights[h]
            total += w
            if value > theirs:
                won += w
            elif value == theirs:
                won += 0.5 * w
    return won / total if total > 0.0 else 0.5


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """One hand LBR played, in chips: what it won, the same with the luck taken out, and
    where it ended (`ending`)."""

    won: float
    adjusted: float
    ending: int


@dataclass(frozen=True, slots=True)
class Played:
    """`PlayedHand`'s figures for many deals, each of shape (deals, 2): LBR in seat 0, seat 1."""

    won: NDArray[np.float64]
    adjusted: NDArray[np.float64]
    endings: NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Choice:
    """What LBR weighed at one decision: the values of the actions it considered (by action
    id), the winning chance, the bot's fold probability after each raise considered, and the
    action taken."""

    values: dict[int, float]
    wp: float
    fold_probabilities: dict[int, float]
    action: int

    @property
    def fold_probability(self) -> float:
        """The bot's fold probability after LBR's raise (limit betting's one raise; NaN if LBR
        could not raise)."""
        return self.fold_probabilities.get(RAISE, math.nan)


class LocalBestResponse:
    """LBR against `policy` in `game` (see the module docstring)."""

    def __init__(self, game: HoldemGame, policy: AnyPolicy, rollouts: int = ROLLOUTS,
                 setting: LBRSetting | None = None) -> None:
        self.game, self.policy, self.rollouts = game, policy, rollouts
        self.setting = setting or LBRSetting.parse("fc" if game.definition.no_limit else "fcr")
        rules = game.definition
        self.rules = rules
        self.combos = hole_combos(rules)
        self.card_key = CARD_KEY[rules.deck.standard_ids]
        self.card_bit = CARD_BIT[rules.deck.standard_ids]
        self.index = {tuple(int(c) for c in row): i for i, row in enumerate(self.combos)}
        self.combo_key = self.card_key[self.combos].sum(axis=1)
        self.combo_bits = np.bitwise_or.reduce(self.card_bit[self.combos], axis=1)
        self.combo_mask = np.bitwise_or.reduce(np.left_shift(np.int64(1), self.combos), axis=1)

    def completions(self, known: NDArray[np.int64], need: int, rng: np.random.Generator
                    ) -> NDArray[np.int64]:
        """The board completions to weigh: all of them if at most `rollouts`, else a sample."""
        unknown = np.setdiff1d(np.arange(self.rules.num_cards), known)
        if need == 0:
            return np.zeros((1, 0), dtype=np.int64)
        if math.comb(len(unknown), need) <= self.rollouts:
            return hole_combos_of(unknown, need)
        picks = np.argsort(rng.random((self.rollouts, len(unknown))), axis=1)[:, :need]
        return unknown[picks]

    def wp(self, mine: NDArray[np.int64], board: NDArray[np.int64],
           completions: NDArray[np.int64], weights: NDArray[np.float64]) -> float:
        return float(win_probability(mine, board, completions, self.combo_key, self.combo_bits,
                                     self.combo_mask, weights, self.card_key, self.card_bit))

    def choose(self, betting: Betting, mine: NDArray[np.int64], board: tuple[int, ...],
               weights: NDArray[np.float64], rng: np.random.Generator) -> Choice:
        """LBR's action at `betting` with hole cards `mine`, `board`, and the bot's range
        `weights` (over `combos`), among the moves its `setting` allows in the round."""
        me = betting.player
        pot = float(sum(betting.spent))
        top = max(betting.spent)
        asked = float(top - betting.spent[me])
        board_array = np.array(board, dtype=np.int64)
        need = sum(self.rules.board_cards) - len(board)
        completions = self.completions(np.concatenate([mine, board_array]), need, rng)
        wp = self.wp(mine, board_array, completions, weights)
        values = {CALL: wp * pot - (1 - wp) * asked}
        folds_after: dict[int, float] = {}
        allowed = self.setting.moves(betting)
        if FOLD in allowed:
            values[FOLD] = 0.0
        live = np.flatnonzero(weights > 0)
        total = weights.sum()
        for raise_to in (a for a in allowed if a > CALL):
            raised = betting.apply(raise_to)
            folds = np.zeros(len(weights))
            if not raised.over:
                actions, rows = checked(self.policy, raised, board, self.combos[live])
                if FOLD in actions:
                    folds[live] = rows[:, actions.index(FOLD)]
            fold_probability = float((weights * folds).sum() / total) if total > 0 else 0.0
            a = float(raised.spent[me] - top)
            called = 0.0
            if fold_probability < 1.0:
                wp_called = self.wp(mine, board_array, completions, weights * (1 - folds))
                called = wp_called * (pot + a) - (1 - wp_called) * (asked + a)
            values[raise_to] = fold_probability * pot + (1 - fold_probability) * called
            folds_after[raise_to] = fold_probability
        # Best value; ties go to the cheaper action (call, then the smaller raise; fold never
        # on a tie).
        order = [CALL, *sorted(a for a in values if a > CALL), FOLD]
        action = max((a for a in order if a in values),
                     key=lambda a: (values[a], -order.index(a)))
        return Choice(values, wp, folds_after, action)

    def play(self, seat: int, holes: NDArray[np.int64], board: NDArray[np.int64],
             rng: np.random.Generator) -> float:
        """One hand with LBR in `seat`: ``holes[p]`` seat p's hole cards, `board` the whole
        board; LBR's winnings in chips."""
        return self.hand(seat, holes, board, rng).won

    def hand(self, seat: int, holes: NDArray[np.int64], board: NDArray[np.int64],
             rng: np.random.Generator, luck_rng: np.random.Generator | None = None
             ) -> PlayedHand:
        """`play`, with the luck taken out (its samples drawn by `luck_rng`, apart from
        `rng` so that the hands played do not depend on it) and where the hand ended."""
        rules = self.rules
        luck = CheckDownLuck(rules, seat, holes[seat], holes[1 - seat],
                             luck_rng or np.random.default_rng(0))
        mine = holes[seat]
        bot_hand = self.index[tuple(sorted(int(c) for c in holes[1 - seat]))]
        weights = np.ones(len(self.combos))
        weights[np.isin(self.combos, mine).any(axis=1)] = 0.0
        betting = Betting.start(rules)
        lucky = luck.holes(betting)
        shown = -1
        while not betting.over:
            dealt = rules.board_dealt(betting.round)
            if dealt != shown:
                if shown >= 0:
                    lucky += luck.cards(betting, board[:shown], board[:dealt])
                weights[np.isin(self.combos, board[:dealt]).any(axis=1)] = 0.0
                shown = dealt
            visible = tuple(int(c) for c in board[:dealt])
            if betting.player == seat:
                action = self.choose(betting, mine, visible, weights, rng).action
            else:
                live = np.flatnonzero(weights > 0)
                actions, probabilities = checked(self.policy, betting, visible,
                                                 self.combos[live])
                at = int(np.searchsorted(live, bot_hand))
                if at == len(live) or live[at] != bot_hand:
                    raise ValueError(f"{self.policy.name} gave probability 0 to an action it "
                                     f"took (betting {betting.acpc()!r}): its answers must not "
                                     f"change from one call to the next")
                row = probabilities[at]
                column = int(sample_actions(row[None, :], rng.random(1))[0])
                action = actions[column]
                lucky += luck.action(betting, board[:dealt], actions, row, action)
                weights[live] *= probabilities[:, column]
                total = weights.sum()
                if total > 0:
                    weights /= total
            betting = betting.apply(action)
        if betting.folded < 0 and shown < len(board):  # an all-in: the rest dealt at once
            lucky += luck.cards(betting, board[:shown], board)
        won = _winnings(betting, seat, holes, board, rules.deck.standard_ids)
        return PlayedHand(won, won - lucky, ending(betting, seat))

    def deals(self, dealt: Deals, rng: np.random.Generator,
              after_each: Callable[[], object] | None = None,
              luck_rng: np.random.Generator | None = None) -> Played:
        """Every deal of `dealt` played twice, LBR in each seat once; `after_each` is called
        after each deal (a progress bar's step)."""
        count = len(dealt.holes)
        won = np.zeros((count, 2))
        adjusted = np.zeros((count, 2))
        endings = np.zeros((count, 2), np.int64)
        luck_rng = luck_rng or np.random.default_rng(0)
        for i in range(count):
            for seat in (0, 1):
                played = self.hand(seat, dealt.holes[i], dealt.boards[i], rng, luck_rng)
                won[i, seat], adjusted[i, seat] = played.won, played.adjusted
                endings[i, seat] = played.ending
            if after_each is not None:
                after_each()
        return Played(won, adjusted, endings)


ENDINGS = ("showdown", "LBR folds", "the bot folds")
"""How a hand can end, for `ending`."""


def ending(betting: Betting, seat: int) -> int:
    """Where and how the hand that `betting` finished ended for LBR in `seat`, as one code:
    its last round times the number of `ENDINGS`, plus the index of how."""
    how = 0 if betting.folded < 0 else 1 if betting.folded == seat else 2
    return betting.round * len(ENDINGS) + how


def where_won(won: NDArray[np.float64], endings: NDArray[np.int64], scale: float
              ) -> dict[str, dict[str, dict[str, float]]]:
    """Where LBR's winnings come from, per seat (LBR's): for each round and way a hand ended
    (`ending`; shape (deals, 2) like `won`), its share of the hands and what it adds to the
    seat's mbb/hand (the additions sum to the seat's result).  A bot that folds too often in
    one spot shows up as a large addition at that round's "the bot folds"."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for seat in (0, 1):
        rows: dict[str, dict[str, float]] = {}
        for code in np.unique(endings[:, seat]).tolist():
            hit = endings[:, seat] == code
            rows[f"round {code // len(ENDINGS) + 1}: {ENDINGS[code % len(ENDINGS)]}"] = {
                "share": float(hit.mean()),
                "mbb_per_hand": float(won[hit, seat].sum() / len(won) * scale)}
        out[f"seat{seat}"] = rows
    return out


def hole_combos_of(cards: NDArray[np.int64], k: int) -> NDArray[np.int64]:
    """Every `k`-subset of `cards`, one per row."""
    return np.array(list(itertools.combinations(cards.tolist(), k)), dtype=np.int64
                    ).reshape(-1, k)


def _winnings(betting: Betting, seat: int, holes: NDArray[np.int64], board: NDArray[np.int64],
              standard: NDArray[np.int64]) -> float:
    spent = betting.spent
    folded = betting.folded
    if folded >= 0:
        return float(spent[1 - seat]) if folded != seat else -float(spent[seat])
    mine = _value(np.concatenate([holes[seat], board]), standard)
    theirs = _value(np.concatenate([holes[1 - seat], board]), standard)
    return float(spent[1 - seat]) if mine > theirs else -float(spent[seat]) if mine < theirs \
        else 0.0


def _value(cards: NDArray[np.int64], standard: NDArray[np.int64]) -> int:
    key = int(CARD_KEY[standard[cards]].sum())
    bits = int(np.bitwise_or.reduce(CARD_BIT[standard[cards]]))
    return int(rank_state(key, bits))


@dataclass(frozen=True, slots=True)
class LBRResult:
    """LBR's winnings against `policy` in mbb/hand, both seats averaged (a lower bound on the
    policy's exploitability), and per seat."""

    policy: str
    estimate: Estimate
    seats: tuple[float, float]
    deals: int
    seconds: float
    where: dict[str, dict[str, dict[str, float]]]
    """`where_won`: per seat, the rounds and ways hands ended that the winnings come from."""
    adjusted: Estimate
    """The same expectation from `PlayedHand.adjusted`, the luck taken out."""
    setting: str = "fcr"
    """LBR's moves per round (`solver.evaluation.holdem.lbr_settings`)."""

    def as_dict(self) -> dict[str, object]:
        return {"policy": self.policy, "lbr_mbb_per_hand": self.estimate.mean,
                "ci95": self.estimate.half_width, "lbr_seat0": self.seats[0],
                "lbr_seat1": self.seats[1], "deals": self.deals,
                "seconds": round(self.seconds, 2), "where": self.where,
                "adjusted_mbb_per_hand": self.adjusted.mean,
                "adjusted_ci95": self.adjusted.half_width, "setting": self.setting}


def local_best_response(game: HoldemGame, policy: AnyPolicy, deals: int, seed: int = 0,
                        rollouts: int = ROLLOUTS, progress: bool = False,
                        setting: LBRSetting | None = None) -> LBRResult:
    """LBR against `policy` over `deals` deal pairs, LBR in each seat once per deal, with the
    moves of `setting` (default: fold, call or raise in limit betting; fold or call in
    no-limit)."""
    started = time.perf_counter()
    lbr = LocalBestResponse(game, policy, rollouts, setting)
    dealt = deal(game.definition, deals, seed)
    streams = np.random.SeedSequence(seed).spawn(3)
    rng, luck_rng = np.random.default_rng(streams[1]), np.random.default_rng(streams[2])
    with progress_bar(total=deals, desc=f"LBR v {policy.name}", unit="deal", disable=not progress,
                      file=sys.stderr, mininterval=0.5) as bar:
        played = lbr.deals(dealt, rng, lambda: bar.update(1), luck_rng)
    scale = mbb(game.definition)
    won = played.won
    estimate = Estimate.of(won.mean(axis=1), scale)
    seats = (float(won[:, 0].mean() * scale), float(won[:, 1].mean() * scale))
    return LBRResult(policy.name, estimate, seats, deals, time.perf_counter() - started,
                     where_won(won, played.endings, scale),
                     Estimate.of(played.adjusted.mean(axis=1), scale), lbr.setting.text)
