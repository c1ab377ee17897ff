"""Storing a solve made in an abstraction (the ``recall`` and ``buckets`` commands): its rows
are the abstract information sets, under the descriptor the app's bot turns back into the
mapping (`solver.abstractions.abstraction_for`)."""

from __future__ import annotations

import math

from solver.abstractions.dudo_recall.solve import RecallSolve
from solver.abstractions.holdem.bucket_solve import BucketSolve
from solver.engine.progress import phase
from solver.runs.store_solve import SolveRecord, StorePath, store_solve
from strategies import InfosetStrategy


def store_recall(solved: RecallSolve, algorithm: str, store_path: StorePath = None) -> int:
    """Save an abstract solve under its game with the descriptor ``recall=M``; its id.  The
    stored exploitability is the real game's, or infinity where it could not be measured."""
    phase("storing")
    rows = [InfosetStrategy(*row) for row in solved.graph.infoset_rows(solved.strategy)]
    info, _ = store_solve(SolveRecord(
        game=solved.game, algorithm=f"{algorithm}+fsicfr", iterations=solved.iterations,
        seconds=solved.seconds,
        exploitability=math.inf if solved.exploitability is None else solved.exploitability,
        value=solved.value if solved.real_value is None else solved.real_value,
        strategy=rows, abstraction=f"recall={solved.graph.memory}"), store_path)
    return info.id


def store_buckets(solved: BucketSolve, store_path: StorePath = None) -> int:
    """Save an abstract solve under its game with its descriptor (``buckets=...``), so the
    app's bot plays it through `solver.abstractions`; its id.  Value and exploitability are the
    real game's."""
    a = solved.abstract
    rows = [InfosetStrategy(key, int(a.players[i]), a.labels[i],
                            tuple(float(x) for x in solved.strategy[a.offsets[i]:a.offsets[i + 1]]))
            for i, key in enumerate(a.keys)]
    info, _ = store_solve(SolveRecord(
        game=solved.game, algorithm=f"{solved.algorithm}+buckets", iterations=solved.iterations,
        seconds=solved.seconds, exploitability=solved.exploitability, value=solved.value,
        strategy=rows, abstraction=a.spec.descriptor), store_path)
    return info.id
