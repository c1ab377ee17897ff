"""What a value function says about one decision of a player against the bot.

At the player's information set I, Q(I, a) is the player's expected payoff given I if it takes
a and from then on both players follow the bot's strategy (the player with its own cards in the
bot's shoes), the bot's hidden cards or dice weighted by their posterior: their chance times the
probability that the bot's strategy took the bot's actions so far with them.  V(I) is the
strategy's mix of those, ``sum_a sigma(a | I) Q(I, a)``.  This is what the stored action values
(`solver.algorithms.action_values`) are for games solved exactly; the value functions of this
package compute it at play time for the bots that store none.

A value function may also value the same decision with the player going on with a *model* of
its own play (`Habits`: what it did before at the same point of the betting or bidding, mixed
with the bot's strategy) instead of the bot's strategy: the luck-adjusted results use those
values (AIVAT with the player's habits as the heuristic, see `app.services.analysis.coach`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from solver.games.base import State

HABIT_PRIOR = 2.0
"""How many decisions the bot's own strategy counts for in a model of the player's habits:
a point of the betting seen once is the mean of the player's one action and twice the bot's
strategy there."""

Habits = Mapping[str, Mapping[str, float]]
"""Per point of the game (a value function's habit key), how often the player took each
action (by label) there in earlier hands."""

CHOICES_MARK = "#"
"""Starts the habit key of a set of legal actions (``#fold/call/raise``, `choices_key`)."""
FROM_CHOICES = "$from-choices"
"""A habits entry that makes the model start from the player's choices (`habit_start`)."""


def choices_key(labels: tuple[str, ...]) -> str:
    """The habit key of the set of legal actions `labels`: what the player does wherever it
    has those choices, whatever the betting or its cards."""
    return CHOICES_MARK + "/".join(labels)


def from_choices(habits: Habits) -> Habits:
    """`habits` with the model starting from the player's choices (`habit_start`)."""
    return {**habits, FROM_CHOICES: {"on": 1.0}}


@dataclass(frozen=True, slots=True)
class DecisionValues:
    """One decision of the player, valued (see the module doc)."""

    labels: tuple[str, ...]
    probabilities: tuple[float, ...]
    """The bot's strategy at the player's information set: the equilibrium's advice."""
    values: tuple[float, ...]
    """Q(I, a) per label."""
    value: float
    """V(I)."""
    model_probabilities: tuple[float, ...] | None = None
    """The player's habits here (`Habits` mixed with the bot's strategy), if valued with them."""
    model_values: tuple[float, ...] | None = None
    """Q(I, a) when the player goes on with its habits instead of the bot's strategy."""
    exact: bool = True
    """False where the values are an unbiased sample average (sampled runouts)."""
    habit_keys: tuple[str, ...] = ()
    """The points of the game the player's habits are counted at, the most general first."""

    @property
    def model_value(self) -> float | None:
        if self.model_values is None or self.model_probabilities is None:
            return None
        return sum(p * q for p, q in zip(self.model_probabilities, self.model_values,
                                         strict=True))


def habit_counts(habits: Habits | None, key: str, labels: tuple[str, ...]
                 ) -> tuple[float, ...] | None:
    """The player's counts at point `key` in the order of `labels`; None if never there."""
    counts = habits.get(key) if habits is not None else None
    if not counts:
        return None
    out = tuple(float(counts.get(label, 0.0)) for label in labels)
    return out if sum(out) > 0 else None


def habit_model(habits: Habits | None, keys: tuple[str, ...], labels: tuple[str, ...],
                strategy: tuple[float, ...], prior: float = HABIT_PRIOR) -> tuple[float, ...]:
    """The player's habits at a decision counted at several points, from the most general
    (the betting) to the most specific (the betting and its cards): its start
    (`habit_start`) mixed with the counts of the first, that with the counts of the next, and
    so on."""
    model = habit_start(habits, labels, strategy, prior)
    for key in keys:
        model = habit_mix(habit_counts(habits, key, labels), model, prior)
    return model


def habit_start(habits: Habits | None, labels: tuple[str, ...], strategy: tuple[float, ...],
                prior: float = HABIT_PRIOR) -> tuple[float, ...]:
    """Where the model of the player's habits starts: the bot's `strategy` for the player's
    cards, or with `from_choices` the player's counts wherever it had these choices
    (`choices_key`), mixed with that strategy.

    Neither fits every player.  One who plays by its cards much as the bot does (a tight
    rule) is told better by the bot's strategy; one who does not look at them (always call, a
    coin flip) by what it did with the same choices.  So `app.services.analysis` values each
    hand from both starts, and weighs the two estimates and the equilibrium's by their spread
    over the earlier hands."""
    if habits is None or FROM_CHOICES not in habits:
        return strategy
    return habit_mix(habit_counts(habits, choices_key(labels), labels), strategy, prior)


def habit_mix(counts: tuple[float, ...] | None, strategy: tuple[float, ...],
              prior: float = HABIT_PRIOR) -> tuple[float, ...]:
    """The player's habits at a point: its counts there mixed with the bot's `strategy` for
    its cards (``(count(a) + prior x sigma(a)) / (count + prior)``); the strategy itself where
    it never was."""
    if counts is None or sum(counts) <= 0:
        return strategy
    total = sum(counts) + prior
    return tuple((c + prior * p) / total for c, p in zip(counts, strategy, strict=True))


@dataclass(frozen=True, slots=True)
class Opening:
    """How a hand opened for the player before its first decision, where a segment's start is
    not known exactly: its cards and what the bot did before it, as a path from coarse to fine
    (``seat 0/raise/suited/AKs``, the levels apart by ``/``); and the chance of each such
    path, over all of them, before the deal (the deal's chances and the bot's strategy).

    The first decision's value then carries the opening's luck.  A value learnt per opening
    over the earlier hands, less its expectation under `chances`, takes that luck out and
    keeps the result unbiased whatever was learnt (`app.services.analysis.openings`)."""

    path: str
    chances: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class Segment:
    """A part of a hand valued on its own: the whole hand, or a round of a match.

    `start` is the player's expected payoff at its start (before its chance: the deal, the
    roll), both playing the bot's strategy; None where it is not known exactly, and then the
    value of the player's first decision stands in (an unbiased one).  `model_start` is the
    same with the player going on with its habits (None where not computed)."""

    start: float | None
    model_start: float | None
    decisions: tuple[DecisionValues, ...]
    correction: float = 0.0
    """Where the bot did not play the strategy the values assume (a re-solving bot: values
    from its blueprint), AIVAT's term for its decisions: over its range, the expected change
    its actual probabilities made to the player's value, which the decisions' terms leave out
    (the estimate adds it)."""
    model_correction: float = 0.0
    """The same with the player going on with its habits."""
    opening: Opening | None = None
    """Where `start` is None, how the hand opened (the first segment only)."""


Reference = Literal["equilibrium", "best_reply"]
"""What a valuer's values are those of: the bot's strategy played on by both players (an
equilibrium, or its abstraction), or the best reply to an exploitable bot."""


class HandValuer(Protocol):
    """Values every decision of a player in a finished hand (`solver.evaluation.values`)."""

    @property
    def reference(self) -> Reference: ...

    def segments(self, final: State, seat: int, habits: Habits | None,
                 rng: np.random.Generator) -> list[Segment]:
        """The hand that reached `final`, for the player in `seat`, in segments; with the
        player's habits valued too if `habits` is given (its counts from earlier hands)."""
        ...

    def both_starts(self, final: State, seat: int, habits: Habits, seed: int
                    ) -> tuple[list[Segment], list[Segment]]:
        """`segments` with the habits' model started from the bot's strategy and from the
        player's choices (`from_choices`), each as a generator seeded by `seed` would value
        it (`two_walks`, unless a valuer shares the work of the two)."""
        ...


def two_walks(valuer: HandValuer, final: State, seat: int, habits: Habits, seed: int
              ) -> tuple[list[Segment], list[Segment]]:
    """`HandValuer.both_starts` as two calls of `segments`."""
    return (valuer.segments(final, seat, habits, np.random.default_rng(seed)),
            valuer.segments(final, seat, from_choices(habits), np.random.default_rng(seed)))


class UnreadableHand(ValueError):
    """A hand a value function cannot value (a no-limit hand whose betting the blueprint's game
    cannot follow): it counts raw."""
