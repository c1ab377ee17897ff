"""What a strategy for a member of the limit hold'em family answers, for a whole range of hands
at once: the interface the blueprint bots, the re-solving bot, the baselines and the
evaluations (LBR, duplicate matches) share, with the small helpers every one of them needs.

It sits with the game, below the abstractions and the evaluations, so that a bot can name the
interface without importing the code that judges it.
"""

from __future__ import annotations

import itertools
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from solver.games.holdem.betting import CALL, Betting
from solver.games.holdem.rules import HoldemRules


@runtime_checkable
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


@runtime_checkable
class SparsePolicy(Protocol):
    """A strategy that names the few actions it may take: where a raise has thousands of legal
    amounts (no-limit with every size), a row per hand over every one of them would be
    hundreds of megabytes for a whole range, and almost all zeros."""

    @property
    def name(self) -> str:
        ...

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]
                             ) -> tuple[tuple[int, ...], NDArray[np.float64]]:
        """The legal actions (universal_poker's ids) any row of `holes` may take at `betting`
        with `board`, and each hand's probabilities over them, shape (n, len(actions))."""


AnyPolicy = HoldemPolicy | SparsePolicy
"""What the evaluations play: a policy with a column per action, or one naming its actions."""


def answer(policy: AnyPolicy, betting: Betting, board: tuple[int, ...],
           holes: NDArray[np.int64]) -> tuple[tuple[int, ...], NDArray[np.float64]]:
    """`policy`'s actions at `betting` and each hand's probabilities over them, whichever of
    the two kinds it is (a column policy's answer comes back as all its legal actions)."""
    if isinstance(policy, SparsePolicy):
        actions, rows = policy.sparse_probabilities(betting, board, holes)
        return tuple(actions), np.asarray(rows, dtype=np.float64)
    rows = np.asarray(policy.action_probabilities(betting, board, holes), dtype=np.float64)
    slots = legal_slots(betting)
    if rows.ndim != 2 or rows.shape[0] != len(holes) or rows.shape[1] <= max(slots):
        raise ValueError(f"{policy.name} answered shape {rows.shape} for {len(holes)} hands; "
                         f"expected ({len(holes)}, at least {max(slots) + 1})")
    illegal = np.ones(rows.shape[1], dtype=np.bool_)
    illegal[list(slots)] = False
    if len(rows) and rows[:, illegal].any():
        raise ValueError(f"{policy.name} gave probability to an illegal action after betting "
                         f"{betting.acpc()!r}: legal actions {betting.legal_actions()}")
    return betting.legal_actions(), rows[:, list(slots)]


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


def pot_raise(betting: Betting) -> int | None:
    """The raise of a pot-sized bettor: to the largest contribution plus the pot after calling
    (limit betting: its one raise), kept inside the legal raises (the nearest a bet abstraction
    keeps); None if no raise is legal.

    >>> from solver.games import get_game
    >>> start = Betting.start(get_game("holdem(betting=nolimit,stack=20000 20000,"
    ...                                "blind=100 50)").definition)
    >>> pot_raise(start), all_in(start)
    (300, 20000)
    """
    raises = _raises(betting)
    if not raises:
        return None
    if not betting.rules.no_limit:
        return raises[0]
    top = max(betting.spent)
    wanted = 2 * top + sum(betting.spent) - betting.spent[betting.player]
    return min(raises, key=lambda a: (abs(a - wanted), a)) if betting.rules.bets is not None \
        else min(max(wanted, raises[0]), raises[-1])


def all_in(betting: Betting) -> int | None:
    """The largest legal raise (all-in in no-limit betting), or None."""
    raises = _raises(betting)
    return raises[-1] if raises else None


def _raises(betting: Betting) -> tuple[int, ...]:
    """The legal raises, or their two ends where every amount between is legal."""
    if betting.rules.no_limit and betting.rules.bets is None:
        limits = betting.raise_range()
        return () if limits is None else limits
    return tuple(a for a in betting.legal_actions() if a > CALL)


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
