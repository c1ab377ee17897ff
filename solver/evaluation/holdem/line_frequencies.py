"""How a bot's range acts along one line of betting: at each decision of the line, the share of
the acting player's hands (reached by the line so far, weighted by the probability of playing
it) that folds, calls or raises, averaged over boards.

LBR says where it wins (`solver.evaluation.holdem.lbr`); this says why, from the strategy
itself and without an opponent's noise: how often the big blind, having called a raise and
checked the flop, folds to a bet is the last step of ``rc/cr``, exact for the boards given.

``python -m solver.evaluation.holdem.line_frequencies --store PATH --line rc/cr --boards 300``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.bot import HulheBot
from solver.evaluation.holdem.duplicate import deal
from solver.games.holdem.betting import ACTION_CHARS, Betting
from solver.games.holdem.policy import ACTIONS, HoldemPolicy, hole_combos
from solver.games.holdem.rules import HoldemRules

# Registers the re-solving bot's descriptor, which a store's latest solve may be.
from solver.resolving import kind  # noqa: F401

__all__ = ["Step", "add_board_sample_arguments", "line_frequencies", "parse_line"]


@dataclass(frozen=True, slots=True)
class Step:
    """One decision of the line: who acts, the betting before it, the action the line takes
    there (empty at the decision after the line), and the acting player's range's shares of
    fold, call and raise (summing to 1 over the legal ones), each hand weighted by the deals
    that reach this point with it."""

    player: int
    betting: str
    action: str
    fold: float
    call: float
    raise_: float


def parse_line(rules: HoldemRules, line: str) -> tuple[list[Betting], list[int]]:
    """The betting before each action of `line` (ACPC's ``f``/``c``/``r``, rounds apart by
    ``/``), then the betting after the last, and the actions; ValueError naming the legal
    actions where the line breaks the rules."""
    bettings, actions = [Betting.start(rules)], []
    for char in line.replace("/", ""):
        if char not in ACTION_CHARS:
            raise ValueError(f"line {line!r}: {char!r} is not one of f, c, r or /")
        actions.append(ACTION_CHARS.index(char))
        bettings.append(bettings[-1].apply(actions[-1]))
    return bettings, actions


def line_frequencies(policy: HoldemPolicy, rules: HoldemRules, line: str,
                     boards: NDArray[np.int64]) -> list[Step]:
    """Each decision of `line`, and the one after it unless the hand is over, with its acting
    range's shares of the actions over `boards` (whole boards; on each, every pair of hands
    that misses it is dealt with equal chance, so the shares are those of the deals that reach
    the step)."""
    bettings, actions = parse_line(rules, line)
    if not actions:
        raise ValueError("the line is empty: name at least one action")
    decisions = bettings if not bettings[-1].over else bettings[:-1]
    combos = hole_combos(rules)
    sums = np.zeros((len(decisions), ACTIONS))
    for board in np.asarray(boards, np.int64).reshape(len(boards), -1):
        hands = combos[~np.isin(combos, board).any(axis=1)]
        holding = np.zeros((len(hands), rules.num_cards))
        np.put_along_axis(holding, hands, 1.0, axis=1)
        apart = (holding @ holding.T) == 0  # the two hands share no card
        reach = [np.ones(len(hands)), np.ones(len(hands))]
        for i, betting in enumerate(decisions):
            p = betting.player
            shown = tuple(int(c) for c in board[:rules.board_dealt(betting.round)])
            probs = policy.action_probabilities(betting, shown, hands)
            # A hand's weight is the deals that reach here with it: the opponent's reach
            # over the hands it can hold beside it.
            sums[i] += (reach[p] * (apart @ reach[1 - p])) @ probs
            if i < len(actions):
                reach[p] = reach[p] * probs[:, actions[i]]
    steps = []
    for i, betting in enumerate(decisions):
        total = sums[i].sum()
        shares = sums[i] / total if total > 0 else np.full(ACTIONS, np.nan)
        taken = ACTION_CHARS[actions[i]] if i < len(actions) else ""
        steps.append(Step(betting.player, betting.acpc(), taken,
                          float(shares[0]), float(shares[1]), float(shares[2])))
    return steps


def add_board_sample_arguments(parser: argparse.ArgumentParser, *, line: str, boards: int,
                               what: str, default_line: str | None = None) -> None:
    """The options every board-sampling look at one betting line shares."""
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--store", help="the strategy store (default: the project's)")
    if default_line is None:
        parser.add_argument("--line", required=True, help=line)
    else:
        parser.add_argument("--line", default=default_line,
                            help=f"{line} (default {default_line})")
    parser.add_argument("--boards", type=int, default=boards,
                        help=f"{what} sampled (default {boards})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.evaluation.holdem.line_frequencies",
                                     description=__doc__.split("\n\n")[0])
    add_board_sample_arguments(parser, line="ACPC betting, e.g. rc/cr", boards=300, what="boards")
    args = parser.parse_args(argv)
    try:
        bot = HulheBot.from_store(args.game, args.store)
        boards = deal(bot.rules, args.boards, args.seed).boards
        steps = line_frequencies(bot, bot.rules, args.line, boards)
    except ValueError as exc:
        parser.error(str(exc))
    if args.json:
        json.dump({"bot": bot.name, "line": args.line, "boards": args.boards,
                   "seed": args.seed, "steps": [asdict(s) for s in steps]}, sys.stdout,
                  indent=1)
        print()
        return 0
    print(f"{bot.name}: the line {args.line!r} over {args.boards} boards (seed {args.seed})")
    print(f"{'seat':>4}  {'betting':<10} {'fold':>6} {'call':>6} {'raise':>6}  then")
    for s in steps:
        print(f"{s.player:>4}  {s.betting or '(start)':<10} {s.fold:>6.1%} {s.call:>6.1%} "
              f"{s.raise_:>6.1%}  {s.action or '?'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
