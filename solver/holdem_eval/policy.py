"""What a bot for a member of the limit hold'em family offers to the evaluators.

`HoldemPolicy` is the shared interface of issue #11 (the contract between the abstract HULHE bot
and these evaluators, kept verbatim): a bot answers for a whole *range* of hole cards at once,
because Local Best Response tracks the bot's posterior over every hand it may hold and updates
it by Bayes at each of its actions.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from solver.games.holdem.betting import Betting


class HoldemPolicy(Protocol):
    """A strategy for a member of the limit hold'em family, as the real game sees it."""
    name: str
    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        """For each row of `holes` (shape (n, hole_cards): card ids of the deck of
        `solver.games.holdem`), the probabilities of universal_poker's actions
        (FOLD=0, CALL=1, RAISE=2; `solver.games.holdem.betting`), shape (n, 3), zero where
        illegal, for the player to act in `betting` (solver.games.holdem.betting.Betting) with
        `board` dealt so far. Vectorised over hands because LBR needs the bot's whole range."""
