"""Re-solving judged exactly: a small member's blueprint from an abstraction, every subgame
re-solved as the bot would, assembled into one strategy per seat and measured by exact best
response (the table of Libratus's Table 1, on members whose real tree compiles).

``python -m solver.resolving.measure_exactly 'holdem-mini' --k 8`` prints the table:
blueprint alone, unsafe re-solving, and the two safe gadgets, each with the exploitability of
the whole profile in the real game (both seats re-solving) and the seconds the re-solves took.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.bucket_solve import AbstractSolver, abstract_game
from solver.abstractions.holdem.buckets import BucketSpec
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.tree import PublicTree
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.resolving.continual import assemble
from solver.resolving.resolve import MODES

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table: how the profile was made and what it is worth exactly (chips a
    hand, seat 0's value and the exploitability), the re-solves it took and their seconds, and
    the smallest safety margin seen (safe modes; NaN otherwise)."""

    mode: str
    value: float
    exploitability: float
    resolves: int
    seconds: float
    smallest_margin: float


def blueprint(game: str, spec: BucketSpec, iterations: int,
              algorithm: str = "dcfr") -> tuple[PublicTree, FloatArray]:
    """The member's tree and the real-game strategy of its abstract solve (`spec`)."""
    abstract = abstract_game(get_game(game), spec)
    solver = AbstractSolver(abstract, algorithm)
    solver.iterate(iterations)
    return abstract.tree, abstract.real_strategy(solver.average_strategy())


def resolved_profile(tree: PublicTree, strategy: FloatArray, mode: str, from_round: int,
                     iterations: int) -> tuple[FloatArray, int, float]:
    """Both seats re-solving (`solver.resolving.continual.assemble`) from `strategy`: the
    profile, the re-solves and the smallest margin."""
    out = np.array(strategy, np.float64)
    per_entry = np.repeat(tree.infoset_player, np.diff(tree.infoset_regret_offset))
    resolves, smallest = 0, np.inf
    for seat in (0, 1):
        made = assemble(tree.arrays, strategy, seat, mode=mode, from_round=from_round,
                        iterations=iterations)
        out[per_entry == seat] = made.strategy[per_entry == seat]
        resolves += made.resolves
        smallest = min(smallest, made.smallest_margin)
    return out, resolves, float(smallest)


def table(tree: PublicTree, strategy: FloatArray, from_round: int, iterations: int,
          modes: Sequence[str] = MODES) -> list[Row]:
    """The blueprint's row, then one per re-solving mode."""
    evaluation = evaluate_strategy(tree, strategy)
    rows = [Row("blueprint", evaluation.value, evaluation.exploitability, 0, 0.0, np.nan)]
    for mode in modes:
        started = time.perf_counter()
        profile, resolves, smallest = resolved_profile(tree, strategy, mode, from_round,
                                                       iterations)
        seconds = time.perf_counter() - started
        evaluation = evaluate_strategy(tree, profile)
        rows.append(Row(mode, evaluation.value, evaluation.exploitability, resolves, seconds,
                        smallest if mode != "unsafe" else np.nan))
    return rows


def add_resolving_options(parser: argparse.ArgumentParser) -> None:
    """How the bot re-solves: ``--iterations``, ``--from-round`` (1-based), ``--modes``."""
    parser.add_argument("--iterations", type=int, default=1000, help="CFR+ iterations a re-solve")
    parser.add_argument("--from-round", type=int, default=2,
                        help="the first round (1-based) the bot re-solves in (default 2)")
    parser.add_argument("--modes", default=",".join(MODES),
                        help=f"comma-separated re-solving modes (default {','.join(MODES)})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m solver.resolving.measure_exactly",
        description="a small member's blueprint, re-solved unsafely and safely, judged exactly")
    parser.add_argument("game", help="a member whose whole tree compiles (holdem-mini, ...)")
    parser.add_argument("--k", type=int, default=8, help="E[HS²] buckets a round (imperfect "
                        "recall) of the blueprint's abstraction")
    parser.add_argument("--blueprint-iterations", type=int, default=1000)
    add_resolving_options(parser)
    args = parser.parse_args(argv)
    game = get_game(args.game)
    if not isinstance(game, HoldemGame):
        parser.error(f"{args.game} is not a member of the hold'em family")
    rounds = game.definition.num_rounds
    spec = BucketSpec((args.k,) * (rounds - 1), "imperfect")
    started = time.perf_counter()
    if not 2 <= args.from_round <= rounds:
        parser.error(f"{args.game} has rounds 1 to {rounds}: re-solving starts in 2 to {rounds}")
    tree, strategy = blueprint(args.game, spec, args.blueprint_iterations)
    print(f"{args.game}: blueprint {spec.descriptor}, {args.blueprint_iterations} DCFR "
          f"iterations ({time.perf_counter() - started:.1f} s); re-solving from round "
          f"{args.from_round}, {args.iterations} CFR+ iterations a re-solve", file=sys.stderr)
    print("| profile | value | exploitability | re-solves | seconds | smallest margin |")
    print("|---|---|---|---|---|---|")
    modes = tuple(m for m in args.modes.split(",") if m)
    for row in table(tree, strategy, args.from_round - 1, args.iterations, modes):
        print(f"| {row.mode} | {row.value:+.5f} | {row.exploitability:.5f} | {row.resolves:,} "
              f"| {row.seconds:.1f} | {row.smallest_margin:.1e} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
