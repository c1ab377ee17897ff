"""The model of a player's habits: where it starts, and the counts mixed in after."""

from __future__ import annotations

import pytest

from solver.evaluation.values.base import (
    HABIT_PRIOR,
    choices_key,
    from_choices,
    habit_model,
    habit_start,
)

LABELS = ("fold", "call", "raise")
STRATEGY = (0.2, 0.5, 0.3)
HABITS = {choices_key(LABELS): {"call": 6.0}, "r": {"fold": 2.0}}


def test_the_model_starts_from_the_strategy_unless_told() -> None:
    assert habit_start(HABITS, LABELS, STRATEGY) == STRATEGY
    assert habit_start(None, LABELS, STRATEGY) == STRATEGY


def test_from_the_choices_it_starts_from_what_the_player_did_with_them() -> None:
    """Six calls wherever the player faced fold/call/raise, mixed with the bot's strategy as
    `HABIT_PRIOR` decisions; then the counts at the betting on top."""
    habits = from_choices(HABITS)
    start = habit_start(habits, LABELS, STRATEGY)
    assert start == pytest.approx(tuple((6.0 * (a == 1) + HABIT_PRIOR * p) / (6 + HABIT_PRIOR)
                                        for a, p in enumerate(STRATEGY)))
    model = habit_model(habits, ("r",), LABELS, STRATEGY)
    assert model == pytest.approx(tuple((2.0 * (a == 0) + HABIT_PRIOR * p) / (2 + HABIT_PRIOR)
                                        for a, p in enumerate(start)))
    other = ("check", "bet")  # never seen: the strategy
    assert habit_start(habits, other, (0.4, 0.6)) == (0.4, 0.6)
