"""What a fold gives up: at a decision facing a bet on the flop, where calling closes the
round, what calling would earn each hand of the acting range against the other player's
range and its strategy after the call, next to what folding keeps.

`line_frequencies` says how often the big blind folds to a flop bet after ``rc/c``; that
alone cannot say whether those folds are mistakes. Here calling is valued in the real game,
card by card: for each turn card the turn and river are compiled in the turn re-solver's
layout (`solver.abstractions.holdem.turn_subgame`), the other player plays the policy's own
strategy there, and the caller either plays the policy too (what the bot would earn by
calling) or best-responds (what any calling hand could earn at most against that strategy).
If the folded hands would earn more by calling and then playing the bot's own turn and
river, the flop decision is wrong in the real game, whatever the later rounds' buckets do;
if even a best response after the call earns less than folding, the folds are right against
this opponent's bets, and what LBR wins there comes from betting more often than the bot's
own small blind does.

``python -m solver.evaluation.holdem.fold_values --store PATH --line rc/cr --boards 40``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

# resolving_kind registers the re-solving bot's descriptor, which a store's latest solve may be.
from solver.abstractions.holdem import resolving_kind  # noqa: F401
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.subgame import hand_cards
from solver.abstractions.holdem.turn_kernel import BEST_RESPONSE, EVALUATE, turn_pass
from solver.abstractions.holdem.turn_resolve import Buffers, blueprint_strategy, zero_entries
from solver.abstractions.holdem.turn_subgame import compile_turn
from solver.engine.progress import progress_bar
from solver.evaluation.holdem.duplicate import deal
from solver.evaluation.holdem.line_frequencies import parse_line
from solver.games.holdem.betting import CALL, FOLD, Betting
from solver.games.holdem.policy import HoldemPolicy, hole_combos
from solver.games.holdem.rules import HoldemRules

__all__ = ["CallValues", "FoldSummary", "call_values", "fold_summary"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True, eq=False)
class CallValues:
    """One flop's decision, per hand of the caller that misses the flop: `reach`, the deals
    that reach the decision with it (its own reach times the other's over the hands beside
    it); `fold`, its probability of folding; and, in chips won over the whole hand (blinds
    included) per deal reaching the decision, `if_folded` (what it has put in, lost),
    `as_played` (calling, then the policy's own play) and `best` (calling, then a best
    response to the other's strategy). Hands no deal reaches have value 0."""

    hands: IntArray
    reach: FloatArray
    fold: FloatArray
    if_folded: float
    as_played: FloatArray
    best: FloatArray


def _decision(rules: HoldemRules, line: str) -> tuple[list[Betting], list[int], Betting]:
    bettings, actions = parse_line(rules, line)
    at = bettings[-1]
    if rules.num_rounds < 3 or rules.hole_cards != 2 or rules.board_cards[-1] != 1:
        raise ValueError(f"{rules.spec} has no flop before a turn and a one-card river")
    if at.over or not at.facing or at.round != rules.num_rounds - 3:
        raise ValueError(f"after {line!r} no one faces a bet on the flop (round "
                         f"{rules.num_rounds - 2}): name a line that ends in a flop bet")
    after = at.apply(CALL)
    if after.over or after.round != rules.num_rounds - 2:
        raise ValueError(f"calling after {line!r} does not close the flop")
    return bettings, actions, at


def call_values(policy: HoldemPolicy, rules: HoldemRules, line: str,
                flop: tuple[int, ...]) -> CallValues:
    """The values of calling at the decision after `line` (which must face a bet on the flop)
    on `flop`, every turn card in turn (see the module docstring)."""
    bettings, actions, at = _decision(rules, line)
    if len(flop) != rules.board_dealt(at.round):
        raise ValueError(f"the flop of {rules.spec} is {rules.board_dealt(at.round)} cards")
    me, other = at.player, 1 - at.player
    combos = hole_combos(rules)
    hands = combos[~np.isin(combos, flop).any(axis=1)]
    reach = np.ones((2, len(hands)))
    for betting, action in zip(bettings[:-1], actions, strict=True):
        shown = flop[:rules.board_dealt(betting.round)]
        reach[betting.player] *= policy.action_probabilities(betting, shown, hands)[:, action]
    fold = policy.action_probabilities(at, flop, hands)[:, FOLD]
    holding = np.zeros((len(hands), rules.num_cards))
    np.put_along_axis(holding, hands, 1.0, axis=1)
    facing = ((holding @ holding.T) == 0) @ reach[other]  # the other's reach beside each hand

    row_of = {tuple(h): i for i, h in enumerate(hands.tolist())}
    ids = hand_cards(rules)
    played = np.zeros(len(hands))
    best = np.zeros(len(hands))
    turns = [c for c in range(rules.num_cards) if c not in flop]
    after = at.apply(CALL)
    for card in turns:
        sub = compile_turn(rules, after, tuple(flop) + (card,), ids)
        rows = np.array([row_of[tuple(h)] for h in sub.arrays.hands.tolist()], np.int64)
        buffers = Buffers(sub)
        strategy = buffers.strategy
        blueprint_strategy(sub, other, policy, strategy)
        zero_entries(sub, me, strategy)
        mine = buffers.average  # scratch: EVALUATE and BEST_RESPONSE never read the average
        blueprint_strategy(sub, me, policy, mine)
        zero_entries(sub, other, mine)
        strategy += mine
        roots = np.ones((2, len(rows)))
        roots[other] = reach[other, rows]
        for mode, out in ((EVALUATE, played), (BEST_RESPONSE, best)):
            turn_pass(sub.arrays, me, mode, strategy, buffers.regrets, buffers.average, roots,
                      buffers.t_reach, buffers.t_values, buffers.lanes, 1.0, 1.0, False,
                      1.0, 0.0, buffers.none, buffers.no_out, buffers.every, 1.0)
            out[rows] += buffers.t_values[0]
    # Each turn card has the same chance given both hands: one of those the four miss.
    dealt = 1.0 / (rules.num_cards - len(flop) - 2 * rules.hole_cards)
    scale = np.divide(dealt, facing, out=np.zeros(len(hands)), where=facing > 0)
    return CallValues(hands, reach[me] * facing, fold, -float(at.spent[me]),
                      played * scale, best * scale)


@dataclass(frozen=True, slots=True)
class FoldSummary:
    """Over boards, the deals reaching the decision weighted alike: the share folded; of the
    folded deals, the shares where calling earns more than folding, as the policy plays on
    and against a best response after the call; and the chips a reaching deal gives up by
    those folds (folding probability times what calling would gain, where it gains)."""

    line: str
    boards: int
    folded: float
    gaining_as_played: float
    gaining_best: float
    given_up_as_played: float
    given_up_best: float


def fold_summary(values: Sequence[CallValues], line: str) -> FoldSummary:
    """`values` (one per board) summed over their reaching deals."""
    reached = sum(float(v.reach.sum()) for v in values)
    folded = [v.reach * v.fold for v in values]
    total = sum(float(f.sum()) for f in folded)

    def share(gain: str) -> float:
        return sum(float(f[getattr(v, gain) > v.if_folded].sum())
                   for f, v in zip(folded, values, strict=True)) / total

    def given_up(gain: str) -> float:
        return sum(float(f @ np.maximum(getattr(v, gain) - v.if_folded, 0.0))
                   for f, v in zip(folded, values, strict=True)) / reached

    return FoldSummary(line, len(values), total / reached, share("as_played"), share("best"),
                       given_up("as_played"), given_up("best"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.evaluation.holdem.fold_values",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--store", help="the strategy store (default: the project's)")
    parser.add_argument("--line", default="rc/cr",
                        help="ACPC betting ending in a flop bet (default rc/cr)")
    parser.add_argument("--boards", type=int, default=40, help="flops sampled (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    try:
        bot = HulheBot.from_store(args.game, args.store)
        rules = bot.rules
        _decision(rules, args.line)
        flops = deal(rules, args.boards, args.seed).boards[:, :rules.board_dealt(
            rules.num_rounds - 3)]
    except ValueError as exc:
        parser.error(str(exc))
    values = [call_values(bot, rules, args.line, tuple(int(c) for c in flop))
              for flop in progress_bar(flops.tolist(), desc="flops", unit="flop")]
    summary = fold_summary(values, args.line)
    if args.json:
        json.dump({"bot": bot.name, "seed": args.seed, "big_blind": max(rules.blinds),
                   **asdict(summary)}, sys.stdout, indent=1)
        print()
        return 0
    bb = max(rules.blinds) / 1000  # chips to milli-big-blinds
    print(f"{bot.name}: facing the bet after {args.line!r}, {summary.boards} flops "
          f"(seed {args.seed})")
    print(f"  folds {summary.folded:.1%} of the deals reaching it")
    print(f"  of those folds, calling earns more: {summary.gaining_as_played:.1%} playing on as "
          f"the bot does, {summary.gaining_best:.1%} best-responding")
    print(f"  given up by folding, per deal reaching it: {summary.given_up_as_played / bb:.0f}"
          f" mbb as the bot plays on, {summary.given_up_best / bb:.0f} best-responding")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
