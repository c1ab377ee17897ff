from __future__ import annotations

import pytest

from solver.abstractions import Exact, abstraction_for, register_kind
from solver.games import Game, State, get_game, play


class FirstMoveOnly:
    """An abstraction that forgets all but a player's card and the first move."""

    def __init__(self, parameters: str) -> None:
        self.descriptor = f"first={parameters}"

    def strategy_key(self, state: State, player: int) -> str:
        private, _, public = state.information_state_key(player).partition("|")
        return f"{private}|{public[:1]}"


def test_exact_is_the_information_state_key() -> None:
    kuhn = get_game("kuhn")
    state = play(kuhn, [2, 0, 0, 1])
    assert isinstance(abstraction_for(kuhn, ""), Exact)
    assert abstraction_for(kuhn, None).strategy_key(state, 0) == "K|pb"


def test_registered_kinds_are_parsed_and_unknown_ones_named() -> None:
    def parse(game: Game, parameters: str) -> FirstMoveOnly:
        return FirstMoveOnly(parameters)

    register_kind("first", parse)
    kuhn = get_game("kuhn")
    abstraction = abstraction_for(kuhn, "first=1")
    assert abstraction.descriptor == "first=1"
    assert abstraction.strategy_key(play(kuhn, [2, 0, 0, 1]), 0) == "K|p"
    with pytest.raises(ValueError, match=r"unknown abstraction 'nope=2'.*first"):
        abstraction_for(kuhn, "nope=2")


def test_a_solves_abstraction_is_parsed_once() -> None:
    """What an abstraction keeps (a re-solving bot's re-solves) lasts from one move to the
    next: the same game and descriptor give the same object."""
    import solver.abstractions.play_time  # noqa: F401  (registers the re-solving kind)

    game = get_game("holdem")
    descriptor = "resolving=from:4;mode:maxmargin;iterations:200;blueprint:hist=k:8,8,8"
    first = abstraction_for(game, descriptor)
    assert abstraction_for(get_game("holdem"), descriptor) is first
    assert abstraction_for(game, "hist=k:8,8,8") is not first
