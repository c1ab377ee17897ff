"""`python -m solver`: every command works end to end against a temporary store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli import main
from strategies import StrategyStore

COMMANDS = ("solve", "build", "list", "show", "evaluate", "export", "recall", "recall-cost",
            "buckets", "bucket-cost", "match", "info", "evaluate-holdem", "hulhe")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "strategies.sqlite"
    for game in ("kuhn", "leduc", "dudo"):
        assert main(["solve", game, "--target-exploitability", "5e-5", "--quiet",
                     "--store", str(path)]) == 0
    return path


@pytest.mark.slow
def test_help_as_a_command() -> None:
    result = subprocess.run([sys.executable, "-m", "solver", "--help"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0
    assert "usage: python -m solver" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_everywhere(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each command's help, from the parser `python -m solver` runs (checked above): in this
    process, not an interpreter importing the whole solver again per command."""
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    assert f"usage: python -m solver {command}" in capsys.readouterr().out


def test_solve_stores_strategy_and_trace(store: Path) -> None:
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve("leduc")
        assert info is not None
        assert info.exploitability <= 5e-5
        assert info.value == pytest.approx(-0.085606424078, abs=1e-4)
        assert len(opened.strategy("leduc")) == 936
        trace = opened.trace(info.id)
    assert trace[-1].iteration == info.iterations
    assert trace[0].exploitability > trace[-1].exploitability


def test_iterations_limit_is_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.sqlite"
    assert main(["solve", "kuhn", "--algorithm", "cfr+", "--iterations", "37", "--quiet",
                 "--json", "--store", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] == 37
    assert summary["algorithm"] == "cfr+"


def test_list_show_evaluate(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--json", "--store", str(store)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {row["game"] for row in listed} == {"kuhn", "leduc", "dudo"}

    assert main(["show", "kuhn", "--json", "--store", str(store)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert len(shown) == 12
    assert shown["K|b"]["call"] == pytest.approx(1.0, abs=1e-3)

    assert main(["evaluate", "dudo", "--json", "--store", str(store)]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["exploitability"] <= 5e-5
    assert evaluated["value"] == pytest.approx(-7 / 258, abs=1e-4)


def test_export_json(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "kuhn", "--format", "json", "--store", str(store)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert set(exported["Q|pb"]) == {"fold", "call"}


@pytest.mark.parametrize(("game", "openspiel_name"), [
    ("kuhn", "kuhn_poker"),
    ("leduc", "leduc_poker"),
    # OpenSpiel's Python TabularPolicy of Liar's Dice, and its best response: a minute or more
    pytest.param("dudo", "liars_dice", marks=pytest.mark.slow),
])
def test_export_loads_into_openspiel(store: Path, capsys: pytest.CaptureFixture[str],
                                     game: str, openspiel_name: str) -> None:
    """OpenSpiel itself measures the exported strategy as at most 1e-4 exploitable."""
    import pyspiel
    from open_spiel.python import policy as openspiel_policy

    assert main(["export", game, "--format", "openspiel", "--store", str(store)]) == 0
    exported = json.loads(capsys.readouterr().out)
    loaded = pyspiel.load_game(openspiel_name)
    tabular = openspiel_policy.TabularPolicy(loaded)
    assert set(exported) == set(tabular.state_lookup)
    for key, probabilities in exported.items():
        row = tabular.policy_for_key(key)
        row[:] = 0.0
        for action, probability in probabilities.items():
            row[int(action)] = probability
    # OpenSpiel's C++ exploitability of its own TabularPolicy, fed through its dict form.
    assert pyspiel.exploitability(loaded, tabular.to_dict()) <= 1e-4


def test_missing_store_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--store", str(tmp_path / "nothing.sqlite")]) == 2
    assert "python -m solver build" in capsys.readouterr().err


def test_unsolved_game_is_a_clear_error(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "rps", "--store", str(store)]) == 2
    assert "no solve of 'rps'" in capsys.readouterr().err


def test_bad_limits_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["solve", "kuhn", "--iterations", "-3"])
    assert "positive" in capsys.readouterr().err


def test_regret_matching_on_rps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.sqlite"
    assert main(["solve", "rps", "--algorithm", "rm", "--iterations", "20000", "--quiet",
                 "--json", "--store", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["exploitability"] < 2e-2
    with StrategyStore.open(path) as opened:
        trace = opened.trace(summary["solve_id"])
    assert trace[0].exploitability > 0.3  # the skewed start
    assert main(["solve", "kuhn", "--algorithm", "rm", "--store", str(path)]) == 2
    assert "rps only" in capsys.readouterr().err


@pytest.mark.slow
def test_recall_solve_is_stored_exported_and_played(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A Dudo game solved remembering two bids: measured in the real game, stored with its
    descriptor, exported as stored, and every real position has its abstract row."""
    from solver.abstractions import abstraction_for
    from solver.algorithms.policy import iter_states
    from solver.games import get_game

    path = tmp_path / "s.sqlite"
    assert main(["recall", "dudo", "--memory", "2", "--iterations", "200", "--quiet", "--json",
                 "--store", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["abstraction"] == "recall=2" and summary["infosets"] == 474
    assert 0.05 < summary["real_exploitability"] < 0.5
    assert main(["export", "dudo", "--format", "json", "--store", str(path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert len(exported) == 474 and set(exported["3|1x2,2x5"]) == {"2x6", "2x1", "dudo"}
    assert main(["export", "dudo", "--format", "openspiel", "--store", str(path)]) == 2
    assert "abstract (recall=2)" in capsys.readouterr().err
    assert main(["evaluate", "dudo", "--store", str(path)]) == 2
    with StrategyStore.open(path) as opened:
        info = opened.latest_solve("dudo")
        assert info is not None
        abstraction = abstraction_for(get_game("dudo"), info.abstraction)
        for state in iter_states(get_game("dudo")):
            if state.current_player() in (0, 1):
                key = abstraction.strategy_key(state, state.current_player())
                assert opened.infoset("dudo", key) is not None


@pytest.mark.slow
def test_bucket_solve_is_stored_and_played(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """holdem-mini solved with its hands in buckets: measured in the real game, stored with
    its descriptor, and every position of random hands has its abstract row, with the
    position's legal actions."""
    import random

    from solver.abstractions import abstraction_for
    from solver.games import get_game, legal_labels

    path = tmp_path / "s.sqlite"
    assert main(["buckets", "holdem-mini", "--k", "3", "--iterations", "300", "--quiet",
                 "--json", "--store", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["abstraction"] == "buckets=k:3;recall=perfect"
    assert summary["abstract_infosets"] == 2_816
    assert 0.05 < summary["real_exploitability"] < 0.5
    game = get_game("holdem-mini")
    rng = random.Random(5)
    with StrategyStore.open(path) as opened:
        info = opened.latest_solve("holdem-mini")
        assert info is not None and info.abstraction == summary["abstraction"]
        assert info.exploitability == pytest.approx(summary["real_exploitability"])
        assert len(opened.strategy("holdem-mini")) == 2_816
        abstraction = abstraction_for(game, info.abstraction)
        for _ in range(100):
            state = game.initial_state()
            while not state.is_terminal():
                if not state.is_chance():
                    row = opened.infoset("holdem-mini",
                                         abstraction.strategy_key(state, state.current_player()))
                    assert row is not None and sorted(row.labels) == sorted(legal_labels(state))
                state = state.apply_action(rng.choice(state.legal_actions()))
    assert main(["buckets", "kuhn", "--no-store", "--quiet"]) == 2
    assert "hold'em family, not 'kuhn'" in capsys.readouterr().err


def test_info_counts_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "holdem-mini", "--json"]) == 0
    mini = json.loads(capsys.readouterr().out)
    assert mini["in_lobby"] and mini["openspiel"].startswith("universal_poker(betting=limit,")
    assert (mini["information_sets"], mini["histories"], mini["betting_sequences"]) == (
        9_632, 1_025_201, 64)
    assert mini["canonical_hands"] == {"round 1": 16, "round 2": 84}
    assert main(["info", "holdem", "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full["in_lobby"] and full["betting_sequences"] == 6_378
    assert list(full["canonical_hands"].values()) == [169, 1_286_792, 13_960_050, 123_156_254]
    assert main(["info", "leduc", "--json"]) == 0  # compiled and walked
    leduc = json.loads(capsys.readouterr().out)
    assert (leduc["information_sets"], leduc["histories"]) == (936, 9_457)
    assert main(["info", "holdem(numRanks=6, numSuits=2, numBoardCards=0 1 1)"]) == 0
    text = capsys.readouterr().out
    assert "holdem(numSuits=2,numRanks=6,numBoardCards=0 1 1)" in text
    assert "betting sequences  708" in text


@pytest.mark.slow
def test_games_by_their_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.sqlite"
    spec = "holdem(numRanks=3, numSuits=2, numHoleCards=1, numBoardCards=0 1, maxRaises=2 2)"
    assert main(["solve", spec, "--target-exploitability", "1e-3", "--quiet", "--json",
                 "--store", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    name = "holdem(numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,maxRaises=2 2)"
    assert summary["game"] == name and summary["exploitability"] <= 1e-3
    assert main(["evaluate", spec, "--json", "--store", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] <= 1e-3
    for bad in ("texas", "holdem(numRanks=1)"):
        with pytest.raises(SystemExit):
            main(["info", bad])
        assert "argument GAME" in capsys.readouterr().err


@pytest.mark.slow  # a build, then pyspiel's best response on universal_poker (about 25 s)
def test_holdem_mini_export_judged_by_openspiel(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """holdem-mini solved and stored as `build` does it, exported in OpenSpiel's terms, and
    measured by pyspiel on universal_poker: at most 1e-4 (pyspiel takes about 25 s)."""
    import pyspiel

    from solver.games import get_game

    path = tmp_path / "s.sqlite"
    assert main(["build", "--games", "holdem-mini", "--quiet", "--json", "--store",
                 str(path)]) == 0
    built = json.loads(capsys.readouterr().out)[0]
    assert built["exploitability"] <= 1e-4
    assert main(["export", "holdem-mini", "--format", "openspiel", "--store", str(path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert len(exported) == 9_632
    mapping = get_game("holdem-mini").openspiel
    assert mapping is not None
    game = pyspiel.load_game(mapping.game_string)
    policy = {key: [(int(a), p) for a, p in row.items()] for key, row in exported.items()}
    judged = pyspiel.exploitability(game, policy)  # fails on a missing or unknown infoset
    assert judged <= 1e-4
    assert judged == pytest.approx(built["exploitability"], rel=1e-9)


def test_the_hulhe_commands_defaults_are_the_default_build() -> None:
    from solver.abstractions.holdem.sampled_cfr import DEFAULT_MINUTES, DEFAULT_SPEC, SampledSetup
    from solver.cli.parser import build_parser

    args = build_parser().parse_args(["hulhe"])
    assert args.metric == DEFAULT_SPEC.metric
    assert args.algorithm == SampledSetup().algorithm
    assert args.buckets == ",".join(str(k) for k in DEFAULT_SPEC.k)
    assert args.minutes == DEFAULT_MINUTES
    assert args.schedule is None  # the algorithm's own, as `SampledSetup` chooses it
