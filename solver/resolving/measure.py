"""The re-solving bot measured in the real game: a duplicate match against the blueprint it
re-solves (today's stored bot), LBR against either, and the time of each of its decisions.

Re-solving costs a fraction of a second per decision, so the deals are cut into chunks that
run on Dask workers (a local cluster of the machine's cores, or ``--scheduler``); each chunk
plays its own seeded deals and returns one number per deal pair, and the estimates pool them
(Student's t over every pair, as `solver.evaluation.holdem.duplicate` does for one chunk).
The bot measured may also be the blueprint alone, and the match may be played against another
store's bot.

``python -m solver.resolving.measure --store PATH --deals 2000 --lbr-deals 500``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.bot import HulheBot
from solver.engine.progress import progress_bar
from solver.evaluation.holdem.duplicate import (
    Estimate,
    deal,
    decision_uniforms,
    duplicate_pairs,
    mbb,
)
from solver.evaluation.holdem.lbr import LocalBestResponse, Played, where_won
from solver.evaluation.holdem.luck import round_equities
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.games.holdem.betting import Betting
from solver.games.holdem.policy import HoldemPolicy
from solver.resolving.kind import ResolvingSpec, add_resolving_arguments
from solver.resolving.resolving_bot import ResolvingBot
from solver.runs.dask import dask_client
from strategies import StoreError

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to make a bot in a worker: the store of its blueprint, and the re-solving bot's
    settings (None: the blueprint alone)."""

    game: str
    store: str | None
    resolving_spec: ResolvingSpec | None = field(default_factory=ResolvingSpec)

    def blueprint(self) -> HulheBot:
        return HulheBot.from_store(self.game, self.store, name="blueprint")

    def resolving(self) -> ResolvingBot:
        blueprint = self.blueprint()
        chosen = self.resolving_spec or ResolvingSpec()
        return chosen.make_bot(f"re-solving ({chosen.mode}, from round {chosen.from_round})",
                               blueprint.rules, blueprint)

    def bot(self) -> HoldemPolicy:
        """The bot this spec names: the re-solving bot, or the blueprint alone."""
        return self.blueprint() if self.resolving_spec is None else self.resolving()

    def describe(self) -> str:
        what = ("the blueprint" if self.resolving_spec is None else
                f"re-solving from round {self.resolving_spec.from_round}")
        return f"{what} of {self.store or 'the default store'}"

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
                ) -> tuple[FloatArray, FloatArray, dict[int, list[float]]]:
    """`spec`'s bot against its blueprint (or against `against`'s bot) on `deals` deal pairs
    from `seed`: per pair, the bot's mean winnings in chips, as won and with the luck taken
    out; and its decisions' seconds per round."""
    game = spec.member()
    blueprint: HoldemPolicy = spec.blueprint() if against is None else against.bot()
    rules = game.definition
    dealt = deal(rules, deals, seed)
    uniforms = decision_uniforms(rules, deals, np.random.default_rng([seed, 1]))
    equities = round_equities(rules, dealt.holes, dealt.boards, np.random.default_rng([seed, 3]))
    # A fresh bot for each order of the seats: the second game of a deal does not reuse the
    # first one's re-solves, so the times are those of a new hand.
    bots = (TimedPolicy(spec.bot()), TimedPolicy(spec.bot()))
    won, adjusted = duplicate_pairs(game, bots[0], blueprint, dealt, uniforms, equities,
                                    second_first=bots[1])
    seconds = {r: bots[0].seconds.get(r, []) + bots[1].seconds.get(r, [])
               for r in {*bots[0].seconds, *bots[1].seconds}}
    return won, adjusted, seconds


LBR_OF = {"bot": "the bot measured", "resolving": "the bot measured (an older name)",
          "blueprint": "its blueprint alone", "against": "the bot it plays against"}
"""What `evaluate` can measure by LBR."""


def lbr_chunk(spec: BotSpec, which: str, deals: int, seed: int,
              against: BotSpec | None = None) -> Played:
    """LBR's hands against the `which` bot (a key of `LBR_OF`), each deal with LBR in each
    seat."""
    game = spec.member()
    policy: HoldemPolicy = (spec.blueprint() if which == "blueprint" else
                            against.bot() if which == "against" and against is not None else
                            spec.bot())
    lbr = LocalBestResponse(game, policy)
    return lbr.deals(deal(game.definition, deals, seed), np.random.default_rng([seed, 2]),
                     luck_rng=np.random.default_rng([seed, 3]))


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def _wait(futures: list[Any], sizes: list[int]) -> None:
    """A progress bar over Dask `futures` (each `sizes` deal pairs) until all are done."""
    from distributed import as_completed  # heavy (a second): only on a real cluster

    pairs = {future.key: n for future, n in zip(futures, sizes, strict=True)}
    with progress_bar(total=sum(sizes), desc="deal pairs", unit="pair", file=sys.stderr,
                      mininterval=2.0) as bar:
        for future in as_completed(futures):
            bar.update(pairs[future.key])


def evaluate(spec: BotSpec, deals: int, lbr_deals: int, client: Any, chunk: int = 50,
             seed: int = 0, lbr_of: Sequence[str] = ("resolving",),
             against: BotSpec | None = None, progress: bool = False,
             keep_hands: bool = False) -> dict[str, object]:
    """The duplicate match of `spec`'s bot (against its blueprint, or against `against`'s
    bot), LBR against each of `lbr_of` (keys of `LBR_OF`), and the per-round decision
    times; with `progress` a bar over the deal pairs as the Dask tasks finish; with
    `keep_hands` each LBR entry keeps its `Played` under ``hands`` (for a later look)."""
    unknown = sorted(set(lbr_of) - set(LBR_OF))
    if unknown or ("against" in lbr_of and against is None):
        raise ValueError(f"LBR measures {', '.join(LBR_OF)} ('against' with a bot to play "
                         f"against), not {', '.join(unknown) or 'against'}")
    game = spec.member()
    scale = mbb(game.definition)
    chosen = spec.resolving_spec
    report: dict[str, object] = {"game": spec.game, "bot": spec.describe(),
                                 "against": "its blueprint" if against is None else
                                 against.describe()}
    if chosen is not None:
        report.update({"from_round": chosen.from_round, "mode": chosen.mode,
                       "iterations": chosen.iterations, "turn_iterations": chosen.turn,
                       "turn_sample": chosen.sample, "turn_warm": chosen.warm,
                       "turn_guard": chosen.guard})
    started = time.perf_counter()
    base = seed * 1_000_003
    futures = [client.submit(match_chunk, spec, n, base + i, against, pure=False)
               for i, n in enumerate(_chunks(deals, chunk))]
    lbr_futures = {which: [client.submit(lbr_chunk, spec, which, n, base + 7_919 + i,
                                         against, pure=False)
                           for i, n in enumerate(_chunks(lbr_deals, chunk))]
                   for which in (lbr_of if lbr_deals else ())}
    if progress:
        _wait(futures + [f for chunks in lbr_futures.values() for f in chunks],
              _chunks(deals, chunk) + _chunks(lbr_deals, chunk) * len(lbr_futures))
    if deals:
        results = client.gather(futures)
        estimate = Estimate.of(np.concatenate([r[0] for r in results]), scale)
        match_adjusted = Estimate.of(np.concatenate([r[1] for r in results]), scale)
        seconds: dict[int, list[float]] = {}
        for _, _, timed in results:
            for r, values in timed.items():
                seconds.setdefault(r, []).extend(values)
        report["match"] = {"mbb_per_hand": estimate.mean, "ci95": estimate.half_width,
                           "deals": deals, "adjusted_mbb_per_hand": match_adjusted.mean,
                           "adjusted_ci95": match_adjusted.half_width}
        report["decision_seconds"] = {
            str(r + 1): {"decisions": len(v), "p50": float(np.percentile(v, 50)),
                         "p95": float(np.percentile(v, 95)), "max": float(np.max(v))}
            for r, v in sorted(seconds.items())}
    for which, chunks in lbr_futures.items():
        gathered: list[Played] = client.gather(chunks)
        won = np.concatenate([p.won for p in gathered])
        adjusted = np.concatenate([p.adjusted for p in gathered])
        endings = np.concatenate([p.endings for p in gathered])
        estimate = Estimate.of(won.mean(axis=1), scale)
        luckless = Estimate.of(adjusted.mean(axis=1), scale)
        entry: dict[str, object] = {"mbb_per_hand": estimate.mean, "ci95": estimate.half_width,
                                    "seat0": float(won[:, 0].mean() * scale),
                                    "seat1": float(won[:, 1].mean() * scale),
                                    "adjusted_mbb_per_hand": luckless.mean,
                                    "adjusted_ci95": luckless.half_width,
                                    "adjusted_seat0": float(adjusted[:, 0].mean() * scale),
                                    "adjusted_seat1": float(adjusted[:, 1].mean() * scale),
                                    "deals": len(won),
                                    "where": where_won(won, endings, scale)}
        if keep_hands:
            entry["hands"] = Played(won, adjusted, endings)
        report[f"lbr_{which}"] = entry
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.resolving.measure",
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
