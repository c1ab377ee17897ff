"""What an abstraction costs, measured exactly in the real game: the tables of docs/games/.

* `recall_cost`: Dudo remembering 1, 2, ... bids, each abstract strategy's exploitability in the
  real game (``python -m solver recall-cost``);
* `bucket_cost`: a hold'em member solved exactly and in each bucket abstraction, the same
  iterations each (``python -m solver bucket-cost``).

Each yields one row per measurement as soon as it is made (the CLI prints it at once: a row can
take minutes), and checks the real game's memory estimate before it builds its tree.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from solver.abstractions.dudo_recall.solve import solve_recall
from solver.abstractions.holdem.bucket_solve import solve_buckets
from solver.abstractions.holdem.buckets import BucketSpec
from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.solve import memory_estimate
from solver.engine.compile import compile_game
from solver.engine.memory import check
from solver.games import get_game
from solver.games.holdem.game import HoldemGame

Row = dict[str, object]


def recall_cost(games: Sequence[str], memories: Sequence[int], iterations: int,
                algorithm: str) -> Iterator[Row]:
    """Each Dudo game of `games` solved remembering each of `memories` bids, measured in the
    real game."""
    for name in games:
        game = get_game(name)
        check(memory_estimate(game))
        exact = compile_game(game)
        for memory in memories:
            solved = solve_recall(game, memory, iterations, algorithm)
            if solved.exploitability is None:
                raise ValueError(f"{name} is too big to measure in the real game")
            yield {"game": name, "memory": memory, "iterations": iterations,
                   "seconds": round(solved.seconds, 2),
                   "abstract_infosets": sum(len(k) for k in solved.graph.block_keys),
                   "real_infosets": exact.num_infosets, "real_value": solved.real_value,
                   "exploitability": solved.exploitability}


def bucket_spec(game: str, k: Sequence[str], recall: str) -> BucketSpec:
    """A `BucketSpec` of `game` from the command line: one k for every round after the first,
    or one per round."""
    holdem = get_game(game)
    if not isinstance(holdem, HoldemGame):
        raise ValueError(f"hand buckets are for the hold'em family, not {game!r}")
    later = holdem.definition.num_rounds - 1
    ks = list(k) * later if len(k) == 1 else list(k)
    return BucketSpec.parse(f"k:{','.join(ks)};recall={recall}")


def bucket_cost(game: str, ks: Sequence[str], recalls: Sequence[str], iterations: int,
                algorithm: str) -> Iterator[Row]:
    """`game` solved exactly, then in the bucket abstraction of every k of `ks` with every
    recall of `recalls`, `iterations` each; each strategy measured in the real game."""
    holdem = get_game(game)
    check(memory_estimate(holdem))
    tree = compile_game(holdem)

    def row(recall: str, k: str, infosets: int, value: float, exploitability: float,
            seconds: float) -> Row:
        return {"game": game, "recall": recall, "k": k, "iterations": iterations,
                "abstract_infosets": infosets, "real_value": value,
                "exploitability": exploitability, "seconds": round(seconds, 2)}

    started = time.perf_counter()
    exact = CFRSolver(tree, algorithm)
    exact.iterate(iterations)
    seconds = time.perf_counter() - started
    evaluation = evaluate_strategy(tree, exact.average_strategy())
    yield row("none (real game)", "-", tree.num_infosets, evaluation.value,
              evaluation.exploitability, seconds)
    for recall in recalls:
        for k in ks:
            spec = bucket_spec(game, [k], recall)
            solved = solve_buckets(holdem, spec, iterations, algorithm)
            yield row(recall, k, solved.abstract.num_infosets, solved.value,
                      solved.exploitability, solved.seconds)
