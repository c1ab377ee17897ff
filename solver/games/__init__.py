"""The games the solver knows, by the short names the CLI, the store and the URLs use."""

from __future__ import annotations

from functools import cache

from solver.games.base import (
    CHANCE,
    TERMINAL,
    Game,
    State,
    action_from_label,
    legal_labels,
    play,
)
from solver.games.dudo import DudoGame
from solver.games.kuhn import KuhnGame
from solver.games.leduc import LeducGame
from solver.games.rps import RPSGame

__all__ = [
    "CHANCE",
    "GAME_NAMES",
    "TERMINAL",
    "Game",
    "State",
    "action_from_label",
    "get_game",
    "legal_labels",
    "play",
]

GAME_NAMES: tuple[str, ...] = ("rps", "kuhn", "leduc", "dudo", "dudo-calzo")


@cache
def get_game(name: str) -> Game:
    """The game called `name`; one shared instance per name, since games hold no state."""
    if name == "rps":
        return RPSGame()
    if name == "kuhn":
        return KuhnGame()
    if name == "leduc":
        return LeducGame()
    if name in ("dudo", "dudo-calzo"):
        return DudoGame(calzo=name == "dudo-calzo")
    raise KeyError(f"unknown game {name!r}; valid names: {', '.join(GAME_NAMES)}")
