"""Hold'em hands written as PHH hand histories: pokerkit reads them back and plays them to the
same end (the same stacks), and a file of several hands round-trips."""

from __future__ import annotations

import random

import pytest
from pokerkit import HandHistory

from solver.games import get_game, get_view
from solver.games.game_view import PlayedHand
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.history import STARTING_STACK, hand_history


def random_hand(seed: int) -> HoldemState:
    rng = random.Random(seed)
    state = get_game("holdem").initial_state()
    while not state.is_terminal():
        state = state.apply_action(rng.choice(state.legal_actions()))
    assert isinstance(state, HoldemState)
    return state


@pytest.mark.parametrize("seed", range(60))
def test_pokerkit_replays_our_hands_to_the_same_end(seed: int) -> None:
    state = random_hand(seed)
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    text = hand_history(game, state, PlayedHand(seed, state, ("you", "bot"))).dumps()
    final = list(HandHistory.loads(text))[-1]
    assert not final.status  # pokerkit played it to the end
    assert [s - STARTING_STACK for s in final.stacks] == list(state.returns())


def test_a_file_of_hands_round_trips_and_only_the_standard_game_has_one() -> None:
    game = get_game("holdem")
    assert get_view(game.name).hand_history_format == "phh"
    hands = [(n, random_hand(n)) for n in range(1, 6)]
    played = [PlayedHand(n, state, ("bot", "you")) for n, state in hands]
    view = get_view(game.name)
    text = view.hand_histories(played[:2]) + view.hand_histories(played[2:])  # two pages
    read = list(HandHistory.loads_all(text))
    assert [h.hand for h in read] == [1, 2, 3, 4, 5]
    assert all(h.players == ["bot", "you"] for h in read)
    for history, (_, state) in zip(read, hands, strict=True):
        final = list(history)[-1]
        assert [s - STARTING_STACK for s in final.stacks] == list(state.returns())
    mini = get_game("holdem-mini")
    assert get_view(mini.name).hand_history_format is None
    with pytest.raises(ValueError, match="no hand-history format"):
        get_view(mini.name).hand_histories([])
