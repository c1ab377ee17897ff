from __future__ import annotations

import pytest

from solver.algorithms.policy import iter_states
from solver.games import CHANCE, get_game, get_view, legal_labels, play

J, Q, K = 0, 1, 2
PASS, BET = 0, 1


def returns(*history: int) -> tuple[float, float]:
    state = play(get_game("kuhn"), history)
    assert state.is_terminal()
    return state.returns()


def test_seed_examples() -> None:
    # The seed writes cards Q < K < A; ours are J < Q < K.
    assert returns(Q, K, PASS, PASS) == (-1, 1)  # "KAp": higher card wins the antes
    assert returns(J, Q, BET, PASS) == (1, -1)  # "QKbp": bet, fold
    assert returns(J, K, BET, BET) == (-2, 2)  # "QAbb": bet, call, showdown


def test_other_endings() -> None:
    assert returns(K, J, PASS, PASS) == (1, -1)
    assert returns(K, Q, PASS, BET, PASS) == (-1, 1)  # check, bet, fold
    assert returns(K, Q, PASS, BET, BET) == (2, -2)  # check, bet, call
    assert returns(Q, J, BET, BET) == (2, -2)


def test_deal_is_two_chance_nodes() -> None:
    root = get_game("kuhn").initial_state()
    assert root.current_player() == CHANCE
    assert root.chance_outcomes() == ((J, 1 / 3), (Q, 1 / 3), (K, 1 / 3))
    second = root.apply_action(Q)
    assert second.is_chance()
    assert second.chance_outcomes() == ((J, 0.5), (K, 0.5))
    with pytest.raises(ValueError, match="legal actions: 0 \\(J\\), 2 \\(K\\)"):
        second.apply_action(Q)


def test_labels_depend_on_a_pending_bet() -> None:
    state = play(get_game("kuhn"), [Q, K])
    assert legal_labels(state) == ["check", "bet"]
    assert legal_labels(state.apply_action(BET)) == ["fold", "call"]
    assert legal_labels(state.apply_action(PASS)) == ["check", "bet"]
    assert legal_labels(state.apply_action(PASS).apply_action(BET)) == ["fold", "call"]


def test_keys() -> None:
    game = get_game("kuhn")
    root = game.initial_state()
    assert root.public_key() == "" and root.private_key(0) == ""
    dealt = play(game, [K, J])
    assert dealt.information_state_key() == "K|"
    assert dealt.information_state_key(1) == "J|"
    assert dealt.public_key() == "" and get_view("kuhn").private_view(dealt, 0) == "K"
    state = play(game, [Q, K, PASS, BET])
    assert state.information_state_key() == "Q|pb"
    assert state.public_key() == "pb"
    assert (state.private_key(0), state.private_key(1)) == ("Q", "K")
    assert play(game, [J, Q]).public_key() == "" and play(game, [J]).public_key() == ""


def test_illegal_actions_name_the_legal_ones() -> None:
    state = play(get_game("kuhn"), [Q, K, BET])
    with pytest.raises(ValueError, match=r"legal actions: 0 \(fold\), 1 \(call\)"):
        state.apply_action(2)


def test_counts() -> None:
    states = list(iter_states(get_game("kuhn")))
    histories = len(states)
    infosets = {s.information_state_key() for s in states if s.current_player() in (0, 1)}
    assert histories == 58
    assert infosets == {f"{c}|{h}" for c in "JQK" for h in ("", "p", "b", "pb")}


def test_game_metadata() -> None:
    game = get_game("kuhn")
    assert game.name == "kuhn" and game.title == "Kuhn poker"
    assert game.reference_value == pytest.approx(-1 / 18)
    assert game.num_distinct_actions() == 2


def test_outcome_texts() -> None:
    names = ("you", "the bot")
    assert get_view("kuhn").outcome_text(play(get_game("kuhn"), [K, Q, BET, BET]), names) == (
        "Showdown: K beats Q: 2 to you.")
    assert get_view("kuhn").outcome_text(play(get_game("kuhn"), [J, Q, PASS, PASS]), names) == (
        "Showdown: Q beats J: 1 to the bot.")
    assert get_view("kuhn").outcome_text(play(get_game("kuhn"), [J, Q, BET, PASS]), names) == (
        "The bot folded to the bet: 1 to you.")
    assert get_view("kuhn").outcome_text(play(get_game("kuhn"), [K, Q, PASS, BET, PASS]),
                                         names) == (
        "You folded to the bet: 1 to the bot.")
    view = get_view("kuhn").public_view(play(get_game("kuhn"), [K, Q, PASS, BET]))
    assert (view.pot, view.contributions, view.betting) == (3, (1, 2), "pb")
