"""Compile a game once into the flat arrays that every full-width kernel iterates over.

The arrays describe the game's *public tree*.  A public node groups all histories that share a
public key (the bid history, the betting and the board); inside it each player holds one of a
few private states (a card, a die), and an information set is exactly one (public node, private
state of the player to move) pair.  Iterating over public nodes and vectorising over private
states visits every history while touching each public decision only once: for Dudo that is
4,096 bid sequences x 6 faces instead of 294,883 Python states.

Chance is folded in: private deals multiply into every history's chance reach, which ends up in
the terminal payoff matrices ``M[i0, i1] = sum chance reach x payoff of player 0``.  The reach
vectors then carry the players' own contributions only, and a counterfactual value at a terminal
is a matrix-vector product with the opponent's reach.

Node numbering is a pre-order: a node's parent always has a smaller index, so a forward loop is a
top-down pass and a backward loop a bottom-up pass.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from solver.games import get_game
from solver.games.base import Game
from solver.node_kinds import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class PublicTree:
    """A compiled game.  Slot arrays are indexed by global slot id, one numbering per player."""

    game: str
    kind: IntArray  # per node: TERMINAL_NODE, CHANCE_NODE or DECISION_NODE
    actor: IntArray  # per node: player to move at a decision node, else -1
    parent: IntArray  # per node: parent node, -1 at the root
    slot_offset: IntArray  # (2, nodes): first global slot of each player at each node
    slot_count: IntArray  # (2, nodes): number of private states of each player at each node
    slot_parent: tuple[IntArray, IntArray]  # per player and slot: the slot it came from
    slot_edge: tuple[IntArray, IntArray]  # per player and slot: regret index of the action the
    # player took to get here from its own decision at the parent node, else -1
    num_actions: IntArray  # per node: actions at a decision node, else 0
    regret_offset: IntArray  # per node: first index into the (infoset, action) arrays
    payoff_offset: IntArray  # per node: first index of its payoff matrix in `payoffs`
    payoffs: FloatArray  # terminal matrices, row-major (player 0 slot, player 1 slot)
    infoset_keys: tuple[str, ...]  # in (decision node, actor slot) order
    infoset_player: IntArray
    infoset_node: IntArray
    infoset_actions: tuple[tuple[int, ...], ...]  # legal action ids per infoset
    infoset_labels: tuple[tuple[str, ...], ...]

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_keys)

    @property
    def num_regrets(self) -> int:
        """Length of the flat (information set, action) arrays."""
        return int(self.infoset_regret_offset[-1])

    @property
    def infoset_regret_offset(self) -> IntArray:
        """Per infoset (and one past the end): first index into the (infoset, action) arrays."""
        sizes = np.array([len(a) for a in self.infoset_actions], dtype=np.int64)
        return np.concatenate(([0], np.cumsum(sizes)))


class _NodeBuilder:
    __slots__ = ("kind", "actor", "parent", "actions", "labels", "slots", "slot_parent",
                 "slot_action", "slot_infoset_key", "payoffs")

    def __init__(self, kind: int, actor: int, parent: int) -> None:
        self.kind = kind
        self.actor = actor
        self.parent = parent
        self.actions: tuple[int, ...] = ()
        self.labels: tuple[str, ...] = ()
        self.slots: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self.slot_parent: tuple[list[int], list[int]] = ([], [])
        self.slot_action: tuple[list[int], list[int]] = ([], [])
        self.slot_infoset_key: list[str] = []
        self.payoffs: dict[tuple[int, int], float] = {}


def _build(game: Game) -> PublicTree:
    nodes: list[_NodeBuilder] = []
    node_of_key: dict[str, int] = {}
    # Each entry: state, chance reach, parent node, parent slots (p0, p1), action index taken
    # at the parent by its actor (-1 after chance).
    stack = [(game.initial_state(), 1.0, -1, (-1, -1), -1)]
    while stack:
        state, reach, parent, parent_slots, action_index = stack.pop()
        public = state.public_key()
        if state.is_chance():
            outcomes = state.chance_outcomes()
            children = [state.apply_action(o) for o, _ in outcomes]
            if all(child.public_key() == public for child in children):
                if parent != -1:
                    raise ValueError(f"{game.name}: private chance after the first public node")
                for (_, p), child in zip(outcomes, children, strict=True):
                    stack.append((child, reach * p, parent, parent_slots, action_index))
                continue
        kind = (TERMINAL_NODE if state.is_terminal()
                else CHANCE_NODE if state.is_chance() else DECISION_NODE)
        index = node_of_key.get(public)
        if index is None:
            index = node_of_key[public] = len(nodes)
            actor = state.current_player() if kind == DECISION_NODE else -1
            node = _NodeBuilder(kind, actor, parent)
            if kind == DECISION_NODE:
                node.actions = state.legal_actions()
                node.labels = tuple(state.action_label(a) for a in node.actions)
            nodes.append(node)
        node = nodes[index]
        if node.kind != kind or node.parent != parent:
            raise ValueError(f"{game.name}: public node {public!r} mixes different positions")
        slots = []
        for player in (0, 1):
            table = node.slots[player]
            private = state.private_key(player)
            slot = table.get(private)
            if slot is None:
                slot = table[private] = len(table)
                node.slot_parent[player].append(parent_slots[player])
                taken = action_index if parent != -1 and nodes[parent].actor == player else -1
                node.slot_action[player].append(taken)
                if kind == DECISION_NODE and player == node.actor:
                    node.slot_infoset_key.append(state.information_state_key())
            slots.append(slot)
        cell = (slots[0], slots[1])
        if kind == TERMINAL_NODE:
            node.payoffs[cell] = node.payoffs.get(cell, 0.0) + reach * state.returns()[0]
        elif kind == CHANCE_NODE:
            for outcome, p in reversed(state.chance_outcomes()):
                stack.append((state.apply_action(outcome), reach * p, index, cell, -1))
        else:
            if state.legal_actions() != node.actions:
                raise ValueError(f"{game.name}: legal actions differ inside public node {public!r}")
            for i in reversed(range(len(node.actions))):
                child = state.apply_action(node.actions[i])
                stack.append((child, reach, index, cell, i))
    return _freeze(game.name, nodes)


def _freeze(name: str, nodes: list[_NodeBuilder]) -> PublicTree:
    n = len(nodes)
    slot_count = np.array([[len(node.slots[p]) for node in nodes] for p in (0, 1)], np.int64)
    slot_offset = np.zeros((2, n), np.int64)
    slot_offset[:, 1:] = np.cumsum(slot_count, axis=1)[:, :-1]
    num_actions = np.array([len(node.actions) for node in nodes], np.int64)
    decision_slots = np.array(
        [slot_count[node.actor, i] if node.kind == DECISION_NODE else 0
         for i, node in enumerate(nodes)], np.int64)
    sizes = decision_slots * num_actions
    regret_offset = np.zeros(n, np.int64)
    regret_offset[1:] = np.cumsum(sizes)[:-1]
    slot_parent: list[IntArray] = []
    slot_edge: list[IntArray] = []
    for p in (0, 1):
        parents = np.full(int(slot_count[p].sum()), -1, np.int64)
        edges = np.full(len(parents), -1, np.int64)
        for i, node in enumerate(nodes):
            if node.parent == -1:
                continue
            par = nodes[node.parent]
            for j, (src, taken) in enumerate(
                    zip(node.slot_parent[p], node.slot_action[p], strict=True)):
                s = slot_offset[p, i] + j
                parents[s] = slot_offset[p, node.parent] + src
                if par.kind == DECISION_NODE and par.actor == p:
                    edges[s] = regret_offset[node.parent] + src * len(par.actions) + taken
        slot_parent.append(parents)
        slot_edge.append(edges)
    payoff_sizes = np.array(
        [slot_count[0, i] * slot_count[1, i] if node.kind == TERMINAL_NODE else 0
         for i, node in enumerate(nodes)], np.int64)
    payoff_offset = np.zeros(n, np.int64)
    payoff_offset[1:] = np.cumsum(payoff_sizes)[:-1]
    payoffs = np.zeros(int(payoff_sizes.sum()), np.float64)
    keys: list[str] = []
    players: list[int] = []
    infoset_nodes: list[int] = []
    actions: list[tuple[int, ...]] = []
    labels: list[tuple[str, ...]] = []
    for i, node in enumerate(nodes):
        if node.kind == TERMINAL_NODE:
            width = slot_count[1, i]
            for (a, b), value in node.payoffs.items():
                payoffs[payoff_offset[i] + a * width + b] = value
        elif node.kind == DECISION_NODE:
            keys.extend(node.slot_infoset_key)
            players.extend([node.actor] * len(node.slot_infoset_key))
            infoset_nodes.extend([i] * len(node.slot_infoset_key))
            actions.extend([node.actions] * len(node.slot_infoset_key))
            labels.extend([node.labels] * len(node.slot_infoset_key))
    if len(set(keys)) != len(keys):
        raise ValueError(f"{name}: an information set spans several public nodes")
    return PublicTree(
        game=name,
        kind=np.array([node.kind for node in nodes], np.int64),
        actor=np.array([node.actor for node in nodes], np.int64),
        parent=np.array([node.parent for node in nodes], np.int64),
        slot_offset=slot_offset,
        slot_count=slot_count,
        slot_parent=(slot_parent[0], slot_parent[1]),
        slot_edge=(slot_edge[0], slot_edge[1]),
        num_actions=num_actions,
        regret_offset=regret_offset,
        payoff_offset=payoff_offset,
        payoffs=payoffs,
        infoset_keys=tuple(keys),
        infoset_player=np.array(players, np.int64),
        infoset_node=np.array(infoset_nodes, np.int64),
        infoset_actions=tuple(actions),
        infoset_labels=tuple(labels),
    )


_ARRAY_FIELDS = ("kind", "actor", "parent", "slot_offset", "slot_count", "num_actions",
                 "regret_offset", "payoff_offset", "payoffs", "infoset_player", "infoset_node")


def _cache_path(name: str, suffix: str = "") -> Path:
    """Compiled trees are cached per game and per version of the code that shapes them: the
    games, this module and the node kinds (a change in any of them is a new file name, so an
    old file is never misread).

    Other compiled forms of a game (the history tree) pass a `suffix` naming what they are."""
    import solver.games as games_package
    import solver.node_kinds as node_kinds

    digest = hashlib.sha256()
    for source in (Path(__file__), Path(node_kinds.__file__),
                   *sorted(Path(games_package.__file__).parent.glob("*.py"))):
        digest.update(source.read_bytes())
    root = Path(os.environ.get("SOLVER_CACHE", Path.home() / ".cache" / "solved-bots"))
    return root / f"{name}{suffix}-{digest.hexdigest()[:16]}.npz"


def _save(tree: PublicTree, path: Path) -> None:
    arrays = {field: getattr(tree, field) for field in _ARRAY_FIELDS}
    for p in (0, 1):
        arrays[f"slot_parent{p}"] = tree.slot_parent[p]
        arrays[f"slot_edge{p}"] = tree.slot_edge[p]
    arrays["infoset_keys"] = np.array(tree.infoset_keys, dtype=object)
    arrays["infoset_actions"] = np.array([",".join(map(str, a)) for a in tree.infoset_actions],
                                         dtype=object)
    arrays["infoset_labels"] = np.array(["\x1f".join(labels) for labels in tree.infoset_labels],
                                        dtype=object)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(temporary, **arrays)
    temporary.replace(path)


def _load(name: str, path: Path) -> PublicTree:
    with np.load(path, allow_pickle=True) as data:
        fields = {field: data[field] for field in _ARRAY_FIELDS}
        return PublicTree(
            game=name,
            slot_parent=(data["slot_parent0"], data["slot_parent1"]),
            slot_edge=(data["slot_edge0"], data["slot_edge1"]),
            infoset_keys=tuple(str(k) for k in data["infoset_keys"]),
            infoset_actions=tuple(tuple(int(a) for a in str(s).split(","))
                                  for s in data["infoset_actions"]),
            infoset_labels=tuple(tuple(str(s).split("\x1f")) for s in data["infoset_labels"]),
            **fields,
        )


_compiled: dict[str, PublicTree] = {}


def compile_game(game: Game | str, *, use_cache: bool = True) -> PublicTree:
    """The public tree of `game`, built once per process and cached on disk between processes."""
    name = game if isinstance(game, str) else game.name
    if name in _compiled:
        return _compiled[name]
    path = _cache_path(name)
    tree = None
    if use_cache and path.exists():
        try:
            tree = _load(name, path)
        except (OSError, ValueError, KeyError):
            tree = None
    if tree is None:
        tree = _build(get_game(name))
        if use_cache:
            with contextlib.suppress(OSError):
                _save(tree, path)
    _compiled[name] = tree
    return tree
