"""The deals a hold'em decision is valued over (`solver.evaluation.values.holdem`): every
deal where they are few, a sample drawn from the bot's posterior and the cards left where not."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from solver.games.holdem.rules import HoldemRules

__all__ = ["Deals", "deals_for"]

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Deals:
    """What a decision is valued over: every deal (the bot's live `holes` with their posterior
    `weights`, every `runouts` row, each hand leaving `boards` of them), or a sample of them
    (`decks`: rows of player 0's hole cards, player 1's, the whole board; `weights` 1/n)."""

    holes: IntArray
    weights: FloatArray
    runouts: IntArray | None
    boards: int
    rows: IntArray  # per hand of `holes`: its row of `combos`
    decks: IntArray = field(default_factory=lambda: np.zeros((0, 0), np.int64))


def deals_for(combos: IntArray, rules: HoldemRules, round_: int, board: tuple[int, ...],
              hole: tuple[int, ...], seat: int, posterior: FloatArray, rng: np.random.Generator,
              *, exact_deals: int, samples: int) -> Deals:
    """Every deal if there are at most `exact_deals` (the bot's live hands of `combos` with
    their `posterior` shares, and every runout), else `samples` deals drawn from the posterior
    and the cards left; the player in `seat` holds `hole` on `board` in round `round_`."""
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
    if len(live) * boards <= exact_deals:
        return Deals(np.ascontiguousarray(combos[live]), np.ascontiguousarray(share),
                     _runouts(unseen, later), boards, live)
    n = samples
    rows = live[rng.choice(len(live), size=n, p=share)]
    bot_holes = combos[rows]
    keys = rng.random((n, len(unseen)))
    keys[(unseen[None, :, None] == bot_holes[:, None, :]).any(axis=2)] = np.inf
    rest = unseen[np.argpartition(keys, to_come - 1, axis=1)[:, :to_come]
                  if to_come else np.zeros((n, 0), np.int64)]
    mine = np.broadcast_to(np.array(hole, np.int64), (n, rules.hole_cards))
    seats = (mine, bot_holes) if seat == 0 else (bot_holes, mine)
    shown = np.broadcast_to(np.array(board, np.int64), (n, len(board)))
    decks = np.ascontiguousarray(np.hstack([*seats, shown, rest.reshape(n, to_come)]),
                                 np.int64)
    return Deals(bot_holes, np.full(n, 1.0 / n), None, boards, rows, decks)




def _runouts(unseen: IntArray, later: tuple[int, ...]) -> IntArray:
    """Every way to deal `later` cards per round from `unseen` (a set per round, rounds in
    order): shape (runouts, sum(later))."""
    rows: list[tuple[int, ...]] = [()]
    for count in later:
        rows = [row + combo for row in rows
                for combo in itertools.combinations([int(c) for c in unseen
                                                     if c not in row], count)]
    return np.array(rows, np.int64).reshape(len(rows), sum(later))
