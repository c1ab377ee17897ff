"""The hold'em family against pyspiel's universal_poker, move for move.

Random playouts walk our state and pyspiel's in lockstep: at every step (chance included) the
legal actions agree, at every decision both players' information-state strings agree, and at
the end the returns agree.  The playouts lean towards calls and raises, so that most reach a
showdown and many hit the raise caps.
"""

from __future__ import annotations

import random

import pyspiel
import pytest

from solver.games import get_game
from solver.games.holdem import HOLDEM_MINI, HULHE
from solver.games.holdem.rules import from_game_string

PLAYOUTS = 10_000
WEIGHTS = {0: 1, 1: 5, 2: 4}
"""Fold, call and raise weights of the random players."""

GAME_STRINGS = {
    "holdem": "universal_poker(betting=limit,numPlayers=2,numRounds=4,blind=2 1,"
              "firstPlayer=2 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,"
              "numBoardCards=0 3 1 1,raiseSize=2 2 4 4,maxRaises=3 4 4 4)",
    "holdem-mini": "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=2 1,"
                   "firstPlayer=2 1,numSuits=2,numRanks=4,numHoleCards=2,numBoardCards=0 1,"
                   "raiseSize=2 4,maxRaises=3 3)",
}


@pytest.mark.parametrize("name", ["holdem", "holdem-mini"])
def test_game_strings_are_what_pyspiel_loads(name: str) -> None:
    game = get_game(name)
    assert game.openspiel is not None
    assert game.openspiel.game_string == GAME_STRINGS[name]
    loaded = pyspiel.load_game(GAME_STRINGS[name])
    # pyspiel prints its parameters sorted; read back, they are the same game.
    assert from_game_string(str(loaded)) == {"holdem": HULHE, "holdem-mini": HOLDEM_MINI}[name]
    assert loaded.num_distinct_actions() == game.num_distinct_actions()


def playouts(name: str, count: int, seed: int) -> tuple[int, int, int]:
    """`count` lockstep playouts; (steps, showdowns, capped rounds) seen."""
    game = get_game(name)
    mapping = game.openspiel
    assert mapping is not None
    theirs_game = pyspiel.load_game(mapping.game_string)
    rng = random.Random(seed)
    steps = showdowns = capped = 0
    for _ in range(count):
        ours, theirs = game.initial_state(), theirs_game.new_initial_state()
        while not ours.is_terminal():
            steps += 1
            legal = ours.legal_actions()
            assert list(legal) == theirs.legal_actions(), ours.history
            assert ours.is_chance() == theirs.is_chance_node(), ours.history
            if ours.is_chance():
                action = rng.choice(legal)
            else:
                player = ours.current_player()
                assert player == theirs.current_player(), ours.history
                for p in (0, 1):
                    assert (mapping.information_state_string(ours, p)
                            == theirs.information_state_string(p)), ours.history
                capped += 2 not in legal
                action = rng.choices(legal, [WEIGHTS[a] for a in legal])[0]
            ours = ours.apply_action(action)
            theirs.apply_action(mapping.action_id(ours, action))
        assert theirs.is_terminal(), ours.history
        assert list(ours.returns()) == theirs.returns(), ours.history
        showdowns += "f" not in ours.public_key()
    return steps, showdowns, capped


@pytest.mark.parametrize("name", ["holdem", "holdem-mini"])
@pytest.mark.slow
def test_random_playouts_agree_with_universal_poker(name: str) -> None:
    steps, showdowns, capped = playouts(name, PLAYOUTS, seed=10)
    assert showdowns > PLAYOUTS // 3 and capped > PLAYOUTS // 10  # the walk went deep
    assert steps > 8 * PLAYOUTS


def test_other_members_agree_too() -> None:
    """One card each, boards in three rounds, a board before the first round, equal blinds."""
    for spec in ("holdem(numRanks=5,numSuits=3,numHoleCards=1,numBoardCards=0 1 1,"
                 "maxRaises=2 2 2)",
                 "holdem(numRanks=4,numSuits=2,numHoleCards=1,numBoardCards=1 1,blind=1 1,"
                 "firstPlayer=1 2,raiseSize=1 2,maxRaises=1 2)"):
        playouts(spec, 1_000, seed=11)


def test_export_refuses_what_openspiel_cannot_tell_apart() -> None:
    """universal_poker writes the board as one set: after a 3c then a 4c, and after a 4c then
    a 3c, its strings are the same, ours are not.  A strategy that plays them alike exports;
    one that does not is refused rather than written half right."""
    from solver.algorithms.policy import infosets
    from solver.games import play
    from solver.runs.export import openspiel_policy

    spec = "holdem(numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1 1,maxRaises=1 1 1)"
    game = get_game(spec)
    mapping = game.openspiel
    assert mapping is not None
    one = play(game, [0, 1, 1, 1, 2, 1, 1, 4])  # 2c, 2d; check, check; 3c; check, check; 4c
    other = play(game, [0, 1, 1, 1, 4, 1, 1, 2])
    assert one.information_state_key() != other.information_state_key()
    assert (mapping.information_state_string(one, 0)
            == mapping.information_state_string(other, 0))
    uniform = {key: {a: 1 / len(info.actions) for a in info.actions}
               for key, info in infosets(game).items()}
    assert len(openspiel_policy(game, uniform)) < len(uniform)
    skewed = dict(uniform)
    skewed[one.information_state_key()] = {1: 1.0, 2: 0.0}
    with pytest.raises(ValueError, match="forgets what ours remembers"):
        openspiel_policy(game, skewed)
