from __future__ import annotations

import pytest

from solver.algorithms.policy import iter_states
from solver.games import get_game, get_view, legal_labels, play
from solver.games.leduc import CARD_NAMES

JS, JH, QS, QH, KS, KH = range(6)
F, C, R = 0, 1, 2


def returns(*history: int) -> tuple[float, float]:
    state = play(get_game("leduc"), history)
    assert state.is_terminal()
    return state.returns()


def test_card_ids_follow_openspiel() -> None:
    # Rank c // 2 and suit c % 2; the pyspiel tests check the payoffs this implies.
    assert CARD_NAMES == ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")


def test_showdowns() -> None:
    # Pair with the board beats a higher card: check-check twice, antes only.
    assert returns(JS, KS, C, C, JH, C, C) == (1, -1)
    # Same with a bet and a call each round: 1 + 2 + 4 = 7 chips each.
    assert returns(JS, KS, R, C, JH, R, C) == (7, -7)
    # No pair: the higher rank wins, whatever the suits.
    assert returns(KH, QS, C, C, JS, C, C) == (1, -1)
    assert returns(JH, QS, C, R, C, KS, C, C) == (-3, 3)
    # Equal ranks split.
    assert returns(QS, QH, R, R, C, KS, R, C) == (0, 0)
    # Raise, re-raise, call in both rounds: 1 + 2 + 2 + 4 + 4 = 13.
    assert returns(KS, QS, R, R, C, QH, R, R, C) == (-13, 13)


def test_folds_in_both_rounds() -> None:
    assert returns(JS, KS, R, F) == (1, -1)  # bet, fold: the ante
    assert returns(JS, KS, R, R, F) == (-3, 3)  # bet, raise, fold: ante + bet
    assert returns(JS, KS, C, R, F) == (-1, 1)  # check, bet, fold
    assert returns(JS, KS, C, R, R, F) == (3, -3)  # check, bet, raise, fold
    assert returns(JS, KS, C, C, QS, R, F) == (1, -1)
    assert returns(JS, KS, R, R, C, QS, R, R, F) == (-9, 9)  # 5 in round 1, then 4 more
    assert returns(JS, KS, R, C, QS, C, R, F) == (-3, 3)


def test_legal_actions_and_labels() -> None:
    game = get_game("leduc")
    state = play(game, [KS, QH])
    assert state.legal_actions() == (C, R)
    assert legal_labels(state) == ["check", "bet"]
    assert legal_labels(state.apply_action(R)) == ["fold", "call", "raise"]
    assert play(game, [KS, QH, R, R]).legal_actions() == (F, C)  # at most two raises
    assert play(game, [KS, QH, C, R, R]).legal_actions() == (F, C)
    assert play(game, [KS, QH, C, C, JS]).legal_actions() == (C, R)
    assert play(game, [KS, QH, C, C, JS, C]).current_player() == 1


def test_chance_nodes() -> None:
    game = get_game("leduc")
    assert game.initial_state().chance_outcomes() == tuple((c, 1 / 6) for c in range(6))
    assert play(game, [QH]).chance_outcomes() == tuple((c, 1 / 5) for c in (0, 1, 2, 4, 5))
    board = play(game, [QH, KS, R, C])
    assert board.is_chance()
    assert board.chance_outcomes() == tuple((c, 1 / 4) for c in (0, 1, 2, 5))
    assert board.action_label(JH) == "Jh"


def test_keys() -> None:
    game = get_game("leduc")
    assert game.initial_state().public_key() == ""
    dealt = play(game, [KS])
    assert dealt.public_key() == "" and dealt.private_key(0) == "Ks" and dealt.private_key(1) == ""
    state = play(game, [KS, JH])
    assert state.information_state_key() == "Ks|"
    view = get_view("leduc")
    assert view.private_view(state, 0) == "Ks" and view.private_view(state, 1) == "Jh"
    state = play(game, [KS, JH, R, C, QH, C, R])
    assert state.information_state_key() == "Ks|rc|Qh|cr"
    assert state.information_state_key(1) == "Jh|rc|Qh|cr"
    assert state.public_key() == "rc|Qh|cr"
    assert play(game, [KS, JH, R, C]).public_key() == "rc"
    assert play(game, [KS, JH, R, C, QH]).information_state_key() == "Ks|rc|Qh|"


def test_illegal_actions_name_the_legal_ones() -> None:
    state = play(get_game("leduc"), [KS, JH])
    with pytest.raises(ValueError, match=r"legal actions: 1 \(check\), 2 \(bet\)"):
        state.apply_action(F)
    with pytest.raises(ValueError, match="legal actions: 0 \\(Js\\), 1 \\(Jh\\)"):
        play(get_game("leduc"), [KS]).apply_action(KS)


def test_counts() -> None:
    states = list(iter_states(get_game("leduc")))
    histories = len(states)
    infosets = {s.information_state_key() for s in states if s.current_player() in (0, 1)}
    assert (histories, len(infosets)) == (9_457, 936)


def test_game_metadata() -> None:
    game = get_game("leduc")
    assert game.name == "leduc" and game.reference_value == pytest.approx(-0.085606424078)
    assert game.num_distinct_actions() == 3


def test_outcome_texts_and_public_view() -> None:
    names = ("you", "the bot")
    leduc = get_game("leduc")
    assert get_view("leduc").outcome_text(play(leduc, [JS, KS, R, C, JH, R, C]), names) == (
        "Showdown with Jh on the board: Jack pairs the board: 7 to you.")
    assert get_view("leduc").outcome_text(play(leduc, [KH, QS, C, C, JS, C, C]), names) == (
        "Showdown with Js on the board: King is higher than Queen: 1 to you.")
    assert get_view("leduc").outcome_text(play(leduc, [QS, QH, R, R, C, KS, R, C]), names) == (
        "Showdown with Ks on the board: both hold a Queen, the pot is split.")
    assert get_view("leduc").outcome_text(play(leduc, [JS, KS, R, R, F]), names) == (
        "You folded: 3 to the bot.")
    view = get_view("leduc").public_view(play(leduc, [JS, KS, R, C, QH, C]))
    assert (view.pot, view.round, view.rounds, view.betting) == (6, 2, 2, "rc/c")
    assert [str(card) for card in view.board] == ["Qh"]
