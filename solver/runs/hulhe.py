"""The heads-up limit hold'em bot's build (``python -m solver hulhe``): chance-sampled CFR in
its bucket abstraction (`solver.abstractions.holdem.sampled_cfr`) for so many epochs or minutes,
in this process or on Dask, checkpointed; then its value in the real game estimated by
self-play (`solver.evaluation.holdem.duplicate`), and the strategy stored as tables."""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from solver.abstractions.holdem.bot import HulheBot, strategy_table
from solver.abstractions.holdem.sampled_cfr import SampledSetup, Solver, run, worker_count
from solver.engine.progress import phase, progress_bar
from solver.evaluation.holdem.duplicate import mbb, self_play
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy
from solver.runs.store_solve import SolveRecord, StorePath, store_solve
from strategies import TracePoint
from strategies.tables import TableStrategy


@dataclass(frozen=True, slots=True)
class BuildResult:
    solve_id: int
    iterations: int
    epochs: int
    solver_seconds: float
    wall_seconds: float
    infosets: int
    workers: int
    value: float
    value_ci95: float | None


SELF_PLAY_DEALS = 20_000
"""Deals of self-play (each also with the hands exchanged) that estimate a build's value."""


def build(setup: SampledSetup, *, minutes: float | None, epochs: int | None, store_path: StorePath,
          client: Any = None, checkpoint: Path | None = None, progress: bool = True,
          checkpoint_seconds: float = 300.0, self_play_deals: int = SELF_PLAY_DEALS
          ) -> BuildResult:
    """Solve (resuming from `checkpoint` if it holds this setup), for `epochs` epochs or
    `minutes` of wall time, whichever comes first, then store the strategy with its value
    in the real game estimated by `self_play_deals` deals of self-play (0: the sampled value
    of the last epochs, without an interval)."""

    started = time.perf_counter()
    solver = Solver(setup)
    if checkpoint is not None and solver.load_checkpoint(checkpoint):
        print(f"resuming from {checkpoint}: {solver.epochs} epochs, {solver.iterations:,} "
              "iterations", file=sys.stderr)
    workers = worker_count(client) if client is not None else 1
    deadline = time.monotonic() + 60 * minutes if minutes is not None else None
    target = epochs if epochs is not None else 1 << 40
    # A run of so many epochs counts iterations; a run against the clock counts its seconds,
    # so that the bar (and the lobby, which reads it) can tell how far it has come.
    by_time = epochs is None and minutes is not None
    total = (round(60 * minutes) if by_time and minutes is not None else
             target * setup.iterations_per_epoch if epochs is not None else None)
    clock = time.monotonic()
    phase("solving")
    with progress_bar(total=total, initial=0 if by_time else solver.iterations,
                      unit="s" if by_time else "it", unit_scale=not by_time,
                      desc=f"solving {setup.game} ({setup.descriptor}{setup.against})",
                      disable=not progress, file=sys.stderr, mininterval=0.5) as bar:
        seconds_shown = 0  # kept here: a disabled bar (--quiet) counts nothing itself

        def done(s: Solver) -> None:
            nonlocal seconds_shown
            bar.set_postfix_str(f"epoch {s.epochs}, {s.iterations:,} iterations, value "
                                f"{s.values[-1]:+.3f}", refresh=False)
            if by_time:
                now = min(total or 0, int(time.monotonic() - clock))
                bar.update(max(0, now - seconds_shown))
                seconds_shown = max(seconds_shown, now)
            else:
                bar.update(setup.iterations_per_epoch)

        run(solver, target, checkpoint=checkpoint, checkpoint_seconds=checkpoint_seconds,
            client=client, workers=workers, on_epoch=done, deadline=deadline)
    recent = solver.values[-10:]
    value = float(np.mean(recent)) if recent else 0.0
    ci95 = None
    bot = HulheBot.from_solver(solver)  # the tables stored are the tables played
    if self_play_deals > 1:
        phase("self-play")
        value, ci95 = self_play_value(solver.setup, bot, self_play_deals, progress=progress)
    phase("storing")
    solve_id = store_table_solve(solver, store_path, seconds=solver.seconds, value=value,
                           value_ci95=ci95, table=bot.table)
    return BuildResult(solve_id, solver.iterations, solver.epochs, solver.seconds,
                       time.perf_counter() - started, solver.layout.infosets, workers, value,
                       ci95)



def self_play_value(setup: SampledSetup, bot: HoldemPolicy, deals: int, *, progress: bool = False
                    ) -> tuple[float, float]:
    """Seat 0's value in the real game, in chips, when both seats play the solve's average
    strategy, and the half-width of its 95% interval: the value the app shows for a game whose
    exact value is unknown. A no-limit blueprint plays its own sizes in the game it was solved
    in, which is what it does in the real game against itself (translation reads each of its
    sizes as itself)."""
    estimate = self_play(HoldemGame(setup.rules), bot, deals, seed=setup.seed,
                         progress=progress).estimate
    per_chip = mbb(setup.rules)
    return estimate.mean / per_chip, estimate.half_width / per_chip


def store_table_solve(solver: Solver, store_path: StorePath, *, seconds: float,
                value: float, value_ci95: float | None = None,
                table: TableStrategy | None = None) -> int:
    """Save the solve under its game with the abstraction's descriptor; its id.  Its
    exploitability in the real game is unknown (stored as infinity, as dudo-match does);
    `value` is player 0's value estimated by self-play, `value_ci95` the half-width of its
    95% interval (None: the sampled value of the last epochs, without an interval)."""
    table = table if table is not None else strategy_table(solver)
    per_epoch = solver.setup.iterations_per_epoch
    trace = [TracePoint((i + 1) * per_epoch, 0.0, math.inf, v)
             for i, v in enumerate(solver.values)]
    info, _ = store_solve(SolveRecord(
        game=solver.setup.game, algorithm=solver.setup.stored_algorithm,
        iterations=solver.iterations,
        seconds=seconds, exploitability=math.inf, value=value, trace=trace[-200:],
        abstraction=solver.setup.descriptor, table=table, value_ci95=value_ci95),
        store_path)
    return info.id
