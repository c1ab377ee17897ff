"""The DeepStack bot as an opponent in the lobby's no-limit Leduc: its value network built (the
situations solved on Dask, the network trained), then its whole strategy in the lobby's game
(every size, counted in antes) assembled re-solve by re-solve and stored, judged exactly.

The bot's strategy at a public state is a function of the hand's public history alone
(`solver.deepstack.assembly`), so every one of its decisions can be re-solved at build time, as
it would be at the table, and stored like any other opponent's: nobody waits on a re-solve, and
the coach judges a player against the exact best reply to it (`solver.runs.opponents`).  The
network's pot input is the chips in over the stack and its outputs values per chip in, so the
network of DeepStack-Leduc's game (ante 100, stacks of 1,200) serves the lobby's (ante 1,
stacks of 12) as it is.

    python -m solver deepstack [--situations 30000] [--hidden 128,128,128] [--iterations 500]
        [--store S] [--scheduler tcp://HOST:8786]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from solver.algorithms.exploitability import evaluate_strategy
from solver.cards.cache import cache_dir
from solver.deepstack.assembly import assemble, judge_profile
from solver.deepstack.lookahead import whole_game
from solver.deepstack.value_build import build
from solver.deepstack.value_net import ValueNet
from solver.engine.compile import compile_game
from solver.engine.progress import phase
from solver.games import get_game
from solver.games.holdem.game import HoldemGame
from solver.games.opponents import DEEPSTACK
from solver.runs.opponents import opponent_rows
from solver.runs.store_solve import SolveRecord, StorePath, node_rows, store_solve
from strategies import SolveInfo

__all__ = ["FIGURES", "GAME_NAME", "command", "default_data", "store_opponent"]

GAME_NAME = "nolimit-leduc"
FIGURES = "deepstack"
"""The figures stored with the opponent: its network's and its re-solves'."""
SITUATION_ITERATIONS = 500
"""CFR+ iterations a training situation is solved with."""
HELD_OUT = 2000
"""Situations the network's error is measured on."""


def store_opponent(net: ValueNet, network: Mapping[str, Any], iterations: int,
                   store_path: StorePath = None) -> SolveInfo:
    """Assemble the bot (`iterations` of CFR+ a re-solve) in the lobby's game, judge it and
    store it as the opponent `DEEPSTACK.name`, with its network's figures (`network`)."""
    game = get_game(GAME_NAME)
    if not isinstance(game, HoldemGame):
        raise ValueError(f"{GAME_NAME} is not a game of the hold'em family")
    tree = compile_game(game)
    rules = game.definition
    whole = whole_game(rules).arrays
    if not (np.array_equal(tree.arrays.kind, whole.kind)
            and np.array_equal(tree.arrays.regret_offset, whole.regret_offset)):
        raise ValueError(f"the compiled {GAME_NAME} is not laid out as its subgame from the deal")
    started = time.perf_counter()
    seats = [assemble(p, net, iterations, "resolve", rules) for p in (0, 1)]
    seconds = time.perf_counter() - started
    profile = judge_profile(seats[0].strategy, seats[1].strategy, rules)
    rows, seat_values = opponent_rows(tree, profile)
    evaluation = evaluate_strategy(tree, profile)
    took = np.concatenate([s.seconds for s in seats])
    figures = {"network": dict(network), "iterations": iterations, "resolves": len(took),
               "resolve_ms_p50": round(1000 * float(np.percentile(took, 50)), 2),
               "resolve_ms_p95": round(1000 * float(np.percentile(took, 95)), 2)}
    info, _ = store_solve(SolveRecord(
        game=GAME_NAME, algorithm=DEEPSTACK.name, iterations=iterations, seconds=seconds,
        exploitability=evaluation.exploitability, value=evaluation.value, strategy=rows,
        nodes=node_rows(tree), opponent=DEEPSTACK.name, best_reply=seat_values,
        figures={FIGURES: figures}), store_path)
    return info


def default_data(situations: int, hidden: tuple[int, ...]) -> Path:
    """Where the network's situations and weights are kept between builds (the solver's
    cache: a build cut short resumes from its solved chunks)."""
    return cache_dir() / "deepstack" / f"n{situations}-h{'x'.join(map(str, hidden))}"


def command(args: argparse.Namespace) -> int:
    """``python -m solver deepstack`` once its plan has started (`solver.cli`): the network
    built (resumed if its data is there), then the opponent stored."""
    hidden = tuple(int(h) for h in args.hidden.split(","))
    data = Path(args.data) if args.data else default_data(args.situations, hidden)
    phase("starting the workers")
    built = build(data, args.situations, SITUATION_ITERATIONS, hidden, held_out=HELD_OUT,
                  scheduler=args.scheduler, workers=args.workers, report=not args.quiet,
                  on_solving=lambda: phase("solving situations"),
                  before_training=lambda: phase("training the network"))
    phase("re-solving every decision")
    info = store_opponent(ValueNet.load(data / "net.npz"), asdict(built), args.iterations,
                          args.store)
    if not args.quiet:
        seats = info.best_reply or (float("nan"), float("nan"))
        print(f"{GAME_NAME} opponent {info.opponent}: solve {info.id}, network held-out error "
              f"{built.error:.4f} a chip in, exploitability {info.exploitability:.4g} antes a "
              f"hand (a best reply wins {seats[0]:+.4g} in seat 0, {seats[1]:+.4g} in seat 1)")
    return 0
