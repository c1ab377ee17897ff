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

NO_LIMIT = "holdem(betting=nolimit,stack=2000 1500)"
"""Heads-up no-limit at 20 and 15 big blinds: all-ins, runouts and an all-in for less come
often."""


def random_hand(seed: int, name: str = "holdem") -> HoldemState:
    rng = random.Random(seed)
    state = get_game(name).initial_state()
    while not state.is_terminal():
        legal = state.legal_actions()
        calls = [a for a in legal if a <= 1]
        # No-limit: a call or fold as often as a raise, the raise's amount uniform.
        state = state.apply_action(rng.choice(calls if calls and rng.random() < 0.6 else legal))
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


@pytest.mark.parametrize("seed", range(40))
def test_pokerkit_replays_our_no_limit_hands_to_the_same_end(seed: int) -> None:
    name = NO_LIMIT if seed % 4 else "pushfold-10bb"
    state = random_hand(seed, name)
    game = get_game(name)
    assert isinstance(game, HoldemGame) and game.phh_variant == "NT"
    history = hand_history(game, state, PlayedHand(seed, state, ("you", "bot")))
    final = list(HandHistory.loads(history.dumps()))[-1]
    assert not final.status
    stacks = game.definition.stacks
    assert stacks is not None
    assert [s - start for s, start in zip(final.stacks, stacks, strict=True)] == list(
        state.returns())
