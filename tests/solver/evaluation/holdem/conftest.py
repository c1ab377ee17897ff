"""holdem-mini, its exact solve as a `TabularPolicy`, and its equity bot, shared by the tests."""

from __future__ import annotations

import pytest

from solver.evaluation.holdem.baselines import EquityThreshold
from solver.evaluation.holdem.policy import TabularPolicy
from solver.games import get_game
from solver.games.holdem.game import HoldemGame


@pytest.fixture(scope="session")
def mini() -> HoldemGame:
    game = get_game("holdem-mini")
    assert isinstance(game, HoldemGame)
    return game


@pytest.fixture(scope="session")
def hulhe() -> HoldemGame:
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    return game


@pytest.fixture(scope="session")
def solved(mini: HoldemGame) -> TabularPolicy:
    """holdem-mini solved to exploitability 1e-4 chips (about a second of DCFR)."""
    return TabularPolicy.solved(mini, target=1e-4)


@pytest.fixture(scope="session")
def equity(mini: HoldemGame) -> EquityThreshold:
    return EquityThreshold(mini)
