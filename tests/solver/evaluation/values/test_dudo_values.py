"""Dudo values at play time are the exact action values of the same strategy in the real game
(brute force on its compiled tree): the stored exact solve of one die each, an abstract solve
remembering two bids, a round paying in match-winning chances, and the player's habits."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from solver.abstractions.dudo_recall.graph import real_strategy, recall_graph
from solver.abstractions.dudo_recall.remembered_bids import Recall
from solver.algorithms.action_values import ActionValues, action_values
from solver.algorithms.fsicfr import FSICFRSolver
from solver.engine.tree import PublicTree
from solver.evaluation.values.base import Habits, habit_counts, habit_mix
from solver.evaluation.values.dudo import DudoValues, rows_by_prefix
from solver.evaluation.values.exact import TreeValues
from solver.games import CHANCE, get_game
from solver.games.dudo.game import DudoGame
from solver.games.dudo.match import DudoMatchGame, DudoMatchState, Round, loser_payoffs
from solver.games.dudo.rules import DudoRules, dice_text, tables
from solver.games.dudo.tree import compile_dudo
from strategies import InfosetStrategy, StrategyStore

HABITS: Habits = {"0|": {"1x6": 5.0}, "1|1x2": {"dudo": 2.0, "1x3": 1.0},
                  "0|1x3": {"1x4": 3.0}, "1|1x6": {"2x2": 1.0}, "0||3": {"1x2": 4.0},
                  "1|1x2|5": {"1x5": 2.0}, "1|1x5|1": {"dudo": 6.0}}
"""A player's habits at some bids (role | the bid it answers), some with its die."""


def habitual(tree: PublicTree, strategy: np.ndarray, seat: int, habits: Habits) -> np.ndarray:
    """The flat profile with `seat` mixing its habits in (keyed as `DudoValues` keys them:
    the player's role, which is its seat in a plain game, and the last bid)."""
    profile = strategy.copy()
    offsets = tree.infoset_regret_offset
    for i in np.flatnonzero(tree.infoset_player == seat).tolist():
        dice, _, public = tree.infoset_keys[i].partition("|")
        bids = public.split(",")
        key = f"{seat}|{bids[-1] if bids != [''] else ''}"
        labels = tree.infoset_labels[i]
        lo, hi = offsets[i], offsets[i + 1]
        model = tuple(strategy[lo:hi])
        for level in (key, f"{key}|{dice}"):
            model = habit_mix(habit_counts(habits, level, labels), model)
        profile[lo:hi] = model
    return profile


def compare(game: DudoGame, tree: PublicTree, strategy: np.ndarray, valuer: DudoValues,
            hands: int, seed: int) -> int:
    """Random hands (the player uniformly random, the other seat `strategy`): every decision
    of the player valued by `valuer` equals the real tree's action values, with and without
    its habits, and each round's start value the profile's; how many were compared."""
    rng = random.Random(seed)
    index = {key: i for i, key in enumerate(tree.infoset_keys)}
    offsets = tree.infoset_regret_offset
    plain = action_values(tree, strategy)
    references: dict[int, ActionValues] = {
        seat: action_values(tree, habitual(tree, strategy, seat, HABITS)) for seat in (0, 1)}
    compared = 0
    for n in range(hands):
        seat = n % 2
        state = game.initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                state = state.apply_action(rng.choices([o for o, _ in outcomes],
                                                       [p for _, p in outcomes])[0])
            elif state.current_player() == seat:
                state = state.apply_action(rng.choice(state.legal_actions()))
            else:
                i = index[state.information_state_key()]
                row = strategy[offsets[i]:offsets[i + 1]]
                state = state.apply_action(rng.choices(state.legal_actions(), list(row))[0])
        (segment,) = valuer.segments(state, seat, HABITS)
        sign = 1 if seat == 0 else -1
        assert segment.start == pytest.approx(sign * plain.value, abs=1e-12)
        assert segment.model_start == pytest.approx(sign * references[seat].value, abs=1e-12)
        decisions = iter(segment.decisions)
        replay = game.initial_state()
        for action in state.history:
            if replay.current_player() == seat:
                got = next(decisions)
                i = index[replay.information_state_key(seat)]
                lo, hi = offsets[i], offsets[i + 1]
                assert got.labels == tree.infoset_labels[i]
                assert got.values == pytest.approx(plain.q[lo:hi], abs=1e-12)
                assert got.model_values == pytest.approx(references[seat].q[lo:hi], abs=1e-12)
                compared += 1
            replay = replay.apply_action(action)
    return compared


def test_the_stored_exact_solve(store_path: Path) -> None:
    """Remembering every bid, the graph is the real game: the values are the stored ones."""
    game = get_game("dudo")
    assert isinstance(game, DudoGame)
    with StrategyStore.open(store_path) as store:
        rows = store.strategy("dudo")
        info = store.latest_solve("dudo")
    assert info is not None
    valuer = DudoValues(game, Recall(None), rows_by_prefix(rows), lambda counts: (-1.0, 1.0))
    rng = random.Random(3)
    for n in range(60):
        seat = n % 2
        state = game.initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state = state.apply_action(rng.choice(state.legal_actions()))
                continue
            row = rows[state.information_state_key()]
            label = rng.choices(row.labels, row.probabilities)[0]
            state = state.apply_action(next(a for a in state.legal_actions()
                                            if state.action_label(a) == label))
        (segment,) = valuer.segments(state, seat)
        assert segment.start == pytest.approx(info.value if seat == 0 else -info.value,
                                              abs=1e-9)
        replay, decisions = game.initial_state(), iter(segment.decisions)
        for action in state.history:
            if replay.current_player() == seat:
                got, stored = next(decisions), rows[replay.information_state_key(seat)]
                assert stored.values is not None
                assert dict(zip(got.labels, got.values, strict=True)) == pytest.approx(
                    dict(zip(stored.labels, stored.values, strict=True)), abs=1e-9)
            replay = replay.apply_action(action)


def solve_abstract(game: DudoGame, memory: int, payoffs: tuple[float, float]
                   ) -> tuple[PublicTree, np.ndarray, dict[str, InfosetStrategy]]:
    """A short FSICFR solve remembering `memory` bids, whose calls pay `payoffs`: the real
    tree, the strategy played in it, and the stored rows."""
    graph = recall_graph(game.dudo_rules, memory, payoffs)
    solver = FSICFRSolver(graph.graph)
    solver.iterate(60)
    strategy = solver.average_strategy()
    tree = compile_dudo("round", game.dudo_rules, payoffs)
    rows = {key: InfosetStrategy(key, player, labels, probabilities)
            for key, player, labels, probabilities in graph.infoset_rows(strategy)}
    return tree, real_strategy(tree, graph, strategy), rows


@pytest.mark.parametrize("payoffs", [(-1.0, 1.0), (-0.3, 0.7)])
def test_an_abstract_solve_in_the_real_game(payoffs: tuple[float, float]) -> None:
    """Remembering two bids, and with calls paying as a match's rounds do (other payoffs
    than -1 and 1): the values are those of the abstract strategy played in the real game."""
    game = get_game("dudo")
    assert isinstance(game, DudoGame)
    tree, strategy, rows = solve_abstract(game, 2, payoffs)
    valuer = DudoValues(game, Recall(2), rows_by_prefix(rows), lambda counts: payoffs)
    assert compare(game, tree, strategy, valuer, 80, seed=5) > 100


def test_a_tree_game_with_habits(store_path: Path) -> None:
    """The value function of the games solved exactly (the compiled tree) agrees too."""
    game = get_game("dudo")
    assert isinstance(game, DudoGame)
    tree, strategy, _ = solve_abstract(game, 2, (-1.0, 1.0))
    tree_values = TreeValues(game, tree, strategy)
    rng = np.random.default_rng(0)
    state = game.initial_state()
    for action in (0, 3, 1, 4, game.dudo_rules.dudo):
        state = state.apply_action(action)
    (segment,) = tree_values.segments(state, 0, {"": {"1x3": 2.0}}, rng)
    reference = action_values(tree, tree_strategy_with(tree, strategy, "", "1x3", 2.0))
    offsets = tree.infoset_regret_offset
    opening = game.initial_state().apply_action(0).apply_action(3)
    i = tree.infoset_keys.index(opening.information_state_key(0))
    assert segment.decisions[0].model_values == pytest.approx(
        reference.q[offsets[i]:offsets[i + 1]], abs=1e-12)
    assert segment.model_start == pytest.approx(reference.value, abs=1e-12)


def tree_strategy_with(tree: PublicTree, strategy: np.ndarray, public: str, label: str,
                       count: float) -> np.ndarray:
    """Seat 0 mixes `count` times `label` into its play wherever the public part is
    `public` (as `TreeValues` keys habits)."""
    profile = strategy.copy()
    offsets = tree.infoset_regret_offset
    for i, key in enumerate(tree.infoset_keys):
        if tree.infoset_player[i] == 0 and key.partition("|")[2] == public:
            labels = tree.infoset_labels[i]
            lo, hi = offsets[i], offsets[i + 1]
            counts = tuple(count if x == label else 0.0 for x in labels)
            profile[lo:hi] = habit_mix(counts, tuple(strategy[lo:hi]))
    return profile


class SmallMatch(DudoMatchGame):
    """A match from two dice each: the rounds 2v2, 1v2 and 1v1 (the loser opens)."""

    def initial_state(self) -> DudoMatchState:
        return DudoMatchState(rounds=(Round((2, 2), 0),))


@pytest.mark.slow
def test_a_match_by_rounds() -> None:
    """A match's hand is its rounds: each a segment starting at 2P - 1 of its dice counts
    (the human's side of it), each round's values in match units, exact in the real round."""
    recall = Recall(2, {(1, 1): None, (2, 2): 1})
    table: dict[tuple[int, int], float] = {}
    rows: dict[str, InfosetStrategy] = {}
    reals: dict[tuple[int, int], tuple[PublicTree, ActionValues, dict[str, int]]] = {}
    for counts in ((1, 1), (1, 2), (2, 2)):  # the loser opens: 2v2, then 1v2, then 1v1
        payoffs = loser_payoffs(counts, table)
        rules = DudoRules(counts)
        graph = recall_graph(rules, recall.memory(counts), payoffs, f"{counts[0]}v{counts[1]}:")
        solver = FSICFRSolver(graph.graph)
        solver.iterate(40)
        strategy = solver.average_strategy()
        table[counts] = (1.0 + solver.evaluate(strategy)) / 2.0
        rows.update({key: InfosetStrategy(key, player, labels, probabilities)
                     for key, player, labels, probabilities in graph.infoset_rows(strategy)})
        if sum(counts) <= 3:
            tree = compile_dudo("round", rules, payoffs)
            real = real_strategy(tree, recall_graph(rules, recall.memory(counts), payoffs),
                                 strategy)
            reals[counts] = (tree, action_values(tree, real),
                             {key: i for i, key in enumerate(tree.infoset_keys)})
    game = SmallMatch()
    valuer = DudoValues(game, recall, rows_by_prefix(rows),
                        lambda counts: loser_payoffs(counts, table))
    rng = random.Random(8)
    checked = dict.fromkeys(reals, 0)
    for n in range(40):
        seat = n % 2
        state = game.initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                state = state.apply_action(rng.choices([o for o, _ in outcomes],
                                                       [p for _, p in outcomes])[0])
            else:
                state = state.apply_action(rng.choice(state.legal_actions()))
        segments = valuer.segments(state, seat)
        assert len(segments) == len(state.rounds)
        for played, segment in zip(state.rounds, segments, strict=True):
            counts = (played.counts[played.opener], played.counts[1 - played.opener])
            opener_value = 2 * table[counts] - 1
            mine = opener_value if played.opener == seat else -opener_value
            assert segment.start == pytest.approx(mine, abs=1e-9)
            if counts not in reals:
                continue
            tree, values, index = reals[counts]
            offsets = tree.infoset_regret_offset
            role = 0 if played.opener == seat else 1
            moves = list(played.moves)
            decisions = iter(segment.decisions)
            for k in range(len(moves)):
                if (k % 2 == 0) != (role == 0):
                    continue
                labels = tables(played.rules).labels
                bids = ",".join(labels[m] for m in moves[:k])
                key = f"{dice_text(played.dice(seat))}|{bids}"
                i = index[key]
                got = next(decisions)
                assert got.values == pytest.approx(values.q[offsets[i]:offsets[i + 1]],
                                                   abs=1e-9)
                checked[counts] += 1
    assert min(checked.values()) > 10, checked  # both a 1v2 round and a 1v1 one
