"""Dudo players' style figures, for one round or a whole match of rounds.

Per hand, for the player in one seat:

* **Challenges**: the player's calls (dudo, or calzo) over the player's turns facing a bid.
* **Bluffs**: the player's bids that the dice on the table did not make (fewer dice show the
  face or a wild 1 than the bid says: a dudo on it would have won) over the player's bids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from solver.games.views import StyleCounts, StyleStat

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
