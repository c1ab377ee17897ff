"""Our full-width CFR against OpenSpiel's C++ CFR+, measured in one process, one run.

    .venv/bin/python -m benchmarks.vs_openspiel [--games leduc,dudo]
        [--algorithm dcfr|cfr|cfr+|lcfr|pcfr+|all] [--max-seconds 400] [--dense] [--json]
        [--save-json PATH]

For each game: iterations per second, solver time and iterations until the exploitability of the
average strategy is <= 1e-3 and <= 1e-4, one-off costs (our game compilation and numba JIT
warm-up; OpenSpiel's game load and solver construction), the time of one exact exploitability
evaluation, and the ratio OpenSpiel / ours.  See benchmarks/README.md for the rules.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path

OPENSPIEL_GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker", "dudo": "liars_dice"}
TARGETS = (1e-3, 1e-4)


@dataclass
class Reached:
    iterations: int  # first check at or below the target: an upper bound
    seconds: float  # solver time up to that iteration, checks excluded
    previous_check: int  # the check before it was above the target (0: none)
    cpu_seconds: float = math.nan  # the process's CPU time over the same iterations


@dataclass
class Run:
    """One solver on one game."""

    solver: str
    setup_seconds: float  # ours: compile_game(use_cache=False); OpenSpiel: load + construct
    warmup_seconds: float  # ours: first calls into the numba kernels; OpenSpiel: 0
    iterations: int = 0
    solver_seconds: float = 0.0
    solver_cpu_seconds: float = 0.0  # process CPU time over the same iterations
    final_exploitability: float = math.nan
    reached: dict[str, Reached | None] = field(default_factory=dict)
    capped: bool = False  # stopped by --max-seconds before the last target
    checks: int = 0
    check_seconds: list[float] = field(default_factory=list)  # each check's evaluation time
    eval_seconds: float = math.nan  # one exact exploitability evaluation of the final strategy
    value: float | None = None  # player 0's value under the final average (ours only)
    fastest: bool = False

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.solver_seconds if self.solver_seconds > 0 else math.nan

    @property
    def cpu_iterations_per_second(self) -> float:
        cpu = self.solver_cpu_seconds
        return self.iterations / cpu if cpu > 0 else math.nan

    def total_seconds(self, target: float) -> float | None:
        hit = self.reached.get(_key(target))
        if hit is None:
            return None
        return self.setup_seconds + self.warmup_seconds + hit.seconds


def _key(target: float) -> str:
    return f"{target:.0e}"


class CheckSchedule:
    """When to measure exploitability; the same rule for every solver.

    After iteration `it` the next check comes `max(1, it // fine)` iterations later (every
    iteration early on, then about every 2 %), unless the last measured exploitability is still
    more than `gate` times the next target, when the step is `max(1, it // coarse)`.  Reaching a
    target during a coarse step only loosens the reported upper bound, and the check before it
    is reported too, so the true crossing lies in (previous_check, iterations].
    """

    def __init__(self, fine: int, coarse: int, gate: float) -> None:
        self.fine, self.coarse, self.gate = fine, coarse, gate

    def step(self, iteration: int, last: float, target: float) -> int:
        near = last <= self.gate * target
        return max(1, iteration // (self.fine if near else self.coarse))


def drive(run: Run, iterate_once: Callable[[], None], exploitability: Callable[[], float],
          schedule: CheckSchedule, max_seconds: float, log: Callable[[str], None]) -> None:
    """Iterate until every target is met or `max_seconds` of solver time are spent.

    Only the iterations are timed; the exploitability checks are timed separately.
    """
    clock, cpu = time.perf_counter, time.process_time
    pending = list(TARGETS)
    run.reached = {_key(t): None for t in TARGETS}
    last, previous_check, next_check = math.inf, 0, 1
    while pending:
        start, cpu_start = clock(), cpu()
        while run.iterations < next_check:
            iterate_once()
            run.iterations += 1
            if run.solver_seconds + (clock() - start) >= max_seconds:
                break
        run.solver_seconds += clock() - start
        run.solver_cpu_seconds += cpu() - cpu_start
        check_start = clock()
        last = exploitability()
        run.check_seconds.append(clock() - check_start)
        run.checks += 1
        while pending and last <= pending[0]:
            target = pending.pop(0)
            run.reached[_key(target)] = Reached(run.iterations, run.solver_seconds,
                                                previous_check, run.solver_cpu_seconds)
            log(f"  {run.solver}: <= {target:.0e} at {run.iterations} it, "
                f"{run.solver_seconds:.3f} s")
        previous_check = run.iterations
        if pending and run.solver_seconds >= max_seconds:
            run.capped = True
            log(f"  {run.solver}: cap of {max_seconds:g} s reached at {run.iterations} it, "
                f"exploitability {last:.3e}")
            break
        if pending:
            next_check = run.iterations + schedule.step(run.iterations, last, pending[0])
    run.final_exploitability = last


def run_ours(name: str, algorithm: str, tree, setup: float, warmup: float,
             schedule: CheckSchedule, max_seconds: float,
             log: Callable[[str], None], pruning: bool = False
             ) -> tuple[Run, Callable[[], None]]:
    from solver.algorithms.cfr import CFRSolver
    from solver.algorithms.exploitability import evaluate_strategy

    run = Run(f"ours {algorithm}{' pruned' if pruning else ''}", setup, warmup)
    solver = CFRSolver(tree, algorithm, pruning=pruning)
    drive(run, lambda: solver.iterate(1),
          lambda: evaluate_strategy(tree, solver.average_strategy()).exploitability,
          schedule, max_seconds, log)
    strategy = solver.average_strategy()
    start = time.perf_counter()
    evaluation = evaluate_strategy(tree, strategy)
    run.eval_seconds = time.perf_counter() - start
    run.value = evaluation.value
    return run, lambda: solver.iterate(1)


def run_openspiel(name: str, schedule: CheckSchedule, max_seconds: float,
                  log: Callable[[str], None]) -> tuple[Run, Callable[[], None]]:
    import pyspiel

    start = time.perf_counter()
    game = pyspiel.load_game(OPENSPIEL_GAMES[name])
    solver = pyspiel.CFRPlusSolver(game)
    run = Run("OpenSpiel CFR+", time.perf_counter() - start, 0.0)
    drive(run, solver.evaluate_and_update_policy,
          lambda: pyspiel.exploitability(game, solver.average_policy()),
          schedule, max_seconds, log)
    policy = solver.average_policy()
    start = time.perf_counter()
    pyspiel.exploitability(game, policy)
    run.eval_seconds = time.perf_counter() - start
    return run, solver.evaluate_and_update_policy


def paired_ratio(ours: Callable[[], None], theirs: Callable[[], None], rounds: int,
                 seconds: float) -> dict | None:
    """Seconds per iteration, OpenSpiel / ours, measured in alternating short blocks.

    Each round times a block of ours then a block of OpenSpiel's (each at least `seconds` and
    3 iterations), so both see the same load; the solvers just carry on iterating (a full-width
    iteration costs the same at any iteration count).  Returns the median and range of the
    per-round ratios, or None for zero rounds.
    """
    if rounds <= 0:
        return None

    def per_iteration(step: Callable[[], None]) -> float:
        start, n = time.perf_counter(), 0
        while n < 3 or time.perf_counter() - start < seconds:
            step()
            n += 1
        return (time.perf_counter() - start) / n

    ratios = []
    for _ in range(rounds):
        ours_seconds = per_iteration(ours)
        ratios.append(per_iteration(theirs) / ours_seconds)
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios),
            "rounds": rounds, "block_seconds": seconds}


def bench_game(name: str, algorithms: list[str], schedule: CheckSchedule, max_seconds: float,
               paired_rounds: int, log: Callable[[str], None], pruning: bool = False) -> dict:
    from solver.algorithms.cfr import CFRSolver
    from solver.algorithms.exploitability import evaluate_strategy
    from solver.engine.compile import compile_game
    from solver.games import get_game

    game = get_game(name)
    log(f"{name}: compiling (no disk cache)")
    start = time.perf_counter()
    tree = compile_game(game, use_cache=False)
    compile_seconds = time.perf_counter() - start
    # Warm-up: the first call of every kernel in this process (numba compiles on first call).
    start = time.perf_counter()
    for algorithm in algorithms:
        CFRSolver(tree, algorithm).iterate(2)
        if pruning:
            CFRSolver(tree, algorithm, pruning=True).iterate(2)
    evaluate_strategy(tree, CFRSolver(tree, algorithms[0]).average_strategy())
    warmup_seconds = time.perf_counter() - start
    log(f"{name}: compile {compile_seconds:.2f} s, warm-up {warmup_seconds:.2f} s")

    runs = [run_ours(name, a, tree, compile_seconds, warmup_seconds, schedule, max_seconds, log,
                     prune) for a in algorithms for prune in ((False, True) if pruning else
                                                              (False,))]
    ours = [run for run, _ in runs]
    best_index = min(range(len(ours)), key=lambda i: _speed_key(ours[i]))
    best = ours[best_index]
    best.fastest = len(ours) > 1
    log(f"{name}: OpenSpiel CFR+")
    theirs, their_step = run_openspiel(name, schedule, max_seconds, log)
    log(f"{name}: interleaved per-iteration timing, {paired_rounds} rounds")
    paired = paired_ratio(runs[best_index][1], their_step, paired_rounds, 1.0)
    ratios = _ratios(theirs, best)
    ratios["per_iteration_time_interleaved"] = paired
    return {
        "game": name,
        "openspiel_game": OPENSPIEL_GAMES[name],
        "infosets": tree.num_infosets,
        "public_nodes": tree.num_nodes,
        "ours": [_run_dict(r) for r in ours],
        "openspiel": _run_dict(theirs),
        "ratios": ratios,
        "_runs": (ours, theirs, best),
    }


def _speed_key(run: Run) -> tuple:
    """Sort key: reached the smallest target soonest, then the next, then lowest final value."""
    key: list[float] = []
    for target in sorted(TARGETS):
        hit = run.reached.get(_key(target))
        key.append(hit.seconds if hit else math.inf)
    return (*key, run.final_exploitability)


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0 or math.isnan(a) or math.isnan(b):
        return None
    return a / b


def _ratios(theirs: Run, ours: Run) -> dict:
    """OpenSpiel / ours: above 1 means ours is faster (or needs fewer iterations)."""
    out: dict[str, float | None] = {
        "per_iteration_time": _ratio(ours.iterations_per_second, theirs.iterations_per_second),
        "per_iteration_cpu_time": _ratio(ours.cpu_iterations_per_second,
                                         theirs.cpu_iterations_per_second),
        "exact_evaluation_time": _ratio(theirs.eval_seconds, ours.eval_seconds),
        "setup_time": _ratio(theirs.setup_seconds, ours.setup_seconds + ours.warmup_seconds),
    }
    for target in TARGETS:
        k = _key(target)
        a, b = theirs.reached[k], ours.reached[k]
        out[f"iterations_to_{k}"] = _ratio(a and a.iterations, b and b.iterations)
        out[f"solver_time_to_{k}"] = _ratio(a and a.seconds, b and b.seconds)
        out[f"total_time_incl_setup_to_{k}"] = _ratio(theirs.total_seconds(target),
                                                      ours.total_seconds(target))
    return out


def _run_dict(run: Run) -> dict:
    out = asdict(run)
    check_seconds = out.pop("check_seconds")
    out["median_check_seconds"] = statistics.median(check_seconds) if check_seconds else None
    out["iterations_per_second"] = run.iterations_per_second
    out["cpu_iterations_per_second"] = run.cpu_iterations_per_second
    out["total_seconds_incl_setup"] = {_key(t): run.total_seconds(t) for t in TARGETS}
    return out


def machine_info(args: argparse.Namespace) -> dict:
    import numba
    import numpy

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "cpus_available": affinity,
        "numba_threads": numba.get_num_threads(),
        "numba_num_threads_config": numba.config.NUMBA_NUM_THREADS,
        "numba_disk_cache": "project's" if args.numba_disk_cache else "off (fresh, cold JIT)",
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "versions": {"numpy": numpy.__version__, "numba": numba.__version__,
                     "open-spiel": metadata.version("open-spiel")},
        "max_seconds": args.max_seconds,
        "checks": (f"every iteration, then every max(1, it//{args.fine})"
                   + ("" if args.dense else
                      f"; every max(1, it//{args.coarse}) while exploitability > "
                      f"{args.gate:g} x next target")),
    }


# ----------------------------------------------------------------------------- text output


def _num(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "-"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _secs(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "-"
    if x < 0.01:
        return f"{x * 1000:.2f} ms"
    return f"{x:.2f} s" if x < 100 else f"{x:.1f} s"


def _reached(hit: Reached | None) -> tuple[str, str]:
    if hit is None:
        return "not reached", "-"
    bracket = f" (>{hit.previous_check})" if hit.previous_check else ""
    return f"{hit.iterations:,}{bracket}", _secs(hit.seconds)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                          strict=True)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def print_text(info: dict, results: list[dict]) -> None:
    print("Machine")
    for k, v in info.items():
        print(f"  {k:28s} {v}")
    print()
    for result in results:
        ours, theirs, best = result["_runs"]
        print(f"== {result['game']} (OpenSpiel {result['openspiel_game']}): "
              f"{result['infosets']:,} information sets, {result['public_nodes']:,} public nodes")
        header = ["solver", "setup", "JIT warm-up", "it/s", "CPU it/s"]
        for t in TARGETS:
            header += [f"it to {t:.0e}", f"time to {t:.0e}"]
        header += [f"total to {TARGETS[-1]:.0e} incl. setup+JIT", "exact eval", "final expl."]
        rows = [header]
        for run in [*ours, theirs]:
            name = run.solver + (" *" if run.fastest else "")
            row = [name, _secs(run.setup_seconds),
                   _secs(run.warmup_seconds) if run is not theirs else "-",
                   _num(run.iterations_per_second), _num(run.cpu_iterations_per_second)]
            for t in TARGETS:
                row += list(_reached(run.reached[_key(t)]))
            row += [_secs(run.total_seconds(TARGETS[-1])) if run.reached[_key(TARGETS[-1])]
                    else "not reached", _secs(run.eval_seconds),
                    f"{run.final_exploitability:.2e} @{run.iterations:,}"]
            rows.append(row)
        r = result["ratios"]
        ratio_row = ["OpenSpiel / ours", _x(r["setup_time"]), "",
                     _x(r["per_iteration_time"]) + " per it",
                     _x(r["per_iteration_cpu_time"]) + " per it"]
        for t in TARGETS:
            k = _key(t)
            ratio_row += [_x(r[f"iterations_to_{k}"]), _x(r[f"solver_time_to_{k}"])]
        ratio_row += [_x(r[f"total_time_incl_setup_to_{_key(TARGETS[-1])}"]),
                      _x(r["exact_evaluation_time"]), ""]
        rows.append(ratio_row)
        print(_table(rows))
        if best.fastest:
            print(f"  * fastest of ours; ratios use {best.solver}")
        for run in [*ours, theirs]:
            for t in TARGETS:
                if run.reached[_key(t)] is None:
                    print(f"  {run.solver}: {t:.0e} not reached within {run.solver_seconds:.1f} s"
                          f" of solver time, exploitability {run.final_exploitability:.3e} at "
                          f"{run.iterations:,} iterations (nothing extrapolated)")
        paired = r["per_iteration_time_interleaved"]
        if paired:
            print(f"  time per iteration, OpenSpiel / {best.solver}, interleaved "
                  f"{paired['rounds']} x 1 s blocks each: median {_x(paired['median'])} "
                  f"(range {_x(paired['min'])} to {_x(paired['max'])})")
        if ours[0].value is not None:
            print(f"  value of player 0 under {best.solver}'s average: {best.value:+.9f}")
        print(f"  checks: ours {best.checks} (median {_secs(_median(best))} each), OpenSpiel "
              f"{theirs.checks} (median {_secs(_median(theirs))} each), not in solver time")
        print()
    print("Iteration counts are the first check at or below the target (an upper bound); "
          "'(>N)' is the check before, above it.")
    print("Times are solver time only (exploitability checks excluded). Setup = our "
          "compile_game(use_cache=False) / OpenSpiel load_game + CFRPlusSolver(game).")
    print("Ratios are OpenSpiel / ours (above 1: ours faster); 'per it' compares time per "
          "iteration. The runs happen one after the other, so other load on the machine can "
          "differ between them: the interleaved figure is the fairer per-iteration ratio.")


def _median(run: Run) -> float | None:
    return statistics.median(run.check_seconds) if run.check_seconds else None


def _x(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}x" if x >= 100 else f"{x:.3g}x"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="leduc,dudo",
                        help="comma-separated, from: " + ",".join(OPENSPIEL_GAMES))
    parser.add_argument("--algorithm", default="dcfr",
                        help="our schedule: cfr, cfr+, lcfr, dcfr, pcfr+, or 'all'")
    parser.add_argument("--max-seconds", type=float, default=400.0,
                        help="cap on solver time per solver per game (checks excluded)")
    parser.add_argument("--fine", type=int, default=50,
                        help="near a target, check every max(1, it // FINE) iterations")
    parser.add_argument("--coarse", type=int, default=4,
                        help="far from a target, check every max(1, it // COARSE) iterations")
    parser.add_argument("--gate", type=float, default=3.0,
                        help="'far' means exploitability above GATE x the next target")
    parser.add_argument("--dense", action="store_true",
                        help="always check every max(1, it // FINE) iterations (slow for "
                             "OpenSpiel on dudo: each check is seconds)")
    parser.add_argument("--paired-rounds", type=int, default=5,
                        help="rounds of interleaved 1 s blocks timing one solver then the other "
                             "(a per-iteration ratio robust to changing load); 0 to skip")
    parser.add_argument("--numba-disk-cache", action="store_true",
                        help="let numba load kernels compiled by earlier runs (default: a fresh "
                             "cache directory, so the warm-up includes the real JIT compile)")
    parser.add_argument("--pruning", action="store_true",
                        help="also run each of our schedules with pruning "
                             "(solver.engine.pruning); the fastest run gives the ratios")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--save-json", metavar="PATH",
                        help="also write the JSON to PATH (whatever is printed)")
    args = parser.parse_args(argv)

    games = list(dict.fromkeys(g.strip() for g in args.games.split(",") if g.strip()))
    unknown = [g for g in games if g not in OPENSPIEL_GAMES]
    if unknown or not games:
        parser.error(f"unknown games {unknown}; known: {', '.join(OPENSPIEL_GAMES)}")

    cache_dir = None
    if not args.numba_disk_cache:  # must be set before numba is imported
        cache_dir = tempfile.mkdtemp(prefix="numba-cold-")
        os.environ["NUMBA_CACHE_DIR"] = cache_dir
    try:
        from solver.algorithms.cfr import SCHEDULES

        algorithms = list(SCHEDULES) if args.algorithm == "all" else [args.algorithm]
        if any(a not in SCHEDULES for a in algorithms):
            parser.error(f"unknown algorithm {args.algorithm!r}; known: "
                         f"{', '.join(SCHEDULES)}, all")
        info = machine_info(args)
        schedule = CheckSchedule(args.fine, args.coarse, math.inf if args.dense else args.gate)

        def log(message: str) -> None:
            print(message, file=sys.stderr, flush=True)

        results = [bench_game(g, algorithms, schedule, args.max_seconds, args.paired_rounds, log,
                              args.pruning) for g in games]
        info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        if cache_dir is not None:
            shutil.rmtree(cache_dir, ignore_errors=True)

    clean = [{k: v for k, v in r.items() if not k.startswith("_")} for r in results]
    text = json.dumps({"machine": info, "targets": list(TARGETS), "games": clean}, indent=2)
    if args.save_json:
        Path(args.save_json).write_text(text + "\n")
    if args.json:
        print(text)
    else:
        print_text(info, results)


if __name__ == "__main__":
    main()
