"""Style figures counted from hands the tests play move by move, and what a forfeit costs."""

from __future__ import annotations

import pytest

from solver.games import get_game, play
from solver.games.base import worst_result

# Kuhn: J=0, Q=1, K=2; pass/check/fold = 0, bet/call = 1.


def test_kuhn_bet_and_call_counts_for_both_seats() -> None:
    kuhn = get_game("kuhn")
    state = play(kuhn, [2, 1, 1, 1])  # K v Q: bet, call: showdown
    assert kuhn.style_counts(state, 0) == {"vpip": (1.0, 1.0), "pfr": (1.0, 1.0),
                                           "aggression": (1.0, 0.0), "wtsd": (1.0, 1.0)}
    assert kuhn.style_counts(state, 1) == {"vpip": (1.0, 1.0), "pfr": (0.0, 1.0),
                                           "aggression": (0.0, 1.0), "wtsd": (1.0, 1.0)}


def test_kuhn_check_bet_fold() -> None:
    kuhn = get_game("kuhn")
    state = play(kuhn, [0, 2, 0, 1, 0])  # J v K: check, bet, fold
    assert kuhn.style_counts(state, 0) == {"vpip": (0.0, 1.0), "pfr": (0.0, 1.0),
                                           "wtsd": (0.0, 1.0)}
    assert kuhn.style_counts(state, 1) == {"vpip": (1.0, 1.0), "pfr": (1.0, 1.0),
                                           "aggression": (1.0, 0.0), "wtsd": (0.0, 1.0)}


def test_leduc_counts_the_first_round_apart() -> None:
    """Leduc: fold 0, call/check 1, raise/bet 2; cards Js Jh Qs Qh Ks Kh = 0..5."""
    leduc = get_game("leduc")
    # Ks v Qs; round 1: check, check; board Jh; round 2: bet, raise, call: a showdown.
    state = play(leduc, [4, 2, 1, 1, 1, 2, 2, 1])
    assert state.is_terminal()
    assert leduc.style_counts(state, 0) == {"vpip": (0.0, 1.0), "pfr": (0.0, 1.0),
                                            "aggression": (1.0, 1.0), "wtsd": (1.0, 1.0)}
    assert leduc.style_counts(state, 1) == {"vpip": (0.0, 1.0), "pfr": (0.0, 1.0),
                                            "aggression": (1.0, 0.0), "wtsd": (1.0, 1.0)}
    # Folding in the first round: no showdown to count (not past the first round).
    folded = play(leduc, [4, 2, 2, 0])
    assert leduc.style_counts(folded, 1) == {"vpip": (0.0, 1.0), "pfr": (0.0, 1.0)}
    assert leduc.style_counts(folded, 0) == {"vpip": (1.0, 1.0), "pfr": (1.0, 1.0),
                                             "aggression": (1.0, 0.0)}


def test_dudo_challenges_and_bluffs() -> None:
    """Dudo, one die each: rolls are the face minus one; bids 0 = 1x2 ... 4 = 1x6, 5 = 1x1,
    6 = 2x2 ..., 12 = dudo."""
    dudo = get_game("dudo")
    # Dice 1 and 4. Seat 0 bids 1x3 (true: the wild 1), seat 1 bids 2x2 (false: one 1 only),
    # seat 0 calls dudo.
    state = play(dudo, [0, 3, 1, 6, 12])
    assert dudo.style_counts(state, 0) == {"challenges": (1.0, 1.0), "bluffs": (0.0, 1.0)}
    assert dudo.style_counts(state, 1) == {"challenges": (0.0, 1.0), "bluffs": (1.0, 1.0)}


def test_a_dudo_match_counts_every_round() -> None:
    match = get_game("dudo-match")
    state = match.initial_state()
    rounds = 0
    while state.is_chance() or rounds < 2:
        if state.is_terminal():
            break
        if state.is_chance():
            state = state.apply_action(state.legal_actions()[0])  # five 1s each
            continue
        labels = [state.action_label(a) for a in state.legal_actions()]
        # Open 1x2 (true: ten wild 1s), then call dudo on it: the caller loses a die.
        pick = "dudo" if "dudo" in labels else labels[0]
        rounds += pick == "dudo"
        state = state.apply_action(state.legal_actions()[labels.index(pick)])
    # Each round: the opener bids once (never a bluff), the other challenges it.
    counts = [match.style_counts(state, seat) for seat in (0, 1)]
    assert counts[0]["bluffs"][1] + counts[1]["bluffs"][1] == 2
    assert counts[0]["challenges"][1] + counts[1]["challenges"][1] == 2
    assert counts[0]["bluffs"][0] == counts[1]["bluffs"][0] == 0


@pytest.mark.parametrize(("game", "history", "seat", "payoff"), [
    ("kuhn", [0, 1], 0, -1.0),            # ante only: a fold gives up 1
    ("kuhn", [0, 1, 0, 1], 0, -1.0),      # facing the bet: a fold still gives up the ante
    ("leduc", [4, 2, 2, 2], 0, -3.0),     # bet 2 and raised: a fold gives up the 3 put in
    ("dudo", [0, 3, 1], 1, -1.0),
    ("rps", [], 0, -1.0),
])
def test_a_forfeit_is_a_fold_or_the_worst_result(game: str, history: list[int], seat: int,
                                                  payoff: float) -> None:
    state = play(get_game(game), history)
    assert not state.is_terminal() and state.current_player() == seat
    assert get_game(game).forfeit_payoff(state, seat) == payoff


def test_the_worst_result_walks_what_follows() -> None:
    rps = get_game("rps")
    assert worst_result(rps.initial_state(), 1) == -1.0
    with pytest.raises(ValueError, match="must say its worst result"):
        worst_result(get_game("dudo").initial_state(), 0)
