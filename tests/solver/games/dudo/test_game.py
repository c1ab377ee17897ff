from __future__ import annotations

import pytest

from solver.algorithms.policy import iter_states
from solver.games import Die, get_game, get_view, legal_labels, play
from solver.games.dudo.rules import BID_LABELS, CALZO, DUDO


def bid(label: str) -> int:
    return BID_LABELS.index(label)


def roll(face: int) -> int:
    return face - 1


def returns(game: str, dice: tuple[int, int], *moves: str) -> tuple[float, float]:
    ids = [DUDO if m == "dudo" else CALZO if m == "calzo" else bid(m) for m in moves]
    state = play(get_game(game), [roll(dice[0]), roll(dice[1]), *ids])
    assert state.is_terminal()
    return state.returns()


def test_bid_order_and_labels() -> None:
    assert BID_LABELS == (
        "1x2", "1x3", "1x4", "1x5", "1x6", "1x1", "2x2", "2x3", "2x4", "2x5", "2x6", "2x1",
    )  # fmt: skip
    state = play(get_game("dudo"), [0, 0])
    assert legal_labels(state) == list(BID_LABELS)  # player 0 must open with a bid
    assert legal_labels(state.apply_action(bid("2x6"))) == ["2x1", "dudo"]


def test_dudo_counts_wild_ones() -> None:
    assert returns("dudo", (3, 1), "2x3", "dudo") == (1, -1)  # 3 + wild 1: the bid stands
    assert returns("dudo", (3, 1), "2x4", "dudo") == (-1, 1)  # only the wild 1 counts
    assert returns("dudo", (3, 3), "1x2", "2x3", "dudo") == (-1, 1)  # player 1's bid stands
    assert returns("dudo", (3, 4), "1x2", "2x3", "dudo") == (1, -1)  # player 0's dudo is right
    assert returns("dudo", (5, 6), "1x4", "dudo") == (-1, 1)


def test_bids_on_ones_count_only_ones() -> None:
    assert returns("dudo", (1, 3), "1x1", "dudo") == (1, -1)
    assert returns("dudo", (1, 3), "2x1", "dudo") == (-1, 1)
    assert returns("dudo", (3, 3), "1x1", "dudo") == (-1, 1)  # 3s are not 1s
    assert returns("dudo", (1, 1), "1x2", "2x1", "dudo") == (-1, 1)


def test_calzo_needs_the_exact_count() -> None:
    assert returns("dudo-calzo", (3, 1), "2x3", "calzo") == (-1, 1)  # exactly two: caller wins
    assert returns("dudo-calzo", (3, 1), "1x3", "calzo") == (1, -1)  # two, not one
    assert returns("dudo-calzo", (3, 4), "2x3", "calzo") == (1, -1)  # one, not two
    assert returns("dudo-calzo", (2, 5), "1x4", "1x5", "calzo") == (1, -1)  # player 0 calls
    assert returns("dudo-calzo", (3, 1), "2x3", "dudo") == (1, -1)  # dudo still works


def test_calzo_only_after_a_bid_and_only_in_the_variant() -> None:
    opening = play(get_game("dudo-calzo"), [2, 0])
    assert CALZO not in opening.legal_actions() and DUDO not in opening.legal_actions()
    with pytest.raises(ValueError, match=r"legal actions: 0 \(1x2\), 1 \(1x3\)"):
        opening.apply_action(CALZO)
    assert opening.apply_action(bid("1x2")).action_label(CALZO) == "calzo"
    plain = play(get_game("dudo"), [2, 0, bid("1x2")])
    with pytest.raises(ValueError, match="illegal action 13"):
        plain.apply_action(CALZO)


def test_after_the_strongest_bid_only_calls_remain() -> None:
    top = bid("2x1")
    assert play(get_game("dudo"), [0, 0, top]).legal_actions() == (DUDO,)
    assert play(get_game("dudo-calzo"), [0, 0, top]).legal_actions() == (DUDO, CALZO)


def test_bids_must_strictly_increase() -> None:
    state = play(get_game("dudo"), [0, 0, bid("1x5")])
    with pytest.raises(ValueError, match=r"legal actions: 4 \(1x6\), 5 \(1x1\)"):
        state.apply_action(bid("1x5"))
    with pytest.raises(ValueError, match=r"illegal action 12 .*11 \(2x1\)$"):
        play(get_game("dudo"), [0, 0]).apply_action(DUDO)  # no dudo before a bid


def test_keys() -> None:
    game = get_game("dudo")
    root = game.initial_state()
    assert root.chance_outcomes() == tuple((o, 1 / 6) for o in range(6))
    assert root.public_key() == "" and root.private_key(0) == ""
    state = play(game, [roll(3), roll(6)])
    assert state.information_state_key() == "3|"
    assert state.private_key(1) == "6" and get_view("dudo").private_view(state, 0) == "3"
    state = play(game, [roll(3), roll(6), bid("1x2"), bid("2x5")])
    assert state.information_state_key() == "3|1x2,2x5"
    assert state.information_state_key(1) == "6|1x2,2x5"
    assert state.public_key() == "1x2,2x5"
    assert state.apply_action(DUDO).public_key() == "1x2,2x5,dudo"


def count_tree(name: str) -> tuple[int, int]:
    states = list(iter_states(get_game(name)))
    histories = len(states)
    infosets = {s.information_state_key() for s in states if s.current_player() in (0, 1)}
    return histories, len(infosets)


@pytest.mark.slow
def test_counts() -> None:
    assert count_tree("dudo") == (294_883, 24_576)
    # Per roll: 4,096 bid sequences, 4,095 of them end in a bid and take dudo or calzo.
    assert count_tree("dudo-calzo") == (7 + 36 * (4_096 + 2 * 4_095), 24_576)


def test_game_metadata() -> None:
    plain, calzo = get_game("dudo"), get_game("dudo-calzo")
    assert (plain.name, plain.title) == ("dudo", "Dudo")
    assert (calzo.name, calzo.title) == ("dudo-calzo", "Dudo with calzo")
    assert plain.reference_value == pytest.approx(-7 / 258) and calzo.reference_value is None
    assert (plain.num_distinct_actions(), calzo.num_distinct_actions()) == (13, 14)
    assert all(len(get_view(g.name).rules.splitlines()) == 2 for g in (plain, calzo))


def test_get_game_is_cached_and_lists_names_on_error() -> None:
    assert get_game("dudo") is get_game("dudo")
    with pytest.raises(KeyError, match="rps, kuhn, leduc, dudo, dudo-calzo"):
        get_game("poker")


def test_outcome_texts_explain_the_count() -> None:
    names = ("you", "the bot")
    # Dice 5 and 1; player 0 bids 2x5, player 1 calls dudo: a 5 and a wild 1 make 2.
    state = play(get_game("dudo"), [roll(5), roll(1), bid("2x5"), DUDO])
    assert get_view("dudo").outcome_text(state, names) == (
        "The bot called dudo on 2x5: one 5 and a wild 1 make 2, the bid stands: 1 to you.")
    state = play(get_game("dudo"), [roll(3), roll(4), bid("1x2"), bid("2x6"), DUDO])
    assert get_view("dudo").outcome_text(state, names) == (
        "You called dudo on 2x6: no 6 and no wild 1, the bid fails: 1 to you.")
    state = play(get_game("dudo"), [roll(1), roll(1), bid("2x1"), DUDO])
    assert get_view("dudo").outcome_text(state, names) == (
        "The bot called dudo on 2x1: two 1s make 2, the bid stands: 1 to you.")
    calzo = get_game("dudo-calzo")
    state = play(calzo, [roll(2), roll(1), bid("1x2"), CALZO])
    assert get_view("dudo").outcome_text(state, names) == (
        "The bot called calzo on 1x2: one 2 and a wild 1 make 2, not exactly 1: 1 to you.")
    state = play(calzo, [roll(2), roll(3), bid("1x2"), CALZO])
    assert get_view("dudo").outcome_text(state, ("the bot", "you")) == (
        "You called calzo on 1x2: one 2 makes 1, exactly right: 1 to you.")


# ---- more dice -------------------------------------------------------------------------------


def test_bid_order_with_more_dice() -> None:
    from solver.games.dudo.rules import bid_labels

    assert bid_labels(2) == BID_LABELS
    assert bid_labels(3) == (
        "1x2", "1x3", "1x4", "1x5", "1x6", "1x1", "2x2", "2x3", "2x4", "2x5", "2x6",
        "3x2", "3x3", "3x4", "3x5", "3x6", "2x1", "3x1",
    )  # fmt: skip
    ten = bid_labels(10)
    assert len(ten) == 60 and len(set(ten)) == 60
    for n in range(1, 6):  # n x 1 just above (2n - 1) x 6 and below 2n x 2
        assert ten.index(f"{n}x1") == ten.index(f"{2 * n - 1}x6") + 1
        assert ten.index(f"{2 * n}x2") == ten.index(f"{n}x1") + 1
    assert ten[-5:] == ("6x1", "7x1", "8x1", "9x1", "10x1")


def test_rolls_are_multisets_with_multinomial_probabilities() -> None:
    from solver.games.dudo.rules import rolls

    assert [len(rolls(n)) for n in range(1, 6)] == [6, 21, 56, 126, 252]
    for n in range(1, 6):
        assert sum(p for _, p in rolls(n)) == pytest.approx(1.0)
    two = dict(rolls(2))
    assert two[(1, 1)] == pytest.approx(1 / 36) and two[(1, 6)] == pytest.approx(2 / 36)
    assert dict(rolls(5))[(2, 3, 4, 5, 6)] == pytest.approx(120 / 6**5)


def test_one_die_against_two() -> None:
    from solver.games.dudo.rules import bid_labels

    game = get_game("dudo-1v2")
    assert game.num_distinct_actions() == 19 and game.openspiel is None
    root = game.initial_state()
    assert len(root.chance_outcomes()) == 6
    state = play(game, [0, 5])  # player 0 rolls 1, player 1 rolls 1 and 6
    assert state.information_state_key() == "1|" and state.private_key(1) == "16"
    assert [str(d) for d in get_view("dudo").private_pieces(state, 1)] == ["1", "6"]
    labels = bid_labels(3)
    state = state.apply_action(labels.index("2x6")).apply_action(labels.index("3x2"))
    assert state.information_state_key() == "1|2x6,3x2"
    view = get_view("dudo").public_view(state)
    assert view.bids == ("2x6", "3x2") and view.last_bid == "3x2" and view.pieces_held == (1, 2)
    bids, calls = get_view("dudo").action_groups(state)
    # A row per quantity, the 1s in a column of their own: every bid once.
    assert bids.labels == tuple(f"{q}x{f}" for q in (1, 2, 3) for f in (2, 3, 4, 5, 6, 1))
    assert sorted(bids.labels) == sorted(labels) and bids.columns == 6
    assert calls.labels == ("dudo",)
    end = state.apply_action(18)
    assert end.returns() == (1.0, -1.0)  # two wild 1s make 2 < 3: the bid fails
    assert get_view("dudo").outcome_text(end, ("you", "the bot")) == (
        "You called dudo on 3x2: your dice 1, the bot's 1 6; two wild 1s make 2, the bid "
        "fails: 1 to you.")
    assert get_view(game.name).label_parts("16") == (Die(1), Die(6))


def test_every_dice_count_is_registered() -> None:
    from solver.games import BUILD_DEFAULTS, game_names

    names = game_names()
    for a in range(1, 6):
        for b in range(1, 6):
            assert (f"dudo-{a}v{b}" in names) == ((a, b) != (1, 1))
    assert get_game("dudo-5v4").title == "Dudo, 5 dice against 4 dice"
    assert "dudo-1v2" not in BUILD_DEFAULTS and "dudo" in BUILD_DEFAULTS
