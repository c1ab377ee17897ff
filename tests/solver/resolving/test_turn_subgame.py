"""The turn's dense layout re-solves the same game as the general one: the same hands, the
same best-response values, the same re-solve (up to float32), and a bot that re-solves in it
is as exploitable, judged exactly, as one that re-solves in the general layout."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from solver.abstractions.holdem.buckets import BucketSpec
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine import kernels
from solver.engine.node_kinds import DECISION_NODE
from solver.evaluation.holdem.policy import TabularPolicy, strategy_of
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.games.holdem.betting import Betting
from solver.resolving.measure_exactly import blueprint
from solver.resolving.resolve import reach_from, resolve
from solver.resolving.resolving_bot import ResolvingBot, path
from solver.resolving.solved import TurnSolved
from solver.resolving.subgame import Subgame, compile_subgame, hand_cards
from solver.resolving.turn_kernel import uniform_strategy
from solver.resolving.turn_resolve import (
    Buffers,
    best_response_values,
    resolve_turn,
)
from solver.resolving.turn_subgame import TurnSubgame, compile_turn

SIXTEEN = "holdem(numRanks=4,numSuits=4,numBoardCards=0 1 1)"
"""Sixteen cards, three rounds, a board card before each of the last two, three raises a
round: the second round's subgame is a turn subgame in small."""
EIGHT = "holdem(numRanks=4,numSuits=2,numBoardCards=0 1 1,maxRaises=1 1 1)"


@cache
def _pair() -> tuple[TurnSubgame, Subgame, int]:
    game = get_game(SIXTEEN)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    betting = Betting.start(rules).apply(1).apply(1)
    cards = hand_cards(rules)
    return (compile_turn(rules, betting, (5,), cards), compile_subgame(rules, betting, (5,),
                                                                      cards), betting.player)


def _uniform(sub: Subgame) -> np.ndarray:
    a = sub.arrays
    last = a.kind.shape[0] - 1
    size = int(a.regret_offset[-1]) + (int(a.num_actions[last] * a.slot_count[0, last])
                                       if a.kind[last] == DECISION_NODE else 0)
    out = np.zeros(size)
    kernels.current_strategy(a, np.zeros(size), out)
    return out


NO_LIMIT = ("holdem(betting=nolimit,numRanks=4,numSuits=4,numBoardCards=0 1 1,blind=2 1,"
            "stack=12 12)")
"""No-limit betting: every size legal, the river's betting different at each stake the turn
closes at, and all-ins called on the turn with the river still to come."""


def test_no_limit_turn_subgames_have_a_river_tree_per_stake() -> None:
    game = get_game(NO_LIMIT)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    betting = Betting.start(rules).apply(1).apply(1)  # a call, a check: 10 chips behind each
    turn = compile_turn(rules, betting, (5,), hand_cards(rules))
    a = turn.arrays
    leaves = turn.leaves
    stakes = a.t_value[leaves]
    assert len(set(stakes.tolist())) == len(a.tree_root) > 2  # a tree per stake
    all_in = [n for n in leaves.tolist() if turn.betting[n].over]
    assert all_in and all(a.tree_end[a.leaf_tree[a.t_leaf[n]]] - a.tree_root[a.leaf_tree[
        a.t_leaf[n]]] == 1 for n in all_in)  # the river card comes, then the showdown
    assert a.t_child.shape[1] == int(a.t_num_actions.max()) > 3


@pytest.mark.parametrize("name", [SIXTEEN, NO_LIMIT])
def test_best_responses_are_the_general_layouts(name: str) -> None:
    """Against a strategy that is not uniform (so each river tree's entries are read where
    they are), every turn hand's best-response value at the root is the general layout's."""
    game = get_game(name)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    betting = Betting.start(rules).apply(1).apply(1)
    cards = hand_cards(rules)
    turn = compile_turn(rules, betting, (5,), cards)
    general = compile_subgame(rules, betting, (5,), cards)
    player = betting.player
    rng = np.random.default_rng(4)
    own = rng.random(len(turn.hand_ids))
    buffers = Buffers(turn)
    a = general.arrays
    strategy = _uniform(general)
    for n in np.flatnonzero(a.kind == DECISION_NODE).tolist():
        k = int(a.num_actions[n])
        count = int(a.slot_count[a.actor[n], n])
        start = int(a.regret_offset[n])
        weights = rng.random((count, k)) + 0.1
        strategy[start:start + k * count] = (weights / weights.sum(axis=1, keepdims=True)
                                             ).reshape(-1)
    _to_dense(turn, general, strategy, buffers.strategy)
    fast = best_response_values(turn, player, own, buffers.strategy, buffers)
    values = _general_best_response(general, player, strategy, own)
    scale = np.abs(fast).max()
    assert scale > 1.0
    assert np.abs(values - fast).max() < 1e-4 * scale


def _general_best_response(general: Subgame, player: int, strategy: np.ndarray,
                           own: np.ndarray) -> np.ndarray:
    """The best response's values of the other seat at the general layout's root, against
    `player` playing `strategy` with the range `own`."""
    a = general.arrays
    reach = np.zeros(int(a.slot_count[player].sum()))
    reach_from(a, player, strategy, own, reach)
    values = np.zeros(int(a.slot_count[1 - player].sum()))
    kernels.best_response(a, 1 - player, reach, values, np.zeros(len(strategy)))
    return values[:len(own)]


def _to_dense(turn: TurnSubgame, general: Subgame, strategy: np.ndarray,
              out: np.ndarray) -> None:
    """`strategy` in the general layout copied into the dense one, node by node and hand by
    hand (the general layout's entries are ``[slot][action]``, the dense ``[action][hand]``)."""
    a, t = general.arrays, turn.arrays
    row_of = {h: i for i, h in enumerate(turn.hand_ids.tolist())}
    for n in np.flatnonzero(a.kind == DECISION_NODE).tolist():
        betting, board = general.betting[n], general.board[n]
        k = int(a.num_actions[n])
        slots = general.slots(n)
        rows = strategy[int(a.regret_offset[n]):int(a.regret_offset[n]) + k * (
            slots.stop - slots.start)].reshape(-1, k)
        hands = [row_of[h] for h in general.hands[slots].tolist()]
        if len(board) == 1:
            node = turn.node(betting)
            start = int(t.t_offset[node])
            width = len(turn.hand_ids)
            for j in range(k):
                out[start + j * width + np.array(hands)] = rows[:, j]
            continue
        leaf_node = turn.node_of("/".join(betting.rounds[:-1]) + "/")
        leaf = int(t.t_leaf[leaf_node])
        m = turn.river_node(leaf_node, betting)
        c = turn.river_cards.index(board[-1])
        tree = int(t.leaf_tree[leaf])
        base = int(t.leaf_base[leaf]) + c * int(t.tree_size[tree]) + int(t.r_offset[m])
        position = np.empty(len(turn.hand_ids), np.int64)
        position[t.order[c]] = np.arange(t.order.shape[1])
        at = position[np.array(hands)]
        width = t.order.shape[1]
        for j in range(k):
            out[base + j * width + at] = rows[:, j]


def test_the_hands_and_best_responses_are_the_general_layouts() -> None:
    turn, general, player = _pair()
    assert np.array_equal(turn.hand_ids, general.root_hands)
    assert turn.arrays.weight == pytest.approx(1 / 11)  # 16 cards less a board card, 4 held
    own = np.random.default_rng(0).random(len(turn.hand_ids))
    buffers = Buffers(turn)
    uniform_strategy(turn.arrays, buffers.strategy)
    fast = best_response_values(turn, player, own, buffers.strategy, buffers)
    values = _general_best_response(general, player, _uniform(general), own)
    scale = np.abs(fast).max()
    assert scale > 1.0
    assert np.abs(values - fast).max() < 1e-6 * scale * 100  # float32 strategy


@pytest.mark.parametrize("mode", ["resolve", "maxmargin", "unsafe"])
@pytest.mark.slow
def test_a_resolve_is_the_general_layouts(mode: str) -> None:
    """CFR-D's gadget agrees to float32's precision; max-margin's and unsafe re-solving's
    iterates drift apart by float32's rounding (max-margin's gadget subtracts the root's whole
    value from every hand's), so they are compared by what the re-solve guarantees."""
    turn, general, player = _pair()
    rng = np.random.default_rng(1)
    own, opponent = rng.random(len(turn.hand_ids)), rng.random(len(turn.hand_ids))
    buffers = Buffers(turn)
    uniform_strategy(turn.arrays, buffers.strategy)
    alternatives = 0.9 * best_response_values(turn, player, own, buffers.strategy, buffers)
    slow = resolve(general.arrays, player, own, mode=mode, iterations=50,
                   opponent_range=opponent, alternatives=alternatives)
    fast = resolve_turn(turn, player, own, mode=mode, iterations=50, opponent_range=opponent,
                        alternatives=alternatives, buffers=buffers)
    hands = len(own)
    count = int(general.arrays.num_actions[0])
    grid = slow.strategy[:count * hands].reshape(hands, count)
    assert np.array_equal(fast.own_reach[0], own)
    if mode == "resolve":
        assert np.abs(grid - fast.root_strategy.T).max() < 1e-5
        assert slow.margins is not None and fast.margins is not None
        assert np.abs(slow.margins - fast.margins).max() < 1e-4
    else:
        assert np.abs(grid - fast.root_strategy.T).max() < 0.05
    if mode == "maxmargin":
        assert slow.margins is not None and fast.margins is not None
        assert fast.margins.min() == pytest.approx(slow.margins.min(), rel=0.01)


def test_every_river_card_once_is_no_sample() -> None:
    turn, _, player = _pair()
    own = np.ones(len(turn.hand_ids))
    buffers = Buffers(turn)
    uniform_strategy(turn.arrays, buffers.strategy)
    alternatives = best_response_values(turn, player, own, buffers.strategy, buffers)
    whole = resolve_turn(turn, player, own, mode="maxmargin", iterations=10,
                         alternatives=alternatives)
    same = resolve_turn(turn, player, own, mode="maxmargin", iterations=10,
                        alternatives=alternatives, sampled=len(turn.river_cards))
    sampled = resolve_turn(turn, player, own, mode="maxmargin", iterations=10,
                           alternatives=alternatives, sampled=3)
    assert np.array_equal(whole.root_strategy, same.root_strategy)
    assert not np.array_equal(whole.root_strategy, sampled.root_strategy)


def test_the_river_cards_shared_among_threads_give_the_same_numbers_to_the_bit() -> None:
    """The river blocks of a pass are shared among lanes (`turn_kernel.Lanes`, one a thread)
    and each card's values summed in the cards' order, so one lane, two or three give the
    same re-solve bit for bit: the same strategy, values at every node and margins."""
    turn, _, player = _pair()
    own = np.random.default_rng(2).random(len(turn.hand_ids))
    runs = []
    for threads in (1, 2, 3):
        buffers = Buffers(turn, threads)
        assert buffers.lanes.r_values.shape[0] == threads
        uniform_strategy(turn.arrays, buffers.strategy)
        alternatives = 0.9 * best_response_values(turn, player, own, buffers.strategy, buffers)
        got = resolve_turn(turn, player, own, mode="maxmargin", iterations=20,
                           alternatives=alternatives, buffers=buffers)
        runs.append((alternatives, got, buffers.average.copy()))
    first, got, average = runs[0]
    assert got.margins is not None and np.abs(got.margins).max() > 0.01
    for alternatives, other, other_average in runs[1:]:
        assert np.array_equal(alternatives, first)
        assert np.array_equal(other.root_strategy, got.root_strategy)
        assert np.array_equal(other.opponent_values, got.opponent_values)
        assert np.array_equal(other.river_values, got.river_values)
        assert other.margins is not None and np.array_equal(other.margins, got.margins)
        assert np.array_equal(other_average, average)


def test_a_warm_start_plays_the_blueprint_until_the_regrets_outweigh_it() -> None:
    """Started from a blueprint (here a 20-iteration re-solve) with regrets `warm` times its
    probabilities, the alternatives being the best responses to it: one iteration plays the
    blueprint (every margin 0); three with `warm` 1 give a best-responding opponent less
    than the blueprint on average over its hands, where three from uniform give it more, and
    their worst hand's margin is a tenth of uniform's (about -3 against -100 chips)."""
    turn, _, player = _pair()
    a = turn.arrays
    own = np.random.default_rng(3).random(len(turn.hand_ids))
    buffers = Buffers(turn)
    uniform_strategy(a, buffers.strategy)
    alternatives = 0.9 * best_response_values(turn, player, own, buffers.strategy, buffers)
    resolve_turn(turn, player, own, mode="maxmargin", iterations=20,
                 alternatives=alternatives, buffers=buffers)
    start = buffers.strategy.copy()
    alternatives = best_response_values(turn, player, own, start, buffers)
    found = {}
    for warm, iterations in ((1.0, 1), (1.0, 3), (0.0, 3)):
        buffers.strategy[:] = start
        got = resolve_turn(turn, player, own, mode="maxmargin", iterations=iterations,
                           alternatives=alternatives, buffers=buffers, warm=warm)
        assert got.margins is not None
        found[warm, iterations] = (got.root_strategy, got.margins)
    count, hands = int(a.t_num_actions[0]), len(own)
    root, margins = found[1.0, 1]
    assert np.abs(root - start[:count * hands].reshape(count, hands)).max() < 1e-5
    assert np.abs(margins).max() < 1e-6 * np.abs(alternatives).max()
    warmed, cold = found[1.0, 3][1], found[0.0, 3][1]
    assert warmed.mean() > 0.0 > cold.mean()
    assert cold.min() < -50.0 and warmed.min() > 0.1 * cold.min()
    with pytest.raises(ValueError, match="needs the buffers"):
        resolve_turn(turn, player, own, mode="maxmargin", iterations=1,
                     alternatives=alternatives, warm=1.0)


@pytest.mark.parametrize(("iterations", "warm"), [(1, 0.0), (40, 1.0)])
@pytest.mark.slow
def test_a_guarded_bot_plays_the_blueprint_where_its_re_solve_gives_up_margin(
        iterations: int, warm: float) -> None:
    """At its first turn decision a guarded bot plays its re-solve only if the margins,
    weighted by the opponent's blueprint range, are non-negative, else the blueprint with
    margins 0 (the alternatives are the best responses to it): one iteration from uniform is
    refused, forty from the blueprint kept."""
    game = get_game(EIGHT)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    tree, strategy = blueprint(EIGHT, BucketSpec((3, 3), "imperfect"), 300)
    policy = TabularPolicy.from_strategy(game, tree, strategy)
    betting = Betting.start(rules).apply(1).apply(1)
    board = (5,)
    solved = {}
    for guard in (False, True):
        bot = ResolvingBot("bot", rules, policy, from_round=1, mode="maxmargin", iterations=10,
                           turn_iterations=iterations, turn_warm=warm, turn_guard=guard)
        got = bot.solved(betting, board)
        assert isinstance(got, TurnSolved)
        solved[guard] = got
    sub = solved[False].subgame
    holes = hand_cards(rules)[sub.hand_ids]
    opponent = np.ones(len(holes))
    for before, action in path(betting):
        if before.player != betting.player:
            opponent *= policy.action_probabilities(before, (), holes)[:, action]
    margins = solved[False].resolved.margins
    assert margins is not None
    weighted = float(opponent @ margins)
    kept = solved[True].resolved
    assert kept.margins is not None
    if iterations == 1:
        assert weighted < 0.0 and kept.blueprint and not kept.margins.any()
        legal = list(betting.legal_actions())
        played = policy.action_probabilities(betting, board, holes)[:, legal]
        assert np.abs(kept.root_strategy.T - played).max() < 1e-6
    else:
        assert weighted >= 0.0 and not kept.blueprint
        assert np.array_equal(kept.root_strategy, solved[False].resolved.root_strategy)


@cache
def _bot_exploitability(turn_iterations: int | None) -> tuple[float, float]:
    game = get_game(EIGHT)
    assert isinstance(game, HoldemGame)
    tree, strategy = blueprint(EIGHT, BucketSpec((3, 3), "imperfect"), 300)
    bot = ResolvingBot("bot", game.definition, TabularPolicy.from_strategy(game, tree, strategy),
                       from_round=1, mode="maxmargin", iterations=10,
                       turn_iterations=turn_iterations, keep=100_000)
    return (evaluate_strategy(tree, strategy_of(game, tree, [bot])).exploitability,
            evaluate_strategy(tree, strategy).exploitability)


@pytest.mark.slow
def test_the_bot_that_re_solves_the_turn_in_its_layout_is_as_exploitable() -> None:
    """Both seats re-solving from the second round on, 10 CFR+ iterations a re-solve: the same
    exploitability whichever layout the second round is re-solved in (0.32 chips a hand
    against the blueprint's 0.50), carrying the ranges and values to the river's re-solves."""
    general, base = _bot_exploitability(None)
    fast, _ = _bot_exploitability(10)
    assert fast == pytest.approx(general, rel=0.02)
    assert fast < 0.7 * base


def test_a_turn_subgame_needs_the_turn() -> None:
    game = get_game(SIXTEEN)
    assert isinstance(game, HoldemGame)
    rules = game.definition
    with pytest.raises(ValueError, match="turn subgame starts in round 2"):
        compile_turn(rules, Betting.start(rules), (), hand_cards(rules))
