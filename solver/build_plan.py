"""What a build command will take before it runs: memory (checked against the machine's, see
`solver.memory`) and its phases with their estimated seconds (the lobby's progress and overall
estimate, `solver.progress`).

Every long command (``solve``, ``recall``, ``match``, ``hulhe``) takes ``--dry-run``: it prints
its plan and whether it fits, and builds nothing. A real run checks the same plan before it
allocates, and declares its phases to the background build's status file. The times are
estimates from the measured runs in the README (the shared 2-core VM), scaled by the counts.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass

from solver import memory, progress
from solver.memory import BASE_BYTES, MemoryEstimate

STORE_SECONDS_PER_INFOSET = 6e-5
"""Writing a row to the store: 3.5 million rows of dudo-1v2 in about 200 s."""
SLOT_SECONDS = 3.5e-7
"""Compiling a tree, per (public node, private state) slot: dudo-1v2's 14 million in 5 s."""
SLOT_ITERATION_SECONDS = 2e-8
"""A CFR iteration, per slot: dudo-1v2, 359 iterations in 94 s."""
ITERATIONS_GUESS = 400
"""Iterations an exact solve to exploitability 1e-4 takes, for the estimate (359 to 1,229)."""
MATCH_SOLVE_SECONDS = 760.0
"""The default match plan's rounds on two Dask workers (839 s with storing, README)."""
WORKER_START_SECONDS = 15.0
HULHE_TABLES_SECONDS = 60.0
"""The E[HS] tables of hold'em, once (then read from the solver cache): about 40 s."""
HULHE_BUCKETS_SECONDS = 480.0
"""Cutting the flop's, turn's and river's classes into percentile buckets, once (cached)."""
SELF_PLAY_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class BuildPlan:
    estimate: MemoryEstimate
    phases: tuple[tuple[str, float], ...]

    @property
    def seconds(self) -> float:
        return sum(t for _, t in self.phases)

    def start(self) -> None:
        """Refuse the build if it does not fit (`memory.NotEnoughMemoryError`), else declare
        its phases to the status file."""
        memory.check(self.estimate)
        progress.declare_phases(self.phases)


def plan_for(args: argparse.Namespace) -> BuildPlan:
    """The plan of a parsed ``python -m solver`` command (solve, recall, match or hulhe)."""
    planners = {"solve": _solve, "recall": _recall, "match": _match, "hulhe": _hulhe}
    planner = planners.get(args.command)
    if planner is None:
        raise ValueError(f"`{args.command}` has no build plan (--dry-run)")
    return planner(args)


def dry_run(args: argparse.Namespace) -> int:
    """Print the plan: what it needs, what the machine has, its phases; 2 if it does not fit."""
    plan = plan_for(args)
    available = memory.available_memory()
    fits = plan.estimate.bytes <= available
    if args.json:
        print(json.dumps({"what": plan.estimate.what, "memory_bytes": plan.estimate.bytes,
                          "available_bytes": available, "fits": fits,
                          "detail": plan.estimate.detail, "instead": plan.estimate.instead,
                          "phases": [list(p) for p in plan.phases],
                          "seconds": round(plan.seconds)}, indent=2))
    else:
        print(f"{plan.estimate.text()}; {memory.gib(available)} is available: "
              + ("it fits" if fits else "it does not fit"
                 + (f" ({plan.estimate.instead})" if plan.estimate.instead else "")))
        for name, seconds in plan.phases:
            print(f"  {name}: about {progress.minutes(seconds)}")
    return 0 if fits else 2


def _solve(args: argparse.Namespace) -> BuildPlan:
    from solver.games import get_game
    from solver.sizes import CountsItself
    from solver.solve import memory_estimate

    game = get_game(args.game)
    estimate = memory_estimate(args.game)
    if isinstance(game, CountsItself):
        sizes = game.sizes()
        slots, infosets = sizes.get("slots"), sizes.get("information_sets")
    else:
        slots = infosets = None
    if not isinstance(slots, int) or not isinstance(infosets, int):
        return BuildPlan(estimate, (("compiling the tree", 5.0), ("solving", 30.0),
                                    ("storing", 5.0)))
    iterations = args.iterations or ITERATIONS_GUESS
    solving = args.seconds or iterations * slots * SLOT_ITERATION_SECONDS
    return BuildPlan(estimate, (("compiling the tree", slots * SLOT_SECONDS),
                                ("solving", solving),
                                ("storing", infosets * STORE_SECONDS_PER_INFOSET)))


def _dudo_rules(game: str):  # type: ignore[no-untyped-def]
    from solver.games import get_game
    from solver.games.dudo import DudoGame

    dudo = get_game(game)
    if not isinstance(dudo, DudoGame):
        raise ValueError(f"the recall abstraction solves Dudo games, not {game!r}")
    return dudo.dudo_rules


def _recall(args: argparse.Namespace) -> BuildPlan:
    from solver.dudo_recall import REAL_GAME_NODES, graph_bounds, recall_estimate, recall_seconds

    rules = _dudo_rules(args.game)
    measured = 1 << rules.num_bids <= REAL_GAME_NODES
    estimate = recall_estimate(rules, args.memory,
                               f"solving {args.game} remembering {args.memory} bids", measured)
    nodes, _ = graph_bounds(rules, args.memory)
    return BuildPlan(estimate, (
        ("building the abstract game", 1.0 + nodes * 2e-5),
        ("solving", recall_seconds(rules, args.memory, args.iterations)),
        ("storing", nodes * 21 * STORE_SECONDS_PER_INFOSET)))


def match_round_plan(plan) -> dict[tuple[int, int], tuple[int, float]]:  # type: ignore[no-untyped-def]
    """Each round of a `solver.dudo_match.MatchPlan`: the bytes it needs beyond the base, and
    its estimated share of work (seconds on one worker, uncalibrated)."""
    from solver.dudo_match import EXACT_UP_TO
    from solver.dudo_recall import recall_estimate, recall_seconds
    from solver.dudo_tree import tree_sizes
    from solver.games.dudo import DudoRules
    from solver.memory import tree_bytes

    rounds = {}
    for counts in plan.rounds():
        rules, kept = DudoRules(counts), plan.recall.memory(counts)
        if kept is None:
            s = tree_sizes(rules)
            need = tree_bytes(s["information_sets"], s["information_set_actions"], s["slots"],
                              s["public_nodes"]) - BASE_BYTES
            work = ITERATIONS_GUESS * s["slots"] * SLOT_ITERATION_SECONDS
        else:
            need = recall_estimate(rules, kept, "", sum(counts) <= EXACT_UP_TO).bytes - BASE_BYTES
            work = recall_seconds(rules, kept, plan.iterations)
        rounds[counts] = (need, work)
    return rounds


def match_seconds(plan, workers: int) -> float:  # type: ignore[no-untyped-def]
    """The rounds' solving time: the default plan's measured time, scaled by the rounds' work."""
    from solver.dudo_match import MatchPlan

    work = sum(w for _, w in match_round_plan(plan).values())
    default = sum(w for _, w in match_round_plan(MatchPlan()).values())
    return MATCH_SOLVE_SECONDS * work / default * 2 / max(1, workers)


def _match(args: argparse.Namespace) -> BuildPlan:
    import os

    from solver.dudo_match import MatchPlan, default_recall
    from solver.games import get_game
    from solver.games.dudo_recall import parse_recall

    recall = (parse_recall(get_game("dudo-match"), args.recall) if args.recall
              else default_recall())
    plan = MatchPlan(max_dice=args.max_dice, recall=recall, target=args.target_exploitability,
                     iterations=args.iterations, algorithm=args.algorithm)
    workers = 1 if args.scheduler else (args.workers or os.cpu_count() or 1)
    needs = sorted((need for need, _ in match_round_plan(plan).values()), reverse=True)
    # Each worker solves a round at a time (the biggest ones at worst, all at once); the
    # driver rebuilds each round's rows to store them.
    total = BASE_BYTES * (1 + workers) + sum(needs[:workers]) + needs[0]
    estimate = MemoryEstimate(
        f"solving the {len(needs)} rounds of a Dudo match", total,
        f"{workers} worker{'s' if workers != 1 else ''}, the biggest round "
        f"{memory.gib(needs[0])}", "remember fewer bids in the big rounds (--recall)")
    infosets = 1_361_777 * len(needs) / 25
    return BuildPlan(estimate, (("starting the workers", WORKER_START_SECONDS),
                                ("solving the rounds", match_seconds(plan, workers)),
                                ("storing", infosets * STORE_SECONDS_PER_INFOSET)))


def _hulhe(args: argparse.Namespace) -> BuildPlan:
    import os

    from solver.games.holdem.percentiles import PercentileSpec, check_rules
    from solver.holdem_mccfr import Layout, Plan, betting_tree

    plan = Plan(game=args.game, spec=PercentileSpec.parse(f"k:{args.buckets}"),
                iterations_per_epoch=args.epoch_iterations, seed=args.seed)
    rules = plan.rules
    streets = check_rules(rules)
    counts = [streets.indexer(0).size] + [
        streets.indexer(r).size if k is None else k for r, k in enumerate(plan.spec.k, 1)]
    layout = Layout.of(betting_tree(rules), tuple(counts))
    workers = (0 if args.workers == 0 else 1 if args.scheduler
               else args.workers or os.cpu_count() or 1)
    table = 4 * layout.size  # float32
    river = streets.indexer(streets.last).size
    # The driver keeps regrets and average and gets each worker's two tables back; a worker
    # copies the regrets and fills an average; the tables and buckets are built once (the
    # river's counts and codes, a byte or two a class) and memory-mapped after.
    copies = max(1, workers)  # with no workers the driver runs the epochs itself
    total = (BASE_BYTES * (1 + workers) + table * (2 + 2 * copies) + table * 3 * copies
             + 4 * river)
    estimate = MemoryEstimate(
        f"solving {args.game} in its bucket abstraction", total,
        f"{layout.infosets:,} abstract information sets, {workers or 1} "
        f"worker{'s' if workers != 1 else ''}", "use fewer workers (--workers)")
    solving = args.minutes * 60 if args.epochs is None else args.epochs * 30.0
    cached = _hulhe_cached(plan)
    return BuildPlan(estimate, (
        ("hand-strength tables", 1.0 if cached[0] else HULHE_TABLES_SECONDS),
        ("hand buckets", 1.0 if cached[1] else HULHE_BUCKETS_SECONDS),
        ("starting the workers", WORKER_START_SECONDS if workers else 1.0),
        ("solving", solving),
        ("self-play", SELF_PLAY_SECONDS * math.ceil(args.self_play_deals / 20_000)),
        ("storing", 10.0)))


def _hulhe_cached(plan) -> tuple[bool, bool]:  # type: ignore[no-untyped-def]
    """Whether the strength tables and the buckets of `plan` are in the solver cache."""
    from solver.cards.strength import _cache_folder
    from solver.games.holdem.percentiles import _cache_path, check_rules

    rules = plan.rules
    streets = check_rules(rules)
    folder = _cache_folder(streets)
    tables = all((folder / f"street{s}.npy").exists() for s in range(streets.last + 1))
    buckets = all(_cache_path(rules, r, k).exists()
                  for r, k in enumerate(plan.spec.k, 1) if k is not None)
    return tables, buckets
