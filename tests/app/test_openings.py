"""The opening's control variate (`app.services.analysis.openings`): zero in expectation over the
openings whatever was learnt (so the result stays unbiased), nothing before anything is
learnt, and the whole of the opening's luck once a result follows from its opening alone."""

from __future__ import annotations

import math
import random

from app.services.analysis import analyse, openings
from solver.evaluation.values import Opening

CHANCES = {"seat 0/raise/pair/AA": 0.1, "seat 0/raise/suited/AKs": 0.2,
           "seat 0/call/suited/AKs": 0.3, "seat 0/call/offsuit/72o": 0.4}
"""A made-up seat's openings and their chances."""
WORTH = {"seat 0/raise/pair/AA": 5.0, "seat 0/raise/suited/AKs": 1.0,
         "seat 0/call/suited/AKs": 2.0, "seat 0/call/offsuit/72o": -3.0}
"""What a hand of each opening is worth to a player whose results follow from it alone."""


def opening(path: str) -> Opening:
    return Opening(path, CHANCES)


def test_nothing_learnt_changes_nothing() -> None:
    assert openings.correction({}, opening("seat 0/raise/pair/AA"), 3) == (0.0, 0.0, 0.0)


def test_the_change_is_zero_in_expectation_whatever_was_learnt() -> None:
    rng = random.Random(3)
    learnt: openings.Learnt = {}
    for _ in range(25):
        path = rng.choice(list(CHANCES))
        learnt = openings.learn(learnt, opening(path), (rng.gauss(0, 4), rng.gauss(1, 2)))
        expectation = [math.fsum(chance * openings.correction(learnt, opening(p), 2)[i]
                                 for p, chance in CHANCES.items()) for i in range(2)]
        assert all(abs(e) < 1e-12 for e in expectation), expectation


def test_a_result_that_follows_from_its_opening_loses_all_its_luck() -> None:
    rng = random.Random(5)
    learnt: openings.Learnt = {}
    value = math.fsum(CHANCES[p] * WORTH[p] for p in CHANCES)
    corrected = []
    for _ in range(2000):
        path = rng.choices(list(CHANCES), list(CHANCES.values()))[0]
        corrected.append(WORTH[path] + openings.correction(learnt, opening(path), 1)[0])
        learnt = openings.learn(learnt, opening(path), (WORTH[path],))
    late = corrected[-500:]
    assert max(abs(c - value) for c in late) < 0.05
    assert learnt["seat 0"][0] == 2000 and learnt["seat 0/raise"][0] < 2000


def test_the_match_state_keeps_what_was_learnt() -> None:
    state = analyse.MatchState(by_opening=openings.learn({}, opening("seat 0/call/offsuit/72o"),
                                                          (1.0, 2.0, 3.0)))
    again = analyse.MatchState.from_json(state.to_json())
    assert again.by_opening == state.by_opening
    assert again.by_opening["seat 0/call/offsuit/72o"] == [1.0, 1.0, 2.0, 3.0]
    assert analyse.MatchState.from_json({"habits": {}, "moments": []}).by_opening == {}
