"""Discounted CFR's exponents on several games: iterations to a ladder of exploitability
targets for each (alpha, gamma), beta = 0, without pruning, checked about 1% apart.

    .venv/bin/python -m experiments.dcfr_params [--games kuhn,leduc,dudo,dudo-calzo]
        [--cap 5000]

Why `auto` keeps the published (1.5, 0, 2): another pair wins on one game at one target
(Dudo to 1e-4 with alpha = 2) and loses elsewhere (docs/performance.md, *What we tried*).
"""

from __future__ import annotations

import argparse
import dataclasses

from solver.algorithms import cfr
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.compile import compile_game
from solver.games import get_game

TARGETS = (1e-3, 3e-4, 1e-4, 5e-5, 2e-5)
PAIRS = ((1.5, 2.0), (2.0, 2.0), (1.5, 3.0), (2.0, 3.0), (3.0, 2.0))


def ladder(game: str, alpha: float, gamma: float, cap: int) -> list[int | None]:
    """The first check at or below each of `TARGETS` (None: not within `cap` iterations)."""
    tree = compile_game(get_game(game))
    published = cfr.SCHEDULES["dcfr"]
    cfr.SCHEDULES["dcfr"] = dataclasses.replace(published, alpha=alpha, gamma=gamma)
    try:
        solver = cfr.CFRSolver(tree, "dcfr")
    finally:
        cfr.SCHEDULES["dcfr"] = published
    hit: dict[float, int] = {}
    pending = list(TARGETS)
    while pending and solver.iterations < cap:
        solver.iterate(max(1, solver.iterations // 100))
        found = evaluate_strategy(tree, solver.average_strategy()).exploitability
        while pending and found <= pending[0]:
            hit[pending.pop(0)] = solver.iterations
    return [hit.get(t) for t in TARGETS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn,leduc,dudo,dudo-calzo")
    parser.add_argument("--cap", type=int, default=5000)
    args = parser.parse_args()
    print("targets:", ", ".join(f"{t:g}" for t in TARGETS))
    for game in args.games.split(","):
        for alpha, gamma in PAIRS:
            print(f"{game:12s} alpha={alpha} gamma={gamma}: {ladder(game, alpha, gamma, args.cap)}",
                  flush=True)


if __name__ == "__main__":
    main()
