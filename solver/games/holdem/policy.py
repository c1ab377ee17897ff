"""What a strategy for a member of the limit hold'em family answers, for a whole range of hands
at once: the interface the blueprint bots, the re-solving bot, the baselines and the
evaluations (LBR, duplicate matches) share, with the small helpers every one of them needs.

It sits with the game, below the abstractions and the evaluations, so that a bot can name the
interface without importing the code that judges it.
"""

from __future__ import annotations

import itertools
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from solver.games.holdem.betting import CALL, Betting
from solver.games.holdem.rules import HoldemRules


class HoldemPolicy(Protocol):
    """A strategy for a member of the limit hold'em family, as the real game sees it."""

    @property
    def name(self) -> str:
        """What reports call it (read-only, so frozen dataclasses qualify)."""
        ...

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        """For each row of `holes` (shape (n, hole_cards): card ids of the deck of
        `solver.games.holdem`), the probabilities of universal_poker's actions
        (FOLD=0, CALL=1, RAISE=2; `solver.games.holdem.betting`), shape (n, 3), zero where
        illegal (in no-limit betting with a bet abstraction, one column per raise size:
        `slot_of`), for the player to act in `betting` (solver.games.holdem.betting.Betting) with
        `board` dealt so far. Vectorised over hands because LBR needs the bot's whole range."""


ACTIONS = 3
"""Fold, call, raise: the columns of `HoldemPolicy.action_probabilities` in limit betting."""


def slot_of(betting: Betting, action: int) -> int:
    """The column of `action` in `HoldemPolicy.action_probabilities`: fold 0, call 1, the k-th
    smallest raise 2 + k (in limit betting, universal_poker's action id itself)."""
    if action <= CALL or not betting.rules.no_limit:
        return action
    return CALL + 1 + betting.raise_amounts().index(action)


def legal_slots(betting: Betting) -> tuple[int, ...]:
    """The columns of the legal actions of `betting`, in the order of its legal actions."""
    return tuple(slot_of(betting, a) for a in betting.legal_actions())


def legal_mask(betting: Betting) -> NDArray[np.bool_]:
    """The legal actions of the player to act in `betting`, as a read-only (3,) mask."""
    return _MASKS[betting.legal_actions()]


def _mask(actions: tuple[int, ...]) -> NDArray[np.bool_]:
    mask = np.zeros(ACTIONS, dtype=np.bool_)
    mask[list(actions)] = True
    mask.flags.writeable = False
    return mask


_MASKS: dict[tuple[int, ...], NDArray[np.bool_]] = {
    actions: _mask(actions) for actions in ((), (1,), (1, 2), (0, 1), (0, 1, 2))}


def uniform_rows(betting: Betting, n: int) -> NDArray[np.float64]:
    """`n` rows of the uniform distribution over the legal actions."""
    mask = legal_mask(betting)
    return np.tile(mask / mask.sum(), (n, 1))


def hole_combos(rules: HoldemRules) -> NDArray[np.int64]:
    """Every hand a player may hold: the `rules.hole_cards`-subsets of the deck, each row in
    increasing order, rows in lexicographic order (shape (C(cards, hole cards), hole cards))."""
    return np.array(list(itertools.combinations(range(rules.num_cards), rules.hole_cards)),
                    dtype=np.int64).reshape(-1, rules.hole_cards)
