"""Values of a player's decisions in no-limit hold'em against a bot played from a translated
blueprint (`solver.abstractions.holdem.translated`), the re-solving bot's included.

The blueprint was solved in a game with a few bet sizes; the real game has every amount.  The
hand is read into the blueprint's game as the bot reads the betting (`read_hand`): the same
cards, each move as the blueprint's nearer one (`solver.resolving.no_limit_turn.nearest`: a
fold, a call and an all-in as themselves, a raise as the nearer size), and valued there by the
limit bot's value function over the blueprint's tables (`HoldemValues`, whose kernels walk a
betting tree of any width).  The bot's range follows what it actually played in the real game:
its probabilities of the real moves, each placed on the move it is read as (`_ReadPolicy`), so
a re-solving bot's range is its re-solves' and AIVAT's correction adds what its play changed
from the blueprint's (`HoldemValues.correction`).  Its advice at the player's decisions is
what it would play there in the player's place, read the same way.

What this does not do: value the rest of the hand with the re-solved strategy (the values
below each decision are the blueprint's), or count the player's habits (their model needs
actions named alike from hand to hand, which amounts are not): the luck-adjusted result is the
equilibrium's estimate.  A hand whose betting the blueprint's game cannot follow (a raise read
as all-in and called with chips behind in the real game, or the other way round) is not valued
(`UnreadableHand`); it counts raw.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.translated import Translated
from solver.evaluation.values.base import (
    DecisionValues,
    Habits,
    Reference,
    Segment,
    UnreadableHand,
)
from solver.evaluation.values.holdem import EXACT_DEALS, SAMPLED_DEALS, HoldemValues
from solver.games.base import State
from solver.games.holdem.betting import CALL, Betting
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import SparsePolicy, slot_of
from solver.resolving.no_limit_turn import nearest
from strategies.tables import TableStrategy

FloatArray = NDArray[np.float64]

__all__ = ["NoLimitValues", "Reading", "read_hand"]


@dataclass(frozen=True, slots=True)
class Reading:
    """A real hand read into the blueprint's game (`read_hand`)."""

    state: HoldemState
    """Where the hand stands in the blueprint's game."""
    at: dict[str, Betting]
    """The real betting at each betting position of the reading (by its ACPC string)."""
    moves: tuple[tuple[int, Betting, int | None, int], ...]
    """Each decision: the player, the real betting, the real move (None for a decision the
    hand was left at) and the index among the reading's legal actions of the move read."""


def read_hand(final: HoldemState, abstract: HoldemGame) -> Reading:
    """The hand that reached `final`, read into the blueprint's game `abstract`;
    `UnreadableHand` where the two part (one at a showdown or a deal, the other at a
    decision)."""
    real = final.game.initial_state()
    mine = abstract.initial_state()
    assert isinstance(real, HoldemState) and isinstance(mine, HoldemState)
    at: dict[str, Betting] = {}
    moves: list[tuple[int, Betting, int | None, int]] = []
    for action in (*final.history, None):
        if mine.is_terminal() != real.is_terminal() or mine.is_chance() != real.is_chance() or (
                not real.is_terminal() and mine.current_player() != real.current_player()):
            raise UnreadableHand(f"the blueprint's game cannot follow the betting "
                                 f"{real.betting.acpc()!r}")
        if real.is_terminal() or real.is_chance():
            if action is not None:
                mine = mine.apply_action(action)
                real = real.apply_action(action)
            continue
        at[mine.betting.acpc()] = real.betting
        if action is None:
            moves.append((real.current_player(), real.betting, None, -1))
            continue
        read = nearest(real.betting, action, mine.betting)
        moves.append((real.current_player(), real.betting, action, read))
        mine = mine.apply_action(mine.betting.legal_actions()[read])
        real = real.apply_action(action)
    return Reading(mine, at, tuple(moves))


@dataclass(frozen=True, slots=True, eq=False)
class _ReadPolicy:
    """The bot's real play at the positions of one hand, as a policy of the blueprint's game:
    each real move's probability on the column of the move it is read as."""

    played: SparsePolicy
    at: dict[str, Betting]
    name: str = "read"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> FloatArray:
        real = self.at.get(betting.acpc())
        if real is None:
            raise UnreadableHand(f"no real position read as {betting.acpc()!r}")
        actions, rows = self.played.sparse_probabilities(real, board, holes)
        legal = betting.legal_actions()
        out = np.zeros((len(rows), 1 + slot_of(betting, legal[-1])))
        for column, action in enumerate(actions):
            out[:, slot_of(betting, legal[nearest(real, action, betting)])] += rows[:, column]
        return out


@dataclass(slots=True, eq=False)
class NoLimitValues:
    """Values of a human's decisions against `played`, a bot of the real game playing from the
    blueprint `table` of `translated` (see the module doc)."""

    translated: Translated
    table: TableStrategy
    played: SparsePolicy
    exact_deals: int = EXACT_DEALS
    samples: int = SAMPLED_DEALS
    _blueprint: HulheBot = field(init=False, repr=False)
    _game: HoldemGame = field(init=False, repr=False)
    reference: ClassVar[Reference] = "equilibrium"

    def __post_init__(self) -> None:
        abstract = self.translated.abstract
        self._blueprint = HulheBot("blueprint", abstract, self.translated.blueprint.spec,
                                   self.table)
        self._game = HoldemGame(abstract)

    def segments(self, final: State, seat: int, habits: Habits | None,
                 rng: np.random.Generator) -> list[Segment]:
        """The hand as the blueprint's game reads it, valued there (`HoldemValues.segments`,
        without the habits: see the module doc), each decision under the player's real
        labels."""
        if not isinstance(final, HoldemState) or final.game.definition != self.translated.rules:
            raise ValueError(f"not a hand of {self.translated.rules.spec}")
        reading = read_hand(final, self._game)
        values = HoldemValues(self._blueprint, _ReadPolicy(self.played, reading.at),
                              exact_deals=self.exact_deals, samples=self.samples)
        segments = values.segments(reading.state, seat, None, rng)
        taken = iter([(real, action, read) for player, real, action, read in reading.moves
                      if player == seat])
        return [replace(s, decisions=tuple(_relabelled(d, *next(taken)) for d in s.decisions))
                for s in segments]

    def both_starts(self, final: State, seat: int, habits: Habits, seed: int
                    ) -> tuple[list[Segment], list[Segment]]:
        """One walk: without a model of the habits, both starts are the same values."""
        segments = self.segments(final, seat, None, np.random.default_rng(seed))
        return segments, segments


def _relabelled(valued: DecisionValues, real: Betting, action: int | None, read: int
                ) -> DecisionValues:
    """`valued` (a decision of the blueprint's game) under the real game's labels: a call or
    check as the real betting names it, the player's own raise (`action`, read as the
    `read`-th legal move) under its real label in the place of the move it was read as; the
    blueprint's other sizes keep theirs."""
    labels = list(valued.labels)
    for i, label in enumerate(labels):
        if label.startswith(("call", "check")):
            labels[i] = real.label(CALL)
    if action is not None and action > CALL and real.label(action) not in labels:
        labels[read] = real.label(action)
    return replace(valued, labels=tuple(labels), model_probabilities=None, model_values=None,
                   habit_keys=())
