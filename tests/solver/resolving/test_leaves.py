"""A depth-limited subgame ends where the round does, and its leaves carry the network's values:
the kernels read back, for either traverser, the network's value for each hand scaled by the
opponent's mass there."""

from __future__ import annotations

import itertools

import numpy as np

from solver.deepstack.situations import GAME, HANDS, LOOKAHEAD
from solver.engine.node_kinds import CHANCE_NODE, TERMINAL_NODE
from solver.games.holdem.betting import Betting
from solver.resolving.leaves import leaf_payoffs, network_values, write_both
from solver.resolving.subgame import compile_subgame


def _layers(seed: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(seed)
    sizes = [2 * HANDS + 1, 8, 2 * HANDS]
    return (tuple(rng.normal(size=(a, b)) for a, b in itertools.pairwise(sizes)),
            tuple(rng.normal(size=b) for b in sizes[1:]))


def test_a_depth_limited_subgame_stops_at_the_end_of_the_round() -> None:
    start = Betting.start(LOOKAHEAD)
    whole = compile_subgame(LOOKAHEAD, start, ())
    limited = compile_subgame(LOOKAHEAD, start, (), depth_limited=True)
    assert len(whole.leaves) == 0
    leaves = limited.leaves.tolist()
    # check-check, pot bet called (either player first), pot raise called: a call ends the round
    # with equal chips in from each, short of all-in; an all-in called runs its card out.
    assert sorted(limited.betting[n].spent for n in leaves) == [
        (100, 100), (300, 300), (300, 300), (900, 900), (900, 900)]
    assert all(limited.betting[n].spent[0] < 1200 for n in leaves)
    assert (limited.arrays.kind == CHANCE_NODE).sum() > 0  # the all-ins' run-outs
    assert len(limited.arrays.payoffs) == len(leaves) * HANDS * HANDS
    for n in leaves:  # every other node is the whole subgame's
        assert whole.arrays.kind[whole.node(limited.betting[n], ())] == CHANCE_NODE
    assert (limited.arrays.kind == TERMINAL_NODE).sum() == len(leaves)


def test_the_leaves_give_back_the_networks_values_for_either_traverser() -> None:
    sub = compile_subgame(LOOKAHEAD, Betting.start(LOOKAHEAD), (), depth_limited=True)
    tree = sub.arrays
    weights, biases = _layers(5)
    rng = np.random.default_rng(6)
    reach = [rng.random(int(tree.slot_count[p].sum())) for p in (0, 1)]
    nodes = sub.leaves
    chips = np.array([sub.betting[n].spent[0] for n in nodes], np.float64)
    stack = float((GAME.stacks or (1, 1))[0])
    for traverser in (0, 1):
        leaf_payoffs(tree, traverser, reach[0], reach[1], nodes, chips, stack, weights, biases)
        for i, n in enumerate(nodes.tolist()):
            at = sub.slots(n)
            ranges = np.stack([reach[0][at], reach[1][at]])
            masses = ranges.sum(axis=1)
            row = np.concatenate([(ranges / masses[:, None]).reshape(-1), [chips[i] / stack]])
            out = network_values(weights, biases, row[None, :], HANDS)[0].reshape(2, HANDS)
            matrix = tree.payoffs[tree.payoff_offset[n]:][:HANDS * HANDS].reshape(HANDS, HANDS)
            got = matrix @ ranges[1] if traverser == 0 else -(matrix.T @ ranges[0])
            np.testing.assert_allclose(got, chips[i] * out[traverser] * masses[1 - traverser])
            assert abs(float((ranges[0] / masses[0]) @ out[0] + (ranges[1] / masses[1])
                             @ out[1])) < 1e-9  # zero-sum correction


def test_values_for_both_players_at_once_read_back_for_either() -> None:
    sub = compile_subgame(LOOKAHEAD, Betting.start(LOOKAHEAD), (), depth_limited=True)
    tree = sub.arrays
    rng = np.random.default_rng(8)
    reach = [rng.random(int(tree.slot_count[p].sum())) for p in (0, 1)]
    nodes = sub.leaves
    values = rng.normal(size=(len(nodes), 2, HANDS))
    for i, n in enumerate(nodes.tolist()):  # zero-sum over the reaches, as true values are
        at = sub.slots(n)
        values[i, 1] -= (reach[0][at] @ values[i, 0] + reach[1][at] @ values[i, 1]) / (
            reach[1][at].sum())
    write_both(tree, nodes, reach[0], reach[1], values)
    for i, n in enumerate(nodes.tolist()):
        at = sub.slots(n)
        matrix = tree.payoffs[tree.payoff_offset[n]:][:HANDS * HANDS].reshape(HANDS, HANDS)
        np.testing.assert_allclose(matrix @ reach[1][at], values[i, 0], atol=1e-9)
        np.testing.assert_allclose(-(matrix.T @ reach[0][at]), values[i, 1], atol=1e-9)
