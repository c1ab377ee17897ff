"""Public chance sampling (a board per iteration, every hand at once) and distribution-aware
``hist`` buckets: convergence measured exactly in the real game where the abstraction is
lossless, the sampled value of a profile against its exact value, and the tables of the
``hist`` kind against E[HS²]'s."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from solver.abstractions import abstraction_for, describe
from solver.abstractions.holdem.betting_tree import betting_tree
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.percentiles import Percentiles, PercentileSpec, round_buckets
from solver.abstractions.holdem.public_kernel import run_public
from solver.abstractions.holdem.sampled_cfr import (
    SampledSetup,
    Solver,
    kernel_cards,
    run,
    setup_layout,
)
from solver.algorithms.names import describe_algorithm
from solver.cli import main
from solver.evaluation.holdem.baselines import Uniform
from solver.evaluation.holdem.policy import exact_evaluation
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.games.holdem.bet_sizes import parse as parse_bet_sizes
from solver.games.holdem.betting import CALL, FOLD, Betting
from solver.games.holdem.policy import slot_of
from strategies import StrategyStore

TWELVE = "holdem(numRanks=6,numSuits=2,numBoardCards=0 1 1,maxRaises=1 1 1)"
"""12 cards, a board card before each of the two later rounds: a round that is not the last
deals one card after it, so ``hist`` buckets apply, and the tree compiles in seconds."""


def _member(name: str) -> HoldemGame:
    game = get_game(name)
    assert isinstance(game, HoldemGame)
    return game


@pytest.mark.parametrize(("schedule", "floor"), [("plus", 0.005), ("linear", 0.008)])
@pytest.mark.slow
def test_public_sampling_converges_on_holdem_mini(schedule: str, floor: float) -> None:
    """Every class apart, so the abstract game is the real one: 20,000 boards reach an exact
    exploitability under 0.5% of the uniform strategy's with regret matching+ (measured
    0.0107 against 3.3), under 0.8% with the linear schedule (0.0190)."""
    game = _member("holdem-mini")
    setup = SampledSetup("holdem-mini", PercentileSpec((None,)), 250, seed=3, algorithm="pcs",
                schedule=schedule)
    solver = Solver(setup)
    run(solver, 80)
    assert solver.iterations == 20_000
    if schedule == "plus":
        assert solver.regrets.min() >= 0.0
    bot = HulheBot.from_solver(solver)
    evaluation = exact_evaluation(game, [bot])
    uniform = exact_evaluation(game, [Uniform()]).exploitability
    assert evaluation.exploitability < floor * uniform, evaluation.exploitability
    assert evaluation.value == pytest.approx(-0.12211, abs=0.01)  # the game's value


NO_LIMIT_MINI = ("holdem(betting=nolimit,numRanks=4,numSuits=2,numBoardCards=0 1,blind=2 1,"
                 "stack=12 12,bettingAbstraction=0.5p p a)")
"""Hold'em mini's deck and rounds with no-limit betting in a bet abstraction: up to five
actions a node (fold, call, half the pot, the pot, all-in)."""


@pytest.mark.slow
def test_public_sampling_converges_in_a_no_limit_bet_abstraction() -> None:
    """Every class apart, so the abstract game is the member itself: 20,000 boards come
    within 0.03 chips a hand of exact (measured 0.0153) and near the value the exact solver
    finds at exploitability 1e-6, -0.054732."""
    game = _member(NO_LIMIT_MINI)
    tree = betting_tree(game.definition)
    assert tree.slots == 5
    start = Betting.start(game.definition)
    raises = start.raise_amounts()
    assert [slot_of(start, a) for a in (FOLD, CALL, *raises)] == [0, 1, 2, 3, 4]
    assert tree.sequences[tree.arrays.child[0, 3]] == f"r{raises[1]}"
    solver = Solver(SampledSetup(NO_LIMIT_MINI, PercentileSpec((None,)), 250, seed=3))
    run(solver, 80)
    bot = HulheBot.from_solver(solver)
    assert bot.bucket_probabilities(start).shape[1] == 5
    evaluation = exact_evaluation(game, [bot])
    assert evaluation.exploitability < 0.03, evaluation.exploitability
    assert evaluation.value == pytest.approx(-0.054732, abs=0.01)


@pytest.mark.slow
def test_the_command_solves_a_no_limit_blueprint(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`hulhe --betting` on a member with every size solves its blueprint in that betting and
    stores it under the member, played by translation, with its value by self-play in the
    abstract game, which the exact value of the stored profile there falls within."""
    real = NO_LIMIT_MINI.replace(",bettingAbstraction=0.5p p a", "")
    store = tmp_path / "s.sqlite"
    command = ["hulhe", "--game", real, "--betting", "0.5p p a|2 2", "--buckets", "all",
               "--epoch-iterations", "200", "--epochs", "2", "--workers", "0", "--quiet",
               "--json", "--store", str(store), "--checkpoint", "none",
               "--self-play-deals", "4000"]
    assert main(command) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] == 400
    game = _member(real)
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve(game.name)
        table = opened.table_strategy(game.name)
    assert info is not None and table is not None
    bot = HulheBot.from_store(game.name, str(store))
    descriptor = f"translated=hist=k:all in {bot.rules.spec}"
    assert info.abstraction == summary["abstraction"] == descriptor
    assert bot.rules == replace(game.definition, bets=parse_bet_sizes("0.5p p a"),
                                max_raises=(2, 2))
    assert bot.table.tables[0].shape[-1] == 5
    exact = exact_evaluation(_member(bot.rules.spec), [bot]).value
    assert info.value == pytest.approx(summary["value"], abs=1e-4)
    assert info.value_ci95 is not None and 0 < info.value_ci95 < 0.5
    assert abs(info.value - exact) < info.value_ci95, (exact, info)
    translated = abstraction_for(game, info.abstraction)
    state = game.initial_state()
    while state.is_chance():
        state = state.apply_action(state.chance_outcomes()[0][0])
    policy = translated.play_time_policy(state, table)  # type: ignore[attr-defined]
    assert len(policy) == len(state.legal_actions()) and sum(policy) == pytest.approx(1.0)


def test_the_schedule_defaults_by_sampler() -> None:
    assert SampledSetup("holdem-mini").schedule == "plus"  # the default build's
    assert SampledSetup("holdem-mini", algorithm="cs").schedule == "linear"
    with pytest.raises(ValueError, match="linear or plus"):
        SampledSetup("holdem-mini", algorithm="pcs", schedule="cfr+")


@pytest.mark.slow
def test_an_iteration_values_the_uniform_profile_without_bias() -> None:
    """With no regrets both players play uniformly; each iteration returns seat 0's value on
    its board, whose mean over boards is the exact value of uniform against uniform."""
    game = _member(TWELVE)
    setup = SampledSetup(TWELVE, PercentileSpec((None, None)), 1, algorithm="pcs")
    layout = setup_layout(setup)
    tree = betting_tree(game.definition)
    cards = kernel_cards(game.definition, round_buckets(game.definition, setup.spec))
    rows = np.array([tree.rows(r) for r in range(3)], np.int64)
    ks = np.array(layout.buckets, np.int64)
    values = [run_public(tree.arrays, cards, layout.starts, rows, ks, 1, seed,
                         np.zeros(layout.size, np.float32), np.zeros(layout.size, np.float32),
                         cards, layout.starts, ks)
              for seed in range(600)]
    exact = exact_evaluation(game, [Uniform()]).value
    spread = float(np.std(values)) / math.sqrt(len(values))
    assert abs(float(np.mean(values)) - exact) < 4 * spread + 1e-9, (np.mean(values), exact)
    # One board of this member is a few values only: the iterations are not all the same.
    assert spread > 0


def test_hist_buckets_cut_the_rounds_before_the_last_by_histograms() -> None:
    game = _member(TWELVE)
    rules = game.definition
    hist = round_buckets(rules, PercentileSpec((4, 4), "hist"))
    ehs2 = round_buckets(rules, PercentileSpec((4, 4)))
    assert [b.count for b in hist] == [b.count for b in ehs2] == [
        ehs2[0].indexer.size, 4, 4]
    assert not np.array_equal(hist[1].codes, ehs2[1].codes)
    assert np.array_equal(hist[2].codes, ehs2[2].codes)  # the last round: percentiles
    assert set(np.unique(hist[1].codes).tolist()) == {0, 1, 2, 3}
    abstraction = abstraction_for(game, "hist=k:4,4")
    assert isinstance(abstraction, Percentiles) and abstraction.descriptor == "hist=k:4,4"
    assert abstraction.spec == PercentileSpec((4, 4), "hist")
    text = describe("hist=k:4,4")
    assert text is not None and "chances on the next card" in text.what
    with pytest.raises(ValueError, match="ehs2 or hist"):
        PercentileSpec((4, 4), "emd")


@pytest.mark.slow
def test_public_sampling_on_hist_buckets_from_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`hulhe --algorithm pcs --metric hist` on the 12-card member: stored with its
    descriptor and algorithm, and its bot, judged exactly, is far less exploitable than
    uniform play."""
    game = _member(TWELVE)
    store = tmp_path / "s.sqlite"
    assert main(["hulhe", "--game", TWELVE, "--buckets", "8,8", "--metric", "hist",
                 "--algorithm", "pcs", "--epochs", "10", "--epoch-iterations", "500",
                 "--workers", "0", "--checkpoint", "none", "--self-play-deals", "0",
                 "--quiet", "--json", "--store", str(store)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] == 5000
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve(game.name)
        assert info is not None
        assert (info.abstraction, info.algorithm) == ("hist=k:8,8", "pcs-cfr+")
    bot = HulheBot.from_store(game.name, str(store))
    measured = exact_evaluation(game, [bot]).exploitability
    uniform = exact_evaluation(game, [Uniform()]).exploitability
    assert measured < 0.15 * uniform, (measured, uniform)


@pytest.mark.slow
def test_a_finer_opponent_makes_the_bot_less_exploitable() -> None:
    """Asymmetric abstraction: holdem-mini's bot in 8 buckets, solved against an opponent who
    tells every class apart, is judged exactly in the real game far less exploitable than
    the same buckets solved against themselves on as many boards (measured 0.175 against
    0.578 at 5,000 boards)."""
    game = _member("holdem-mini")
    measured = {}
    for opponent in (None, PercentileSpec((None,))):
        solver = Solver(SampledSetup("holdem-mini", PercentileSpec((8,)), 250, seed=3,
                                     algorithm="pcs", opponent=opponent))
        run(solver, 20)
        assert solver.average_strategy().shape == (solver.layout.size,)  # the bot's tables
        measured[opponent] = exact_evaluation(game, [HulheBot.from_solver(solver)])
    alone, against_finer = measured[None], measured[PercentileSpec((None,))]
    assert alone.exploitability > 0.4
    assert against_finer.exploitability < 0.5 * alone.exploitability, measured
    with pytest.raises(ValueError, match="public chance sampling"):
        SampledSetup("holdem-mini", algorithm="cs", opponent=PercentileSpec((None,)))


@pytest.mark.slow
def test_the_command_solves_against_a_finer_opponent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`hulhe --opponent-buckets`: the dry run counts the opponent's tables, the store keeps
    the bot's buckets as the descriptor and says against what it was solved, and a
    checkpoint of the symmetric solve is not resumed by it."""
    game = _member(TWELVE)
    store, checkpoint = tmp_path / "s.sqlite", tmp_path / "c.npz"
    command = ["hulhe", "--game", TWELVE, "--buckets", "4,4", "--metric", "hist",
               "--epoch-iterations", "200", "--workers", "0", "--self-play-deals", "0",
               "--quiet", "--json", "--store", str(store), "--checkpoint", str(checkpoint)]
    assert main([*command, "--epochs", "2", "--dry-run", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*command, "--epochs", "2", "--opponent-buckets", "16,16", "--dry-run",
                 "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["memory_bytes"] > alone["memory_bytes"]
    assert "and the opponent's" in planned["detail"]
    assert main([*command, "--epochs", "1"]) == 0  # a symmetric checkpoint is left
    capsys.readouterr()
    assert main([*command, "--epochs", "2", "--opponent-buckets", "16,16"]) == 2
    assert "checkpoint of another solve" in capsys.readouterr().err
    checkpoint.unlink()
    assert main([*command, "--epochs", "2", "--opponent-buckets", "16,16"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == 400
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve(game.name)
        assert info is not None
        assert (info.abstraction, info.algorithm) == ("hist=k:4,4",
                                                      "pcs-cfr+ against hist=k:16,16")
    described = describe_algorithm(info.algorithm)
    assert "against an opponent in finer buckets (hist=k:16,16)" in described
    assert described.startswith("public chance sampling CFR with regret matching+")
    bot = HulheBot.from_store(game.name, str(store))
    assert (exact_evaluation(game, [bot]).exploitability
            < exact_evaluation(game, [Uniform()]).exploitability)
