"""What each action at a flop decision earns, in the real game: for every hand of the acting
range, the value of folding, calling and raising against the other player's range and the
policy's own strategy after the action, the acting player then playing the policy too (what
the bot would earn), best-responding on the river alone, or best-responding on the turn and
the river (what any hand could earn at most against it).

`line_frequencies` says how often the big blind folds to a flop bet after ``rc/c``; that alone
cannot say whether those folds are mistakes. Here the rest of the flop is walked action by
action, and every turn card's turn and river are valued in the turn re-solver's layout
(`solver.resolving.turn_subgame`, `turn_kernel`'s evaluating and best-response
passes). The difference between the best action's value and the policy's mix, summed over the
range, is the policy's regret at that decision in the real game, given its own play
elsewhere: near zero where the abstraction decides as well as the real cards allow.

``python -m solver.evaluation.holdem.flop_values --store PATH --line rc/cr --boards 40``
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
from solver.engine.progress import progress_bar
from solver.evaluation.holdem.duplicate import deal
from solver.evaluation.holdem.line_frequencies import add_board_sample_arguments, parse_line
from solver.games.holdem.betting import ACTION_CHARS, Betting
from solver.games.holdem.policy import ACTIONS, HoldemPolicy, hole_combos
from solver.games.holdem.rules import HoldemRules

# Registers the re-solving bot's descriptor, which a store's latest solve may be.
from solver.resolving import kind  # noqa: F401
from solver.resolving.subgame import hand_cards
from solver.resolving.turn_kernel import (
    BEST_RESPONSE,
    EVALUATE,
    RIVER_BEST_RESPONSE,
    turn_pass,
)
from solver.resolving.turn_resolve import Buffers, blueprint_strategy, zero_entries
from solver.resolving.turn_subgame import compile_turn

__all__ = ["ActionValues", "DecisionSummary", "action_values", "summarise"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
Triple = tuple[FloatArray, FloatArray, FloatArray]
MODES = (EVALUATE, RIVER_BEST_RESPONSE, BEST_RESPONSE)
"""How the acting player plays after the action: the policy, the policy on the flop and turn
and a best response on the river, a best response throughout (`ActionValues`' three)."""


@dataclass(frozen=True, slots=True, eq=False)
class ActionValues:
    """One flop's decision, per hand of the acting player that misses the flop: `reach`, the
    deals that reach the decision with it (its own reach times the other's over the hands
    beside it); `probs`, the policy's probabilities ``(hands, 3)``; and, in chips won over
    the whole hand (blinds included) per deal reaching the decision, each action's value
    with the policy played on (`as_played`), with a best response on the river alone
    (`river_best`) and with a best response after the action (`best`), ``(hands, 3)``, NaN
    for an illegal action and 0 for a hand no deal reaches."""

    hands: IntArray
    reach: FloatArray
    probs: FloatArray
    as_played: FloatArray
    river_best: FloatArray
    best: FloatArray


class _Walk:
    """The flop below the decision, for the acting player `me` on `flop`: values over `me`'s
    hands summed over the other's (weighted by its reach), unnormalised."""

    def __init__(self, policy: HoldemPolicy, rules: HoldemRules, me: int,
                 flop: tuple[int, ...], hands: IntArray) -> None:
        self.policy, self.rules, self.me, self.flop, self.hands = policy, rules, me, flop, hands
        holding = np.zeros((len(hands), rules.num_cards))
        np.put_along_axis(holding, hands, 1.0, axis=1)
        self.apart = ((holding @ holding.T) == 0).astype(np.float64)
        self.row_of = {tuple(h): i for i, h in enumerate(hands.tolist())}
        self.ids = hand_cards(rules)
        # Each turn card has the same chance given both hands: one of those the four miss.
        self.dealt = 1.0 / (rules.num_cards - len(flop) - 2 * rules.hole_cards)

    def values(self, betting: Betting, other: FloatArray) -> Triple:
        """(as played, river best, best) below `betting`, the other player's reach `other`."""
        me = self.me
        if betting.over:
            won = (float(betting.spent[1 - me]) if betting.folded != me
                   else -float(betting.spent[me]))
            v = won * (self.apart @ other)
            return v, v.copy(), v.copy()
        if betting.round != self.rules.num_rounds - 3:
            return self._turn(betting, other)
        legal = betting.legal_actions()
        probs = self.policy.action_probabilities(betting, self.flop, self.hands)
        if betting.player == me:
            children = [self.values(betting.apply(a), other) for a in legal]

            def mix(k: int) -> FloatArray:
                return sum((probs[:, a] * c[k] for a, c in zip(legal, children, strict=True)),
                           np.zeros(len(self.hands)))

            return mix(0), mix(1), np.max([c[2] for c in children], axis=0)
        out = np.zeros((3, len(self.hands)))
        for a in legal:
            out += np.stack(self.values(betting.apply(a), other * probs[:, a]))
        return out[0], out[1], out[2]

    def _turn(self, after: Betting, other: FloatArray) -> Triple:
        me, rules = self.me, self.rules
        out = np.zeros((3, len(self.hands)))
        for card in range(rules.num_cards):
            if card in self.flop:
                continue
            sub = compile_turn(rules, after, self.flop + (card,), self.ids)
            rows = np.array([self.row_of[tuple(h)] for h in sub.arrays.hands.tolist()],
                            np.int64)
            b = Buffers(sub)
            strategy = b.strategy
            blueprint_strategy(sub, 1 - me, self.policy, strategy)
            zero_entries(sub, me, strategy)
            mine = b.average  # scratch: EVALUATE and BEST_RESPONSE never read the average
            blueprint_strategy(sub, me, self.policy, mine)
            zero_entries(sub, 1 - me, mine)
            strategy += mine
            roots = np.ones((2, len(rows)))
            roots[1 - me] = other[rows]
            for k, mode in enumerate(MODES):
                turn_pass(sub.arrays, me, mode, strategy, b.regrets, b.average, roots,
                          b.t_reach, b.t_values, b.lanes, 1.0, 1.0, False, 1.0, 0.0, b.none,
                          b.no_out, b.every, 1.0)
                out[k, rows] += self.dealt * b.t_values[0]
        return out[0], out[1], out[2]


def _decision(rules: HoldemRules, line: str) -> tuple[list[Betting], list[int], Betting]:
    bettings, actions = parse_line(rules, line)
    at = bettings[-1]
    if rules.num_rounds < 3 or rules.hole_cards != 2 or rules.board_cards[-1] != 1:
        raise ValueError(f"{rules.spec} has no flop before a turn and a one-card river")
    if at.over or at.round != rules.num_rounds - 3:
        raise ValueError(f"{line!r} does not end at a decision on the flop (round "
                         f"{rules.num_rounds - 2}): name a line such as rc/c or rc/cr")
    return bettings, actions, at


def action_values(policy: HoldemPolicy, rules: HoldemRules, line: str,
                  flop: tuple[int, ...]) -> ActionValues:
    """Each action's values at the decision after `line` (on the flop) on `flop`."""
    bettings, actions, at = _decision(rules, line)
    if len(flop) != rules.board_dealt(at.round):
        raise ValueError(f"the flop of {rules.spec} is {rules.board_dealt(at.round)} cards")
    me = at.player
    combos = hole_combos(rules)
    hands = combos[~np.isin(combos, flop).any(axis=1)]
    reach = np.ones((2, len(hands)))
    for betting, action in zip(bettings[:-1], actions, strict=True):
        shown = flop[:rules.board_dealt(betting.round)]
        reach[betting.player] *= policy.action_probabilities(betting, shown, hands)[:, action]
    walk = _Walk(policy, rules, me, tuple(flop), hands)
    facing = walk.apart @ reach[1 - me]
    scale = np.divide(1.0, facing, out=np.zeros(len(hands)), where=facing > 0)
    values = np.full((3, len(hands), ACTIONS), np.nan)
    for a in at.legal_actions():
        values[:, :, a] = np.stack(walk.values(at.apply(a), reach[1 - me])) * scale
    probs = policy.action_probabilities(at, tuple(flop), hands)
    return ActionValues(hands, reach[me] * facing, probs, values[0], values[1], values[2])


@dataclass(frozen=True, slots=True)
class DecisionSummary:
    """Over boards, the deals reaching the decision weighted alike, in chips a reaching deal:
    `shares` of the legal actions (ACPC letters); `regret`, what the best action of each hand
    earns above the policy's mix with the policy played on after it, and `regret_best` with
    a best response after it; `river_gain`, what a best response on the river alone adds to
    the policy's own play here and on the turn (how much of `regret_best` the river holds);
    `gains`, per action, what moving every hand to it where it
    earns more than the mix would gain (policy played on); `better_elsewhere`, per action,
    the share of the deals taking it where another action earns more (policy played on)."""

    line: str
    boards: int
    shares: dict[str, float]
    regret: float
    regret_best: float
    river_gain: float
    gains: dict[str, float]
    better_elsewhere: dict[str, float]


def summarise(values: Sequence[ActionValues], line: str) -> DecisionSummary:
    """`values` (one per board, all at the same decision) summed over their reaching deals."""
    legal = [a for a in range(ACTIONS) if not np.isnan(values[0].as_played[:, a]).all()]
    reached = sum(float(v.reach.sum()) for v in values)
    shares, gains, elsewhere = {}, {}, {}
    regret = regret_best = river_gain = 0.0
    mixes = [np.nansum(v.probs * np.nan_to_num(v.as_played), axis=1) for v in values]
    for v, mix in zip(values, mixes, strict=True):
        regret += float(v.reach @ (np.nanmax(v.as_played, axis=1) - mix))
        regret_best += float(v.reach @ (np.nanmax(v.best, axis=1) - mix))
        river_gain += float(v.reach @ (np.nansum(v.probs * np.nan_to_num(v.river_best),
                                                 axis=1) - mix))
    for a in legal:
        char = ACTION_CHARS[a]
        taking = sum(float(v.reach @ v.probs[:, a]) for v in values)
        shares[char] = taking / reached
        gains[char] = sum(float(v.reach @ np.maximum(v.as_played[:, a] - mix, 0.0))
                          for v, mix in zip(values, mixes, strict=True)) / reached
        worse = sum(float((v.reach * v.probs[:, a]) @ (
            np.nanmax(v.as_played, axis=1) > v.as_played[:, a] + 1e-9)) for v in values)
        # The two sums add the same terms when every deal is worse: no share above one.
        elsewhere[char] = min(1.0, worse / taking) if taking > 0 else 0.0
    return DecisionSummary(line, len(values), shares, regret / reached, regret_best / reached,
                           river_gain / reached, gains, elsewhere)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.evaluation.holdem.flop_values",
                                     description=__doc__.split("\n\n")[0])
    add_board_sample_arguments(parser, line="ACPC betting up to a flop decision", boards=40,
                               what="flops", default_line="rc/cr")
    args = parser.parse_args(argv)
    try:
        bot = HulheBot.from_store(args.game, args.store)
        rules = bot.rules
        _decision(rules, args.line)
        flops = deal(rules, args.boards, args.seed).boards[:, :rules.board_dealt(
            rules.num_rounds - 3)]
    except ValueError as exc:
        parser.error(str(exc))
    values = []
    with progress_bar(total=len(flops), desc="flops", unit="flop") as bar:
        for flop in flops.tolist():
            values.append(action_values(bot, rules, args.line, tuple(int(c) for c in flop)))
            bar.update()
    summary = summarise(values, args.line)
    if args.json:
        json.dump({"bot": bot.name, "seed": args.seed, "big_blind": max(rules.blinds),
                   **asdict(summary)}, sys.stdout, indent=1)
        print()
        return 0
    mbb = 1000 / max(rules.blinds)  # chips to milli-big-blinds
    print(f"{bot.name}: the decision after {args.line!r}, {summary.boards} flops "
          f"(seed {args.seed}); mbb per deal reaching it")
    print(f"  regret: {summary.regret * mbb:.0f} playing on as the bot does, "
          f"{summary.regret_best * mbb:.0f} best-responding after")
    print(f"  playing as the bot does here and on the turn, a best response on the river "
          f"gains {summary.river_gain * mbb:.0f}")
    for char, share in summary.shares.items():
        print(f"  {char}: {share:.1%} of the range; another action earns more for "
              f"{summary.better_elsewhere[char]:.1%} of it; moving hands here where it earns "
              f"more gains {summary.gains[char] * mbb:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
