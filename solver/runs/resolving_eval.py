"""The job that measures a hold'em bot in the real game (`solver.evaluation.holdem.resolving_eval`):
the re-solving bot or its blueprint alone, in a duplicate match against its blueprint or against
another store's bot, and by LBR, the deals cut into chunks on Dask workers (a local cluster of
the machine's cores, or ``--scheduler``).

``python -m solver.runs.resolving_eval --store PATH --deals 2000 --lbr-deals 500``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from solver.abstractions.holdem.resolving_kind import ResolvingSpec, add_resolving_arguments
from solver.evaluation.holdem.resolving_eval import BotSpec, evaluate
from solver.runs.dask import dask_client
from strategies import StoreError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.runs.resolving_eval",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--store", help="the strategy store holding the blueprint")
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deal pairs")
    parser.add_argument("--lbr-deals", type=int, default=0, help="LBR deal pairs")
    parser.add_argument("--lbr-of", default="bot",
                        help="comma-separated: bot, blueprint, against (default bot)")
    add_resolving_arguments(parser)
    parser.add_argument("--no-resolving", action="store_true",
                        help="measure the blueprint alone (no re-solving)")
    parser.add_argument("--against-store", metavar="PATH",
                        help="play the duplicate match against the blueprint of this store "
                             "(default: against the bot's own blueprint)")
    parser.add_argument("--against-from-round", type=int, default=0,
                        help="play the duplicate match against the bot that re-solves from "
                             "this round (1-based), over the blueprint of --against-store or "
                             "of --store")
    parser.add_argument("--chunk", type=int, default=50, help="deal pairs a Dask task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scheduler", help="a Dask scheduler; default: a local cluster")
    parser.add_argument("--workers", type=int, help="local worker processes")
    parser.add_argument("--save-hands", metavar="PATH",
                        help="also save LBR's hands (per deal pair and seat: won, adjusted, "
                             "ending) to this .npz, one set of arrays per bot measured")
    args = parser.parse_args(argv)
    chosen = ResolvingSpec.from_arguments(parser, args)
    spec = BotSpec(args.game, args.store, None if args.no_resolving else chosen)
    against = None
    if args.against_store or args.against_from_round:
        against = BotSpec(args.game, args.against_store or args.store,
                          ResolvingSpec(args.against_from_round, chosen.mode, chosen.iterations)
                          if args.against_from_round else None)
    try:  # a bad store is refused before any cluster starts
        for named in (spec, against):
            if named is not None:
                named.bot()
    except (ValueError, StoreError) as exc:
        parser.error(str(exc))
    client = dask_client(args.scheduler, args.workers)
    try:
        report = evaluate(spec, args.deals, args.lbr_deals, client, args.chunk, args.seed,
                          tuple(w for w in args.lbr_of.split(",") if w), against,
                          progress=True, keep_hands=bool(args.save_hands))
    finally:
        client.close()
    if args.save_hands:
        arrays = {}
        for key, entry in report.items():
            if key.startswith("lbr_") and isinstance(entry, dict):
                hands = entry.pop("hands")
                arrays.update({f"{key}_{name}": getattr(hands, name)
                               for name in ("won", "adjusted", "endings")})
        np.savez(args.save_hands, **arrays)
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
