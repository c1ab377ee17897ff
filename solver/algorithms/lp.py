"""Exact equilibria by the sequence-form linear program (Koller, Megiddo & von Stengel 1996).

A player's *sequences* are the empty sequence plus one per (information set, action); with
perfect recall a mixed strategy is a *realization plan* x over sequences with

    x[∅] = 1,   Σ_a x[I·a] = x[parent(I)]  for every infoset I        (E x = e, x ≥ 0)

and likewise F y = f, y ≥ 0 for player 1.  Player 0's expected payoff is xᵀ A y, where
A[σ0, σ1] sums chance probability × payoff of player 0 over the terminals reached by the
sequences σ0, σ1.  Dualising the inner minimisation of max_x min_y xᵀ A y gives one LP:

    maximise q[0]  over x ≥ 0, q free   subject to   E x = e,   Fᵀ q ≤ Aᵀ x.

Its optimum is the game value, and the duals of `Fᵀ q ≤ Aᵀ x` are an optimal realization plan y
of player 1 (the dual LP is player 1's LP).  `solve_lp` reads y from the duals and checks it by a
best response; if the check fails it solves player 1's LP

    minimise p[0]  over y ≥ 0, p free   subject to   F y = f,   A y ≤ Eᵀ p.

Both plans are turned into behaviour strategies (x[I·a] / Σ_b x[I·b]; uniform where the
infoset is never reached).  Solved with HiGHS through `scipy.optimize.linprog`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from solver.algorithms.policy import Policy
from solver.games.base import Game, State

_REACH_EPS = 1e-12
"""Realization weight below which an infoset counts as unreached (behaviour: uniform)."""


@dataclass(frozen=True, slots=True)
class SeqInfoset:
    """One information set in the sequence form: its sequences are first .. first+len(actions)-1."""

    key: str
    parent: int
    first: int
    actions: tuple[int, ...]


@dataclass(frozen=True)
class SequenceForm:
    """The sequence-form description of a two-player zero-sum game."""

    infosets: tuple[tuple[SeqInfoset, ...], tuple[SeqInfoset, ...]]
    """Per player, in order of first visit (a parent sequence's infoset comes first)."""
    num_sequences: tuple[int, int]
    payoff: sp.csr_matrix
    """A: player 0's payoff, chance-weighted, sequences of player 0 × sequences of player 1."""
    constraints: tuple[sp.csr_matrix, sp.csr_matrix]
    """E and F: one row for the empty sequence, then one per infoset."""
    histories: int
    terminals: int

    def rhs(self, player: int) -> np.ndarray:
        """e (or f): 1 for the empty-sequence row, 0 for the infoset rows."""
        b = np.zeros(self.constraints[player].shape[0])
        b[0] = 1.0
        return b


def build_sequence_form(game: Game) -> SequenceForm:
    """Walk the game tree once, numbering sequences and accumulating A, E and F."""
    index: tuple[dict[str, SeqInfoset], dict[str, SeqInfoset]] = ({}, {})
    count = [1, 1]  # sequence 0 is the empty sequence
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    histories = terminals = 0

    def walk(state: State, seq: tuple[int, int], chance: float) -> None:
        nonlocal histories, terminals
        histories += 1
        if state.is_terminal():
            terminals += 1
            u = state.returns()[0]
            if u != 0.0:
                rows.append(seq[0])
                cols.append(seq[1])
                vals.append(chance * u)
            return
        if state.is_chance():
            for outcome, p in state.chance_outcomes():
                if p > 0.0:
                    walk(state.apply_action(outcome), seq, chance * p)
            return
        player = state.current_player()
        key = state.information_state_key()
        info = index[player].get(key)
        if info is None:
            actions = state.legal_actions()
            info = SeqInfoset(key, seq[player], count[player], actions)
            index[player][key] = info
            count[player] += len(actions)
        elif info.parent != seq[player]:
            raise ValueError(f"game lacks perfect recall at infoset {key!r}")
        for i, action in enumerate(info.actions):
            child = list(seq)
            child[player] = info.first + i
            walk(state.apply_action(action), (child[0], child[1]), chance)

    walk(game.initial_state(), (0, 0), 1.0)

    payoff = sp.coo_matrix((vals, (rows, cols)), shape=(count[0], count[1])).tocsr()
    payoff.sum_duplicates()
    infosets = (tuple(index[0].values()), tuple(index[1].values()))
    constraints = tuple(_constraint_matrix(infosets[p], count[p]) for p in (0, 1))
    return SequenceForm(
        infosets=infosets,
        num_sequences=(count[0], count[1]),
        payoff=payoff,
        constraints=(constraints[0], constraints[1]),
        histories=histories,
        terminals=terminals,
    )


def _constraint_matrix(infosets: tuple[SeqInfoset, ...], num_sequences: int) -> sp.csr_matrix:
    rows, cols, vals = [0], [0], [1.0]
    for j, info in enumerate(infosets, start=1):
        rows.append(j)
        cols.append(info.parent)
        vals.append(-1.0)
        for i in range(len(info.actions)):
            rows.append(j)
            cols.append(info.first + i)
            vals.append(1.0)
    shape = (len(infosets) + 1, num_sequences)
    return sp.coo_matrix((vals, (rows, cols)), shape=shape).tocsr()


# --- realization plans, behaviour strategies, best responses ------------------------------------


def behaviour_from_plan(
    infosets: tuple[SeqInfoset, ...], plan: np.ndarray
) -> dict[str, dict[int, float]]:
    """Behaviour strategy of a realization plan; uniform at infosets the plan never reaches."""
    policy: dict[str, dict[int, float]] = {}
    for info in infosets:
        weights = np.clip(plan[info.first : info.first + len(info.actions)], 0.0, None)
        total = float(weights.sum())
        if total <= _REACH_EPS:
            probs = [1.0 / len(info.actions)] * len(info.actions)
        else:
            probs = (weights / total).tolist()
        policy[info.key] = dict(zip(info.actions, probs, strict=True))
    return policy


def plan_from_behaviour(
    infosets: tuple[SeqInfoset, ...], num_sequences: int, policy: Policy
) -> np.ndarray:
    """Realization plan of a behaviour strategy (infosets in first-visit order)."""
    plan = np.zeros(num_sequences)
    plan[0] = 1.0
    for info in infosets:
        dist = policy[info.key]
        for i, action in enumerate(info.actions):
            plan[info.first + i] = plan[info.parent] * float(dist.get(action, 0.0))
    return plan


def best_response_value_sf(sf: SequenceForm, player: int, opponent_plan: np.ndarray) -> float:
    """`player`'s best-response value against the opponent's realization plan, by backward
    induction over `player`'s sequence tree (children infosets come after their parents)."""
    if player == 0:
        w = np.asarray(sf.payoff @ opponent_plan, dtype=float)
    else:
        w = -np.asarray(sf.payoff.T @ opponent_plan, dtype=float)
    w = w.copy()
    for info in reversed(sf.infosets[player]):
        w[info.parent] += w[info.first : info.first + len(info.actions)].max()
    return float(w[0])


def exploitability_sf(sf: SequenceForm, policy: Policy) -> float:
    """Exploitability (NashConv / 2) of a policy covering both players' infosets."""
    x = plan_from_behaviour(sf.infosets[0], sf.num_sequences[0], policy)
    y = plan_from_behaviour(sf.infosets[1], sf.num_sequences[1], policy)
    return 0.5 * (best_response_value_sf(sf, 0, y) + best_response_value_sf(sf, 1, x))


# --- the LP ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LPResult:
    value: float
    """Game value for player 0."""
    policy: Policy
    """Equilibrium behaviour strategies of both players (uniform at unreached infosets)."""
    seconds: float
    """Wall time: building the sequence form plus solving."""
    sizes: Mapping[str, int]
    exploitability: float
    """Exploitability of `policy`, measured exactly in the sequence form."""
    timings: Mapping[str, float] = field(default_factory=dict)
    """Seconds per phase: build, lp0, lp1 (0 when player 1's plan came from the duals)."""


def _solve_player0(sf: SequenceForm, method: str) -> tuple[float, np.ndarray, np.ndarray]:
    """Player 0's LP: (value, x, duals of Fᵀq ≤ Aᵀx as a candidate y)."""
    (n0, n1), m1 = sf.num_sequences, sf.constraints[1].shape[0]
    E, F, A = sf.constraints[0], sf.constraints[1], sf.payoff
    c = np.zeros(n0 + m1)
    c[n0] = -1.0  # maximise q[0]
    a_ub = sp.hstack([-A.T, F.T], format="csr")
    a_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], m1))], format="csr")
    bounds = [(0.0, None)] * n0 + [(None, None)] * m1
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(n1), A_eq=a_eq, b_eq=sf.rhs(0), bounds=bounds, method=method
    )
    if res.status != 0:
        raise RuntimeError(f"player 0's sequence-form LP failed: {res.message}")
    return -float(res.fun), res.x[:n0], -np.asarray(res.ineqlin.marginals)


def _solve_player1(sf: SequenceForm, method: str) -> tuple[float, np.ndarray]:
    """Player 1's LP: (value for player 0, y)."""
    (n0, n1), m0 = sf.num_sequences, sf.constraints[0].shape[0]
    E, F, A = sf.constraints[0], sf.constraints[1], sf.payoff
    c = np.zeros(n1 + m0)
    c[n1] = 1.0  # minimise p[0]
    a_ub = sp.hstack([A, -E.T], format="csr")
    a_eq = sp.hstack([F, sp.csr_matrix((F.shape[0], m0))], format="csr")
    bounds = [(0.0, None)] * n1 + [(None, None)] * m0
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(n0), A_eq=a_eq, b_eq=sf.rhs(1), bounds=bounds, method=method
    )
    if res.status != 0:
        raise RuntimeError(f"player 1's sequence-form LP failed: {res.message}")
    return float(res.fun), res.x[:n1]


def _plan_is_optimal(sf: SequenceForm, player: int, plan: np.ndarray, value: float) -> bool:
    """Is `plan` a feasible realization plan of `player` guaranteeing `value` (to 1e-7)?"""
    tol = 1e-7
    if plan.min() < -tol:
        return False
    if np.abs(sf.constraints[player] @ plan - sf.rhs(player)).max() > tol:
        return False
    opponent_best = best_response_value_sf(sf, 1 - player, plan)
    guaranteed = -opponent_best if player == 0 else opponent_best
    return guaranteed <= value + tol if player == 1 else guaranteed >= value - tol


def solve_lp(game: Game, *, method: str = "highs", use_duals: bool = True) -> LPResult:
    """Solve `game` exactly by the sequence-form LP; an equilibrium for both players.

    With `use_duals` player 1's plan is read from the duals of player 0's LP (checked by a best
    response, with player 1's own LP as fallback); otherwise both LPs are solved.
    """
    start = time.perf_counter()
    sf = build_sequence_form(game)
    built = time.perf_counter()

    value, x, y = _solve_player0(sf, method)
    solved0 = time.perf_counter()
    lp1_seconds = 0.0
    if not (use_duals and _plan_is_optimal(sf, 1, y, value)):
        _, y = _solve_player1(sf, method)
        lp1_seconds = time.perf_counter() - solved0
    end = time.perf_counter()

    policy = {**behaviour_from_plan(sf.infosets[0], x), **behaviour_from_plan(sf.infosets[1], y)}
    sizes = {
        "histories": sf.histories,
        "terminals": sf.terminals,
        "infosets_0": len(sf.infosets[0]),
        "infosets_1": len(sf.infosets[1]),
        "sequences_0": sf.num_sequences[0],
        "sequences_1": sf.num_sequences[1],
        "payoff_nonzeros": int(sf.payoff.nnz),
    }
    timings = {"build": built - start, "lp0": solved0 - built, "lp1": lp1_seconds}
    return LPResult(
        value=value,
        policy=policy,
        seconds=end - start,
        sizes=sizes,
        exploitability=exploitability_sf(sf, policy),
        timings=timings,
    )
