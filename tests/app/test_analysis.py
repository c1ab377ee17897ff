"""A hand whose analysis takes longer than a request (a bot solved in an abstraction) finishes
*pending* and is analysed once, after the answer is sent; reading it never analyses it again,
and the match's results take it in then.

The store here gets a Dudo solve remembering two bids (its values come from the recall graph,
`solver.evaluation.values.dudo`), so Dudo's hands go the slow way."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from app.db.models import Match
from app.services.analysis import analyse, coach
from solver.cli import main
from solver.evaluation.values import Habits, Segment
from solver.evaluation.values.base import FROM_CHOICES
from solver.evaluation.values.dudo import DudoValues
from solver.games import State, get_game
from solver.games.dudo.game import DudoGame
from solver.runs.store_solve import SolveRecord, store_solve
from tests.app.conftest import AppFactory, new_match, play_random_hand
from tests.conftest import copy_store
from tests.solver.evaluation.values.test_dudo_values import solve_abstract


@pytest.fixture(scope="module")
def recall_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store with a second, abstract solve of Dudo (the latest, so the bot plays it)."""
    path = copy_store(store_path, tmp_path_factory.mktemp("recall") / "store.sqlite")
    dudo = get_game("dudo")
    assert isinstance(dudo, DudoGame)
    _, _, rows = solve_abstract(dudo, 2, (-1.0, 1.0))
    store_solve(SolveRecord(game="dudo", algorithm="dcfr+fsicfr", iterations=60, seconds=0.0,
                            exploitability=float("inf"), value=-0.03,
                            strategy=rows.values(), abstraction="recall=2"), str(path))
    return path


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many hands the Dudo value function has valued (each hand is valued twice, once
    with each start of the habits' model: the first of the two is counted)."""
    calls: list[int] = []
    original = DudoValues.segments

    def segments(self: DudoValues, final: State, seat: int, habits: Habits | None,
                 rng: np.random.Generator) -> list[Segment]:
        if habits is None or FROM_CHOICES not in habits:
            calls.append(1)
        return original(self, final, seat, habits, rng)

    monkeypatch.setattr(DudoValues, "segments", segments)
    return calls


def test_slow_analysis_runs_after_the_answer_once(make_app: AppFactory, recall_store: Path,
                                                  counted: list[int]) -> None:
    api = make_app(store=recall_store, seed=3)
    match_id, headers = new_match(api.client, "dudo")
    rng = random.Random(4)
    adjusted = []
    decisions = 0
    for number in range(1, 9):
        view = api.client.post(f"/api/v1/matches/{match_id}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            view = api.client.post(f"/api/v1/hands/{view['hand_id']}/actions",
                                   headers=headers,
                                   json={"action": rng.choice(view["legal_actions"]),
                                         "seq": view["seq"]}).json()
        # The answer was drawn before the analysis: it says so, and has no figures yet.
        assert view["outcome"]["analysis"] == "pending"
        assert view["outcome"]["coach"] is None and view["outcome"]["adjusted_payoff"] is None
        # The background task ran once the answer was sent: the hand has its figures now.
        assert len(counted) == number
        done = api.client.get(f"/api/v1/hands/{view['hand_id']}", headers=headers).json()
        outcome = done["outcome"]
        assert outcome["analysis"] == "done" and outcome["coach"]
        mine = [e["label"] for e in done["events"] if e["actor"] == "you"]
        assert [d["chosen"] for d in outcome["coach"]] == mine
        adjusted.append(outcome["adjusted_payoff"])
        decisions += len(outcome["coach"])
        for _ in range(2):  # looking again computes nothing
            again = api.client.get(f"/api/v1/hands/{view['hand_id']}/replay",
                                   headers=headers).json()
            assert again["outcome"]["coach"] == outcome["coach"]
        assert len(counted) == number
    summary = api.client.get(f"/api/v1/matches/{match_id}", headers=headers).json()
    assert summary["hands_analysing"] == 0 and summary["adjusted_hands"] == 8
    assert summary["adjusted_mean"] == pytest.approx(sum(adjusted) / 8)
    assert [h["adjusted_payoff"] for h in reversed(summary["hands"])] == pytest.approx(adjusted)
    assert summary["win_chances"]["adjusted"] == pytest.approx((1 + sum(adjusted) / 8) / 2)
    assert len(counted) == 8
    engine = api.app.state.engine
    with engine.connect() as connection:
        state = connection.execute(sa.select(Match.analysis_state)).scalar_one()
    assert state["moments"][0] == 8  # every hand added to the habits once, in order
    general = [counts for key, counts in state["habits"].items() if key.count("|") == 1]
    assert sum(sum(counts.values()) for counts in general) == decisions


@pytest.fixture(scope="module")
def store_2v2(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store with a quick solve of Dudo with two dice each remembering one bid (three
    iterations, 3 s: a weak bot, with a strategy everywhere; the real build is
    `python -m solver recall dudo-2v2`)."""
    path = copy_store(store_path, tmp_path_factory.mktemp("2v2") / "store.sqlite")
    assert main(["recall", "dudo-2v2", "--memory", "1", "--iterations", "3", "--quiet",
                 "--store", str(path)]) == 0
    return path


def test_dudo_2v2_gets_the_coach_and_the_adjusted_results(make_app: AppFactory,
                                                          store_2v2: Path) -> None:
    """Two dice each, over the API: every hand is analysed after the answer, each of my
    decisions valued per action (Q) in the round's recall graph, and the luck-adjusted result of
    each of these first hands is the seat's value plus what my choices gained over the bot's
    mix (the habits get a weight only after 20 hands); the results show its interval and how
    many more hands each interval needs."""
    api = make_app(store=store_2v2, seed=6)
    match_id, headers = new_match(api.client, "dudo-2v2")
    rng = random.Random(11)
    raw, adjusted = [], []
    for _ in range(6):
        view = play_random_hand(api.client, match_id, headers, rng)
        assert view["outcome"]["analysis"] == "pending"
        done = api.client.get(f"/api/v1/hands/{view['hand_id']}", headers=headers).json()
        outcome = done["outcome"]
        assert outcome["analysis"] == "done"
        mine = [e["label"] for e in done["events"] if e["actor"] == "you"]
        assert [d["chosen"] for d in outcome["coach"]] == mine and mine
        gained = 0.0
        for d in outcome["coach"]:
            values = {a["label"]: a["value"] for a in d["actions"]}
            assert d["exact"] and len(values) == len(d["actions"]) >= 2
            assert all(-1.0 - 1e-9 <= q <= 1.0 + 1e-9 for q in values.values())
            assert d["value"] == pytest.approx(sum(a["probability"] * a["value"]
                                                   for a in d["actions"]))
            assert sum(a["probability"] for a in d["actions"]) == pytest.approx(1.0)
            assert d["lost_vs_equilibrium"] == pytest.approx(d["value"] - values[d["chosen"]])
            gained -= d["lost_vs_equilibrium"]
        summary = api.client.get(f"/api/v1/matches/{match_id}", headers=headers).json()
        value = summary["game_value"]
        seat = summary["hands"][0]["human_seat"]
        assert outcome["adjusted_payoff"] == pytest.approx(
            (value if seat == 0 else -value) + gained, abs=1e-9)
        raw.append(outcome["human_payoff"])
        adjusted.append(outcome["adjusted_payoff"])
    assert summary["adjusted_hands"] == 6 and summary["hands_analysing"] == 0
    assert summary["adjusted_mean"] == pytest.approx(sum(adjusted) / 6)
    assert summary["adjusted_ci95_low"] < summary["adjusted_mean"] < summary[
        "adjusted_ci95_high"]
    assert summary["win_chances"]["adjusted"] == pytest.approx((1 + sum(adjusted) / 6) / 2)
    assert "adjusted_hands_needed" in summary and "hands_needed" in summary
    assert (summary["adjusted_hands_needed"] is None) == (len(set(adjusted)) == 1)


def spread_of(state: analyse.MatchState, estimates: np.ndarray) -> float:
    """The variance of the weighted estimate over `estimates`' rows, with `state`'s weights."""
    return float(np.var(estimates @ np.array(state.weights())))


def test_the_weights_are_the_least_spread_mix() -> None:
    """Three unbiased estimates of one mean with independent noise of spread 3, 2 and 1: the
    least-variance weights are proportional to 1/9, 1/4 and 1 (not one estimate alone), and
    the equilibrium's estimate has all the weight before `WARM_UP` hands."""
    rng = np.random.default_rng(5)
    rows = 0.4 + rng.normal(size=(4000, 3)) * np.array([3.0, 2.0, 1.0])
    state = analyse.MatchState()
    for n, row in enumerate(rows):
        if n < analyse.WARM_UP:
            assert state.weights() == (1.0, 0.0, 0.0)
        state = state.after(coach.HandReview([], 0.0), tuple(float(x) for x in row))
    inverse = np.array([1 / 9, 1 / 4, 1.0])
    assert np.array(state.weights()) == pytest.approx(inverse / inverse.sum(), abs=0.03)
    assert spread_of(state, rows) < min(np.var(rows, axis=0))


def test_a_useless_estimate_gets_no_weight() -> None:
    """A habits' estimate that is the equilibrium's plus noise adds nothing: it gets no
    weight, and the mix has no more spread than the best estimate alone."""
    rng = np.random.default_rng(6)
    x = rng.normal(size=3000) * 2.0
    z = x / 2 + rng.normal(size=3000) * 0.1
    rows = np.stack([x, x + rng.normal(size=3000), z], axis=1)
    state = analyse.MatchState()
    for row in rows:
        state = state.after(coach.HandReview([], 0.0), tuple(float(v) for v in row))
    weights = state.weights()
    assert weights[1] == 0.0 and sum(weights) == pytest.approx(1.0)
    assert spread_of(state, rows) <= min(np.var(rows, axis=0)) + 1e-12


def test_a_state_kept_before_the_third_estimate_restarts_its_weights() -> None:
    kept = {"habits": {"c": {"call": 3.0}}, "moments": [40.0, 1.0, 2.0, 5.0, 6.0, 3.0]}
    state = analyse.MatchState.from_json(kept)
    assert state.habits == {"c": {"call": 3.0}}
    assert state.moments == analyse.MatchState().moments
    assert state.weights() == (1.0, 0.0, 0.0)
