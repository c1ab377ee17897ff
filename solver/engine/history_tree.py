"""Compile a game once into its flat *history tree*, for the sampling (Monte Carlo) CFR kernels.

Where the public tree (`solver.engine.tree`) groups histories by what everybody sees, sampling
algorithms walk single histories: a sampled deal, then one path or a partial tree of actions.
This module lays every history of the game out as a few arrays, so a numba kernel can walk it
without touching a Python `State`:

* ``kind``: `TERMINAL_NODE`, `CHANCE_NODE` or `DECISION_NODE` (`solver.engine.node_kinds`);
* ``player``: the player to move at a decision node, -1 elsewhere;
* ``first_child`` and ``num_children``: a node's children are the contiguous block
  ``first_child .. first_child + num_children - 1``, child ``k`` following the ``k``-th legal
  action (or chance outcome) in the game's order;
* ``probability``: the chance probability of the outcome leading to a node from a chance node
  (1.0 for every other node);
* ``payoff``: player 0's payoff at a terminal node (zero-sum, so player 1 gets minus this);
* ``infoset``: at a decision node, the index of its information set in the public tree's
  numbering (`PublicTree.infoset_keys`), so the flat (infoset, action) arrays of the sampling
  solvers are laid out exactly like `CFRSolver`'s: action ``k`` of node ``n`` is entry
  ``infoset_regret_offset[infoset[n]] + k``; -1 elsewhere;
* ``action``: the action id (or chance outcome) that led to the node, -1 at the root.

Node 0 is the root and every node's index is larger than its parent's.  The tree is built by
one depth-first walk over the game's states (a few seconds for Dudo's 294,883 histories) and
cached on disk next to the public tree, keyed by the same sources plus this module's.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from solver.engine.compile import cache_path, compile_game
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree
from solver.games.base import Game


@dataclass(frozen=True, slots=True, eq=False)
class HistoryTree:
    """Every history of a game as flat per-node arrays (see the module docstring)."""

    game: str
    kind: NDArray[np.int8]
    player: NDArray[np.int8]
    first_child: NDArray[np.int32]
    num_children: NDArray[np.int32]
    probability: NDArray[np.float64]
    payoff: NDArray[np.float64]
    infoset: NDArray[np.int32]
    action: NDArray[np.int32]
    num_infosets: int  # of the public tree whose numbering `infoset` uses
    max_depth: int  # edges on the longest root-to-terminal path
    max_children: int

    @property
    def num_histories(self) -> int:
        return len(self.kind)


_ARRAYS = ("kind", "player", "first_child", "num_children", "probability", "payoff", "infoset",
           "action")


def _build(game: Game, tree: PublicTree) -> HistoryTree:
    index_of = {key: i for i, key in enumerate(tree.infoset_keys)}
    kind = [TERMINAL_NODE]
    player = [-1]
    first_child = [0]
    num_children = [0]
    probability = [1.0]
    payoff = [0.0]
    infoset = [-1]
    action = [-1]
    max_depth = max_children = 0
    stack = [(game.initial_state(), 0, 0)]
    while stack:
        state, n, depth = stack.pop()
        max_depth = max(max_depth, depth)
        if state.is_terminal():
            payoff[n] = float(state.returns()[0])
            continue
        if state.is_chance():
            outcomes = state.chance_outcomes()
            actions = tuple(o for o, _ in outcomes)
            probabilities = [float(p) for _, p in outcomes]
            kind[n] = CHANCE_NODE
        else:
            actions = state.legal_actions()
            probabilities = [1.0] * len(actions)
            key = state.information_state_key()
            i = index_of.get(key)
            if i is None:
                raise ValueError(f"{game.name}: information set {key!r} not in the public tree")
            if tuple(actions) != tree.infoset_actions[i]:
                raise ValueError(f"{game.name}: legal actions differ in information set {key!r}")
            kind[n] = DECISION_NODE
            player[n] = state.current_player()
            infoset[n] = i
        first = len(kind)
        count = len(actions)
        first_child[n] = first
        num_children[n] = count
        max_children = max(max_children, count)
        kind.extend([TERMINAL_NODE] * count)
        player.extend([-1] * count)
        first_child.extend([0] * count)
        num_children.extend([0] * count)
        probability.extend(probabilities)
        payoff.extend([0.0] * count)
        infoset.extend([-1] * count)
        action.extend(actions)
        stack.extend((state.apply_action(actions[k]), first + k, depth + 1)
                     for k in range(count - 1, -1, -1))
    return HistoryTree(
        game=game.name,
        kind=np.array(kind, np.int8),
        player=np.array(player, np.int8),
        first_child=np.array(first_child, np.int32),
        num_children=np.array(num_children, np.int32),
        probability=np.array(probability, np.float64),
        payoff=np.array(payoff, np.float64),
        infoset=np.array(infoset, np.int32),
        action=np.array(action, np.int32),
        num_infosets=tree.num_infosets,
        max_depth=max_depth,
        max_children=max_children,
    )


def _history_cache_path(game: Game) -> Path:
    """The public tree's cache path (`cache_path`: the engine's and the game's sources) with
    this module's own hash in the suffix, since the layout here can change independently."""
    own = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8]
    return cache_path(game, f"-history-{own}")


def _save(history: HistoryTree, path: Path) -> None:
    arrays = {field: getattr(history, field) for field in _ARRAYS}
    arrays["sizes"] = np.array([history.num_infosets, history.max_depth, history.max_children],
                               np.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(temporary, **arrays)
    temporary.replace(path)


def _load(name: str, path: Path) -> HistoryTree:
    with np.load(path, allow_pickle=False) as data:
        arrays = {field: data[field] for field in _ARRAYS}
        num_infosets, max_depth, max_children = (int(x) for x in data["sizes"])
    return HistoryTree(game=name, num_infosets=num_infosets, max_depth=max_depth,
                       max_children=max_children, **arrays)


_compiled: dict[str, HistoryTree] = {}


def compile_history_tree(game: Game, *, use_cache: bool = True) -> HistoryTree:
    """The history tree of `game`, built once per process and cached on disk between processes.

    Its ``infoset`` column indexes ``compile_game(game).infoset_keys``."""
    name = game.name
    if name in _compiled:
        return _compiled[name]
    tree = compile_game(game, use_cache=use_cache)
    path = _history_cache_path(game)
    history = None
    if use_cache and path.exists():
        try:
            history = _load(name, path)
        except (OSError, ValueError, KeyError):
            history = None
        if history is not None and history.num_infosets != tree.num_infosets:
            history = None
    if history is None:
        history = _build(game, tree)
        if use_cache:
            with contextlib.suppress(OSError):
                _save(history, path)
    _compiled[name] = history
    return history
