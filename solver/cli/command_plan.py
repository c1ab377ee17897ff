"""The plan of a parsed command (`solver.runs.run_plan`): what ``--dry-run`` prints, what a real
run checks before it allocates, and what the background build reads of each game's command."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence

from solver.abstractions.dudo_recall.remembered_bids import parse_recall
from solver.abstractions.holdem.blueprint_betting import BLUEPRINT_BETTING
from solver.abstractions.holdem.percentiles import PercentileSpec
from solver.abstractions.holdem.sampled_cfr import (
    EPOCH_ITERATIONS,
    SampledSetup,
)
from solver.cli.parser import build_parser
from solver.engine import memory
from solver.engine.estimates import minutes
from solver.games import get_game
from solver.games.dudo.match import NAME as MATCH_NAME
from solver.games.holdem.rules import HoldemRules
from solver.runs.dudo_match import MatchSetup, default_recall
from solver.runs.run_plan import (
    RunPlan,
    deepstack_plan,
    hulhe_plan,
    match_plan,
    recall_plan,
    solve_plan,
)


def match_setup_of(args: argparse.Namespace) -> MatchSetup:
    """The rounds a ``match`` command solves, and how."""
    recall = (parse_recall(get_game(MATCH_NAME), args.recall) if args.recall
              else default_recall())
    return MatchSetup(max_dice=args.max_dice, recall=recall, target=args.target_exploitability,
                      iterations=args.iterations, algorithm=args.algorithm)


def hulhe_setup_of(args: argparse.Namespace) -> SampledSetup:
    """The solve a ``hulhe`` command makes."""
    per_epoch = args.epoch_iterations or EPOCH_ITERATIONS[args.algorithm]
    rules = getattr(get_game(args.game), "definition", None)
    every_size = isinstance(rules, HoldemRules) and rules.no_limit and rules.bets is None
    return SampledSetup(game=args.game,
                        betting=args.betting or (BLUEPRINT_BETTING if every_size else ""),
                        spec=PercentileSpec.parse(f"k:{args.buckets}", args.metric),
                        iterations_per_epoch=per_epoch, seed=args.seed, algorithm=args.algorithm,
                        schedule=args.schedule or "",
                        opponent=(PercentileSpec.parse(f"k:{args.opponent_buckets}", args.metric)
                                  if args.opponent_buckets else None))


def _workers(args: argparse.Namespace) -> int:
    """Local worker processes a command starts (one for a scheduler's cluster: the estimate
    is of this machine)."""
    if args.command == "hulhe" and args.workers == 0:
        return 0
    return 1 if args.scheduler else (args.workers or os.cpu_count() or 1)


def plan_for(args: argparse.Namespace) -> RunPlan:
    """The plan of a parsed ``python -m solver`` command (solve, recall, match, hulhe or
    deepstack)."""
    if args.command == "solve":
        return solve_plan(get_game(args.game), args.iterations, args.seconds)
    if args.command == "recall":
        return recall_plan(get_game(args.game), args.memory, args.iterations)
    if args.command == "match":
        return match_plan(match_setup_of(args), _workers(args))
    if args.command == "deepstack":
        return deepstack_plan(args.situations, _workers(args))
    if args.command == "hulhe":
        return hulhe_plan(hulhe_setup_of(args), _workers(args), minutes=args.minutes,
                          epochs=args.epochs, self_play_deals=args.self_play_deals)
    raise ValueError(f"`{args.command}` has no build plan (--dry-run)")


def plan_of(command: Sequence[str]) -> RunPlan:
    """The plan of ``python -m solver`` arguments, without running them."""
    return plan_for(build_parser().parse_args(list(command)))


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
        for name, seconds, _, fixed in plan.phases:
            print(f"  {name}: {'' if fixed else 'about '}{minutes(seconds)}"
                  + (" (a fixed time)" if fixed else " (on a two-core machine)"))
    return 0 if fits else 2
