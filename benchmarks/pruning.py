"""The same CFR schedule with and without pruning (`solver.engine.pruning`), in one run.

    .venv/bin/python -m benchmarks.pruning [--games leduc,dudo,dudo-1v2,dudo-2v1]
        [--algorithm auto] [--target 1e-4] [--json] [--save-json PATH]

For each game: `solver.algorithms.solve.solve` to the target (its checkpoints: every iteration
up to 10, then about 4% apart, each an exact best response, off the clock), once without pruning
and once with, and the iterations, solver wall seconds and CPU seconds (every thread) each took.
Pruning keeps the iterates (up to rounding), so the ratio is the speed of an iteration.  The two
runs are interleaved by game, so a change in the machine's load between them moves the ratio:
the CPU-time ratio is the steadier one on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from solver.algorithms.solve import resolve_algorithm, solve
from solver.engine.compile import compile_game
from solver.games import get_game


def run(game_name: str, algorithm: str, target: float, pruning: bool) -> dict[str, object]:
    game = get_game(game_name)
    started = time.perf_counter()
    result = solve(game, algorithm, target_exploitability=target, pruning=pruning)
    last = result.trace[-1]
    return {"pruning": pruning, "iterations": result.iterations,
            "seconds": round(result.seconds, 3), "cpu_seconds": round(last.cpu_seconds, 3),
            "exploitability": result.exploitability, "value": result.value,
            "wall_with_checks": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="leduc,dudo,dudo-1v2,dudo-2v1")
    parser.add_argument("--algorithm", default="auto",
                        help="auto (what each game declares) or cfr, cfr+, lcfr, dcfr")
    parser.add_argument("--target", type=float, default=1e-4)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save-json", metavar="PATH")
    args = parser.parse_args(argv)
    rows = []
    for name in [g.strip() for g in args.games.split(",") if g.strip()]:
        algorithm = resolve_algorithm(get_game(name), args.algorithm)
        compile_game(get_game(name))  # into the disk cache, off both clocks
        runs = [run(name, algorithm, args.target, pruning) for pruning in (False, True)]
        plain, pruned = runs
        row = {"game": name, "algorithm": algorithm, "runs": runs,
               "wall_ratio": round(float(plain["seconds"]) / float(pruned["seconds"]), 2),
               "cpu_ratio": round(float(plain["cpu_seconds"]) / float(pruned["cpu_seconds"]), 2),
               "load_average": [round(x, 2) for x in os.getloadavg()]}
        rows.append(row)
        print(f"{name} ({algorithm}): " + "; ".join(
            f"{'pruned' if r['pruning'] else 'plain'} {r['iterations']} it, {r['seconds']} s, "
            f"CPU {r['cpu_seconds']} s, exploitability {float(r['exploitability']):.2e}"
            for r in runs) + f"; plain / pruned: wall {row['wall_ratio']}x, CPU "
            f"{row['cpu_ratio']}x (load {row['load_average']})", file=sys.stderr, flush=True)
    text = json.dumps({"target": args.target, "games": rows}, indent=2)
    if args.save_json:
        Path(args.save_json).write_text(text + "\n")
    if args.json:
        print(text)


if __name__ == "__main__":
    main()
