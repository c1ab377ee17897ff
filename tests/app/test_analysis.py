"""A hand whose analysis takes longer than a request (a bot solved in an abstraction) finishes
*pending* and is analysed once, after the answer is sent; reading it never analyses it again,
and the match's results take it in then.

The store here gets a Dudo solve remembering two bids (its values come from the recall graph,
`solver.evaluation.values.dudo`), so Dudo's hands go the slow way."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sqlalchemy as sa

from app.models import Match
from solver.evaluation.values.dudo import DudoValues
from solver.games import get_game
from solver.runs.store_solve import SolveRecord, store_solve
from tests.app.conftest import AppFactory, copy_store, new_match
from tests.solver.evaluation.values.test_dudo_values import solve_abstract


@pytest.fixture(scope="module")
def recall_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store with a second, abstract solve of Dudo (the latest, so the bot plays it)."""
    path = copy_store(store_path, tmp_path_factory.mktemp("recall") / "store.sqlite")
    _, _, rows = solve_abstract(get_game("dudo"), 2, (-1.0, 1.0))  # type: ignore[arg-type]
    store_solve(SolveRecord(game="dudo", algorithm="dcfr+fsicfr", iterations=60, seconds=0.0,
                            exploitability=float("inf"), value=-0.03,
                            strategy=rows.values(), abstraction="recall=2"), str(path))
    return path


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many hands the Dudo value function has valued."""
    calls: list[int] = []
    original = DudoValues.segments

    def segments(self: DudoValues, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

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
