"""`python -m solver …`: solve games offline, fill the strategy store, inspect and export it.

Arguments and printing only: the arguments are `solver.cli.parser`'s, each command prints what
a job of `solver.runs` does (`solver.cli.commands`): solving is `solver.algorithms.solve`,
storing `solver.runs.store_solve`, building `solver.runs.build` and `solver.runs.background`;
``--dry-run`` prints a command's plan (`solver.cli.command_plan`) and runs nothing.

Example::

    from solver.cli import main

    main(["solve", "kuhn", "--target-exploitability", "1e-5", "--quiet"])   # 0 when it worked
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from solver.cli import commands
from solver.cli.command_plan import dry_run
from solver.cli.parser import build_parser
from strategies import StoreError

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "solve": commands.cmd_solve,
    "build": lambda args: commands.cmd_build(args, main),
    "opponents": commands.cmd_opponents,
    "recall": commands.cmd_recall,
    "recall-cost": commands.cmd_recall_cost,
    "buckets": commands.cmd_buckets,
    "bucket-cost": commands.cmd_bucket_cost,
    "match": commands.cmd_match,
    "hulhe": commands.cmd_hulhe,
    "deepstack": commands.cmd_deepstack,
    "list": commands.cmd_list,
    "figures": commands.cmd_figures,
    "show": commands.cmd_show,
    "evaluate": commands.cmd_evaluate,
    "evaluate-holdem": commands.cmd_evaluate_holdem,
    "export": commands.cmd_export,
    "info": commands.cmd_info,
}
"""What each sub-command runs (``build`` runs the commands of the games it builds through
`main`, in this process)."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "dry_run", False):
            return dry_run(args)
        return int(COMMANDS[args.command](args))
    except (StoreError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; nothing was stored", file=sys.stderr)
        return 130
