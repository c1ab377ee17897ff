"""The games the solver knows, by the short names the CLI, the store and the URLs use.

A game is one module (or one small package for a family) and one line of `_REGISTRY`, which
gives both its rules (`get_game`, a `Game`) and how a player sees it (`get_view`, its
`GameView`, which only the app uses): nothing else in the solver, the store or the app names a
game.

Three ways to name a game:

* `_REGISTRY`: the games that ship, in the order the lobby shows them (`game_names`);
* `_NAMED`: games known by name to `get_game` and the CLI that the lobby does not show
  (`named_games`; none at present);
* `_FAMILIES`: a family's members by their parameters, ``holdem(numRanks=6,numSuits=2)`` or
  ``universal_poker(...)``; a member that is also a named game resolves to it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from functools import cache
from typing import Any

from solver.games import holdem
from solver.games.base import (
    CHANCE,
    TERMINAL,
    Game,
    OpenSpielMapping,
    State,
    action_from_label,
    legal_labels,
    play,
)
from solver.games.dudo.game import DudoGame, game_name
from solver.games.dudo.match import DudoMatchGame
from solver.games.dudo.rules import MAX_DICE
from solver.games.dudo.view import DudoMatchView, DudoView
from solver.games.game_view import LISTED_AMOUNTS, ClassSpots, GameView, legal_words, offered_labels
from solver.games.holdem.view import HoldemView
from solver.games.kuhn import KuhnGame, KuhnView
from solver.games.leduc import LeducGame, LeducView
from solver.games.rps import RPSGame, RPSView
from solver.games.view_values import (
    ActionGroup,
    AmountChoice,
    Card,
    Die,
    LabelPart,
    Move,
    Piece,
    PublicView,
    Seat,
)

__all__ = [
    "BUILD_DEFAULTS",
    "CHANCE",
    "GAMES_ENV",
    "GAME_NAMES",
    "LISTED_AMOUNTS",
    "TERMINAL",
    "ActionGroup",
    "AmountChoice",
    "Card",
    "ClassSpots",
    "Die",
    "Game",
    "GameView",
    "LabelPart",
    "Move",
    "OpenSpielMapping",
    "Piece",
    "PublicView",
    "Seat",
    "State",
    "action_from_label",
    "game_names",
    "get_game",
    "get_view",
    "legal_labels",
    "legal_words",
    "named_games",
    "offered_labels",
    "play",
    "register_game",
    "unregister_game",
]


ViewOf = Callable[[Any], GameView]
"""How a game's view is made from the game its entry makes (each view class takes its own
kind of game)."""
Entry = tuple[Callable[[], Game], ViewOf]
"""A registered game: what makes the game, and what makes its view from it."""


def _dudo(dice: tuple[int, int]) -> Callable[[], Game]:
    return lambda: DudoGame(dice=dice)


def _push_or_fold(stack_bb: int) -> Callable[[], Game]:
    return lambda: holdem.push_or_fold(stack_bb)


_REGISTRY: dict[str, Entry] = {
    "rps": (RPSGame, RPSView),
    "kuhn": (KuhnGame, KuhnView),
    "leduc": (LeducGame, LeducView),
    "dudo": (DudoGame, DudoView),
    "dudo-calzo": (lambda: DudoGame(calzo=True), DudoView),
    "holdem-mini": (lambda: holdem.member("holdem-mini"), HoldemView),
    # Push or fold before HULHE: the background build takes them in this order, and theirs
    # take minutes where HULHE's takes an hour.
    **{holdem.push_fold.name(bb): (_push_or_fold(bb), HoldemView)
       for bb in holdem.push_fold.STACKS_BB},
    "nolimit-leduc": (lambda: holdem.member("nolimit-leduc"), HoldemView),
    "holdem": (lambda: holdem.member("holdem"), HoldemView),
    "hunl": (lambda: holdem.member("hunl"), HoldemView),
    "dudo-match": (DudoMatchGame, DudoMatchView),
    **{game_name((a, b)): (_dudo((a, b)), DudoView)
       for a in range(1, MAX_DICE + 1) for b in range(1, MAX_DICE + 1) if (a, b) != (1, 1)},
}

_NAMED: dict[str, Entry] = {}

_FAMILIES: dict[str, tuple[Callable[[str], Game], ViewOf]] = {
    "holdem": (holdem.from_text, HoldemView),
    "universal_poker": (holdem.from_text, HoldemView),
}
"""Family name (what comes before the parenthesis) -> the parser of its members and their
view."""

GAME_NAMES: tuple[str, ...] = tuple(_REGISTRY)
"""The games that come with the solver, in the order the lobby shows them."""


def register_game(name: str, factory: Callable[[], Game], view: ViewOf) -> None:
    """Add a game under `name` (a plug-in, or a test's own game), with its view."""
    if name in _REGISTRY:
        raise ValueError(f"a game is already registered as {name!r}")
    _REGISTRY[name] = (factory, view)
    get_game.cache_clear()
    get_view.cache_clear()


def unregister_game(name: str) -> None:
    _REGISTRY.pop(name, None)
    get_game.cache_clear()
    get_view.cache_clear()


def game_names() -> tuple[str, ...]:
    """Every registered game now, in the order the lobby shows them."""
    return tuple(_REGISTRY)


def named_games() -> tuple[str, ...]:
    """Games known by name that the lobby does not show."""
    return tuple(_NAMED)


@cache
def get_game(name: str) -> Game:
    """The game called `name` (a registered or named game, or a family member by its
    parameters); one shared instance per name, since games hold no state."""
    entry = _REGISTRY.get(name) or _NAMED.get(name)
    if entry is not None:
        game = entry[0]()
        if game.name != name:
            raise ValueError(f"the game registered as {name!r} calls itself {game.name!r}")
        return game
    game = _family(name)[0](name)
    if game.name != name and (game.name in _REGISTRY or game.name in _NAMED):
        return get_game(game.name)
    return game


def _family(name: str) -> tuple[Callable[[str], Game], ViewOf]:
    family = _FAMILIES.get(name.split("(", 1)[0].strip()) if "(" in name else None
    if family is None:
        raise KeyError(f"unknown game {name!r}; valid names: "
                       f"{', '.join((*_REGISTRY, *_NAMED))}, or a family member by its "
                       f"parameters: {', '.join(f + '(...)' for f in _FAMILIES)}")
    return family


@cache
def get_view(name: str) -> GameView:
    """How the game called `name` (as `get_game` takes it) is shown to a player: what the app
    draws it with. One shared instance per name."""
    game = get_game(name)
    if game.name != name:
        return get_view(game.name)
    entry = _REGISTRY.get(name) or _NAMED.get(name)
    return (entry[1] if entry is not None else _family(name)[1])(game)


BUILD_DEFAULTS: tuple[str, ...] = tuple(name for name in _REGISTRY
                                        if not get_game(name).build.background)
"""What ``python -m solver build`` solves when no game is named: the games that declare
themselves quick (`BuildPlan.background` false), solved exactly in seconds.  The bigger ones
have their own documented commands (docs/solver.md)."""

GAMES_ENV = "SOLVER_GAMES"
"""Modules (comma-separated) imported with the registry, each registering games of its own
(`register_game`): a plug-in's games, known to every process the solver starts (a background
build runs each game's build in a process of its own)."""

for _module in filter(None, (m.strip() for m in os.environ.get(GAMES_ENV, "").split(","))):
    importlib.import_module(_module)
