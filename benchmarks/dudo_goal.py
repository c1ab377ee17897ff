"""Dudo to exploitability 1e-4: our solve (the game's `auto` schedule, with and without pruning)
against OpenSpiel's C++ CFR+, in CPU seconds, in one run.

    PYTHONPATH=. .venv/bin/python benchmarks/dudo_goal.py [--openspiel-iterations 1333]
        [--openspiel-sample 40] [--json]

OpenSpiel's full run to 1e-4 takes minutes of CPU and many exact checks of seconds each
(`benchmarks/vs_openspiel.py` does it); on a shared machine this script measures the part that
changes, its CPU seconds per iteration, over `--openspiel-sample` iterations, and multiplies by
the iterations its CFR+ needs to 1e-4 under vs_openspiel.py's check rule (1,333: CFR+ is
deterministic, so that count does not depend on the machine; a CFR+ iteration costs the same
at every iteration, one walk of the whole tree).  Ours is `solve` to 1e-4, its CPU seconds
from the solve's trace (the exact checks off the clock).  CPU time, not wall time: other load
on the machine stretches the wall clock, not the CPU seconds a run needs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver.algorithms.solve import resolve_algorithm, solve
from solver.games import get_game


def ours(pruning: bool) -> dict[str, object]:
    game = get_game("dudo")
    result = solve(game, resolve_algorithm(game, "auto"), target_exploitability=1e-4,
                   pruning=pruning)
    return {"pruning": pruning, "algorithm": result.algorithm,
            "iterations": result.iterations, "exploitability": result.exploitability,
            "cpu_seconds": result.trace[-1].cpu_seconds, "wall_seconds": result.seconds}


def openspiel_cpu_per_iteration(sample: int) -> float:
    import pyspiel  # lazily: optional (the bench extra)

    solver = pyspiel.CFRPlusSolver(pyspiel.load_game("liars_dice"))
    solver.evaluate_and_update_policy()  # first call builds the solver's tables
    started = time.process_time()
    for _ in range(sample):
        solver.evaluate_and_update_policy()
    return (time.process_time() - started) / sample


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspiel-iterations", type=int, default=1333)
    parser.add_argument("--openspiel-sample", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ours(True)  # JIT warm-up, off the clock
    plain, pruned = ours(False), ours(True)
    per_iteration = openspiel_cpu_per_iteration(args.openspiel_sample)
    theirs = per_iteration * args.openspiel_iterations
    report = {
        "ours_plain": plain, "ours_pruned": pruned,
        "openspiel_cpu_seconds_per_iteration": per_iteration,
        "openspiel_iterations_to_1e-4": args.openspiel_iterations,
        "openspiel_cpu_seconds_to_1e-4": theirs,
        "ratio_plain": theirs / float(plain["cpu_seconds"]),  # type: ignore[arg-type]
        "ratio_pruned": theirs / float(pruned["cpu_seconds"]),  # type: ignore[arg-type]
        "load_average": os.getloadavg(),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
