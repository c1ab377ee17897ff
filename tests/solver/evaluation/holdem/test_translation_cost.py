"""The bot with action translation in the real no-limit game
(`solver.evaluation.holdem.translation_cost`): where the opponent keeps to the bot's sizes the
bot plays its own strategy exactly, and OpenSpiel's best response on universal_poker's full game
gives the exploitability ours does."""

from __future__ import annotations

import pyspiel
import pytest

from solver.abstractions.holdem.translation import Translation
from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import policy_from_array
from solver.evaluation.holdem.translation_cost import real_policy, translation_cost
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.runs.export import openspiel_policy

MEMBER = ("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,"
          "blind=1 1,firstPlayer=1 1,stack=8 8,bettingAbstraction=0.5p p a)")


def holdem(spec: str) -> HoldemGame:
    game = get_game(spec)
    assert isinstance(game, HoldemGame)
    return game


@pytest.fixture(scope="module")
def solved() -> dict[str, dict[int, float]]:
    solver = CFRSolver(holdem(MEMBER).compile_public_tree(), "dcfr")
    solver.iterate(300)
    return policy_from_array(solver.tree, solver.average_strategy())


def test_on_the_bots_sizes_it_plays_its_own_strategy(solved: dict[str, dict[int, float]]
                                                     ) -> None:
    abstract = holdem(MEMBER)
    real = holdem(abstract.definition.with_bets(None).spec)
    for randomised in (True, False):
        behaviour = real_policy(abstract, solved, real, Translation(randomised))
        # Every information set of its own game is one of the real game's, reached when the
        # opponent raises only to the bot's sizes: the same probabilities, nothing else played.
        for key, row in solved.items():
            real_row = behaviour[key]
            for action, p in real_row.items():
                assert p == pytest.approx(row.get(action, 0.0), abs=1e-12), (key, action)
        assert len(behaviour) > 2 * len(solved)  # and it answers the other sizes too


@pytest.mark.slow
def test_openspiel_judges_the_translated_bot_in_the_full_game(
        solved: dict[str, dict[int, float]]) -> None:
    """pyspiel's exploitability on universal_poker's full game (30,480 information sets, every
    size) of the bot's real behaviour, exported: the same as our exact best response's, and far
    above its exploitability in its own game (the cost of three sizes)."""
    cost = translation_cost(MEMBER, solved)
    abstract = holdem(MEMBER)
    real = holdem(abstract.definition.with_bets(None).spec)
    exported = openspiel_policy(real, real_policy(abstract, solved, real, Translation()),
                                uniform_if_missing=True)
    assert real.openspiel is not None
    judged = pyspiel.exploitability(
        pyspiel.load_game(real.openspiel.game_string),
        {key: [(int(a), p) for a, p in row.items()] for key, row in exported.items()})
    assert judged == pytest.approx(cost.real, rel=1e-9)
    assert cost.real > 10 * cost.abstract
