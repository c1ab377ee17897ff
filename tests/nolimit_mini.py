"""Hold'em mini's cards with no-limit betting at 8 chips a stack: small enough to compile (17,584
information sets with every size), so that what plays the real game by translation can be
judged exactly. `ABSTRACT` is its bet abstraction, a blueprint's game."""

from __future__ import annotations

from solver.games import get_game
from solver.games.holdem import HoldemGame

REAL = "holdem(betting=nolimit,numRanks=4,numSuits=2,numBoardCards=0 1,blind=2 1,stack=8 8)"
ABSTRACT = REAL[:-1] + ",bettingAbstraction=0.5p p a)"


def holdem(spec: str) -> HoldemGame:
    """The hold'em member `spec`."""
    game = get_game(spec)
    assert isinstance(game, HoldemGame)
    return game
