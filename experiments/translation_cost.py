"""What does a bet abstraction cost in the real no-limit game, with and without randomised
action translation?

    .venv/bin/python -m experiments.translation_cost [--member SPEC] [--abstractions A;B;...]
    [--target 1e-4]

For each bet abstraction, the member is solved in it to `--target` chips (discounted CFR), then
measured by exact best response twice: in its own game (the opponent raising only to its sizes)
and in the real game, where the opponent may raise to any amount and the bot reads each raise by
the pseudo-harmonic mapping, randomised or to the nearer size
(`solver.evaluation.holdem.translation_cost`).  Prints one row per abstraction and translation.
"""

from __future__ import annotations

import argparse
import sys
import time

from solver.abstractions.holdem.translation import Translation
from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import evaluate_strategy, policy_from_array
from solver.evaluation.holdem.translation_cost import translation_cost
from solver.games import get_game
from solver.games.holdem import HoldemGame

MEMBER = ("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,"
          "blind=1 1,firstPlayer=1 1,stack=12 12)")
"""A Leduc-sized deck (one card each from six, one board card), equal blinds of 1 as antes,
12 chips a stack: 9,720 betting sequences with every size, small enough for an exact best
response."""
ABSTRACTIONS = "fcpa;0.5p p a;0.5p p 2p a;m 0.5p p 2p a"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--member", default=MEMBER, help="a no-limit member (every size)")
    parser.add_argument("--abstractions", default=ABSTRACTIONS,
                        help="bet abstractions separated by ';' (see bet_sizes)")
    parser.add_argument("--target", type=float, default=1e-4, help="abstract solve target")
    args = parser.parse_args(argv)
    base = args.member.rstrip(")")
    print("| abstraction | information sets | own game | real game, randomised | "
          "real game, nearer size | seconds |")
    print("|---|---|---|---|---|---|")
    for abstraction in args.abstractions.split(";"):
        started = time.perf_counter()
        spec = f"{base},bettingAbstraction={abstraction.strip()})"
        game = get_game(spec)
        assert isinstance(game, HoldemGame)
        tree = game.compile_public_tree()
        solver = CFRSolver(tree, "dcfr")
        while True:
            solver.iterate(100)
            strategy = solver.average_strategy()
            if evaluate_strategy(tree, strategy).exploitability <= args.target:
                break
        policy = policy_from_array(tree, strategy)
        costs = [translation_cost(spec, policy, Translation(randomised))
                 for randomised in (True, False)]
        print(f"| `{abstraction.strip()}` | {tree.num_infosets:,} | {costs[0].abstract:.5f} | "
              f"{costs[0].real:.4f} | {costs[1].real:.4f} | "
              f"{time.perf_counter() - started:.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
