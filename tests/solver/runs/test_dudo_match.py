"""The match table on Dask: a real local cluster of two worker processes on loopback solves the
rounds up to two dice each, and the stored solve plays every position of them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from solver.abstractions import abstraction_for
from solver.cli import main
from solver.games import get_game
from solver.games.dudo.match import DudoMatchState, Round, loser_payoffs
from solver.runs.dudo_match import default_recall, depends_on
from strategies import StrategyStore
from strategies.figures import WIN_CHANCES


def test_rounds_pay_in_match_chances() -> None:
    assert depends_on((1, 1)) == [] and depends_on((2, 1)) == [(1, 1)]
    assert depends_on((3, 2)) == [(2, 2), (1, 3)]
    assert loser_payoffs((1, 1), {}) == (-1.0, 1.0)  # the course's game
    # Opener 2 dice, other 1: losing leaves (1, 1) to open; winning ends the match.
    lose, win = loser_payoffs((2, 1), {(1, 1): 0.4})
    assert lose == pytest.approx(-0.2) and win == 1.0
    lose, win = loser_payoffs((1, 2), {(1, 1): 0.4})
    assert lose == -1.0 and win == pytest.approx(0.2)
    recall = default_recall()
    assert recall.memory((1, 1)) is None and recall.memory((2, 2)) == 3
    assert recall.memory((5, 5)) == 1 and recall.memory((3, 2)) == 2


@pytest.mark.slow
def test_match_table_on_a_local_cluster(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "strategies.sqlite"
    assert main(["match", "--max-dice", "2", "--recall", "2;1v1=all", "--iterations", "100",
                 "--workers", "2", "--quiet", "--json", "--store", str(store)]) == 0
    summary = json.loads(capsys.readouterr().out)
    with StrategyStore.open(store) as opened:  # the table is in the store, nothing beside it
        solved = opened.latest_solve("dudo-match")
        assert solved is not None
        table = opened.figures(solved.id)[WIN_CHANCES]
    assert table == summary["table"]
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(store.name)] == []
    assert table["1v1"] == pytest.approx((1 - 7 / 258) / 2, abs=2e-4)
    assert summary["exploitability"]["1v1"] <= 1e-4
    # More dice, better chances; the opener of an even round is close to even.
    assert table["2v1"] > table["1v1"] > table["1v2"]
    assert table["2v1"] > table["2v2"] > table["1v2"]
    assert 0 < table["1v2"] < 0.5 < table["2v1"] < 1

    game = get_game("dudo-match")
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve("dudo-match")
        assert info is not None and info.abstraction == "recall=2;1v1=all"
        assert info.value == pytest.approx(2 * table["2v2"] - 1)
        rows = opened.strategy("dudo-match")
    abstraction = abstraction_for(game, info.abstraction)
    rng = random.Random(1)
    looked_up = 0
    for _ in range(40):  # matches of two dice each: every decision has a stored row
        state = DudoMatchState((Round((2, 2), 0),))  # a match from two dice each
        while not state.is_terminal():
            if state.is_chance():
                state = state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            row = rows[abstraction.strategy_key(state, state.current_player())]
            legal = [state.action_label(a) for a in state.legal_actions()]
            assert sorted(row.labels) == sorted(legal)
            looked_up += 1
            state = state.apply_action(state.legal_actions()[
                rng.choices(range(len(legal)), row.probabilities)[0]])
    assert looked_up > 100
