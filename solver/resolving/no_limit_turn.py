"""How the no-limit re-solving bot reads the real game in its subgames, and its turn in the
turn's dense layout (`solver.resolving.turn_subgame`): the translated blueprint's strategy
laid into a turn subgame (for the opponent's values at the bot's first re-solve), and where a
hand stands in a turn subgame after the moves made since its root (for what the next re-solve
carries).

A subgame's betting is the blueprint's sizes of the actual pot (`abstract_state`); the
blueprint reads each of its nodes as the real game's (the same chips, every size legal) and
names real actions, each placed on the subgame's nearer one (`nearest`).  On the
river, every river card's hands are read in one walk of the blueprint's readings
(`Translated.own_dealt`), so a node costs one walk, not one per card.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.translated import TranslatedPolicy, translated_moves
from solver.abstractions.holdem.translation import Translation
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.games.holdem.betting import CALL, Betting
from solver.games.holdem.rules import HoldemRules
from solver.resolving.turn_kernel import uniform_strategy
from solver.resolving.turn_resolve import leaf_blocks
from solver.resolving.turn_subgame import TurnSubgame

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
NEARER = Translation(randomised=False)


def abstract_state(betting: Betting, abstract: HoldemRules) -> Betting:
    """The real public state `betting` under the blueprint's betting `abstract`: the same
    chips in, the same history, the blueprint's sizes (of the actual pot) from here on."""
    return replace(betting, rules=abstract)


def nearest(real: Betting, action: int, mine: Betting) -> int:
    """The index among `mine`'s legal actions of the real `action` at `real` (the same moment in
    the real game): the action itself where `mine` has it, a raise it lacks read as the nearer
    size by `Translation.read`, a fold where no bet is faced a check."""
    legal = mine.legal_actions()
    if action in legal:
        return legal.index(action)
    read = NEARER.read(real, action, mine)[0][0]
    return legal.index(read if read in legal else CALL)


def _placed(real: Betting, mine: Betting, actions: tuple[int, ...], rows: FloatArray
            ) -> FloatArray:
    """`rows` over the real `actions` as columns of `mine`'s legal actions."""
    out = np.zeros((len(rows), len(mine.legal_actions())))
    for column, action in enumerate(actions):
        out[:, nearest(real, action, mine)] += rows[:, column]
    return out


def blueprint_turn_strategy(sub: TurnSubgame, player: int, blueprint: TranslatedPolicy,
                            rules: HoldemRules, out: NDArray[np.float32]) -> None:
    """`out` (entries in `sub`'s layout): `player`'s probabilities under the translated
    `blueprint` of the real game `rules` at its decisions, uniform at the other's."""
    a = sub.arrays
    uniform_strategy(a, out)
    for n in np.flatnonzero((a.t_kind == DECISION_NODE) & (a.t_actor == player)).tolist():
        mine = sub.betting[n]
        real = replace(mine, rules=rules)
        rows = _placed(real, mine, *blueprint.sparse_probabilities(real, sub.board, a.hands))
        out[a.t_offset[n]:a.t_offset[n] + rows.size] = rows.T.reshape(-1)
    cards = len(sub.river_cards)
    width = a.order.shape[1]
    holes = a.hands[a.order].reshape(cards * width, 2)
    boards = np.array([sub.board + (c,) for c in sub.river_cards], np.int64)
    dealt = np.repeat(boards, width, axis=0)
    bot = blueprint.translated
    own = bot.own_dealt(blueprint.table, holes, dealt)
    for leaf in range(len(sub.leaves)):
        blocks, root, end = leaf_blocks(sub, out, leaf)
        for m in range(root, end):
            if a.r_kind[m] != DECISION_NODE or a.r_actor[m] != player:
                continue
            mine = sub.river_betting[leaf][m - root]
            real = replace(mine, rules=rules)
            rows = _placed(real, mine, *translated_moves(real, bot.abstract, own, len(holes),
                                                         bot.translation))
            k = rows.shape[1]
            start = int(a.r_offset[m])
            blocks[:, start:start + k * width] = rows.reshape(cards, width, k).transpose(
                0, 2, 1).reshape(cards, -1)


def turn_position(sub: TurnSubgame, start: Betting, actions: list[int]) -> Betting | None:
    """Where the real `actions` played from the subgame's root (the real state `start`) lead
    in `sub`, each read as the nearer action the subgame has: the subgame's betting there, at
    a decision on the turn or the river; None where the reading leaves the subgame's
    decisions (a fold, a showdown, the two bettings apart)."""
    a = sub.arrays
    node, real = 0, start
    leaf, river = -1, -1  # once on the river: the leaf's number and the river node
    for action in actions:
        if river < 0:
            if a.t_kind[node] != DECISION_NODE:
                return None
            node = int(a.t_child[node, nearest(real, action, sub.betting[node])])
            if (a.t_kind[node] == CHANCE_NODE) != (real.apply(action).round > start.round):
                return None  # one closed the turn, the other did not
            if a.t_kind[node] == CHANCE_NODE:
                leaf = int(a.t_leaf[node])
                river = int(a.tree_root[a.leaf_tree[leaf]])
        else:
            if a.r_kind[river] != DECISION_NODE:
                return None
            mine = sub.river_betting[leaf][river - int(a.tree_root[a.leaf_tree[leaf]])]
            river = int(a.r_child[river, nearest(real, action, mine)])
        real = real.apply(action)
    if real.over:
        return None
    if river < 0:
        return sub.betting[node] if a.t_kind[node] == DECISION_NODE else None
    if a.r_kind[river] != DECISION_NODE or real.round != start.round + 1:
        return None
    return sub.river_betting[leaf][river - int(a.tree_root[a.leaf_tree[leaf]])]
