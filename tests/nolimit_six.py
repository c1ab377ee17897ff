"""A small no-limit member with every size, as a plug-in game: no-limit Leduc at 6 chips a
stack, solved exactly in seconds, for the tests of the table's controls for any amount.

`register` and `unregister` add it to the registry and take it out again in the test process;
``SOLVER_GAMES=tests.nolimit_six_plugin`` registers it in a server the browser tests start.
"""

from __future__ import annotations

from dataclasses import replace

from solver.games import game_names, register_game, unregister_game
from solver.games.holdem import NO_LIMIT_LEDUC, HoldemGame
from solver.games.holdem.view import HoldemView

GAME = "nolimit-six"


def make() -> HoldemGame:
    return HoldemGame(replace(NO_LIMIT_LEDUC, stacks=(6, 6)), GAME, "No-limit at six chips")


def register() -> None:
    if GAME not in game_names():
        register_game(GAME, make, HoldemView)


def unregister() -> None:
    unregister_game(GAME)

