"""The re-solving HULHE bot's time per decision, per round, as a player waits for it.

    .venv/bin/python -m experiments.resolving_latency --store PATH [--hands 200]

Plays `--hands` hands of the re-solving bot against its blueprint (one process, one thread),
a fresh bot (empty cache) for each hand, so every re-solve is timed cold; a decision that
reuses a re-solve of the same hand (the bot's own re-solves carry from one decision to the
next) is timed as it is.  Prints the count, p50, p95 and maximum seconds per round, of wall
time (what a player waits) and of CPU time (what it costs on a machine of its own).

Every decision is asked twice, as the app does for the bot's move and for the hint at the same
position: the second answer comes from the re-solve kept for that public state, and its times
are reported apart (``reused``), with the count of decisions whose second answer differed
from the first (0 if the kept re-solve is the one reused).  And, per round, the safe gadget's
margins of the re-solves the bot made (`Solved.margins`: per unit of its range, the smallest
over the opponent's hands and the mean; negative means that a best-responding opponent gains
there more than against what the bot played before), with the count of those where a guarded
bot played its blueprint instead (``blueprint_played``, `ResolvingBot.turn_guard`).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numpy.typing import NDArray

from solver.evaluation.holdem.duplicate import Deals, deal, decision_uniforms, play
from solver.games.holdem.betting import Betting
from solver.games.holdem.policy import HoldemPolicy
from solver.resolving.kind import ResolvingSpec, add_resolving_arguments
from solver.resolving.measure import BotSpec, TimedPolicy
from solver.resolving.solved import TurnSolved


def _one(dealt: Deals, i: int) -> Deals:
    return Deals(dealt.holes[i:i + 1], dealt.boards[i:i + 1], dealt.values[i:i + 1])


class AskedTwice:
    """Times the bot's decision, then asks it again at the same position (the hint's call)."""

    def __init__(self, policy: HoldemPolicy) -> None:
        self.first = TimedPolicy(policy)
        self.again = TimedPolicy(policy)
        self.differed = 0

    @property
    def name(self) -> str:
        return self.first.name

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        out = self.first.action_probabilities(betting, board, holes)
        again = self.again.action_probabilities(betting, board, holes)
        self.differed += not np.array_equal(out, again)
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--hands", type=int, default=200)
    add_resolving_arguments(parser)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = BotSpec(args.game, args.store, ResolvingSpec.from_arguments(parser, args))
    game = spec.member()
    blueprint = spec.blueprint()
    dealt = deal(game.definition, args.hands, args.seed)
    uniforms = decision_uniforms(game.definition, args.hands,
                                 np.random.default_rng([args.seed, 3]))
    seconds: dict[int, list[float]] = {}
    cpu: dict[int, list[float]] = {}
    reused: dict[int, list[float]] = {}
    reused_cpu: dict[int, list[float]] = {}
    differed = 0
    margins: dict[int, list[tuple[float, float]]] = {}
    as_blueprint: dict[int, int] = {}
    started = time.perf_counter()
    warm = TimedPolicy(spec.resolving())  # compiles the kernels before anything is timed
    play(game, (warm, blueprint), _one(dealt, 0), uniforms[:1])
    for i in range(args.hands):
        resolving = spec.resolving()
        bot = AskedTwice(resolving)
        one = _one(dealt, i)
        seats = (bot, blueprint) if i % 2 == 0 else (blueprint, bot)
        play(game, seats, one, uniforms[i:i + 1])
        differed += bot.differed
        for acpc, solved in resolving.kept():
            found = solved.margins()
            if found is not None:
                margins.setdefault(acpc.count("/") + 1, []).append(found)
            if isinstance(solved, TurnSolved) and solved.resolved.blueprint:
                as_blueprint[acpc.count("/") + 1] = as_blueprint.get(acpc.count("/") + 1, 0) + 1
        for timed, wall, cpus in ((bot.first, seconds, cpu), (bot.again, reused, reused_cpu)):
            for r, values in timed.seconds.items():
                wall.setdefault(r + 1, []).extend(values)
                cpus.setdefault(r + 1, []).extend(timed.cpu_seconds[r])
    print(json.dumps({"hands": args.hands, "iterations": args.iterations,
                      "turn_iterations": args.turn_iterations, "turn_sample": args.turn_sample,
                      "turn_warm": args.turn_warm, "turn_guard": args.turn_guard,
                      "from_round": args.from_round, "wall": _quantiles(seconds),
                      "cpu": _quantiles(cpu), "reused_wall": _quantiles(reused),
                      "reused_cpu": _quantiles(reused_cpu), "reused_differed": differed,
                      "margins": {str(r): {
                          "resolves": len(v), "smallest": round(min(m[0] for m in v), 5),
                          "mean_of_means": round(float(np.mean([m[1] for m in v])), 5),
                          "negative_means": sum(m[1] < 0 for m in v),
                          "blueprint_played": as_blueprint.get(r, 0)}
                          for r, v in sorted(margins.items())},
                      "wall_seconds": round(time.perf_counter() - started, 1)}, indent=1))


def _quantiles(seconds: dict[int, list[float]]) -> dict[str, dict[str, float]]:
    """Per round, and for all decisions: the count, p50, p95 and maximum."""
    groups = {str(r): v for r, v in sorted(seconds.items())}
    groups["all"] = [s for v in seconds.values() for s in v]
    return {name: {"decisions": len(v), "p50": round(float(np.percentile(v, 50)), 4),
                   "p95": round(float(np.percentile(v, 95)), 4),
                   "max": round(float(np.max(v)), 4)} for name, v in groups.items()}


if __name__ == "__main__":
    main()
