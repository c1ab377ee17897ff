"""Simple bots every member of the family can play: the yardsticks of a real bot's results.

* `AlwaysCall` checks or calls every time (a "calling station"), `AlwaysRaise` bets or raises
  whenever the cap allows and calls otherwise (a "maniac"), `Uniform` picks a legal action at
  random: what any sensible bot must beat by a wide margin, and what LBR must exploit;
* in no-limit betting, `RaisesWhenever` bets or raises the pot whenever it may (``pot``), or
  goes all-in whenever it may (``all-in``), and calls otherwise;
* `EquityThreshold` plays its hand's exact expected hand strength E[HS] (against one uniformly
  random hand, `solver.cards.strength`): raise (the pot, in no-limit) above a high threshold,
  call above a low one, otherwise check, or fold to a bet.  A weak but card-aware opponent.

Those that raise in no-limit name their few actions (`solver.games.holdem.policy.SparsePolicy`)
rather than a column for each of the thousands of legal amounts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from solver.cards.strength import Streets, StrengthTables, ehs_tables
from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import (
    ACTIONS,
    AnyPolicy,
    all_in,
    legal_mask,
    pot_raise,
    slot_of,
    uniform_rows,
)


def _pure(betting: Betting, n: int, action: int) -> NDArray[np.float64]:
    rows = np.zeros((n, ACTIONS))
    rows[:, action] = 1.0
    return rows


@dataclass(slots=True, eq=False)
class AlwaysCall:
    """Check or call, always (never folds, never bets)."""

    name: str = "always-call"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        return _pure(betting, len(holes), CALL)

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]
                             ) -> tuple[tuple[int, ...], NDArray[np.float64]]:
        return (CALL,), np.ones((len(holes), 1))


@dataclass(slots=True, eq=False)
class RaisesWhenever:
    """No-limit: raise to `size`'s amount whenever a raise is legal, call otherwise (never
    folds): the pot-sized bettor (`pot_raise`) and the all-in shover (`all_in`)."""

    name: str
    size: Callable[[Betting], int | None]

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]
                             ) -> tuple[tuple[int, ...], NDArray[np.float64]]:
        raise_to = self.size(betting)
        return ((CALL,) if raise_to is None else (raise_to,)), np.ones((len(holes), 1))


@dataclass(slots=True, eq=False)
class AlwaysRaise:
    """Bet or raise whenever the round's cap allows it, call otherwise (never folds)."""

    name: str = "always-raise"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        return _pure(betting, len(holes), RAISE if legal_mask(betting)[RAISE] else CALL)


@dataclass(slots=True, eq=False)
class Uniform:
    """Every legal action with the same probability (so it folds a third of the time to a bet
    even when checking costs nothing)."""

    name: str = "uniform"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        return uniform_rows(betting, len(holes))


RAISE_ABOVE = (0.60, 0.70, 0.75, 0.80)
"""E[HS] from which `EquityThreshold` bets or raises: preflop, flop, turn, river.

E[HS] measures a hand against one *random* hand, but a bettor's range is stronger than random,
so the bar rises street by street as the ranges narrow and the draws that E[HS] averages over
resolve: preflop about the best quarter of the hands, by the river a hand that beats four random
hands in five."""
CALL_ABOVE = (0.45, 0.50, 0.55, 0.60)
"""E[HS] from which `EquityThreshold` calls a bet (below it, it checks, or folds to a bet).

In limit poker the pot is several bets large when a bet comes, so the pot odds alone would
justify calling with 20 to 30% equity; the bar sits higher because E[HS] against a random hand
overstates the equity against a range that bets.  Preflop the small blind completes cheaply,
so the bar there is the lowest."""


@dataclass(slots=True, eq=False)
class EquityThreshold:
    """Raise with E[HS] at or above `RAISE_ABOVE` of the street, call at or above `CALL_ABOVE`,
    otherwise check or fold.  Needs two hole cards (the strength tables are for hold'em-like
    hands); a member with fewer than four rounds plays its first round with the preflop
    thresholds, its last with the river's and the ones in between with the flop's and turn's.

    The tables come from `solver.cards.strength.ehs_tables` (built once and cached on disk: about
    40 s and 351 MiB for HULHE, instant for holdem-mini)."""

    game: HoldemGame
    name: str = "equity"
    tables: StrengthTables | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        rules = self.game.definition
        if rules.hole_cards != 2:
            raise ValueError(f"the equity bot needs two hole cards; {self.game.name} deals "
                             f"{rules.hole_cards}")
        if self.tables is None:
            streets = Streets(rules.deck, 2, tuple(b for b in rules.board_cards if b > 0))
            self.tables = ehs_tables(streets)

    def thresholds(self, round_: int) -> tuple[float, float]:
        """(raise, call) thresholds of round `round_` (0-based)."""
        last = self.game.definition.num_rounds - 1
        street = 3 if round_ == last else min(round_, 2)
        return RAISE_ABOVE[street], CALL_ABOVE[street]

    def strength(self, board: tuple[int, ...], holes: NDArray[np.int64]) -> NDArray[np.float64]:
        """E[HS] of each row of `holes` with `board`; 0 for a hand sharing a card with it."""
        assert self.tables is not None
        streets = self.tables.streets
        street = [streets.board_size(s) for s in range(streets.num_streets)].index(len(board))
        holes = np.asarray(holes, dtype=np.int64).reshape(-1, 2)
        out = np.zeros(len(holes))
        possible = ~(holes[:, :, None] == np.array(board, dtype=np.int64)).any(axis=(1, 2))
        if possible.any():
            hands = np.concatenate(
                [holes[possible], np.broadcast_to(np.array(board, dtype=np.int64),
                                                  (int(possible.sum()), len(board)))], axis=1)
            out[possible] = self.tables.lookup(street, streets.indexer(street).index_many(hands))[0]
        return out

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]
                             ) -> tuple[tuple[int, ...], NDArray[np.float64]]:
        """Fold (facing a bet), call, and its raise: the limit raise or the pot."""
        strength = self.strength(board, holes)
        high, low = self.thresholds(betting.round)
        raise_to = pot_raise(betting)
        actions = ((FOLD,) if betting.facing else ()) + (CALL,) + (
            () if raise_to is None else (raise_to,))
        choice = np.where(strength >= low, CALL, FOLD if betting.facing else CALL)
        if raise_to is not None:
            choice = np.where(strength >= high, raise_to, choice)
        rows = (choice[:, None] == np.array(actions)[None, :]).astype(np.float64)
        return actions, rows

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        actions, rows = self.sparse_probabilities(betting, board, holes)
        out = np.zeros((len(rows), max(ACTIONS, 1 + max(slot_of(betting, a) for a in actions))))
        out[:, [slot_of(betting, a) for a in actions]] = rows
        return out


def baseline(name: str, game: HoldemGame) -> AnyPolicy:
    """A baseline by its name (`BASELINES`; `NO_LIMIT_BASELINES` in no-limit betting)."""
    choices = baselines_for(game)
    if name not in choices:
        raise ValueError(f"unknown baseline {name!r} for {game.name}; choose from "
                         f"{', '.join(choices)}")
    made: dict[str, Callable[[], AnyPolicy]] = {
        "always-call": AlwaysCall, "always-raise": AlwaysRaise, "uniform": Uniform,
        "pot": lambda: RaisesWhenever("pot", pot_raise),
        "all-in": lambda: RaisesWhenever("all-in", all_in), "equity": lambda: EquityThreshold(game)}
    return made[name]()


def baselines_for(game: HoldemGame) -> tuple[str, ...]:
    """The baselines that play `game`: `NO_LIMIT_BASELINES` in no-limit betting (a uniformly
    random or minimum raiser has no sense where a raise has thousands of amounts)."""
    return NO_LIMIT_BASELINES if game.definition.no_limit else BASELINES


BASELINES = ("always-call", "always-raise", "uniform", "equity")
NO_LIMIT_BASELINES = ("always-call", "pot", "all-in", "equity")
