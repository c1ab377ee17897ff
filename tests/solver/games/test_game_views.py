"""Rules apart from drawing: a `Game` and its `State` hold what OpenSpiel's do (the rules,
chance, information states, returns) and how the strategy is built; every registered game has
a `GameView` beside it that holds how a page draws and words it."""

from __future__ import annotations

import pytest

from solver.games import game_names, get_game, get_view
from solver.games.base import Game, GameDefaults, State
from solver.games.dudo.game import DudoGame
from solver.games.dudo.match import DudoMatchGame
from solver.games.dudo.view import DudoMatchView, DudoView
from solver.games.game_view import GameView
from solver.games.holdem import member
from solver.games.holdem.view import HoldemView
from solver.games.kuhn import KuhnGame, KuhnView
from solver.games.leduc import LeducGame, LeducView
from solver.games.rps import RPSGame, RPSView

GAME_MEMBERS = {
    "name", "title", "reference_value", "simultaneous", "openspiel", "listed", "build",
    "initial_state", "num_distinct_actions", "style_stats", "style_counts", "forfeit_payoff",
}
"""What a `Game` may declare: OpenSpiel's game (its names, its first state, its actions, the
twin it has there), how its strategy is built and listed, and what its players' style and a
forfeit are counted by (the solver stores the one, play settles the other)."""
STATE_MEMBERS = {
    "history", "current_player", "is_terminal", "is_chance", "legal_actions", "action_label",
    "chance_outcomes", "apply_action", "returns", "information_state_key", "public_key",
    "private_key",
}
"""What a `State` may declare: OpenSpiel's state, with the public and private keys the engine
groups histories by."""
STATE_DRAWING = {"outcome_text", "public_view", "private_view", "private_pieces",
                 "action_groups"}
"""What a state drew itself with before it had a view."""
DRAWING = STATE_DRAWING | {"rules", "pieces", "seats", "notes", "label_parts", "describe_history",
           "hand_classes", "class_spots", "hand_histories", "result_unit", "win_chances"}
"""Some of what only a page needs: none of it is on a game or a state."""


def _declared(protocol: type) -> set[str]:
    return {name for name in (*vars(protocol), *getattr(protocol, "__annotations__", {}))
            if not name.startswith("_")}


def test_the_protocols_hold_only_the_rules() -> None:
    assert _declared(Game) == GAME_MEMBERS
    assert _declared(State) == STATE_MEMBERS
    assert not DRAWING & _declared(GameDefaults)
    assert _declared(GameView) >= DRAWING


@pytest.mark.parametrize("name", game_names())
def test_every_game_has_a_view_and_draws_nothing_itself(name: str) -> None:
    game, view = get_game(name), get_view(name)
    assert get_view(name) is view
    state = game.initial_state()
    for drawn in DRAWING:
        assert not hasattr(game, drawn), f"{name}'s game has {drawn}"
    for drawn in STATE_DRAWING:
        assert not hasattr(state, drawn), f"{name}'s state has {drawn}"
    assert view.rules and view.pieces in ("cards", "dice", "moves")
    while state.is_chance():
        state = state.apply_action(state.legal_actions()[0])
    assert view.public_view(state) is not None and view.action_groups(state)


def test_a_family_member_has_the_familys_view() -> None:
    view = get_view("holdem(numRanks=6, numSuits=2, numBoardCards=0 1 1)")
    assert isinstance(view, HoldemView)
    assert get_view("holdem()") is get_view("holdem")


def test_each_view_is_a_game_view() -> None:
    """Checked by mypy: each view class satisfies the protocol for its own game."""
    views: list[GameView] = [
        RPSView(RPSGame()), KuhnView(KuhnGame()), LeducView(LeducGame()), DudoView(DudoGame()),
        DudoMatchView(DudoMatchGame()), HoldemView(member("holdem-mini"))]
    games: list[Game] = [RPSGame(), KuhnGame(), LeducGame(), DudoGame(), DudoMatchGame(),
                         member("holdem-mini")]
    assert len(views) == len(games)
