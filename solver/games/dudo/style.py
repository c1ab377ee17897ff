"""Dudo players' style figures, for one round or a whole match of rounds.

Per hand, for the player in one seat:

* **Challenges**: the player's calls (dudo, or calzo) over the player's turns facing a bid.
* **Bluffs**: the player's bids that the dice on the table did not make (fewer dice show the
  face or a wild 1 than the bid says: a dudo on it would have won) over the player's bids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from solver.games.opponents import OpponentStyle, move_share
from solver.games.view_values import StyleCounts, StyleStat

DUDO_STYLE: tuple[StyleStat, ...] = (
    StyleStat("challenges", "Challenges", "The share of your turns facing a bid on which you "
              "challenged it (dudo, or calzo)."),
    StyleStat("bluffs", "Bluffs", "The share of your bids that the dice on the table did not "
              "make: fewer dice showed the face or a wild 1 than the bid said, so a dudo on it "
              "would have won."),
)


def add_round(counts: StyleCounts, seat: int, moves: Sequence[int],
              mover: Callable[[int], int], bluff: Callable[[int], bool | None]) -> None:
    """Add one round's figures to `counts`: `mover(i)` is the seat of move i, and
    `bluff(move)` None for a call, else whether that bid was a bluff."""
    challenges, turns = counts.get("challenges", (0.0, 0.0))
    bluffs, made = counts.get("bluffs", (0.0, 0.0))
    for i, move in enumerate(moves):
        if mover(i) != seat:
            continue
        bluffed = bluff(move)
        if i > 0:
            turns += 1
            challenges += bluffed is None
        if bluffed is not None:
            made += 1
            bluffs += bluffed
    if turns:
        counts["challenges"] = (challenges, turns)
    if made:
        counts["bluffs"] = (bluffs, made)


CALLS = frozenset({"dudo", "calzo"})

DUDO_OPPONENTS = (
    OpponentStyle("doubts", "Doubts too much",
                  "Facing a bid, it bids on half as often as the equilibrium and challenges "
                  "instead."),
    OpponentStyle("believes", "Believes too much",
                  "Facing a bid, it challenges half as often as the equilibrium and bids on "
                  "instead."),
)


def dudo_bend(style: str, labels: tuple[str, ...], probabilities: np.ndarray) -> np.ndarray:
    """`solver.games.opponents.Styled.bend` for Dudo: a call is ``dudo`` or ``calzo``, any
    other action a bid."""
    calls = np.array([label in CALLS for label in labels])
    if style == "doubts":
        return move_share(probabilities, ~calls, calls)
    if style == "believes":
        return move_share(probabilities, calls, ~calls)
    raise ValueError(f"unknown style {style!r}; known: "
                     f"{', '.join(s.name for s in DUDO_OPPONENTS)}")
