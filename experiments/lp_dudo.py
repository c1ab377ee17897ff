"""Solve one-die Dudo (and the calzo variant) exactly by the sequence-form LP, with timings.

    .venv/bin/python -m experiments.lp_dudo [game ...] [--method highs|highs-ds|highs-ipm]
    [--both-lps]

Prints, per game, the value for player 0 (Dudo: expect -7/258 ≈ -0.0271318), the exploitability
of the returned policy, the seconds spent building the sequence form and in each LP, and sizes.
"""

from __future__ import annotations

import argparse
import sys

from solver.algorithms.lp import solve_lp
from solver.games import get_game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=["dudo", "dudo-calzo"])
    parser.add_argument("--method", default="highs", help="scipy linprog method (HiGHS)")
    parser.add_argument(
        "--both-lps", action="store_true", help="solve player 1's LP instead of using duals"
    )
    args = parser.parse_args(argv)
    for name in args.games:
        game = get_game(name)
        result = solve_lp(game, method=args.method, use_duals=not args.both_lps)
        print(f"{name}:")
        print(f"  value           {result.value:+.10f}", end="")
        if game.reference_value is not None:
            print(f"   (reference {game.reference_value:+.10f})", end="")
        print()
        print(f"  exploitability  {result.exploitability:.3e}")
        print(f"  seconds         {result.seconds:.2f} total", end="")
        print("".join(f", {k} {v:.2f}" for k, v in result.timings.items()))
        print("  sizes           " + ", ".join(f"{k} {v:,}" for k, v in result.sizes.items()))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
