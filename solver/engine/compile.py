"""Compile a game once into its public tree (`solver.engine.tree`), cached on disk.

`compile_game` takes a `Game` (the caller looks a name up in the registry first: the engine
knows the interface of a game, `solver.games.base`, and no game).  A game that lays out its own
tree as arrays (`CompilesItself`: Dudo with several dice, the hold'em family) is asked for it;
any other is compiled by walking its states once, grouping the histories by public key.  A
walked tree is saved under the solver cache (``~/.cache/solved-bots``, or ``$SOLVER_CACHE``)
and read back by the next process; the file name carries a digest of the code that shapes the
tree (the engine's and the game's own, `cache_path`), so an old file is never misread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from solver.engine import node_kinds
from solver.engine import tree as tree_module
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE
from solver.engine.sources import game_sources
from solver.engine.tree import PublicTree, TreeArrays, pack_tree
from solver.games.base import Game


class _NodeBuilder:
    __slots__ = (
        "actions",
        "actor",
        "chance",
        "key",
        "kind",
        "label",
        "labels",
        "parent",
        "payoffs",
        "slot_action",
        "slot_infoset_key",
        "slot_parent",
        "slots",
    )

    def __init__(self, kind: int, actor: int, parent: int, key: str, label: str) -> None:
        self.kind = kind
        self.actor = actor
        self.parent = parent
        self.key = key
        self.label = label
        self.actions: tuple[int, ...] = ()
        self.labels: tuple[str, ...] = ()
        self.slots: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self.slot_parent: tuple[list[int], list[int]] = ([], [])
        self.slot_action: tuple[list[int], list[int]] = ([], [])
        self.slot_infoset_key: list[str] = []
        self.payoffs: dict[tuple[int, int], float] = {}
        self.chance: dict[tuple[int, int], float] = {}


def _build(game: Game) -> PublicTree:
    nodes: list[_NodeBuilder] = []
    node_of_key: dict[str, int] = {}
    # Each entry: state, chance reach, parent node, parent slots (p0, p1), action index taken
    # at the parent by its actor (-1 after chance), and the label of the move into the state.
    stack = [(game.initial_state(), 1.0, -1, (-1, -1), -1, "")]
    while stack:
        state, reach, parent, parent_slots, action_index, label = stack.pop()
        public = state.public_key()
        if state.is_chance():
            outcomes = state.chance_outcomes()
            children = [state.apply_action(o) for o, _ in outcomes]
            if all(child.public_key() == public for child in children):
                if parent != -1:
                    raise ValueError(f"{game.name}: private chance after the first public node")
                for (_, p), child in zip(outcomes, children, strict=True):
                    stack.append((child, reach * p, parent, parent_slots, action_index, label))
                continue
        kind = (TERMINAL_NODE if state.is_terminal()
                else CHANCE_NODE if state.is_chance() else DECISION_NODE)
        index = node_of_key.get(public)
        if index is None:
            index = node_of_key[public] = len(nodes)
            actor = state.current_player() if kind == DECISION_NODE else -1
            node = _NodeBuilder(kind, actor, parent, public, label)
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
            node.chance[cell] = node.chance.get(cell, 0.0) + reach
        elif kind == CHANCE_NODE:
            for outcome, p in reversed(state.chance_outcomes()):
                stack.append((state.apply_action(outcome), reach * p, index, cell, -1,
                              state.action_label(outcome)))
        else:
            if state.legal_actions() != node.actions:
                raise ValueError(f"{game.name}: legal actions differ inside public node {public!r}")
            for i in reversed(range(len(node.actions))):
                child = state.apply_action(node.actions[i])
                stack.append((child, reach, index, cell, i, node.labels[i]))
    return _freeze(game.name, nodes)


def _freeze(name: str, nodes: list[_NodeBuilder]) -> PublicTree:
    slot_parent: tuple[list[int], list[int]] = ([], [])
    slot_action: tuple[list[int], list[int]] = ([], [])
    first_slot = [0, 0]
    starts: list[tuple[int, int]] = []  # each node's first slot of each player
    for node in nodes:
        starts.append((first_slot[0], first_slot[1]))
        for p in (0, 1):
            first_slot[p] += len(node.slots[p])
            for src, taken in zip(node.slot_parent[p], node.slot_action[p], strict=True):
                slot_parent[p].append(-1 if node.parent == -1 else starts[node.parent][p] + src)
                slot_action[p].append(taken)
    payoffs: list[float] = []
    chance: list[float] = []
    keys: list[str] = []
    actions: list[tuple[int, ...]] = []
    labels: list[tuple[str, ...]] = []
    for node in nodes:
        if node.kind == TERMINAL_NODE:
            matrix = np.zeros((len(node.slots[0]), len(node.slots[1])))
            mass = np.zeros_like(matrix)
            for cell, value in node.payoffs.items():
                matrix[cell] = value
                mass[cell] = node.chance[cell]
            payoffs.extend(matrix.ravel())
            chance.extend(mass.ravel())
        elif node.kind == DECISION_NODE:
            keys.extend(node.slot_infoset_key)
            actions.extend([node.actions] * len(node.slot_infoset_key))
            labels.extend([node.labels] * len(node.slot_infoset_key))
    if len(set(keys)) != len(keys):
        raise ValueError(f"{name}: an information set spans several public nodes")
    arrays = pack_tree(
        kind=[node.kind for node in nodes],
        actor=[node.actor for node in nodes],
        parent=[node.parent for node in nodes],
        num_actions=[len(node.actions) for node in nodes],
        slot_count=[[len(node.slots[p]) for node in nodes] for p in (0, 1)],
        slot_parent=slot_parent,
        slot_action=slot_action,
        payoffs=payoffs,
    )
    return PublicTree(name, arrays, tuple(keys), tuple(actions), tuple(labels),
                      node_keys=tuple(node.key for node in nodes),
                      node_labels=tuple(node.label for node in nodes),
                      chance_mass=np.asarray(chance, np.float64))


ENGINE_SOURCES = (Path(__file__), Path(tree_module.__file__), Path(node_kinds.__file__))
"""The engine's code that shapes every compiled tree: this module, the tree's layout and the
node kinds."""


def cache_path(game: Game, suffix: str = "") -> Path:
    """Where `game`'s compiled tree is cached: a file per game and per version of what shapes
    its tree, namely `ENGINE_SOURCES`, the game's own sources (`solver.engine.sources`: its
    module and what it imports, so editing one game leaves the others' files valid) and its
    name, which carries its parameters.  A change in any of them is a new file name, so an old
    file is never misread.  A game named by its parameters (``holdem(numRanks=6)``) is filed
    under a digest of its name.

    Other compiled forms of a game (the history tree) pass a `suffix` naming what they are."""
    name = game.name
    digest = hashlib.sha256(name.encode())
    for source in (*ENGINE_SOURCES, *game_sources(game)):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    root = Path(os.environ.get("SOLVER_CACHE", Path.home() / ".cache" / "solved-bots"))
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        head = re.sub(r"[^A-Za-z0-9_-].*", "", name, flags=re.DOTALL)
        name = f"{head}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"
    return root / f"{name}{suffix}-{digest.hexdigest()[:16]}.npz"


def _indexed(rows: tuple[tuple[object, ...], ...]) -> tuple[list[list[object]], NDArray[np.int64]]:
    """Rows that repeat (a node's actions, once per information set) as a table of the distinct
    rows and each row's index in it."""
    table: dict[tuple[object, ...], int] = {}
    index = np.fromiter((table.setdefault(row, len(table)) for row in rows), np.int64, len(rows))
    return [list(row) for row in table], index


def _save(tree: PublicTree, path: Path) -> None:
    """Numbers as arrays; the strings (keys and labels) as JSON in a byte array, so that the
    file is read without unpickling anything."""
    arrays: dict[str, Any] = dict(tree.arrays._asdict())
    actions, arrays["infoset_action_row"] = _indexed(tree.infoset_actions)
    labels, arrays["infoset_label_row"] = _indexed(tree.infoset_labels)
    text = json.dumps({"infoset_keys": tree.infoset_keys, "action_rows": actions,
                       "label_rows": labels, "node_keys": tree.node_keys,
                       "node_labels": tree.node_labels}, ensure_ascii=False)
    arrays["strings_json"] = np.frombuffer(text.encode(), np.uint8)
    if tree.chance_mass is not None:
        arrays["chance_mass"] = tree.chance_mass
    if tree.deal_weight is not None:
        arrays["deal_weight"] = tree.deal_weight
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(temporary, **arrays)
    temporary.replace(path)


def _load(name: str, path: Path) -> PublicTree:
    with np.load(path, allow_pickle=False) as data:
        arrays = TreeArrays(**{field: data[field] for field in TreeArrays._fields})
        strings = json.loads(data["strings_json"].tobytes().decode())
        actions = [tuple(int(a) for a in row) for row in strings["action_rows"]]
        labels = [tuple(str(s) for s in row) for row in strings["label_rows"]]
        return PublicTree(
            game=name,
            arrays=arrays,
            infoset_keys=tuple(strings["infoset_keys"]),
            infoset_actions=tuple(actions[i] for i in data["infoset_action_row"].tolist()),
            infoset_labels=tuple(labels[i] for i in data["infoset_label_row"].tolist()),
            node_keys=tuple(strings["node_keys"]),
            node_labels=tuple(strings["node_labels"]),
            chance_mass=data["chance_mass"] if "chance_mass" in data.files else None,
            deal_weight=data["deal_weight"] if "deal_weight" in data.files else None,
        )


@runtime_checkable
class CompilesItself(Protocol):
    """A game that lays out its own public tree as arrays (with `pack_tree`) from its rules,
    in the order the walk of `compile_game` would: far faster than walking its states (Dudo
    with several dice, the hold'em family). Not cached on disk, since building it costs little
    next to loading it, unless the game sets ``cache_compiled_tree`` (a big hold'em member
    takes seconds to compile)."""

    def compile_public_tree(self) -> PublicTree: ...


_compiled: dict[str, PublicTree] = {}


def build(game: Game) -> PublicTree:
    """The public tree of `game`, uncached: its own compiler if it has one, else the walk."""
    return game.compile_public_tree() if isinstance(game, CompilesItself) else _build(game)


def compile_game(game: Game, *, use_cache: bool = True) -> PublicTree:
    """The public tree of `game`, built once per process (by name) and cached on disk between
    processes (unless the game compiles itself, cheaply).

    Example::

        from solver.engine.compile import compile_game
        from solver.games import get_game

        tree = compile_game(get_game("leduc"))
        tree.num_infosets, tree.num_nodes      # (936, ...)
        tree.infoset_keys[0]                   # an information set's key, as the game writes it
    """
    name = game.name
    if name in _compiled:
        return _compiled[name]
    if isinstance(game, CompilesItself) and not getattr(game, "cache_compiled_tree", False):
        _compiled[name] = game.compile_public_tree()
        return _compiled[name]
    path = cache_path(game)
    tree = None
    if use_cache and path.exists():
        try:
            tree = _load(name, path)
        except (OSError, ValueError, KeyError):
            tree = None
    if tree is None:
        tree = build(game)
        if use_cache:
            with contextlib.suppress(OSError):
                _save(tree, path)
    _compiled[name] = tree
    return tree
