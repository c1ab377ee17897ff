from __future__ import annotations

import json

import pytest

from solver.cli import main
from solver.evaluation.holdem import report as report_module
from solver.evaluation.holdem.baselines import AlwaysCall
from solver.evaluation.holdem.report import make_policy, policy_names, register_policy, report_lines
from solver.games.holdem.game import HoldemGame


@pytest.mark.slow
def test_evaluate_holdem_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["evaluate-holdem", "holdem-mini", "--policy", "solve", "--against",
                 "always-call,uniform", "--deals", "3000", "--lbr-hands", "400", "--exact",
                 "--json", "--quiet"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "holdem-mini" and report["big_blind"] == 2
    assert [m["opponent"] for m in report["matches"]] == ["always-call", "uniform"]
    # The exact solution beats both baselines clearly, and LBR cannot beat it.
    assert all(m["mbb_per_hand"] - m["ci95"] > 100 for m in report["matches"])
    exact = report["exact"]
    assert exact["exploitability_mbb_per_hand"] < 0.1
    assert report["lbr"]["lbr_mbb_per_hand"] - report["lbr"]["ci95"] <= \
        exact["exploitability_mbb_per_hand"]
    own = report["self_play"]
    assert abs(own["seat0_mbb_per_hand"] - exact["seat0_mbb_per_hand"]) <= 1.5 * own["ci95"]
    lines = report_lines(report)
    assert lines[1].lstrip().startswith("vs always-call") and "LBR (fcr) wins" in lines[3]


def test_evaluate_holdem_refuses_what_it_cannot_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate-holdem", "kuhn", "--policy", "uniform", "--quiet"]) == 2
    assert "hold'em family" in capsys.readouterr().err
    assert main(["evaluate-holdem", "holdem-mini", "--policy", "nobody", "--quiet"]) == 2
    assert "choose from stored, re-solving, solve" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evaluate-holdem", "holdem-mini", "--against", "always-fold"])
    assert "unknown opponent always-fold" in capsys.readouterr().err


def test_the_opponents_are_any_named_policies(capsys: pytest.CaptureFixture[str]) -> None:
    """A policy against itself wins nothing on every deal; the others in order, by name."""
    assert main(["evaluate-holdem", "holdem-mini", "--policy", "uniform", "--against",
                 "equity,uniform", "--deals", "300", "--lbr-hands", "0", "--json",
                 "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    equity, uniform = report["matches"]
    assert (equity["opponent"], uniform["opponent"]) == ("equity", "uniform")
    assert uniform["mbb_per_hand"] == 0 and equity["mbb_per_hand"] + equity["ci95"] < 0


def test_register_policy(mini: HoldemGame, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_module, "_FACTORIES", dict(report_module._FACTORIES))
    register_policy("calling-station", lambda game, store: AlwaysCall("calling-station"))
    assert "calling-station" in policy_names()
    assert make_policy("calling-station", mini).name == "calling-station"
    with pytest.raises(ValueError, match="baseline"):
        register_policy("uniform", lambda game, store: AlwaysCall())
