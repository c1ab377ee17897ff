"""The hold'em family: holdem-mini solved by ours and by OpenSpiel's C++ CFR+ side by side, and
one exact best response on a member far bigger than OpenSpiel can evaluate.

    .venv/bin/python -m benchmarks.holdem [--algorithms dcfr,cfr+]
        [--max-seconds 3600] [--member 'holdem(numRanks=4,numSuits=4,numBoardCards=0 1 1)']
        [--skip-openspiel] [--json] [--save-json PATH]

Part 1, holdem-mini against ``pyspiel.CFRPlusSolver`` on the same universal_poker game, one
process, one run: the rules of `vs_openspiel.py` (solver time only, checks excluded, the same
check schedule for both, first check at or below a target, a cap on OpenSpiel's solver time and
nothing extrapolated), with one difference.  A ``pyspiel.exploitability`` of holdem-mini takes
about 25 s, so OpenSpiel's average policy is measured at each check by our exact evaluator:
its probabilities are read by information-state string (``Policy.action_probabilities``) into
our tree, which has the same information sets (the tests prove the bijection and that pyspiel
judges our exported strategies exactly as we do).  At the end ``pyspiel.exploitability`` is
run once on OpenSpiel's final policy and printed beside our figure for it.

Part 2 (run first, so that the peak memory printed is its compile's): a bigger member (default
16 cards, three rounds, HULHE's bets and caps: 9.9e9 histories, 13.9 M information sets): its
sizes, the compile time and memory, and the time of exact best responses to a fixed strategy,
one per player, and of a whole exploitability evaluation (two reach passes and two best
responses).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import sys
import time
from pathlib import Path

from benchmarks.vs_openspiel import (
    TARGETS,
    CheckSchedule,
    Run,
    _key,
    _ratio,
    _reached,
    _run_dict,
    _secs,
    _table,
    _x,
    drive,
    machine_info,
    paired_ratio,
)

MINI = "holdem-mini"
MEMBER = "holdem(numRanks=4,numSuits=4,numBoardCards=0 1 1)"


def _to_last_target(run: Run) -> float:
    hit = run.reached[_key(TARGETS[-1])]
    return hit.seconds if hit else math.inf


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def openspiel_strings(game) -> list[str]:
    """OpenSpiel's information-state string of each of our information sets, in tree order."""
    from solver.engine.compile import compile_game
    from solver.runs.export import decision_states

    tree = compile_game(game)
    by_key = {state.information_state_key(): game.openspiel.information_state_string(
        state, state.current_player()) for state in decision_states(game)}
    return [by_key[key] for key in tree.infoset_keys]


def bench_mini(algorithms: list[str], schedule: CheckSchedule, max_seconds: float,
               skip_openspiel: bool, paired_rounds: int) -> dict:
    from solver.algorithms.cfr import CFRSolver
    from solver.algorithms.exploitability import evaluate_strategy
    from solver.engine.compile import build
    from solver.games import get_game

    game = get_game(MINI)
    log(f"{MINI}: compiling from the rules (no disk cache)")
    start = time.perf_counter()
    tree = build(game)
    compile_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for algorithm in algorithms:
        CFRSolver(tree, algorithm).iterate(2)
    evaluate_strategy(tree, CFRSolver(tree, algorithms[0]).average_strategy())
    warmup_seconds = time.perf_counter() - start
    log(f"{MINI}: compile {compile_seconds:.2f} s, warm-up {warmup_seconds:.2f} s")

    def run_ours(label: str) -> tuple[list[Run], dict]:
        runs, steps = [], {}
        for algorithm in algorithms:
            run = Run(f"ours {algorithm}{label}", compile_seconds, warmup_seconds)
            solver = CFRSolver(tree, algorithm)
            drive(run, lambda s=solver: s.iterate(1),
                  lambda s=solver: evaluate_strategy(tree, s.average_strategy()).exploitability,
                  schedule, math.inf, log)
            start = time.perf_counter()
            evaluation = evaluate_strategy(tree, solver.average_strategy())
            run.eval_seconds = time.perf_counter() - start
            run.value = evaluation.value
            runs.append(run)
            steps[algorithm] = lambda s=solver: s.iterate(1)
        return runs, steps

    ours, steps = run_ours("")
    best_index = min(range(len(ours)), key=lambda i: _to_last_target(ours[i]))
    best = ours[best_index]
    best.fastest = len(ours) > 1
    result: dict = {"game": MINI, "openspiel_game": game.openspiel.game_string,
                    "infosets": tree.num_infosets, "public_nodes": tree.num_nodes,
                    "ours": [_run_dict(r) for r in ours], "best": best.solver}
    if skip_openspiel:
        return result | {"_runs": (ours, None, best)}

    import pyspiel

    log(f"{MINI}: OpenSpiel's information-state strings of our information sets")
    strings = openspiel_strings(game)
    offsets = tree.infoset_regret_offset

    def theirs_on_our_tree(policy) -> float:
        flat = [0.0] * tree.num_regrets
        for i, string in enumerate(strings):
            probabilities = policy.action_probabilities(string)
            for k, action in enumerate(tree.infoset_actions[i]):
                flat[offsets[i] + k] = probabilities.get(action, 0.0)
        import numpy as np

        return evaluate_strategy(tree, np.array(flat)).exploitability

    log(f"{MINI}: OpenSpiel CFR+ (cap {max_seconds:g} s of solver time)")
    start = time.perf_counter()
    theirs_game = pyspiel.load_game(game.openspiel.game_string)
    solver = pyspiel.CFRPlusSolver(theirs_game)
    theirs = Run("OpenSpiel CFR+", time.perf_counter() - start, 0.0)
    drive(theirs, solver.evaluate_and_update_policy,
          lambda: theirs_on_our_tree(solver.average_policy()), schedule, max_seconds, log)
    policy = solver.average_policy()
    ours_judge = theirs_on_our_tree(policy)
    log(f"{MINI}: pyspiel.exploitability of OpenSpiel's final policy")
    start = time.perf_counter()
    pyspiel_judge = pyspiel.exploitability(theirs_game, policy)
    theirs.eval_seconds = time.perf_counter() - start
    theirs.final_exploitability = pyspiel_judge
    log(f"{MINI}: ours again, after OpenSpiel")
    again, _ = run_ours(" (again)")
    log(f"{MINI}: interleaved per-iteration timing, {paired_rounds} rounds")
    algorithm = algorithms[best_index]
    paired = paired_ratio(steps[algorithm], solver.evaluate_and_update_policy, paired_rounds,
                          1.0)
    ratios: dict = {
        "per_iteration_time_interleaved": paired,
        "exact_evaluation_time": _ratio(theirs.eval_seconds, best.eval_seconds),
    }
    for when, mine_run in (("before", best), ("after", again[best_index])):
        ratios[f"per_iteration_time_{when}"] = _ratio(mine_run.iterations_per_second,
                                                     theirs.iterations_per_second)
        for target in TARGETS:
            k = _key(target)
            mine, their = mine_run.reached[k], theirs.reached[k]
            if mine is None:
                continue
            # Not reached within the cap: the cap over our time is a lower bound, said so.
            their_wall = their.seconds if their else theirs.solver_seconds
            their_cpu = their.cpu_seconds if their else theirs.solver_cpu_seconds
            ratios[f"{when}_{k}"] = {
                "openspiel_reached": their is not None,
                "wall": _ratio(their_wall, mine.seconds),
                "cpu": _ratio(their_cpu, mine.cpu_seconds),
                "iterations": _ratio(their and their.iterations, mine.iterations),
            }
    return result | {"openspiel": _run_dict(theirs), "ours_after": [_run_dict(r) for r in again],
                     "ratios": ratios,
                     "openspiel_final": {"ours_judge": ours_judge, "pyspiel": pyspiel_judge},
                     "_runs": (ours + again, theirs, best)}


def bench_member(spec: str, repeats: int) -> dict:
    import numpy as np

    from solver.engine import kernels
    from solver.engine.node_kinds import DECISION_NODE
    from solver.games import get_game

    game = get_game(spec)
    sizes = game.sizes()  # type: ignore[attr-defined]
    log(f"{game.name}: {sizes}")
    start = time.perf_counter()
    arrays = game.engine.arrays()  # type: ignore[attr-defined]
    compile_seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # the process's, so far
    log(f"{game.name}: compiled in {compile_seconds:.1f} s, peak memory {peak:.1f} GB")
    decision = arrays.kind == DECISION_NODE
    nodes = np.arange(len(arrays.kind))
    regrets = int((arrays.num_actions * arrays.slot_count[np.maximum(arrays.actor, 0), nodes]
                   )[decision].sum())
    strategy = np.zeros(regrets)
    rng = np.random.default_rng(0)
    kernels.current_strategy(arrays, rng.random(regrets) - 0.5, strategy)  # a fixed mix
    slots = [int(arrays.slot_count[p].sum()) for p in (0, 1)]
    reach = [np.zeros(slots[0]), np.zeros(slots[1])]
    values = [np.zeros(slots[0]), np.zeros(slots[1])]
    action_values = np.zeros(regrets)
    for p in (0, 1):  # warm-up: numba's first calls
        kernels.reach_probabilities(arrays, p, strategy, reach[p])
    kernels.best_response(arrays, 0, reach[1], values[0], action_values)
    best_response: list[float] = []
    evaluation: list[float] = []
    responses: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        for p in (0, 1):
            kernels.reach_probabilities(arrays, p, strategy, reach[p])
        responses = []
        for p in (0, 1):
            one = time.perf_counter()
            responses.append(float(kernels.best_response(arrays, p, reach[1 - p], values[p],
                                                         action_values)))
            best_response.append(time.perf_counter() - one)
        evaluation.append(time.perf_counter() - start)
    log(f"{game.name}: best response {statistics.median(best_response):.3f} s, whole "
        f"evaluation {statistics.median(evaluation):.3f} s")
    return {"game": game.name, "sizes": sizes, "compile_seconds": compile_seconds,
            "peak_memory_gb": peak, "slots_per_player": slots,
            "best_response_seconds": {"median": statistics.median(best_response),
                                      "min": min(best_response), "count": len(best_response)},
            "evaluation_seconds": {"median": statistics.median(evaluation),
                                   "min": min(evaluation), "count": len(evaluation)},
            "best_response_values": responses,
            "nash_conv_of_the_fixed_strategy": sum(responses)}


def print_text(info: dict, mini: dict, member: dict | None) -> None:
    print("Machine")
    for k, v in info.items():
        print(f"  {k:28s} {v}")
    print()
    ours, theirs, best = mini["_runs"]
    print(f"== {MINI} ({mini['infosets']:,} information sets, {mini['public_nodes']:,} public "
          f"nodes), OpenSpiel: {mini['openspiel_game']}")
    header = ["solver", "setup", "JIT warm-up", "it/s", "CPU it/s"]
    for t in TARGETS:
        header += [f"it to {t:.0e}", f"time to {t:.0e}", "CPU"]
    header += ["exact eval", "final expl."]
    rows = [header]
    for run in [*ours, *([theirs] if theirs else [])]:
        row = [run.solver + (" *" if run.fastest else ""), _secs(run.setup_seconds),
               _secs(run.warmup_seconds) if run is not theirs else "-",
               f"{run.iterations_per_second:,.1f}", f"{run.cpu_iterations_per_second:,.1f}"]
        for t in TARGETS:
            hit = run.reached[_key(t)]
            row += [*_reached(hit), _secs(hit.cpu_seconds) if hit else "-"]
        row += [_secs(run.eval_seconds), f"{run.final_exploitability:.3e} @{run.iterations:,}"]
        rows.append(row)
    print(_table(rows))
    if best.fastest:
        print(f"  * fastest of ours; ratios use {best.solver}")
    if theirs:
        r = mini["ratios"]
        for t in TARGETS:
            k = _key(t)
            parts = []
            for when in ("before", "after"):
                got = r.get(f"{when}_{k}")
                if got:
                    bound = "" if got["openspiel_reached"] else "more than "
                    parts.append(f"{bound}{_x(got['wall'])} wall, {bound}{_x(got['cpu'])} CPU "
                                 f"(ours {when} OpenSpiel)")
            head = (f"  time to {t:.0e}, OpenSpiel / {best.solver}: " if theirs.reached[k]
                    else f"  time to {t:.0e}: OpenSpiel did not reach it in "
                         f"{theirs.solver_seconds:.0f} s ({theirs.iterations:,} iterations, "
                         f"exploitability {theirs.final_exploitability:.3e}), so OpenSpiel / "
                         f"{best.solver} is ")
            print(head + "; ".join(parts) + ("" if theirs.reached[k]
                                             else " (nothing extrapolated)"))
        paired = r["per_iteration_time_interleaved"]
        print(f"  time per iteration, OpenSpiel / {best.solver}: "
              f"{_x(r['per_iteration_time_before'])} and {_x(r['per_iteration_time_after'])} "
              f"over the runs"
              + (f"; interleaved {paired['rounds']} x 1 s blocks: median {_x(paired['median'])} "
                 f"(range {_x(paired['min'])} to {_x(paired['max'])})" if paired else ""))
        final = mini["openspiel_final"]
        print(f"  OpenSpiel's final policy: exploitability {final['pyspiel']:.6e} by "
              f"pyspiel.exploitability ({_secs(theirs.eval_seconds)}), "
              f"{final['ours_judge']:.6e} by our evaluator")
    print(f"  value of player 0 under {best.solver}'s average: {best.value:+.9f}")
    if member:
        s = member["sizes"]
        print()
        print(f"== best response on {member['game']}")
        print(f"  {s['histories']:,} histories, {s['information_sets']:,} information sets, "
              f"{s['public_nodes']:,} public nodes, {s['betting_sequences']:,} betting "
              f"sequences, {member['slots_per_player'][0]:,} (public node, hand) slots per "
              f"player")
        print(f"  compiled from the rules in {member['compile_seconds']:.1f} s, peak memory "
              f"{member['peak_memory_gb']:.1f} GB")
        print(f"  one exact best response: median {member['best_response_seconds']['median']:.3f}"
              f" s; exploitability of a fixed strategy (2 reach passes + 2 best responses): "
              f"median {member['evaluation_seconds']['median']:.3f} s "
              f"({member['evaluation_seconds']['count']} runs)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default="dcfr,cfr+",
                        help="our schedules, comma-separated (default dcfr,cfr+)")
    parser.add_argument("--max-seconds", type=float, default=3600.0,
                        help="cap on OpenSpiel's solver time (checks excluded)")
    parser.add_argument("--fine", type=int, default=50,
                        help="check every max(1, it // FINE) iterations")
    parser.add_argument("--paired-rounds", type=int, default=5)
    parser.add_argument("--member", default=MEMBER,
                        help="the member for the best response ('' to skip)")
    parser.add_argument("--repeats", type=int, default=5, help="best-response repetitions")
    parser.add_argument("--skip-openspiel", action="store_true")
    parser.add_argument("--numba-disk-cache", action="store_true", default=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save-json", metavar="PATH")
    args = parser.parse_args(argv)
    args.dense = True
    args.coarse = args.fine
    args.gate = math.inf
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    info = machine_info(args)
    schedule = CheckSchedule(args.fine, args.fine, math.inf)
    # The big member first, so that the process's peak memory is its compile's.
    member = bench_member(args.member, args.repeats) if args.member else None
    mini = bench_mini(algorithms, schedule, args.max_seconds, args.skip_openspiel,
                      args.paired_rounds)
    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    clean = {k: v for k, v in mini.items() if not k.startswith("_")}
    text = json.dumps({"machine": info, "targets": list(TARGETS), "holdem_mini": clean,
                       "best_response": member}, indent=2)
    if args.save_json:
        Path(args.save_json).write_text(text + "\n")
    if args.json:
        print(text)
    else:
        print_text(info, mini, member)


if __name__ == "__main__":
    main()
