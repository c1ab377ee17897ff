"""Styled opponents: a game's equilibrium bent in one stated direction, for a learner to punish.

A game that offers them says which (`Styled.opponent_styles`) and how each one changes the
equilibrium's probabilities at an information set (`Styled.bend`), from the set's action labels
alone, so that the change is one sentence a player can read.  `solver.runs.opponents` bends the
stored equilibrium at every information set and measures the result exactly.

The poker games share three (by the action words they share): one that calls too much, one that
folds too much and one that bets and raises too much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True, slots=True)
class OpponentStyle:
    """One way to bend the equilibrium: `name` in the store and the API, `title` in the lobby,
    `description` the one sentence that says what it does."""

    name: str
    title: str
    description: str


@runtime_checkable
class Styled(Protocol):
    """A game with styled opponents."""

    opponent_styles: tuple[OpponentStyle, ...]

    def bend(self, style: str, labels: tuple[str, ...], probabilities: np.ndarray
             ) -> np.ndarray:
        """The probabilities of the information set whose actions are `labels`, bent by
        `style` (one of `opponent_styles`' names); `probabilities` unchanged where the style
        does not apply."""
        ...


@dataclass(frozen=True, slots=True)
class ThinkingOpponent:
    """An opponent that plays by a method of its own rather than by bending the equilibrium:
    `name` in the store and the API, `title` and `description` (how it thinks) in the lobby,
    and `command`, the ``python -m solver`` arguments that build it into a store once its game
    is listed (`solver.games.base.BuildPlan.thinking`)."""

    name: str
    title: str
    description: str
    command: tuple[str, ...]


DEEPSTACK = ThinkingOpponent(
    "deepstack", "DeepStack: thinks at every decision",
    "It keeps no strategy: at each of its decisions it solves the rest of the betting round "
    "again, from the bets actually made, with its own range and what each of your hands could "
    "win carried over from its last decision. Where the round ends, instead of looking further "
    "it asks a small neural network, trained on spots the solver worked out, what the rest of "
    "the hand is worth (DeepStack's method). Its every decision was thought through once when "
    "it was built, so it answers at once, and the coach knows the best reply to it.",
    ("deepstack", "--quiet"))
THINKING = {DEEPSTACK.name: DEEPSTACK}
"""Every thinking opponent, by name."""

SHARE = 0.5
"""How far a style bends: half of the probability it moves."""

POKER_STYLES = (
    OpponentStyle("calls", "Calls too much",
                  "Facing a bet, it folds half as often as the equilibrium and calls instead."),
    OpponentStyle("folds", "Folds too much",
                  "Facing a bet, it calls or raises half as often as the equilibrium and folds "
                  "instead."),
    OpponentStyle("bets", "Bets too much",
                  "Wherever it may bet or raise, it checks or calls half as often as the "
                  "equilibrium and bets or raises instead."),
)


def move_share(probabilities: np.ndarray, source: np.ndarray, target: np.ndarray,
         share: float = SHARE) -> np.ndarray:
    """`share` of the probability of the actions in mask `source` moved to those in mask
    `target`, spread like the equilibrium's own there (evenly if it has none there)."""
    out = np.asarray(probabilities, np.float64).copy()
    moved = share * out[source].sum()
    if moved <= 0.0 or not target.any():
        return out
    out[source] *= 1.0 - share
    weights = out[target]
    weights = weights / weights.sum() if weights.sum() > 0 else np.full(len(weights),
                                                                          1 / len(weights))
    out[target] += moved * weights
    return out


def poker_bend(style: str, labels: tuple[str, ...], probabilities: np.ndarray) -> np.ndarray:
    """`Styled.bend` for the poker games (``fold``, ``check``, ``call``, ``bet``, ``raise``)."""
    words = np.array(labels)
    fold = words == "fold"
    passive = (words == "check") | (words == "call")
    aggressive = (words == "bet") | (words == "raise")
    if style == "calls" and fold.any():
        return move_share(probabilities, fold, passive)
    if style == "folds" and fold.any():
        return move_share(probabilities, passive | aggressive, fold)
    if style == "bets":
        return move_share(probabilities, passive, aggressive)
    if style not in {s.name for s in POKER_STYLES}:
        raise ValueError(f"unknown style {style!r}; known: "
                         f"{', '.join(s.name for s in POKER_STYLES)}")
    return np.asarray(probabilities, np.float64).copy()
