"""The luck in one played hold'em hand, to be taken out of its result.

A hand's result mixes what a player earned with what the cards and the opponent's random
choices gave it.  AIVAT (Burch, Schmid, Moravčík, Morrill and Bowling 2018) takes the second
part out without bias: at every chance event and every action of a player whose strategy is
known, subtract ``V(what happened) − E[V(what could have happened)]`` for some value function
``V`` of the states; each such term has mean zero given everything before it, so the adjusted
result keeps the expectation and loses the variance that ``V`` explains.

Here ``V`` is the check-down value with both hands known: from the state on, both players only
check and call to the showdown, so the player facing a bet calls it and each ends with the larger
stake ``m`` in, and the result is ``m × (2 × equity − 1)``, the equity over the board cards
still to come (all of them when there are at most `samples` completions, else that many
sampled: a sampled ``V`` is an unbiased estimate of the exact one, so the terms keep mean
zero).  After a fold ``V`` is the fold's payoff.  The terms are taken at the deal of the hole
cards (``V`` of the start has mean zero: the two holdings are exchangeable), at each board card
or flop (the mean over what could have come is ``V`` before it: the stakes stay, and the equity
before is the mean of the equities after), and at each action of the bot (the mean over its
actions under its probabilities for the hand it holds).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.cards.evaluator import CARD_BIT, CARD_KEY, rank_state
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules

__all__ = ["CheckDownLuck", "check_down", "equity", "round_equities"]

SAMPLES = 200
"""Board completions a check-down value weighs at most (more are sampled)."""


@njit(cache=True)
def equity(mine: NDArray[np.int64], theirs: NDArray[np.int64], board: NDArray[np.int64],
           completions: NDArray[np.int64], card_key: NDArray[np.int64],
           card_bit: NDArray[np.int64]) -> float:
    """The share of the `completions` of `board` on which `mine` beats `theirs` (ties half)."""
    won = 0.0
    for r in range(completions.shape[0]):
        key = 0
        bits = 0
        for c in board:
            key += card_key[c]
            bits |= card_bit[c]
        for c in completions[r]:
            key += card_key[c]
            bits |= card_bit[c]
        my_key, my_bits, their_key, their_bits = key, bits, key, bits
        for c in mine:
            my_key += card_key[c]
            my_bits |= card_bit[c]
        for c in theirs:
            their_key += card_key[c]
            their_bits |= card_bit[c]
        a = rank_state(my_key, my_bits)
        b = rank_state(their_key, their_bits)
        won += 1.0 if a > b else 0.5 if a == b else 0.0
    share: float = won / completions.shape[0]
    return share


class CheckDownLuck:
    """The luck terms of one hand between `mine` (the player `seat` whose result is adjusted)
    and `theirs`, under `rules`; `rng` draws the sampled completions."""

    def __init__(self, rules: HoldemRules, seat: int, mine: NDArray[np.int64],
                 theirs: NDArray[np.int64], rng: np.random.Generator,
                 samples: int = SAMPLES) -> None:
        self.rules, self.seat, self.rng = rules, seat, rng
        self.mine = np.asarray(mine, np.int64)
        self.theirs = np.asarray(theirs, np.int64)
        self.samples = samples
        self.card_key = CARD_KEY[rules.deck.standard_ids]
        self.card_bit = CARD_BIT[rules.deck.standard_ids]

    def _unseen(self, board: NDArray[np.int64]) -> NDArray[np.int64]:
        known = np.concatenate([self.mine, self.theirs, board])
        return np.setdiff1d(np.arange(self.rules.num_cards), known)

    def _draws(self, cards: NDArray[np.int64], need: int, most: int) -> NDArray[np.int64]:
        """Every `need`-subset of `cards` if there are at most `most`, else `most` sampled."""
        if need == 0:
            return np.zeros((1, 0), np.int64)
        if math.comb(len(cards), need) <= most:
            return np.array(list(itertools.combinations(cards.tolist(), need)),
                            np.int64).reshape(-1, need)
        picks = np.argsort(self.rng.random((most, len(cards))), axis=1)[:, :need]
        return cards[picks]

    def equity(self, board: NDArray[np.int64]) -> float:
        """`mine`'s equity against `theirs` over the completions of `board`."""
        board = np.asarray(board, np.int64)
        need = sum(self.rules.board_cards) - len(board)
        completions = self._draws(self._unseen(board), need, self.samples)
        return float(equity(self.mine, self.theirs, board, completions, self.card_key,
                            self.card_bit))

    def value(self, betting: Betting, board: NDArray[np.int64],
              equity_now: float | None = None) -> float:
        """The check-down value ``V`` of `betting` on `board` for `seat`, in chips
        (`check_down`'s, which is seat 0's: seat 1's is its negative)."""
        share = self.equity(board) if equity_now is None else equity_now
        if self.seat == 0:
            return float(check_down(betting, np.array([share]))[0])
        return -float(check_down(betting, np.array([1.0 - share]))[0])

    def holes(self, betting: Betting) -> float:
        """The hole cards' luck: ``V`` at the start (its mean over deals is zero)."""
        return self.value(betting, np.zeros(0, np.int64))

    def cards(self, betting: Betting, before: NDArray[np.int64], after: NDArray[np.int64]
              ) -> float:
        """The luck of the board cards that turned `before` into `after` (`betting` at the
        start of the new round): ``V`` with them less ``V`` without them, which is its mean
        over every card that could have come (the stakes do not change, and the equity before
        is the mean of the equities after)."""
        return self.value(betting, np.asarray(after, np.int64)) - self.value(
            betting, np.asarray(before, np.int64))

    def action(self, betting: Betting, board: NDArray[np.int64], actions: tuple[int, ...],
               probabilities: NDArray[np.float64], taken: int) -> float:
        """The luck of the opponent's action `taken` at `betting`, `probabilities` its chances
        of each of `actions` with the hand it holds."""
        share = self.equity(board)
        values = {a: self.value(betting.apply(a), board, share) for a in actions}
        mean = sum(float(p) * values[a] for a, p in zip(actions, probabilities, strict=True))
        return values[taken] - mean


def round_equities(rules: HoldemRules, holes: NDArray[np.int64], boards: NDArray[np.int64],
                   rng: np.random.Generator, samples: int = SAMPLES) -> NDArray[np.float64]:
    """Seat 0's equity against seat 1 in each deal (``holes[i]``, ``boards[i]``) on the board
    each round shows, shape (deals, rounds): what `check_down` values a whole match's hands by."""
    out = np.zeros((len(holes), rules.num_rounds))
    for i in range(len(holes)):
        luck = CheckDownLuck(rules, 0, holes[i, 0], holes[i, 1], rng, samples)
        for r in range(rules.num_rounds):
            out[i, r] = luck.equity(boards[i, :rules.board_dealt(r)])
    return out


def check_down(betting: Betting, equities: NDArray[np.float64]) -> NDArray[np.float64]:
    """Seat 0's check-down value ``V`` of `betting` for hands whose equities on the board it
    shows are `equities` (a fold's payoff after a fold)."""
    spent = betting.spent
    if betting.over and betting.folded >= 0:
        return np.full(len(equities), -float(spent[0]) if betting.folded == 0
                       else float(spent[1]))
    return max(spent) * (2.0 * equities - 1.0)
