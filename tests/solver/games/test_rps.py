from __future__ import annotations

import pytest

from solver.games import TERMINAL, action_from_label, get_game, get_view, legal_labels, play


def test_payoffs_of_all_nine_outcomes() -> None:
    # Row: player 0's move, column: player 1's (rock, paper, scissors).
    table = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    for a in range(3):
        for b in range(3):
            state = play(get_game("rps"), [a, b])
            assert state.is_terminal() and state.current_player() == TERMINAL
            assert state.returns() == (table[a][b], -table[a][b])


def test_labels_and_label_lookup() -> None:
    root = get_game("rps").initial_state()
    assert legal_labels(root) == ["rock", "paper", "scissors"]
    assert action_from_label(root, "scissors") == 2


def test_keys() -> None:
    root = get_game("rps").initial_state()
    assert root.current_player() == 0
    assert root.information_state_key() == "P1"
    assert root.public_key() == "" and root.private_key(0) == root.private_key(1) == ""
    after = root.apply_action(1)
    assert after.current_player() == 1
    assert after.information_state_key() == "P2"
    assert after.public_key() == "P1 moved"
    assert after.private_key(0) == "paper" and after.private_key(1) == ""
    end = after.apply_action(2)
    assert end.public_key() == "end"
    assert (end.private_key(0), end.private_key(1)) == ("paper", "scissors")
    # Keys of the player not to move still tell positions apart.
    assert root.information_state_key(1) != after.information_state_key(1)
    assert len({end.information_state_key(0), after.information_state_key(0), "P1"}) == 3


def test_player_1_cannot_see_player_0s_move() -> None:
    root = get_game("rps").initial_state()
    assert {root.apply_action(a).information_state_key() for a in range(3)} == {"P2"}


def test_illegal_actions_name_the_legal_ones() -> None:
    root = get_game("rps").initial_state()
    with pytest.raises(ValueError, match=r"legal actions: 0 \(rock\), 1 \(paper\), 2 \(scissors\)"):
        root.apply_action(3)
    with pytest.raises(ValueError, match="legal actions: none"):
        play(get_game("rps"), [0, 0]).apply_action(0)


def test_game_metadata() -> None:
    game = get_game("rps")
    assert game.name == "rps" and game.reference_value == 0.0
    assert game.num_distinct_actions() == 3
    assert len(get_view(game.name).rules.splitlines()) == 2


def test_outcome_texts() -> None:
    rps = get_game("rps")
    assert get_view("rps").outcome_text(play(rps, [0, 2]), ("you", "the bot")) == (
        "Rock beats scissors: 1 to you.")
    assert get_view("rps").outcome_text(play(rps, [0, 1]), ("you", "the bot")) == (
        "Paper beats rock: 1 to the bot.")
    assert get_view("rps").outcome_text(play(rps, [1, 1]), ("you", "the bot")) == (
        "Both chose paper: a tie.")
    assert rps.simultaneous and get_view(rps.name).pieces == "moves"
