"""Simulated players against the bot: the hands they play, for the coach to judge as the service
judges a person (`tests.app.test_coach`, `experiments/luck.py`).

A player is a rule of its information set's key and the legal labels (so that its exact value
against the bot can be computed on a compiled tree as well as played), or the bot's own
strategy from the player's seat (the equilibrium player)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import numpy as np

from app.db.hand_store import Recorded
from app.services.analysis.trace import Trace
from app.services.bots.bot import Bot
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.evaluation.holdem.policy import strategy_of
from solver.games import CHANCE, Game, State
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy

Rule = Callable[[str, tuple[str, ...]], tuple[float, ...]]
"""A player's probabilities over the legal labels at the information set with this key."""
_CARD = re.compile(r"^(?:[2-9TJQKA][cdhs])+$")


def always_call(key: str, labels: tuple[str, ...]) -> tuple[float, ...]:
    """Calls or checks; in Dudo challenges every bid (and opens with the lowest)."""
    for wanted in ("call", "check", "dudo"):
        if wanted in labels:
            return tuple(float(label == wanted) for label in labels)
    return tuple(float(i == 0) for i in range(len(labels)))


def uniform(key: str, labels: tuple[str, ...]) -> tuple[float, ...]:
    return tuple(1.0 / len(labels) for _ in labels)


def tight(key: str, labels: tuple[str, ...]) -> tuple[float, ...]:
    """Poker: bets and raises with a pair or better (its cards and the board's), otherwise
    checks, and folds to a bet. Dudo: challenges a bid that needs more dice than its own
    matching ones and the expected share of the other's, otherwise makes the lowest bid."""
    if "dudo" in labels:
        return _dudo_rule(key, labels)
    private, _, public = key.partition("|")
    cards = [private] + [s for s in public.split("|") if _CARD.match(s)]
    ranks = [c[i] for c in cards for i in range(0, len(c), 2)]
    paired = len(set(ranks)) < len(ranks)
    order = (("raise", "bet", "call", "check") if paired else ("check", "fold", "call"))
    for wanted in order:
        if wanted in labels:
            return tuple(float(label == wanted) for label in labels)
    return uniform(key, labels)


def _dudo_rule(key: str, labels: tuple[str, ...]) -> tuple[float, ...]:
    dice, _, public = key.rpartition("|")
    dice = dice.rpartition(":")[2]
    bids = public.split(",")
    quantity, _, face = bids[-1].partition("x")
    mine = sum(1 for d in dice if d == face or (d == "1" and face != "1"))
    others = 1  # at least one die across the table: a plain share, not a count
    expected = others / (6 if face == "1" else 3)
    wanted = "dudo" if int(quantity) > mine + expected else labels[0]
    return tuple(float(label == wanted) for label in labels)


RULES: dict[str, Rule] = {"always call": always_call, "uniform": uniform, "tight": tight}


def play(game: Game, bot: Bot, seat: int, choose: Callable[[State], str],
         rng: random.Random) -> tuple[float, Trace]:
    """One hand against the bot: the raw result of the player in `seat`, and the hand."""
    trace = Trace(game)
    state = trace.state
    while not state.is_terminal():
        mover = state.current_player()
        if mover == CHANCE:
            outcomes = state.chance_outcomes()
            action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            if mover == seat:
                label = choose(state)
            else:
                policy = bot.policy(game, state)
                label = rng.choices(policy.labels, policy.probabilities)[0]
            action = next(a for a in state.legal_actions() if state.action_label(a) == label)
        state = trace.append(Recorded(trace.seq, mover, action, state.action_label(action),
                                      None))
    return state.returns()[seat], trace


def chooser(bot: Bot, game: Game, rule: Rule | None, rng: random.Random
            ) -> Callable[[State], str]:
    """The player's choice at a state: its rule, or the bot's strategy (rule None)."""
    def choose(state: State) -> str:
        if rule is None:
            policy = bot.policy(game, state)
            return rng.choices(policy.labels, policy.probabilities)[0]
        labels = tuple(state.action_label(a) for a in state.legal_actions())
        return rng.choices(labels, rule(state.information_state_key(), labels))[0]
    return choose


def rule_profile(tree: PublicTree, strategy: np.ndarray, seat: int, rule: Rule) -> np.ndarray:
    """The flat profile where `seat` plays `rule` and the other the bot's `strategy`."""
    profile = strategy.copy()
    offsets = tree.infoset_regret_offset
    for i in np.flatnonzero(tree.infoset_player == seat).tolist():
        lo, hi = offsets[i], offsets[i + 1]
        profile[lo:hi] = rule(tree.infoset_keys[i], tree.infoset_labels[i])
    return profile


def rule_result(tree: PublicTree, strategy: np.ndarray, rule: Rule | None) -> float:
    """The exact expected winnings a hand (seats alternating) of a player following `rule`
    against the bot's flat `strategy` on the compiled `tree`; 0 for the bot's strategy itself
    (rule None: the same strategy in both seats)."""
    if rule is None:
        return 0.0
    per_seat = [evaluate_strategy(tree, rule_profile(tree, strategy, seat, rule)).value
                for seat in (0, 1)]
    return (per_seat[0] - per_seat[1]) / 2


def holdem_rule_result(game: HoldemGame, bot: HoldemPolicy, rule: Rule | None) -> float:
    """`rule_result` against a hold'em `bot` as it plays, every public state of a small
    member's compiled tree asked."""
    tree = compile_game(game)
    return rule_result(tree, strategy_of(game, tree, [bot]), rule)
