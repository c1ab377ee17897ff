"""The re-solving bot measured in the real game: a duplicate match against the blueprint it
re-solves (today's stored bot), LBR against either, and the time of each of its decisions.

Re-solving costs a fraction of a second per decision, so the deals are cut into chunks that
run on Dask workers (a local cluster of the machine's cores, or ``--scheduler``); each chunk
plays its own seeded deals and returns one number per deal pair, and the estimates pool them
(Student's t over every pair, as `solver.evaluation.holdem.duplicate` does for one chunk).

The command that runs it on a cluster is `solver.runs.resolving_eval`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.resolving_bot import ResolvingBot
from solver.abstractions.holdem.resolving_kind import ResolvingSpec
from solver.evaluation.holdem.duplicate import (
    Estimate,
    deal,
    decision_uniforms,
    mbb,
    play,
)
from solver.evaluation.holdem.lbr import LocalBestResponse
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.games.holdem.betting import Betting
from solver.games.holdem.policy import HoldemPolicy

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to make the bots in a worker: the store of the blueprint, and the re-solving
    bot's settings."""

    game: str
    store: str | None
    resolving_spec: ResolvingSpec = field(default_factory=ResolvingSpec)

    def blueprint(self) -> HulheBot:
        return HulheBot.from_store(self.game, self.store, name="blueprint")

    def resolving(self) -> ResolvingBot:
        blueprint = self.blueprint()
        chosen = self.resolving_spec
        return chosen.make_bot(f"re-solving ({chosen.mode}, from round {chosen.from_round})",
                               blueprint.rules, blueprint)

    def member(self) -> HoldemGame:
        game = get_game(self.game)
        if not isinstance(game, HoldemGame):
            raise ValueError(f"{self.game} is not a member of the hold'em family")
        return game


class TimedPolicy:
    """A policy that records the seconds of each call, per round: wall time (what a player
    waits) and this process's CPU time (what the call costs on a machine of its own, since a
    busy machine stretches the wall time)."""

    def __init__(self, policy: HoldemPolicy) -> None:
        self.policy = policy
        self.seconds: dict[int, list[float]] = {}
        self.cpu_seconds: dict[int, list[float]] = {}

    @property
    def name(self) -> str:
        return self.policy.name

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        started, cpu = time.perf_counter(), time.process_time()
        out = self.policy.action_probabilities(betting, board, holes)
        self.seconds.setdefault(betting.round, []).append(time.perf_counter() - started)
        self.cpu_seconds.setdefault(betting.round, []).append(time.process_time() - cpu)
        return out


def match_chunk(spec: BotSpec, deals: int, seed: int, against: BotSpec | None = None
                ) -> tuple[FloatArray, dict[int, list[float]]]:
    """The re-solving bot against its blueprint (or the re-solving bot `against`) on `deals`
    deal pairs from `seed`: per pair, the re-solving bot's mean winnings in chips; and its
    decisions' seconds per round."""
    game = spec.member()
    blueprint: HoldemPolicy = spec.blueprint() if against is None else against.resolving()
    rules = game.definition
    dealt = deal(rules, deals, seed)
    uniforms = decision_uniforms(rules, deals, np.random.default_rng([seed, 1]))
    # A fresh bot for each order of the seats: the second game of a deal does not reuse the
    # first one's re-solves, so the times are those of a new hand.
    bots = (TimedPolicy(spec.resolving()), TimedPolicy(spec.resolving()))
    first = play(game, (bots[0], blueprint), dealt, uniforms)
    second = -play(game, (blueprint, bots[1]), dealt, uniforms)
    seconds = {r: bots[0].seconds.get(r, []) + bots[1].seconds.get(r, [])
               for r in {*bots[0].seconds, *bots[1].seconds}}
    return (first + second) / 2, seconds


def lbr_chunk(spec: BotSpec, which: str, deals: int, seed: int) -> FloatArray:
    """LBR's winnings in chips against the `which` bot (``resolving`` or ``blueprint``), per
    deal, LBR in each seat: shape (deals, 2)."""
    game = spec.member()
    policy: HoldemPolicy = spec.resolving() if which == "resolving" else spec.blueprint()
    lbr = LocalBestResponse(game, policy)
    dealt = deal(game.definition, deals, seed)
    rng = np.random.default_rng([seed, 2])
    won = np.zeros((deals, 2))
    for i in range(deals):
        for seat in (0, 1):
            won[i, seat] = lbr.play(seat, dealt.holes[i], dealt.boards[i], rng)
    return won


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def evaluate(spec: BotSpec, deals: int, lbr_deals: int, client: Any, chunk: int = 50,
             seed: int = 0, lbr_of: Sequence[str] = ("resolving",),
             against: BotSpec | None = None) -> dict[str, object]:
    """The duplicate match (against the blueprint, or the re-solving bot `against`), LBR
    against each of `lbr_of`, and the per-round decision times."""
    game = spec.member()
    scale = mbb(game.definition)
    chosen = spec.resolving_spec
    report: dict[str, object] = {"game": spec.game, "from_round": chosen.from_round,
                                 "mode": chosen.mode, "iterations": chosen.iterations,
                                 "turn_iterations": chosen.turn, "turn_sample": chosen.sample,
                                 "turn_warm": chosen.warm, "turn_guard": chosen.guard,
                                 "against": "blueprint" if against is None else
                                 f"re-solving from round {against.resolving_spec.from_round}"}
    started = time.perf_counter()
    base = seed * 1_000_003
    futures = [client.submit(match_chunk, spec, n, base + i, against, pure=False)
               for i, n in enumerate(_chunks(deals, chunk))]
    lbr_futures = {which: [client.submit(lbr_chunk, spec, which, n, base + 7_919 + i,
                                         pure=False)
                           for i, n in enumerate(_chunks(lbr_deals, chunk))]
                   for which in lbr_of}
    if deals:
        results = client.gather(futures)
        pairs = np.concatenate([r[0] for r in results])
        estimate = Estimate.of(pairs, scale)
        seconds: dict[int, list[float]] = {}
        for _, timed in results:
            for r, values in timed.items():
                seconds.setdefault(r, []).extend(values)
        report["match"] = {"mbb_per_hand": estimate.mean, "ci95": estimate.half_width,
                           "deals": deals}
        report["decision_seconds"] = {
            str(r + 1): {"decisions": len(v), "p50": float(np.percentile(v, 50)),
                         "p95": float(np.percentile(v, 95)), "max": float(np.max(v))}
            for r, v in sorted(seconds.items())}
    for which, chunks in lbr_futures.items():
        won = np.concatenate(client.gather(chunks))
        estimate = Estimate.of(won.mean(axis=1), scale)
        report[f"lbr_{which}"] = {"mbb_per_hand": estimate.mean, "ci95": estimate.half_width,
                                  "seat0": float(won[:, 0].mean() * scale),
                                  "seat1": float(won[:, 1].mean() * scale),
                                  "deals": len(won)}
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report
