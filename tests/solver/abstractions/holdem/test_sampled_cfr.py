"""The sampled hold'em solver: its compiled betting tree, convergence on holdem-mini (measured
exactly in the real game), checkpoints and resuming, and epochs on a two-worker Dask cluster."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.betting_tree import betting_tree
from solver.abstractions.holdem.bot import HulheBot, table_of
from solver.abstractions.holdem.percentiles import PercentileSpec
from solver.abstractions.holdem.sampled_cfr import (
    SampledSetup,
    Solver,
    _worker_epoch,
    default_checkpoint,
    run,
)
from solver.abstractions.holdem.sampled_kernel import DECISION, FOLDED, SHOWDOWN
from solver.algorithms.exploitability import evaluate, exploitability
from solver.algorithms.policy import uniform_policy
from solver.cli import main
from solver.evaluation.holdem.policy import exact_evaluation
from solver.games import get_game
from solver.games.base import BuildPlan
from solver.games.holdem.betting import OVER, Betting, count_sequences, walk
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import HoldemPolicy
from solver.games.holdem.rules import HOLDEM_MINI, HULHE
from solver.runs.dask import dask_client
from strategies import StrategyStore

MINI = SampledSetup(game="holdem-mini", spec=PercentileSpec((None,)), iterations_per_epoch=5000,
                    seed=3, algorithm="cs")
"""holdem-mini with every class apart: the abstraction is lossless, so its solve is a solve
of the real game and exploitability measures it exactly."""


def test_the_betting_tree_is_walks_order_with_hulhes_6378_sequences() -> None:
    tree = betting_tree(HULHE)
    a = tree.arrays
    assert int((a.kind == DECISION).sum()) == count_sequences(HULHE) == 6378
    assert tree.sequences == tuple(b.acpc() for b in walk(HULHE))
    assert [tree.rows(r) for r in range(4)] == [8, 70, 630, 5670]
    walked = list(walk(HULHE))
    for n in (0, 1, 17, 500, 4000, tree.num_nodes - 1):
        betting = walked[n]
        assert a.player[n] == max(betting.player, -1)
        if betting.over:
            assert a.kind[n] == (FOLDED if betting.folded >= 0 else SHOWDOWN)
        else:
            for action in betting.legal_actions():
                assert tree.sequences[a.child[n, action]] == betting.apply(action).acpc()
        assert a.end[n] == n + len(walk_subtree(betting))
    # Terminal payoffs: a fold pays the folder's chips to the other; a showdown the pot half.
    first_fold = tree.index["f"]
    assert a.kind[first_fold] == FOLDED and a.payoff[first_fold] == 1.0  # seat 1 folds its 1
    showdown = tree.index["rrrc/rrrrc/rrrrc/rrrrc"]
    assert a.kind[showdown] == SHOWDOWN and a.payoff[showdown] == 8 + 8 + 16 + 16 + 0


def walk_subtree(betting: Betting) -> list[Betting]:
    out = [betting]
    if betting.player != OVER:
        for action in betting.legal_actions():
            out.extend(walk_subtree(betting.apply(action)))
    return out


def _policy(bot: HulheBot, game_name: str) -> dict[str, dict[int, float]]:
    """The bot's strategy at every information set of the real game, one call per betting
    and board with every hand at once."""
    from solver.engine.compile import compile_game

    game = get_game(game_name)
    assert isinstance(game, HoldemGame)
    deck = game.definition.deck
    tree = compile_game(game)
    groups: dict[str, list[tuple[str, tuple[int, ...], tuple[int, ...]]]] = {}
    for key, actions in zip(tree.infoset_keys, tree.infoset_actions, strict=True):
        hole, _, public = key.partition("|")
        groups.setdefault(public, []).append((key, deck.parse_cards(hole), actions))
    policy: dict[str, dict[int, float]] = {}
    for public, members in groups.items():
        segments = public.split("|")
        betting = Betting.start(game.definition)
        for r, bets in enumerate([segments[0], *segments[2::2]]):
            for char in bets:
                betting = betting.apply("fcr".index(char))
            assert betting.round >= r
        board = tuple(c for text in segments[1::2] for c in deck.parse_cards(text))
        holes = np.array([hole for _, hole, _ in members])
        rows = bot.action_probabilities(betting, board, holes)
        for (key, _, actions), row in zip(members, rows, strict=True):
            policy[key] = {a: float(row[a]) for a in actions}
    return policy


@pytest.mark.slow
def test_converges_on_holdem_mini_and_quantising_costs_nothing_measurable() -> None:
    uniform = exploitability(get_game("holdem-mini"), uniform_policy(get_game("holdem-mini")))
    solver = Solver(MINI)
    run(solver, 20)
    assert solver.iterations == 100_000
    stored = evaluate(get_game("holdem-mini"), _policy(HulheBot.from_solver(solver), "holdem-mini"))
    assert uniform > 3.0
    assert stored.exploitability < 0.04 * uniform
    # The same strategy before quantising to 255ths (measured: value 1e-5 and exploitability
    # 3e-4 apart).
    exact = HulheBot("float", solver.rules, MINI.spec,
                     table_of(solver.layout, solver.average_strategy(), solver.rules,
                              quantised=False))
    unquantised = evaluate(get_game("holdem-mini"), _policy(exact, "holdem-mini"))
    assert abs(stored.value - unquantised.value) < 5e-4
    assert abs(stored.exploitability - unquantised.exploitability) < 2e-3


def test_resuming_a_checkpoint_goes_on_as_if_never_stopped(tmp_path: Path) -> None:
    straight = Solver(MINI)
    run(straight, 4)
    checkpoint = tmp_path / "mini.npz"
    interrupted = Solver(MINI)

    def stop_after_two(s: Solver) -> None:
        if s.epochs == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(interrupted, 4, checkpoint=checkpoint, checkpoint_seconds=1e9,
            on_epoch=stop_after_two)
    resumed = Solver(MINI)
    assert resumed.load_checkpoint(checkpoint)
    assert (resumed.epochs, resumed.iterations) == (2, 10_000)
    run(resumed, 4, checkpoint=checkpoint)
    assert resumed.iterations == straight.iterations == 20_000
    np.testing.assert_array_equal(resumed.regrets, straight.regrets)
    np.testing.assert_array_equal(resumed.average, straight.average)
    other = Solver(SampledSetup(game="holdem-mini", spec=PercentileSpec((None,)), seed=4,
                                algorithm="cs"))
    with pytest.raises(ValueError, match="checkpoint of another solve"):
        other.load_checkpoint(checkpoint)
    # Another schedule is another solve, chance sampling's too.
    plus = Solver(replace(MINI, schedule="plus"))
    with pytest.raises(ValueError, match="checkpoint of another solve"):
        plus.load_checkpoint(checkpoint)
    assert default_checkpoint(plus.setup) != default_checkpoint(MINI)


def test_sigterm_checkpoints_like_ctrl_c(tmp_path: Path) -> None:
    # What a process manager sends (the background builder's terminate): the epochs done are kept.
    checkpoint = tmp_path / "mini.npz"
    before = signal.getsignal(signal.SIGTERM)

    def terminate_after_two(s: Solver) -> None:
        if s.epochs == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    with pytest.raises(KeyboardInterrupt):
        run(Solver(MINI), 4, checkpoint=checkpoint, checkpoint_seconds=1e9,
            on_epoch=terminate_after_two)
    assert signal.getsignal(signal.SIGTERM) == before
    resumed = Solver(MINI)
    assert resumed.load_checkpoint(checkpoint)
    assert resumed.epochs == 2


def test_an_interrupt_waits_until_the_epoch_is_applied_whole() -> None:
    solver = Solver(MINI)
    result = _worker_epoch(MINI, solver.regrets, 0, 0, MINI.iterations_per_epoch)

    class InterruptedWhileApplied(list[tuple[Any, Any, float]]):
        def __iter__(self) -> Iterator[tuple[Any, Any, float]]:
            os.kill(os.getpid(), signal.SIGTERM)  # SIGINT is ignored where CI runs in background
            return super().__iter__()

    with pytest.raises(KeyboardInterrupt):
        solver.apply(InterruptedWhileApplied([result]), 0.0)
    assert (solver.epochs, len(solver.values)) == (1, 1)
    np.testing.assert_array_equal(solver.average, result[1] * np.float32(0.5))


@pytest.mark.slow
def test_epochs_on_a_two_worker_local_cluster(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # The cluster's epoch is the sum of the workers' shares, each from its own seed.
    expected = Solver(MINI)
    for epoch in range(2):
        results = [_worker_epoch(MINI, expected.regrets, epoch, w, share)
                   for w, share in enumerate(expected.shares(2))]
        expected.apply(results, 0.0)
    with dask_client(workers=2) as client:
        on_dask = Solver(MINI)
        run(on_dask, 2, client=client, workers=2)
    np.testing.assert_allclose(on_dask.regrets, expected.regrets, rtol=0, atol=1e-5)
    np.testing.assert_allclose(on_dask.average, expected.average, rtol=0, atol=1e-5)

    # The command, on its own two-worker cluster, stores a solve the abstraction's keys find.
    store = tmp_path / "strategies.sqlite"
    assert main(["hulhe", "--game", "holdem-mini", "--buckets", "all", "--epochs", "2",
                 "--algorithm", "cs", "--metric", "ehs2",
                 "--epoch-iterations", "4000", "--workers", "2", "--checkpoint", "none",
                 "--quiet", "--json", "--store", str(store)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] == 8000 and summary["workers"] == 2
    game = get_game("holdem-mini")
    assert isinstance(game, HoldemGame)
    assert game.definition == HOLDEM_MINI
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve("holdem-mini")
        assert info is not None and info.abstraction == "ehs2=k:all"
        abstraction = abstraction_for(game, info.abstraction)
        rng = np.random.default_rng(0)
        looked_up = 0
        for _ in range(30):
            state = game.initial_state()
            while not state.is_terminal():
                if state.is_chance():
                    state = state.apply_action(int(rng.choice(state.legal_actions())))
                    continue
                assert isinstance(state, HoldemState)
                row = opened.infoset("holdem-mini",
                                     abstraction.strategy_key(state, state.current_player()))
                assert row is not None
                legal = state.legal_actions()
                assert row.labels == tuple(state.action_label(a) for a in legal)
                assert sum(row.probabilities) == pytest.approx(1.0)
                looked_up += 1
                state = state.apply_action(legal[int(rng.choice(len(legal),
                                                                p=row.probabilities))])
        assert looked_up > 30
        key = abstraction.strategy_key(state_before_showdown(), 0)
        row = opened.infoset("holdem-mini", key)
        assert row is not None

    # The bot reads the same tables, for a whole range at once (HoldemPolicy).
    bot: HoldemPolicy = HulheBot.from_store("holdem-mini", str(store))
    betting = Betting.start(HOLDEM_MINI).apply(2).apply(1)  # raise, call: round 2
    board = (game.definition.deck.parse("5d"),)
    holes = np.array([[0, 1], [2, 3], [6, 4]])
    probabilities = bot.action_probabilities(betting, board, holes)
    assert probabilities.shape == (3, 3) and (probabilities[:, 0] == 0).all()  # no fold: no bet
    assert probabilities.sum(axis=1) == pytest.approx(np.ones(3))
    assert tuple(probabilities[1, 1:]) == pytest.approx(row.probabilities)

    # The value stored is the bot's self-play estimate with its interval, which covers the
    # exact value of the stored strategy against itself.
    exact = exact_evaluation(game, [bot]).value
    assert summary["value_ci95"] is not None and 0 < summary["value_ci95"] < 0.2
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve("holdem-mini")
        assert info is not None
        assert info.value_ci95 == pytest.approx(summary["value_ci95"], abs=1e-4)
        assert info.value_ci95 is not None
        assert abs(info.value - exact) <= 1.5 * info.value_ci95, (info.value, exact)
    assert get_game("holdem").build.command == ("hulhe", "--quiet", "--resolve-from", "4")
    assert get_game("holdem-mini").build.command == ("solve", "holdem-mini")


def state_before_showdown() -> HoldemState:
    """holdem-mini: seat 0 holds 3c3d, seat 1 2c2d; seat 1 raises, seat 0 calls; the board
    5d: seat 0 to act in round 2."""
    game = get_game("holdem-mini")
    state = game.initial_state()
    for action in (2, 3, 0, 1, 2, 1, 7):
        state = state.apply_action(action)
    assert isinstance(state, HoldemState) and state.current_player() == 0
    return state


@pytest.mark.slow
def test_build_runs_a_games_own_command(tmp_path: Path) -> None:
    """`build --games G` runs G's build command when it has one of its own (as holdem's
    `hulhe`), here a stand-in that solves holdem-mini in a few epochs in this process."""
    from solver.games import register_game, unregister_game
    from solver.games.holdem.game import HoldemGame
    from solver.games.holdem.view import HoldemView

    class Sampled(HoldemGame):
        @property
        def build(self) -> BuildPlan:
            return BuildPlan(("hulhe", "--game", "holdem-mini", "--buckets", "all", "--epochs",
                              "1", "--epoch-iterations", "1000", "--workers", "0",
                              "--algorithm", "cs", "--checkpoint", "none"))

    store = tmp_path / "s.sqlite"
    register_game("holdem-mini-sampled", lambda: Sampled(HOLDEM_MINI, "holdem-mini-sampled"),
                  HoldemView)
    try:
        assert main(["build", "--games", "holdem-mini-sampled", "--quiet", "--store",
                     str(store)]) == 0
    finally:
        unregister_game("holdem-mini-sampled")
    with StrategyStore.open(store) as opened:
        info = opened.latest_solve("holdem-mini")
        assert info is not None and info.iterations == 1000 and info.algorithm == "cs-cfr"
