"""Values of a player's decisions in a game solved exactly, from its compiled tree.

The stored action values are Q(I, a) with both players following the stored profile
(`solver.algorithms.action_values`); the same two passes over the tree with the player's seat
following its habits instead (`solver.evaluation.values.base.Habits`, counted by the public
part of its information sets) give the values the luck-adjusted result uses, and the seat's
value at the start of the hand under that profile.  A tree small enough to solve exactly takes
milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from solver.algorithms.action_values import ActionValues, action_values
from solver.engine.tree import PublicTree
from solver.evaluation.values.base import (
    FROM_CHOICES,
    HABIT_PRIOR,
    DecisionValues,
    Habits,
    Reference,
    Segment,
    choices_key,
    habit_counts,
    habit_model,
    two_walks,
)
from solver.games.base import Game, State

FloatArray = NDArray[np.float64]


def habit_keys(information_state_key: str) -> tuple[str, str]:
    """Where a player's habits are counted in a tree game: the public part of its key (what
    it does here whatever it holds), and the whole key (what it does here with this)."""
    return information_state_key.partition("|")[2], information_state_key


@dataclass(slots=True, eq=False)
class TreeValues:
    """Values of a human's decisions when the bot plays the flat `strategy` of `tree`."""

    game: Game
    tree: PublicTree
    strategy: FloatArray
    prior: float = HABIT_PRIOR
    _base: ActionValues | None = field(default=None, init=False, repr=False)
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    reference: ClassVar[Reference] = "equilibrium"

    @property
    def base(self) -> ActionValues:
        if self._base is None:
            self._base = action_values(self.tree, self.strategy)
            self._index = {key: i for i, key in enumerate(self.tree.infoset_keys)}
        return self._base

    def both_starts(self, final: State, seat: int, habits: Habits, seed: int
                    ) -> tuple[list[Segment], list[Segment]]:
        return two_walks(self, final, seat, habits, seed)

    def segments(self, final: State, seat: int, habits: Habits | None = None,
                 rng: np.random.Generator | None = None) -> list[Segment]:
        """The hand that reached `final` as one segment (exact: `rng` is not used); a hand
        left at the player's decision (a forfeit) has that decision valued last."""
        base = self.base
        model = self._model(seat, habits) if habits is not None else None
        profile, modelled = model if model is not None else (None, None)
        offsets = self.tree.infoset_regret_offset
        decisions = []
        state = self.game.initial_state()
        for action in (*final.history, None):
            if state.current_player() == seat:
                key = state.information_state_key(seat)
                i = self._index[key]
                lo, hi = int(offsets[i]), int(offsets[i + 1])
                labels = self.tree.infoset_labels[i]
                strategy = tuple(float(x) for x in self.strategy[lo:hi])
                values = tuple(float(x) for x in base.q[lo:hi])
                model_probabilities = model_values = None
                if profile is not None and modelled is not None:
                    model_probabilities = tuple(float(x) for x in profile[lo:hi])
                    model_values = tuple(float(x) for x in modelled.q[lo:hi])
                decisions.append(DecisionValues(
                    labels, strategy, values, float(base.v[i]), model_probabilities,
                    model_values, True, habit_keys(key)))
            if action is not None:
                state = state.apply_action(action)
        sign = 1.0 if seat == 0 else -1.0
        model_start = sign * modelled.value if modelled is not None else None
        return [Segment(sign * base.value, model_start, tuple(decisions))]

    def _model(self, seat: int, habits: Habits) -> tuple[FloatArray, ActionValues]:
        """The profile with `seat` following its habits, and its action values."""
        tree = self.tree
        profile = self.strategy.copy()
        offsets = tree.infoset_regret_offset
        for i in np.flatnonzero(tree.infoset_player == seat).tolist():
            labels = tree.infoset_labels[i]
            keys = habit_keys(tree.infoset_keys[i])
            if all(habit_counts(habits, key, labels) is None for key in (
                    (choices_key(labels), *keys) if FROM_CHOICES in habits else keys)):
                continue
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            profile[lo:hi] = habit_model(habits, keys, labels,
                                         tuple(self.strategy[lo:hi].tolist()), self.prior)
        return profile, action_values(tree, profile)

