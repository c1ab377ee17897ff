"""OpenSpiel's universal_poker as a referee for card ids and showdowns."""

from __future__ import annotations

from collections.abc import Sequence

import pyspiel

CALL = 1


def load(num_ranks: int, num_suits: int, hole: int, board: Sequence[int]) -> pyspiel.Game:
    """A limit game with one betting round per entry of `board` (the cards it deals).

    OpenSpiel reads a one-number list as an int and refuses it, so there are always two rounds
    or more."""
    rounds = len(board)
    ones = " ".join(["1"] * rounds)
    return pyspiel.load_game(
        f"universal_poker(betting=limit,numPlayers=2,numRounds={rounds},blind=1 1,"
        f"raiseSize={ones},firstPlayer={ones},maxRaises={ones},numSuits={num_suits},"
        f"numRanks={num_ranks},numHoleCards={hole},"
        f"numBoardCards={' '.join(str(b) for b in board)})")


def showdown(game: pyspiel.Game, deal: Sequence[int], hole: int, board: Sequence[int]) -> float:
    """Player 0's return when both only check and call: `deal` lists player 0's hole cards,
    player 1's, then the board in dealing order."""
    state = game.new_initial_state()
    cards = iter(deal)
    for _ in range(2 * hole):
        state.apply_action(next(cards))
    for round_, count in enumerate(board):
        if round_:
            for _ in range(count):
                state.apply_action(next(cards))
        while not state.is_chance_node() and not state.is_terminal():
            state.apply_action(CALL)
    assert state.is_terminal()
    return float(state.returns()[0])
