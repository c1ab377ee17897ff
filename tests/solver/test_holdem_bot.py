"""The quick duplicate match of `solver.holdem_bot`: its accounting on policies whose results
are known exactly."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HOLDEM_MINI, HULHE
from solver.holdem_bot import AlwaysCall, duplicate_match


class Folder:
    """Folds whenever it faces a bet, checks otherwise."""

    name = "folder"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        out = np.zeros((len(holes), 3))
        out[:, 0 if betting.facing else 1] = 1.0
        return out


class Raiser:
    """Raises while it may, calls after."""

    name = "raiser"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        out = np.zeros((len(holes), 3))
        out[:, 2 if 2 in betting.legal_actions() else 1] = 1.0
        return out


@pytest.mark.parametrize("rules", (HOLDEM_MINI, HULHE))
def test_duplicate_accounting(rules: object) -> None:
    # The folder gives up its small blind in seat 1 (it acts first, facing the big blind)
    # and its big blind in seat 0 (facing the raise): 1.5 a hand.
    folds = duplicate_match(Folder(), Raiser(), rules, 50, seed=1)  # type: ignore[arg-type]
    assert folds.mean == pytest.approx(-1.5) and folds.hands == 100
    wins = duplicate_match(Raiser(), Folder(), rules, 50, seed=1)  # type: ignore[arg-type]
    assert wins.mean == pytest.approx(1.5)  # the folder's blinds, to the other
    # Calling stations on the same cards from both seats: every pair cancels.
    assert duplicate_match(AlwaysCall(), AlwaysCall(), rules, 50).mean == 0  # type: ignore[arg-type]
    # Raising against a caller: the showdowns cancel in pairs too (the same pot each time).
    assert duplicate_match(Raiser(), AlwaysCall(), rules, 50).mean == 0  # type: ignore[arg-type]
