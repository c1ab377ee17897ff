"""How safe a cheap turn re-solve is: the max-margin gadget's margins at HULHE turn subgames.

    .venv/bin/python -m experiments.turn_resolve_margins --store PATH \
        [--positions 4] [--settings 10:8,10:11,10:0,100:0,10:0:dcfr]

At the bot's first decision on the turn of a few public states (a seeded board, a few lines of
preflop and flop betting), the turn is re-solved as the bot would (its range and the opponent's
from the blueprint along the line, the opponent's alternatives its best-response values against
the blueprint) with each setting ``ITERATIONS:SAMPLE[:ALGORITHM[:WARM]]`` (iterations, river
cards an iteration, 0 for all 44; CFR+ unless an algorithm is named, e.g. ``dcfr``; WARM > 0
starts from the blueprint, `resolve_turn`'s `warm`). A margin is, for one opponent hand, its
alternative less its best-response value against the re-solve: a positive margin means a best-
responding opponent holding that hand gains less than it did against the blueprint, a negative
one more. Printed per setting: the CPU seconds of the re-solve, the smallest margin, and the
margins averaged over the opponent's hands weighted by its blueprint range (the opponent's best-
response gain given up, against the blueprint's, in this subgame); both divided by the bot's
range's total, so in chips a deal that reaches the subgame (card removal aside). Exact figures
in HULHE itself: no sampling of deals, only of river cards inside the solve.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from solver.abstractions.holdem.bot import HulheBot
from solver.games.holdem.betting import Betting
from solver.resolving.resolving_bot import path
from solver.resolving.subgame import hand_cards
from solver.resolving.turn_resolve import (
    Buffers,
    best_response_values,
    blueprint_strategy,
    resolve_turn,
)
from solver.resolving.turn_subgame import compile_turn

LINES = ("cc/cc/", "rc/cc/", "cc/rc/", "rrc/crc/")
"""Preflop and flop betting that reaches the turn (the big blind acts first there)."""


def _betting(start: Betting, line: str) -> Betting:
    at = start
    for char in line.replace("/", ""):
        at = at.apply("fcr".index(char))
    return at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--settings", default="10:8,10:11,10:0,100:0")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    blueprint = HulheBot.from_store(args.game, args.store, name="blueprint")
    rules = blueprint.rules
    cards = hand_cards(rules)
    rng = np.random.default_rng(args.seed)
    settings = [(int(f[0]), int(f[1]) if len(f) > 1 and f[1] else 0,
                 f[2] if len(f) > 2 and f[2] else "cfr+", float(f[3]) if len(f) > 3 else 0.0)
                for f in (s.split(":") for s in args.settings.split(","))]
    found: dict[tuple[int, int, str, float], list[tuple[float, float, float]]] = {
        setting: [] for setting in settings}
    for p in range(args.positions):
        board = tuple(int(c) for c in rng.choice(rules.num_cards, 4, replace=False))
        betting = _betting(Betting.start(rules), LINES[p % len(LINES)])
        player = betting.player
        sub = compile_turn(rules, betting, board, cards)
        holes = cards[sub.hand_ids]
        reach = np.ones((2, len(holes)))
        for before, action in path(betting):
            seen = board[:rules.board_dealt(before.round)]
            reach[before.player] *= blueprint.action_probabilities(before, seen, holes)[:, action]
        buffers = Buffers(sub)
        blueprint_strategy(sub, player, blueprint, buffers.strategy)
        alternatives = best_response_values(sub, player, reach[player], buffers.strategy,
                                            buffers)
        weights = reach[1 - player] / reach[1 - player].sum()
        for iterations, sample, algorithm, warm in settings:
            if warm:
                blueprint_strategy(sub, player, blueprint, buffers.strategy)
            cpu = time.process_time()
            got = resolve_turn(sub, player, reach[player], mode="maxmargin",
                               iterations=iterations, alternatives=alternatives,
                               buffers=buffers, sampled=sample, algorithm=algorithm,
                               warm=warm)
            seconds = time.process_time() - cpu
            assert got.margins is not None
            live = reach[1 - player] > 0
            smallest = float(got.margins[live].min()) / float(reach[player].sum())
            weighted = float(weights @ got.margins) / float(reach[player].sum())
            found[iterations, sample, algorithm, warm].append((seconds, smallest, weighted))
            print(json.dumps({"position": p, "line": betting.acpc(), "iterations": iterations,
                              "sample": sample, "algorithm": algorithm, "warm": warm,
                              "cpu_seconds": round(seconds, 3),
                              "smallest_margin": round(smallest, 5),
                              "weighted_margin": round(weighted, 5)}), flush=True)
    summary = {f"{i}:{k}:{alg}:{warm}": {
        "cpu_seconds_mean": round(float(np.mean([r[0] for r in rows])), 3),
        "smallest_margin": round(min(r[1] for r in rows), 5),
        "weighted_margin_mean": round(float(np.mean([r[2] for r in rows])), 5),
        "positions_with_negative_weighted_margin": sum(r[2] < 0 for r in rows)}
        for (i, k, alg, warm), rows in found.items()}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
