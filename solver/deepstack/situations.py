"""Random situations at the start of no-limit Leduc's second round, solved: the training data
of DeepStack's value function (`solver.deepstack.value_net`).

The game is DeepStack-Leduc's: Leduc's six cards, an ante of 100 and stacks of 1,200 chips
(`GAME`, every amount from the minimum raise to all-in); the bot looks ahead with its bet
sizes, a pot-sized bet and all-in (`LOOKAHEAD`, universal_poker's ``fcpa``).  A *situation*
is where the first round's betting left the hand before the board card: each player's chips
in, and each player's range over the six hands.  Its values are what the lookahead needs at a
leaf that ends the first round: each hand's counterfactual value for each player when both
play an equilibrium of the rest of the hand (the board card and the second round, in the bet
sizes) from those ranges, in units of the chips each has in.

Situations are drawn much as DeepStack-Leduc draws them: the chips in uniformly up to the
stack (here the amounts a first round can leave: the ante, or a raise to 200 or more called,
`CHECKED`), and each range by splitting the probability mass at random between the weaker
and the stronger half of the hands (ordered by strength, here the rank, as no board card is out
yet), then each half again, down to single hands (`random_range`): ranges of every shape, from
flat to a single hand, as continual re-solving meets them.

Example::

    rng = np.random.default_rng(0)
    situation = sample(rng)
    values = solve(situation, iterations=1000)   # (2, 6): each player's value per hand / chips in
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from numpy.typing import NDArray

from solver.engine import kernels
from solver.games.holdem.bet_sizes import parse as parse_sizes
from solver.games.holdem.betting import CALL, Betting
from solver.games.holdem.rules import NO_LIMIT_LEDUC, HoldemRules
from solver.resolving.continual import reach_under
from solver.resolving.resolve import resolve
from solver.resolving.subgame import Subgame, compile_subgame, hand_cards

FloatArray = NDArray[np.float64]

__all__ = ["CHECKED", "GAME", "HANDS", "LOOKAHEAD", "Situation", "random_range", "sample", "solve",
           "subgame", "tutorial_tree"]

GAME = replace(NO_LIMIT_LEDUC, blinds=(100, 100), stacks=(1200, 1200))
"""No-limit Leduc as DeepStack-Leduc plays it: ante 100, stacks of 1,200, every size."""
LOOKAHEAD = replace(GAME, bets=parse_sizes("fcpa"))
"""The bet sizes DeepStack-Leduc looks ahead with: a pot-sized bet and all-in."""
CHECKED = 0.1
"""The share of situations where the first round was checked through (the ante in): the
other amounts in from each run from the smallest raise to one chip short of all-in (after an
all-in there is no second round to look ahead at)."""
HANDS = len(hand_cards(GAME))
"""Six: one card each."""


@dataclass(frozen=True, slots=True)
class Situation:
    """The hand at the end of the first round: `chips` in from each player, and each player's
    `ranges` over the hands (rows of `hand_cards`, each summing to 1)."""

    chips: int
    ranges: FloatArray  # (2, HANDS)

    @property
    def pot_feature(self) -> float:
        """The chips in as a share of the stack (DeepStack-Leduc's pot input)."""
        return self.chips / (GAME.stacks or (1, 1))[0]


def random_range(rng: np.random.Generator, strength: NDArray[np.int64]) -> FloatArray:
    """A range over the hands whose strengths are `strength`: the mass split at random between
    the weaker and the stronger half, each half split again, down to single hands (an odd
    middle hand goes to either half at random; equal strengths in a random order)."""
    order = np.lexsort((rng.random(len(strength)), strength))
    out = np.zeros(len(strength))

    def split(hands: NDArray[np.int64], mass: float) -> None:
        if len(hands) == 1:
            out[hands[0]] = mass
            return
        half = len(hands) // 2 + (int(rng.integers(2)) if len(hands) % 2 else 0)
        low = mass * float(rng.random())
        split(hands[:half], low)
        split(hands[half:], mass - low)

    split(order, 1.0)
    return out


def sample(rng: np.random.Generator) -> Situation:
    """A situation drawn as the module doc says."""
    ante, stack = GAME.blinds[0], (GAME.stacks or (0, 0))[0]
    strength = _strength()
    ranges = np.stack([random_range(rng, strength), random_range(rng, strength)])
    chips = ante if rng.random() < CHECKED else int(rng.integers(_smallest_raise(), stack))
    return Situation(chips, ranges)


@cache
def _strength() -> NDArray[np.int64]:
    """Each hand's strength before the board card: its rank."""
    return np.array([GAME.deck.rank(int(h[0])) for h in hand_cards(GAME)], np.int64)


@cache
def _smallest_raise() -> int:
    return Betting.start(GAME).raise_amounts()[0]


def start_of_second_round(chips: int, rules: HoldemRules = GAME) -> Betting:
    """The betting that puts `chips` in from each player in the first round (a raise to them
    and a call, or two checks at the ante), at the deal of the board card."""
    betting = Betting.start(rules)
    if chips == rules.blinds[0]:
        return betting.apply(CALL).apply(CALL)
    return betting.apply(chips).apply(CALL)


def tutorial_tree() -> Subgame:
    """DeepStack-Leduc's tutorial tree: the second round after K♠ with 300 chips in from each,
    in the lookahead's sizes (its tutorial reports about 1.0 chips of exploitability for its
    CFR there, 1.37 for its continual re-solving)."""
    betting = replace(start_of_second_round(300), rules=LOOKAHEAD)
    king = max(range(GAME.num_cards), key=GAME.deck.rank)
    return compile_subgame(LOOKAHEAD, betting, (king,))


@cache
def subgame(chips: int) -> Subgame:
    """The rest of the hand from the deal of the board card with `chips` in from each player,
    in the lookahead's bet sizes."""
    betting = replace(start_of_second_round(chips), rules=LOOKAHEAD)
    return compile_subgame(LOOKAHEAD, betting, ())


def solve(situation: Situation, iterations: int) -> FloatArray:
    """Each player's counterfactual value per hand (rows: players; columns: `hand_cards`)
    when both play the average strategy of `iterations` of CFR+ on the situation's subgame
    from its ranges, divided by the chips each has in.  The two players' values weighted by
    their ranges add up to zero (the subgame is zero-sum)."""
    sub = subgame(situation.chips)
    a = sub.arrays
    if not np.array_equal(sub.root_hands, np.arange(HANDS)):
        raise AssertionError("the subgame's root lists the hands in another order")
    solved = resolve(a, 0, situation.ranges[0], mode="unsafe", iterations=iterations,
                     opponent_range=situation.ranges[1])
    out = np.zeros((2, HANDS))
    size = len(solved.strategy)
    for player in (0, 1):
        other = 1 - player
        reach = reach_under(a, other, solved.strategy, situation.ranges[other])
        values = np.zeros(int(a.slot_count[player].sum()))
        kernels.evaluate(a, player, solved.strategy, reach, values, np.zeros(size))
        out[player] = values[:HANDS]
    return out / situation.chips
