"""The job that measures the re-solving bot in heads-up limit hold'em
(`solver.evaluation.holdem.resolving_eval`): a duplicate match against its blueprint (or another
re-solving bot) and LBR, the deals cut into chunks on Dask workers (a local cluster of the
machine's cores, or ``--scheduler``).

``python -m solver.runs.resolving_eval --store PATH --deals 2000 --lbr-deals 500``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from solver.abstractions.holdem.resolving_kind import ResolvingSpec, add_resolving_arguments
from solver.evaluation.holdem.resolving_eval import BotSpec, evaluate
from solver.runs.dask import dask_client


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.runs.resolving_eval",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--store", help="the strategy store holding the blueprint")
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deal pairs")
    parser.add_argument("--lbr-deals", type=int, default=0, help="LBR deal pairs")
    parser.add_argument("--lbr-of", default="resolving",
                        help="comma-separated: resolving, blueprint")
    add_resolving_arguments(parser)
    parser.add_argument("--against-from-round", type=int, default=0,
                        help="play the duplicate match against the bot that re-solves from "
                             "this round (1-based; default: against the blueprint)")
    parser.add_argument("--chunk", type=int, default=50, help="deal pairs a Dask task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scheduler", help="a Dask scheduler; default: a local cluster")
    parser.add_argument("--workers", type=int, help="local worker processes")
    args = parser.parse_args(argv)
    chosen = ResolvingSpec.from_arguments(parser, args)
    spec = BotSpec(args.game, args.store, chosen)
    against = (BotSpec(args.game, args.store,
                       ResolvingSpec(args.against_from_round, chosen.mode, chosen.iterations))
               if args.against_from_round else None)
    spec.resolving()  # refuses a bad store or mode before any cluster starts
    client = dask_client(args.scheduler, args.workers)
    try:
        report = evaluate(spec, args.deals, args.lbr_deals, client, args.chunk, args.seed,
                          tuple(w for w in args.lbr_of.split(",") if w), against)
    finally:
        client.close()
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
