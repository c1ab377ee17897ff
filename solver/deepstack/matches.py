"""The DeepStack bot's duplicate matches in the lobby's no-limit Leduc, against the exact
equilibrium and every other opponent the store holds for the game, beside the equilibrium's own
matches against the same opponents; each with its exact expectation, which the interval of the
sampled match should cover.

    python -m solver.deepstack.matches --store S [--deals 20000] [--seed 0]

Every bot here is a stored strategy of the whole game (the DeepStack bot's assembled at build
time, `solver.deepstack.lobby_bot`), so a match is also judged exactly: what the first wins a
hand, seats alternating, when both play their strategies.  Figures in milli-antes a hand.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from solver.algorithms.exploitability import evaluate_strategy
from solver.deepstack.assembly import judge_profile
from solver.deepstack.lobby_bot import GAME_NAME
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.evaluation.holdem.duplicate import duplicate_match
from solver.evaluation.holdem.policy import SparseTabularPolicy
from solver.evaluation.stored import stored_strategy_array
from solver.games import get_game
from solver.games.holdem.game import HoldemGame
from solver.games.opponents import DEEPSTACK
from strategies import StoreError, StrategyStore

FloatArray = NDArray[np.float64]

__all__ = ["expected", "main"]


def expected(tree: PublicTree, first: FloatArray, second: FloatArray) -> float:
    """What `first` wins a hand against `second`, seats alternating, exactly (antes)."""
    game = get_game(GAME_NAME)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    in_seat_0 = evaluate_strategy(tree, judge_profile(first, second, rules)).value
    in_seat_1 = -evaluate_strategy(tree, judge_profile(second, first, rules)).value
    return (in_seat_0 + in_seat_1) / 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--deals", type=int, default=20_000, help="deal pairs a match")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = get_game(GAME_NAME)
    assert isinstance(game, HoldemGame)
    tree = compile_game(game)
    try:
        with StrategyStore.open(args.store) as store:
            others = {o.opponent: stored_strategy_array(store, game, o.id)[1]
                      for o in store.opponents(GAME_NAME)}
            equilibrium = stored_strategy_array(store, game)[1]
    except StoreError as error:
        parser.error(str(error))
    if DEEPSTACK.name not in others:
        parser.error(f"{args.store} holds no {DEEPSTACK.name} opponent of {GAME_NAME}: build "
                     f"it with python -m solver deepstack")
    bots = {"equilibrium": equilibrium, DEEPSTACK.name: others.pop(DEEPSTACK.name)}
    print("| bot | against | exact | as played | luck taken out |")
    print("|---|---|---|---|---|")
    for against, strategy in {"equilibrium": bots["equilibrium"], **others}.items():
        for name in (DEEPSTACK.name, "equilibrium"):
            if name == against:
                continue
            first = SparseTabularPolicy.from_strategy(game, tree, bots[name], name)
            second = SparseTabularPolicy.from_strategy(game, tree, strategy, against)
            result = duplicate_match(game, first, second, args.deals, seed=args.seed)
            exact = 1000 * expected(tree, bots[name], strategy)
            print(f"| {name} | {against} | {exact:+.1f} | {result.estimate} | "
                  f"{result.adjusted} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
