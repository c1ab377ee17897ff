"""The OOS bot's exploitability per thinking budget, measured exactly, beside offline MCCFR
given the same computation.

    .venv/bin/python -m experiments.oos [--games kuhn,leduc]
        [--budgets 0.01,0.1,1] [--seed 0] [--json] [--save-json PATH]

A budget is CPU seconds of search per decision, turned into iterations at the rate this
machine ran OOS on the game (measured first, in CPU time, so other load on a shared machine
moves the rate but not the strategy: the searches are seeded and run a fixed number of
iterations).  For each budget, `solver.algorithms.oos.OOSSearch.assembled` runs one fresh
search per information set of the game, targeted at it, and the strategies it ends with,
side by side, are judged by exact best response.  Offline outcome- and external-sampling MCCFR
(`solver.algorithms.mccfr`) get the same budget once, for the whole game, measured the same
way (their iterations per CPU second measured first).  OpenSpiel 2.0.2's C++ OOS has no Python
binding, so it is not run here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.mccfr import MCCFRSolver
from solver.algorithms.oos import OOSSearch
from solver.games import get_game


def rate(run: object, iterations: int) -> float:
    """Iterations per CPU second of `run(iterations)` (after a warm-up call)."""
    assert callable(run)
    run(10)
    started = time.process_time()
    run(iterations)
    return iterations / max(time.process_time() - started, 1e-9)


def bench(name: str, budgets: list[float], seed: int) -> dict[str, object]:
    game = get_game(name)
    search = OOSSearch(game)
    oos_rate = rate(lambda n: search.search(0, n, seed), 200_000)
    rows = []
    for budget in budgets:
        iterations = max(1, round(oos_rate * budget))
        started = time.process_time()
        strategy = search.assembled(iterations, seed)
        cpu = time.process_time() - started
        row: dict[str, object] = {
            "budget_seconds": budget, "oos_iterations": iterations,
            "oos_exploitability": evaluate_strategy(search.tree, strategy).exploitability,
            "oos_cpu_seconds_all_infosets": round(cpu, 1)}
        for algorithm in ("os-mccfr", "es-mccfr"):
            offline = MCCFRSolver(game, algorithm, seed=seed)
            timing = MCCFRSolver(game, algorithm, seed=seed + 1)
            per_second = rate(timing.iterate, 20_000)
            offline.iterate(max(1, round(per_second * budget)))
            row[f"{algorithm}_iterations"] = offline.iterations
            row[f"{algorithm}_exploitability"] = evaluate_strategy(
                offline.tree, offline.average_strategy()).exploitability
        rows.append(row)
        print(f"{name} budget {budget:g} s: OOS {iterations:,} iterations per decision, "
              f"exploitability {row['oos_exploitability']:.4f}; offline OS-MCCFR "
              f"{row['os-mccfr_exploitability']:.4f}, ES-MCCFR "
              f"{row['es-mccfr_exploitability']:.4f}", file=sys.stderr, flush=True)
    return {"game": name, "infosets": search.tree.num_infosets,
            "oos_iterations_per_cpu_second": round(oos_rate), "rows": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn,leduc")
    parser.add_argument("--budgets", default="0.01,0.1,1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save-json", metavar="PATH")
    args = parser.parse_args(argv)
    budgets = [float(b) for b in args.budgets.split(",")]
    results = [bench(g.strip(), budgets, args.seed) for g in args.games.split(",") if g.strip()]
    text = json.dumps({"games": results}, indent=2)
    if args.save_json:
        Path(args.save_json).write_text(text + "\n")
    if args.json:
        print(text)


if __name__ == "__main__":
    main()
