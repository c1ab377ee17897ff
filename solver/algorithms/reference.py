"""Plain recursive evaluators over `State` objects: ground truth for the tests of the solvers.

Nothing here is fast; everything is written to be obviously correct.

* `expected_value` walks the whole tree once, weighting each terminal by the probability that
  chance and both players' `policy` reach it.
* `best_response_value` computes an exact best response that respects information sets: it lists
  every history of each of the responder's information sets with its *counterfactual reach*
  (chance times opponent probability), then decides the infosets bottom-up (deepest first, depth =
  number of the responder's own earlier moves, which is the same for every history of an infoset
  under perfect recall), picking at each the action maximising the sum over its histories of
  reach × value of the history after that action.
* `nash_conv` and `exploitability` follow the course's reference definitions (and OpenSpiel):
  NashConv = Σ_i (best response value of i − value of i), exploitability = NashConv / 2.

A policy must give a distribution at every information set the evaluation reaches (a missing key
raises `KeyError`); actions missing from an infoset's mapping have probability 0.
"""

from __future__ import annotations

from collections import defaultdict

from solver.algorithms.policy import Policy
from solver.games.base import Game, State

_SUM_TOLERANCE = 1e-6


def action_probabilities(policy: Policy, state: State) -> dict[int, float]:
    """The policy's distribution over `state`'s legal actions (the player to move's infoset)."""
    key = state.information_state_key()
    try:
        dist = policy[key]
    except KeyError:
        raise KeyError(f"policy has no entry for information set {key!r}") from None
    legal = state.legal_actions()
    probs = {a: float(dist.get(a, 0.0)) for a in legal}
    illegal = set(dist) - set(legal)
    if any(dist[a] > 0.0 for a in illegal):
        raise ValueError(f"policy at {key!r} puts weight on illegal actions {sorted(illegal)}")
    total = sum(probs.values())
    if abs(total - 1.0) > _SUM_TOLERANCE or any(p < -_SUM_TOLERANCE for p in probs.values()):
        raise ValueError(f"policy at {key!r} is not a distribution: {probs}")
    return probs


def _moves(state: State, policy: Policy) -> list[tuple[int, float]]:
    """(action, probability) pairs out of a non-terminal state under chance and `policy`."""
    if state.is_chance():
        return list(state.chance_outcomes())
    return list(action_probabilities(policy, state).items())


def expected_value(game: Game, policy: Policy) -> float:
    """Player 0's expected payoff when both players follow `policy`."""

    def value(state: State) -> float:
        if state.is_terminal():
            return state.returns()[0]
        return sum(p * value(state.apply_action(a)) for a, p in _moves(state, policy) if p > 0.0)

    return value(game.initial_state())


def best_response(game: Game, policy: Policy, player: int) -> tuple[float, dict[str, int]]:
    """The value `player` gets by best-responding to the other player's `policy`, and the
    best response itself (infoset key -> chosen action) at every infoset of `player` the
    opponent and chance can reach."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")

    # 1. Every history where `player` moves, grouped by infoset, with its counterfactual reach
    #    (chance × opponent probabilities), and the infoset's depth (own earlier moves).
    histories: dict[str, list[tuple[State, float]]] = defaultdict(list)
    depth: dict[str, int] = {}

    def collect(state: State, reach: float, own_moves: int) -> None:
        if state.is_terminal():
            return
        if state.current_player() == player:
            key = state.information_state_key()
            histories[key].append((state, reach))
            if depth.setdefault(key, own_moves) != own_moves:
                raise ValueError(f"game lacks perfect recall at infoset {key!r}")
            for a in state.legal_actions():
                collect(state.apply_action(a), reach, own_moves + 1)
            return
        for a, p in _moves(state, policy):
            if p > 0.0:
                collect(state.apply_action(a), reach * p, own_moves)

    collect(game.initial_state(), 1.0, 0)

    # 2. Decide infosets deepest first; `value` may then rely on every decision below it.
    choice: dict[str, int] = {}
    memo: dict[tuple[int, ...], float] = {}

    def value(state: State) -> float:
        """`player`'s payoff from `state` on, with `player` following `choice` below."""
        if state.is_terminal():
            return state.returns()[player]
        cached = memo.get(state.history)
        if cached is not None:
            return cached
        if state.current_player() == player:
            result = value(state.apply_action(choice[state.information_state_key()]))
        else:
            result = sum(
                p * value(state.apply_action(a)) for a, p in _moves(state, policy) if p > 0.0
            )
        memo[state.history] = result
        return result

    for key in sorted(histories, key=lambda k: depth[k], reverse=True):
        members = histories[key]
        actions = members[0][0].legal_actions()
        totals = {
            a: sum(reach * value(state.apply_action(a)) for state, reach in members)
            for a in actions
        }
        choice[key] = max(actions, key=lambda a: totals[a])  # ties: lowest action id

    return value(game.initial_state()), choice


def best_response_value(game: Game, policy: Policy, player: int) -> float:
    """The value `player` gets by best-responding to the other player's `policy`."""
    return best_response(game, policy, player)[0]


def nash_conv(game: Game, policy: Policy) -> float:
    """Σ_i (best response value of player i − value of player i under `policy`)."""
    v0 = expected_value(game, policy)
    br0 = best_response_value(game, policy, 0)
    br1 = best_response_value(game, policy, 1)
    return (br0 - v0) + (br1 - (-v0))


def exploitability(game: Game, policy: Policy) -> float:
    """NashConv / 2, in payoff units per game (as OpenSpiel's `exploitability`)."""
    return nash_conv(game, policy) / 2.0
