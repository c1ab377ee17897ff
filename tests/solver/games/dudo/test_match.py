"""A whole match of Dudo as one game: rounds, dice counts, who opens, what is public."""

from __future__ import annotations

import random

import pytest

from solver.games import CHANCE, TERMINAL, Die, get_game, get_view
from solver.games.dudo.match import DUDO, DudoMatchState, Round, win_chances
from solver.games.dudo.rules import bid_labels
from strategies.figures import WIN_CHANCES


def roll(state: DudoMatchState, dice: str) -> DudoMatchState:
    """Roll `dice` (sorted faces) for the seat to roll."""
    for outcome, _ in state.chance_outcomes():
        if state.action_label(outcome) == dice:
            return state.apply_action(outcome)
    raise AssertionError(f"no roll {dice}")


def bid(state: DudoMatchState, label: str) -> DudoMatchState:
    return state.apply_action(bid_labels(sum(state.current.counts)).index(label))


def test_a_round_ends_with_a_die_lost_and_the_loser_opens() -> None:
    game = get_game("dudo-match")
    state = game.initial_state()
    assert isinstance(state, DudoMatchState)
    assert state.current_player() == CHANCE and len(state.chance_outcomes()) == 252
    state = roll(roll(state, "11234"), "56666")
    assert state.current_player() == 0 and state.private_key(1) == "56666"
    assert state.public_key() == "5v5:"
    state = bid(bid(state, "3x6"), "7x6")  # five 6s and two wild 1s: seven
    assert state.information_state_key() == "11234|5v5:3x6,7x6"
    assert state.legal_actions()[-1] == DUDO and state.action_label(DUDO) == "dudo"
    before = state.private_key(0)
    state = state.apply_action(DUDO)
    # The call does not change anybody's private key (the app would take it for a secret).
    assert state.private_key(0) == before
    # Four 6s and two wild 1s make six, not seven: seat 1's bid fails, seat 1 loses a die.
    assert state.counts == (5, 4) and state.number == 2 and state.current.opener == 1
    assert state.current_player() == CHANCE
    assert state.public_key() == "11234-56666:3x6,7x6,dudo/5v4:"
    (done,) = get_view("dudo-match").public_view(state).finished_rounds
    assert done.loser == 1 and done.pieces[1] == tuple(map(Die, (5, 6, 6, 6, 6)))
    view = get_view("dudo-match").public_view(state)
    assert view.pieces_held == (5, 4) and view.round == 2 and view.bids == ()
    state = roll(roll(state, "12345"), "6666")
    assert state.current_player() == 1  # the loser opens
    assert state.public_key() == "11234-56666:3x6,7x6,dudo/5v4:"
    assert len(bid_labels(9)) == len(state.legal_actions())


def test_counting_and_the_end_of_the_match() -> None:
    state = DudoMatchState()
    state = roll(roll(state, "11234"), "56666")
    state = bid(bid(state, "3x6"), "7x6").apply_action(DUDO)
    finished = get_view("dudo-match").public_view(state).finished_rounds
    assert finished[0].explain(("you", "the bot")) == (
        "You called dudo on 7x6: your dice 1 1 2 3 4, the bot's 5 6 6 6 6; four 6s and two "
        "wild 1s make 6, the bid fails: the bot loses a die.")
    rng = random.Random(7)
    while not state.is_terminal():
        if state.is_chance():
            outcomes = state.chance_outcomes()
            state = state.apply_action(rng.choices([o for o, _ in outcomes],
                                                   [p for _, p in outcomes])[0])
        else:
            legal = state.legal_actions()
            move = DUDO if DUDO in legal and rng.random() < 0.5 else legal[0]
            state = state.apply_action(move)
    assert state.current_player() == TERMINAL and 0 in state.counts
    winner = 0 if state.counts[1] == 0 else 1
    assert state.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    names = ("you", "the bot")
    assert get_view("dudo-match").outcome_text(state, names).endswith(
        f"so {'you win' if winner == 0 else 'the bot wins'} the match in {state.number} rounds.")
    assert len(get_view("dudo-match").public_view(state).finished_rounds) == state.number


def test_bids_follow_the_dice_in_play() -> None:
    state = roll(roll(DudoMatchState(), "11234"), "56666")
    (bids, calls) = get_view("dudo-match").action_groups(state)
    assert len(bids.labels) == 60 and bids.columns == 6 and calls.labels == ("dudo",)
    assert state.legal_actions() == tuple(range(60))
    with pytest.raises(ValueError, match="legal actions"):
        state.apply_action(DUDO)  # nothing to doubt yet


def test_win_chances_come_from_the_solves_table() -> None:
    """The table of winning chances is one of the solve's figures; the game reads each
    seat's chance at the start of the round being played from it, and none without it."""
    game = get_game("dudo-match")
    figures = {WIN_CHANCES: {"5v5": 0.52, "4v5": 0.4}}
    assert win_chances((5, 4), 1, figures[WIN_CHANCES]) == pytest.approx((0.6, 0.4))
    assert win_chances((3, 4), 1, figures[WIN_CHANCES]) is None
    state = roll(roll(DudoMatchState(), "11234"), "56666")
    chances = get_view(game.name).win_chances(state, figures)
    assert chances is not None and chances[0] == 0.52 and chances[1] == pytest.approx(0.48)
    assert get_view(game.name).win_chances(state, {}) is None
    assert get_view(game.name).required_figures == (WIN_CHANCES,)
    assert get_view("dudo").required_figures == ()
    assert get_view("dudo").win_chances(get_game("dudo").initial_state(), figures) is None


def test_the_bid_grid_lines_up_by_face_with_the_1s_apart() -> None:
    """A row per quantity, a column per face with the 1s last: with 7 dice in play the bids
    in their order of strength would put 2x1 among the 3s, so the grid is not that order."""
    state = roll(roll(DudoMatchState((Round((3, 4), 0),)), "123"), "1234")
    (bids, _) = get_view("dudo-match").action_groups(state)
    rows = [bids.labels[i:i + bids.columns] for i in range(0, len(bids.labels), bids.columns)]
    assert len(rows) == 7 and all(len(r) == 6 for r in rows)
    for quantity, row in enumerate(rows, 1):
        assert row == tuple(f"{quantity}x{face}" for face in (2, 3, 4, 5, 6, 1))
    assert sorted(bids.labels) == sorted(state.action_label(a) for a in range(42))


def test_a_stored_round_is_described_as_a_round_not_the_match() -> None:
    game = get_game("dudo-match")
    # Stored keys remember the round's counts (opener first) and its last bids only.
    assert get_view(game.name).describe_history("") == "The opening bid of a round"
    assert get_view(game.name).describe_history("2x3,3x4") == (
        "Bids remembered (the last of this round): 2x3, 3x4")
    assert get_view(game.name).label_parts("1v1:3") == ("round of 1 die each: ", Die(3))
    assert get_view(game.name).label_parts("5v4:16")[0] == "round of 5 v 4 dice: "
    # The match's own public key says which round and with how many dice.
    assert get_view(game.name).describe_history("12356-2245:1x2,dudo/4v5:2x3") == (
        "Round 2, dice 4 against 5 (the first player's first): bids 2x3")
    assert DudoMatchState().public_key() == "5v5:"
    assert get_view(game.name).describe_history("5v5:").endswith("the opening bid")
