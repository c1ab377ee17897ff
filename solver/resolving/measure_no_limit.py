"""Re-solving in no-limit betting judged exactly: a small member's blueprint solved in a bet
abstraction, played in the real game (every size legal) by action translation alone, then by
re-solving from a round on, each profile measured by exact best response.

This is the no-limit row of Libratus's safety table (Brown & Sandholm 2017, Table 1) on a
member whose whole real tree compiles.  The blueprint's cards are lossless, so what it loses
in the real game comes from its few bet sizes and the translation of every other one.  The
re-solving bot (`solver.resolving.continual.assemble`) plays the translated blueprint before
the round it starts in, then re-solves at each of its decisions with the actual betting of the
hand in the subgame, every size legal for both seats below it: an opponent's bet outside the
abstraction is answered by a re-solve that contains it, and the opponent's counterfactual
values carried from the previous re-solve (from the translated blueprint at the first) are what
the safe gadgets hold them to.  The opponent's bets in the rounds before stay translated.

Then the bot the 200-big-blind game plays (`solver.resolving.no_limit_bot`): the last round
re-solved with the blueprint's sizes below the actual bet, its rows measured the same way.

``python -m solver.resolving.measure_no_limit`` prints the table for the member the tests
share (hold'em mini's cards, 8-chip stacks, sizes half pot, pot and all-in).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.bot import strategy_table
from solver.abstractions.holdem.percentiles import PercentileSpec
from solver.abstractions.holdem.sampled_cfr import SampledSetup, Solver, run
from solver.abstractions.holdem.translated import Translated, TranslatedPolicy
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.evaluation.holdem.duplicate import mbb
from solver.evaluation.holdem.policy import require_small, strategy_of
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.resolving.measure_exactly import Row, add_resolving_options, table
from solver.resolving.no_limit_bot import SAFE_MODES, NoLimitResolvingBot
from solver.resolving.resolve import MODES

FloatArray = NDArray[np.float64]

MEMBER = "holdem(betting=nolimit,numRanks=4,numSuits=2,numBoardCards=0 1,blind=2 1,stack=8 8)"
SIZES = "0.5p p a"


@dataclass(frozen=True, slots=True)
class Blueprint:
    """A blueprint of a no-limit member and where it is judged: the member's compiled tree
    with the translated blueprint's strategy in it, and its exploitability in its own abstract
    game (what it would be worth if no one bet another size)."""

    real: HoldemGame
    policy: TranslatedPolicy
    tree: PublicTree
    strategy: FloatArray
    abstract_exploitability: float


def _translated(game: HoldemGame, descriptor: str, solver: Solver) -> TranslatedPolicy:
    translated = abstraction_for(game, descriptor)
    assert isinstance(translated, Translated)
    return TranslatedPolicy("blueprint", translated, strategy_table(solver))


def blueprint(member: str = MEMBER, sizes: str = SIZES, *, iterations_per_epoch: int = 400,
              epochs: int = 25, seed: int = 3) -> Blueprint:
    """`member`'s blueprint in the bet abstraction `sizes` (`solver.games.holdem.bet_sizes`),
    solved by public chance sampling with every card class apart."""
    real = get_game(member)
    if not isinstance(real, HoldemGame) or not real.definition.no_limit:
        raise ValueError(f"{member} is not a no-limit member of the hold'em family")
    require_small(real)
    rounds = real.definition.num_rounds
    setup = SampledSetup(member, PercentileSpec((None,) * (rounds - 1)), iterations_per_epoch,
                         seed=seed, betting=sizes)
    solver = Solver(setup)
    run(solver, epochs)
    tree = compile_game(real)
    policy = _translated(real, setup.descriptor, solver)
    strategy = strategy_of(real, tree, [policy])
    abstract = get_game(setup.rules.spec)
    assert isinstance(abstract, HoldemGame)
    own_tree = compile_game(abstract)
    own = strategy_of(abstract, own_tree, [_translated(abstract, setup.descriptor, solver)])
    return Blueprint(real, policy, tree, strategy,
                     evaluate_strategy(own_tree, own).exploitability)


def no_limit_table(made: Blueprint, from_round: int, iterations: int,
                   modes: Sequence[str] = MODES) -> list[Row]:
    """The blueprint in its own game, translation alone in the real game, then one row per
    re-solving mode (`solver.resolving.measure_exactly.table`)."""
    rows = table(made.tree, made.strategy, from_round, iterations, modes)
    alone = rows[0]
    own = Row("blueprint in its own game", alone.value, made.abstract_exploitability, 0, 0.0,
              np.nan)
    return [own, Row("translation alone", alone.value, alone.exploitability, 0, 0.0, np.nan),
            *rows[1:]]


def bot_rows(made: Blueprint, iterations: int, modes: Sequence[str] = SAFE_MODES) -> list[Row]:
    """One row per safe mode of the bot the 200-big-blind game plays
    (`solver.resolving.no_limit_bot`): the last round re-solved with the blueprint's sizes
    below the actual bet, both seats so played."""
    rows = []
    for mode in modes:
        started = time.perf_counter()
        bot = NoLimitResolvingBot("re-solving", made.policy, mode, iterations, keep=1 << 30)
        evaluation = evaluate_strategy(made.tree, strategy_of(made.real, made.tree, [bot]))
        rows.append(Row(f"the bot, {mode}", evaluation.value, evaluation.exploitability,
                        len(bot.kept()), time.perf_counter() - started, np.nan))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m solver.resolving.measure_no_limit",
        description="a small no-limit member's blueprint, played by translation and by "
                    "re-solving, judged exactly")
    parser.add_argument("member", nargs="?", default=MEMBER,
                        help="a no-limit member whose whole tree compiles")
    parser.add_argument("--sizes", default=SIZES,
                        help="the blueprint's bet sizes (default %(default)r)")
    parser.add_argument("--iterations-per-epoch", type=int, default=400)
    parser.add_argument("--epochs", type=int, default=25)
    add_resolving_options(parser)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        made = blueprint(args.member, args.sizes, iterations_per_epoch=args.iterations_per_epoch,
                         epochs=args.epochs)
    except ValueError as error:
        parser.error(str(error))
    rounds = made.real.definition.num_rounds
    if not 2 <= args.from_round <= rounds:
        parser.error(f"the member has rounds 1 to {rounds}: re-solving starts in 2 to {rounds}")
    scale = mbb(made.real.definition)
    print(f"{args.member}: blueprint in sizes {args.sizes!r} "
          f"({time.perf_counter() - started:.1f} s); re-solving from round {args.from_round}, "
          f"{args.iterations} CFR+ iterations a re-solve", file=sys.stderr)
    print("| profile | value (chips) | exploitability (mbb/hand) | re-solves | seconds "
          "| smallest margin |")
    print("|---|---|---|---|---|---|")
    modes = tuple(m for m in args.modes.split(",") if m)
    bot_modes = tuple(m for m in modes if m in SAFE_MODES)
    for row in (no_limit_table(made, args.from_round - 1, args.iterations, modes)
                + bot_rows(made, args.iterations, bot_modes)):
        print(f"| {row.mode} | {row.value:+.5f} | {scale * row.exploitability:.1f} "
              f"| {row.resolves:,} | {row.seconds:.1f} | {row.smallest_margin:.1e} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
