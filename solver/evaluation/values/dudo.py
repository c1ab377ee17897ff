"""Values of a player's decisions in Dudo (a game, or a round of a match) against a bot that
remembers the last few bids, at play time.

A round's future below a position depends only on what the players remember there: the node of
the round's recall graph (`solver.abstractions.dudo_recall.graph`: who moves, the last bids),
and the dice.  So one bottom-up pass over the graph with the stored strategy
(`solver.algorithms.fsicfr.backward`) gives every node's *utility matrix*, the opener's payoff
for every pair of rolls when both play the stored strategy from there: the values below any bid
of the real round, exactly, whatever was bid before it.  At a decision of the player (the
*human*) holding roll s:

* the bot's roll t weighs its chance times the probability that the bot's strategy made the
  bot's bids of the round with it (its posterior);
* Q(I, a) is the human's payoff in the matrix of the node after a (or of the call), row s,
  averaged over t with those weights.

A match's rounds pay in match-winning chances, 2P - 1 of the dice counts a call leads to
(`solver.games.dudo.match.loser_payoffs` of the table P the match's solve wrote), so the values
are in the match's units and a round's start is worth 2P - 1 of its own counts.  Each round is
a *segment* of the hand: `hand` returns them with the human's expected payoff at each one's
start, before its dice are rolled.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.dudo_recall.graph import RecallGraph, recall_graph
from solver.abstractions.dudo_recall.remembered_bids import Recall, RoundPosition, remembered
from solver.algorithms.fsicfr import Graph, backward
from solver.evaluation.values.base import (
    HABIT_PRIOR,
    DecisionValues,
    Habits,
    Reference,
    Segment,
    habit_model,
    two_walks,
)
from solver.games.base import Game, State
from solver.games.dudo.rules import DudoRules, tables
from strategies import InfosetStrategy

FloatArray = NDArray[np.float64]
Counts = tuple[int, int]
Rows = Callable[[str], Iterable[InfosetStrategy]]
"""The stored strategy's information sets whose keys start with a prefix (``"5v4:"``)."""
Payoffs = Callable[[Counts], tuple[float, float]]
"""What a round's calls pay its opener (`recall_graph`'s `loser_payoffs`), by its counts."""
ROUNDS_KEPT = 4
"""Rounds whose utility matrices are kept between hands (the biggest, five dice each
remembering one bid, takes 60 MB)."""


@dataclass(frozen=True, slots=True, eq=False)
class PreparedRound:
    """A round's graph, the stored strategy laid out on it and its utility matrices."""

    recall: RecallGraph
    strategy: FloatArray
    utility: FloatArray  # (nodes, opener's rolls, other's rolls): the opener's payoff
    index: dict[tuple[int, tuple[int, ...]], int]
    slots: tuple[dict[str, int], dict[str, int]]  # per role: a roll's key -> its slot
    prefix: str


def utilities(graph: Graph, strategy: FloatArray) -> FloatArray:
    """Every node's utility matrix when both play `strategy` (laid out as the graph's rows)."""
    nodes = len(graph.actor)
    n0, n1 = len(graph.chance0), len(graph.chance1)
    reach = (np.ones((nodes, n0)), np.ones((nodes, n1)))
    utility = np.zeros((nodes, n0, n1))
    size = len(strategy)
    widest = int(graph.num_actions.max()) * max(n0, n1)
    backward(graph, -1, strategy, *reach, utility, np.zeros(size), np.zeros(size),
             np.zeros(widest), np.zeros(max(n0, n1)), np.zeros(n1))
    return utility


def prepare_round(rules: DudoRules, memory: int | None, payoffs: tuple[float, float],
                  prefix: str, rows: Iterable[InfosetStrategy]) -> PreparedRound:
    """The round of `rules` (the opener first) as stored under keys starting with `prefix`."""
    recall = recall_graph(rules, memory, payoffs, prefix)
    graph = recall.graph
    by_key = {row.key: row for row in rows}
    strategy = np.zeros(int((graph.blocks[:, 1] * graph.blocks[:, 2]).sum()))
    for b, (first, _, count, _) in enumerate(graph.blocks.tolist()):
        labels = recall.block_labels[b]
        for j, key in enumerate(recall.block_keys[b]):
            row = by_key.get(key)
            if row is None:
                raise ValueError(f"the stored strategy has no information set {key!r}")
            if sorted(row.labels) != sorted(labels):
                raise ValueError(f"the stored strategy at {key!r} has actions {row.labels}, "
                                 f"the round {labels}")
            probabilities = dict(zip(row.labels, row.probabilities, strict=True))
            at = first + j * count
            strategy[at:at + count] = [probabilities[label] for label in labels]
    index = {node: k for k, node in enumerate(recall.nodes)}
    slots = tuple({key.split("|", 1)[0].removeprefix(prefix): j
                   for j, key in enumerate(_states_of(recall, role))} for role in (0, 1))
    return PreparedRound(recall, strategy, utilities(graph, strategy), index,
                         (slots[0], slots[1]), prefix)


def _states_of(recall: RecallGraph, role: int) -> tuple[str, ...]:
    """The keys of a block of `role`'s: one per private state, in slot order."""
    for b, player in enumerate(recall.block_player):
        if player == role or recall.graph.blocks[b, 3] & (1 << role):
            return recall.block_keys[b]
    raise ValueError(f"role {role} never moves in this round")


@dataclass(slots=True, eq=False)
class DudoValues:
    """Values of a human's decisions against a bot playing `recall` (see the module doc).
    `rows` reads the stored strategy, `payoffs` says what each round's calls pay."""

    game: Game
    recall: Recall
    rows: Rows
    payoffs: Payoffs
    prior: float = HABIT_PRIOR
    _rounds: OrderedDict[str, PreparedRound] = field(default_factory=OrderedDict, init=False,
                                                     repr=False)
    reference: ClassVar[Reference] = "equilibrium"

    def round(self, prefix: str, counts: Counts, rules: DudoRules) -> PreparedRound:
        """The round with these dice counts (the opener's first), prepared once and kept."""
        found = self._rounds.get(prefix)
        if found is not None:
            self._rounds.move_to_end(prefix)
            return found
        prepared = prepare_round(rules, self.recall.memory(counts), self.payoffs(counts), prefix,
                                 self.rows(prefix))
        self._rounds[prefix] = prepared
        while len(self._rounds) > ROUNDS_KEPT:
            self._rounds.popitem(last=False)
        return prepared

    def both_starts(self, final: State, seat: int, habits: Habits, seed: int
                    ) -> tuple[list[Segment], list[Segment]]:
        return two_walks(self, final, seat, habits, seed)

    def segments(self, final: State, seat: int, habits: Habits | None = None,
                 rng: np.random.Generator | None = None) -> list[Segment]:
        """Every round of the hand that reached `final` in which anybody moved, with the
        decisions of the player in `seat` valued (and with its habits too, if given); a hand
        left at the player's decision (a forfeit) has that decision valued last.  Exact, so
        `rng` is not used."""
        segments: list[Segment] = []
        current: _Round | None = None
        state = self.game.initial_state()
        for action in (*final.history, None):
            player = state.current_player()
            if player >= 0 and (action is not None or player == seat):
                if not isinstance(state, RoundPosition):
                    raise ValueError(f"{type(state).__name__} is not a Dudo position")
                prefix, counts, _, bids = state.round_position(player)
                if current is None or current.prefix != prefix:
                    if current is not None:
                        segments.append(current.segment())
                    rules = _round_rules(state, counts)
                    # The opener moves first: the one to move with no bids yet.
                    role = 0 if (player == seat) == (len(bids) % 2 == 0) else 1
                    current = _Round(self.round(prefix, counts, rules), role, habits,
                                     self.prior)
                if player == seat:
                    current.decide(state.round_position(seat)[2], bids)
                elif action is not None:
                    current.bot_moved(bids, state.action_label(action))
            if action is not None:
                state = state.apply_action(action)
        if current is not None:
            segments.append(current.segment())
        return segments


def _round_rules(state: State, counts: Counts) -> DudoRules:
    """The round's rules, the opener's dice first (a Dudo game keeps its own, calzo and all)."""
    rules = getattr(state, "rules", None)
    if isinstance(rules, DudoRules) and rules.dice == counts:
        return rules
    return DudoRules(counts)


@dataclass(slots=True, eq=False)
class _Round:
    """One round of a hand being valued: the bot's posterior, the human's decisions."""

    prepared: PreparedRound
    role: int  # the human's: 0 the opener
    habits: Habits | None
    prior: float
    posterior: FloatArray = field(init=False)
    decisions: list[DecisionValues] = field(default_factory=list, init=False)
    model: tuple[Graph, FloatArray, FloatArray] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        graph = self.prepared.recall.graph
        self.posterior = np.array(graph.chance1 if self.role == 0 else graph.chance0, float)

    @property
    def prefix(self) -> str:
        return self.prepared.prefix

    def _node(self, role: int, bids: tuple[str, ...]) -> int:
        labels = tables(self.prepared.recall.rules).labels
        ids = tuple(labels.index(b) for b in bids)
        return self.prepared.index[(role, remembered(ids, self.prepared.recall.memory))]

    def bot_moved(self, bids: tuple[str, ...], label: str) -> None:
        p = self.prepared
        graph = p.recall.graph
        k = self._node(1 - self.role, bids)
        b = self._block(k)
        count = int(graph.num_actions[k])
        a = p.recall.block_labels[b].index(label)
        start = int(graph.row[k])
        states = len(self.posterior)
        self.posterior = self.posterior * p.strategy[start + a:start + states * count:count]

    def _block(self, k: int) -> int:
        graph = self.prepared.recall.graph
        return int(np.flatnonzero(graph.blocks[:, 0] == graph.row[k])[0])

    def decide(self, dice: str, bids: tuple[str, ...]) -> None:
        p = self.prepared
        graph = p.recall.graph
        k = self._node(self.role, bids)
        labels = p.recall.block_labels[self._block(k)]
        s = p.slots[self.role][dice]
        count = int(graph.num_actions[k])
        start = int(graph.row[k]) + s * count
        strategy = tuple(float(x) for x in p.strategy[start:start + count])
        weights = self.posterior / self.posterior.sum()
        values = self._values(graph, p.utility, k, s, weights)
        keys = self._habit_keys(bids, dice)
        model_probabilities = model_values = None
        if self.habits is not None:
            model_graph, model_strategy, model_utility = self._model()
            at = int(model_graph.row[k]) + s * count
            model_probabilities = tuple(float(x) for x in model_strategy[at:at + count])
            model_values = self._values(model_graph, model_utility, k, s, weights)
        self.decisions.append(DecisionValues(
            labels, strategy, values, float(np.dot(strategy, values)), model_probabilities,
            model_values, True, keys))

    def _values(self, graph: Graph, utility: FloatArray, k: int, s: int, weights: FloatArray
                ) -> tuple[float, ...]:
        out = []
        for a in range(int(graph.num_actions[k])):
            e = int(graph.edge_start[k]) + a
            c = int(graph.child[e])
            matrix = utility[c] if c >= 0 else graph.payoffs[graph.payoff[e]]
            mine = matrix[s, :] if self.role == 0 else -matrix[:, s]
            out.append(float(np.dot(weights, mine)))
        return tuple(out)

    def _habit_keys(self, bids: tuple[str, ...], dice: str) -> tuple[str, str]:
        """Where the human's habits are counted: the round, its role and the bid it answers
        (``5v4:1|2x3``), and the same with its dice (``5v4:1|2x3|12356``)."""
        general = f"{self.prefix}{self.role}|{bids[-1] if bids else ''}"
        return general, f"{general}|{dice}"

    def _model(self) -> tuple[Graph, FloatArray, FloatArray]:
        """The round's graph with the human's nodes playing its habits (their own rows, since
        a block may be shared with the bot's nodes), the strategy and the utility matrices."""
        if self.model is not None:
            return self.model
        p = self.prepared
        graph = p.recall.graph
        labels = tables(p.recall.rules).labels
        rows = graph.row.copy()
        extra: list[FloatArray] = []
        size = len(p.strategy)
        states = len(graph.chance0 if self.role == 0 else graph.chance1)
        dice_keys = sorted(p.slots[self.role], key=p.slots[self.role].__getitem__)
        for k, (player, suffix) in enumerate(p.recall.nodes):
            if player != self.role:
                continue
            count = int(graph.num_actions[k])
            block = p.strategy[graph.row[k]:graph.row[k] + states * count].reshape(states, count)
            bids = tuple(labels[x] for x in suffix)
            names = p.recall.block_labels[self._block(k)]
            mixed = np.array([habit_model(self.habits, self._habit_keys(bids, dice), names,
                                          tuple(row), self.prior)
                              for dice, row in zip(dice_keys, block.tolist(), strict=True)])
            rows[k] = size
            size += mixed.size
            extra.append(mixed.ravel())
        strategy = np.concatenate([p.strategy, *extra])
        model_graph = graph._replace(row=rows)
        self.model = (model_graph, strategy, utilities(model_graph, strategy))
        return self.model

    def segment(self) -> Segment:
        graph = self.prepared.recall.graph
        start = _start_value(graph, self.prepared.utility, self.role)
        model_start = None
        if self.habits is not None:
            model_graph, _, model_utility = self._model()
            model_start = _start_value(model_graph, model_utility, self.role)
        return Segment(start, model_start, tuple(self.decisions))


def _start_value(graph: Graph, utility: FloatArray, role: int) -> float:
    """The human's expected payoff at the round's start: the root's matrix over both rolls."""
    value = float(graph.chance0 @ utility[0] @ graph.chance1)
    return value if role == 0 else -value


def rows_by_prefix(rows: Mapping[str, InfosetStrategy]) -> Rows:
    """A `Rows` over an in-memory strategy (tests, scripts)."""
    return lambda prefix: (row for key, row in rows.items() if key.startswith(prefix))
