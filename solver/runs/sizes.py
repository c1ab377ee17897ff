"""How big a game is: what `python -m solver info` prints.

A game that can count itself without being built (the hold'em family: `CountsItself`) gives
exact figures for members far too big to compile; any other game is compiled (information sets,
public nodes, private-state slots) and walked (histories).
"""

from __future__ import annotations

from solver.algorithms.policy import iter_states
from solver.engine.compile import compile_game
from solver.games import Game, game_names, get_game
from solver.games.base import CountsItself

Sizes = dict[str, "int | dict[str, int]"]


def game_sizes(game: Game | str) -> dict[str, object]:
    """The game's name, title and counts: information sets, histories (every state: chance,
    decisions and terminals), public nodes and (public node, private state) slots, and for
    card games the betting sequences and the hands per round up to suits."""
    g = get_game(game) if isinstance(game, str) else game
    head: dict[str, object] = {
        "game": g.name,
        "title": g.title,
        "in_lobby": g.name in game_names(),
        "openspiel": g.openspiel.game_string if g.openspiel is not None else None,
    }
    if isinstance(g, CountsItself):
        return head | dict(g.sizes())
    tree = compile_game(g)
    return head | {
        "information_sets": tree.num_infosets,
        "histories": sum(1 for _ in iter_states(g)),
        "public_nodes": tree.num_nodes,
        "slots": tree.num_slots(0) + tree.num_slots(1),
    }
