"""Online outcome sampling (OOS; Lisý, Lanctot & Bowling 2015): search from the position a bot
is in, with a thinking budget, instead of reading a strategy solved offline.

OOS is outcome-sampling Monte Carlo CFR (`solver.algorithms.mccfr`) whose samples are biased
towards the information set the bot has to act in (*information-set targeting*): each sample is,
with probability `delta`, drawn from the distribution restricted to the histories that pass
through that information set (at every chance node, opponent node and own node above it, only
the moves that can still lead there, in proportion to their usual probabilities), and otherwise
drawn as plain outcome sampling does (chance and the opponent on-policy, the player updated
epsilon-greedy).  Every estimate is importance-weighted by the mixture's probability of the
whole sample, ``delta x q_targeted + (1 - delta) x q_untargeted``, so the regrets stay unbiased
for the whole game while most of the budget lands where the decision is.  Both players are
updated in turn on every iteration, and, as in `solver.algorithms.mccfr`'s outcome sampling,
the other player's decision nodes on the sample add its current strategy to the average,
weighted by its chance and own reach over the sample's probability of reaching the node (an
unbiased estimate of its reach-weighted strategy up to a constant per information set; where
the other player is sampled on its own strategy, the weight is one over the updated player's
sampling reach, the low-variance estimate of plain outcome sampling).  At the targeted
information set itself the weight is the chance and opponent reach instead of the own: the bot
is there, and a search whose own strategy stopped reaching it would stop learning what to play
there.

The search runs on the game's compiled history tree (`solver.engine.history_tree`) in one numba
kernel; the regrets and the average live in the flat (information set, action) layout of the
public tree, so the strategy the bot plays at the end of its budget is the average at the
targeted information set.  `OOSSearch.assembled` runs one fresh search per information set of
the game and lays the answers side by side: the strategy the bot would play everywhere, which
`solver.algorithms.exploitability` judges exactly (``experiments/oos.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.algorithms.cfr import normalize
from solver.algorithms.mccfr import _uniform
from solver.engine import kernels
from solver.engine.compile import compile_game
from solver.engine.history_tree import HistoryTree, compile_history_tree
from solver.engine.node_kinds import CHANCE_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree
from solver.games.base import Game

DELTA = 0.9
"""The share of samples targeted at the information set (the paper's best IST setting)."""
EPSILON = 0.6
"""Exploration of the updated player, as in outcome sampling."""


@njit(cache=True)
def leading_nodes(infoset, parent, target):
    """1 at every history of information set `target` and at each of their ancestors."""
    leads = np.zeros(infoset.shape[0], np.int8)
    for n in range(infoset.shape[0]):
        if infoset[n] == target:
            m = n
            while m >= 0 and leads[m] == 0:
                leads[m] = 1
                m = parent[m]
    return leads


@njit(cache=True)
def oos_iterations(kind, player, first_child, num_children, probability, payoff, node_base,
                   infoset, leads, target, regrets, average, rng, iterations, delta, epsilon,
                   max_depth, max_children):
    """`iterations` OOS iterations targeted at information set `target` (whose histories and
    their ancestors `leads` marks); see the module's doc."""
    path_node = np.empty(max_depth + 1, np.int64)  # the traverser's nodes on the sample
    path_action = np.empty(max_depth + 1, np.int64)
    sigma = np.empty((max_depth + 1, max_children))
    p_used = np.empty(max_children)
    p_plain = np.empty(max_children)
    row = np.empty(max_children)
    reach = np.empty(2)
    for _ in range(iterations):
        for traverser in range(2):
            targeted = _uniform(rng) < delta
            n = 0
            length = 0
            below = False  # past a history of the target: nothing restricted any more
            q_targeted = 1.0 if leads[0] == 1 else 0.0
            q_plain = 1.0
            reach[0] = reach[1] = 1.0  # each player's own reach
            chance = 1.0
            other = 1.0  # chance x the traverser's opponent's reach
            while kind[n] != TERMINAL_NODE:
                first = first_child[n]
                count = num_children[n]
                if infoset[n] == target:
                    below = True
                acting = player[n]
                if kind[n] == CHANCE_NODE:
                    for a in range(count):
                        p_plain[a] = probability[first + a]
                else:
                    base = node_base[n]
                    current = sigma[length] if acting == traverser else row
                    kernels.regret_matching(regrets, base, count, current, 0)
                    if acting != traverser:  # the average lives at the other player's nodes
                        q_here = delta * q_targeted + (1.0 - delta) * q_plain
                        # At the target, weighted by how likely the others make it rather than
                        # by the player's own reach: the bot is there, however unlikely its own
                        # strategy makes it, and must not stop learning what to play.
                        mine = reach[1 - acting] if infoset[n] == target else reach[acting]
                        g = chance * mine / q_here
                        for a in range(count):
                            average[base + a] += g * current[a]
                    for a in range(count):
                        p_plain[a] = (epsilon / count + (1.0 - epsilon) * current[a]
                                      if acting == traverser else current[a])
                # The targeted distribution: only the moves that still lead to the target.
                mass = 0.0
                leading = 0
                for a in range(count):
                    keep = below or leads[first + a] == 1
                    p_used[a] = p_plain[a] if keep else 0.0
                    mass += p_used[a]
                    leading += keep
                if mass > 0.0:
                    for a in range(count):
                        p_used[a] /= mass
                elif leading > 0:  # the target is reached only by moves never played now
                    for a in range(count):
                        keep = below or leads[first + a] == 1
                        p_used[a] = 1.0 / leading if keep else 0.0
                    mass = 1.0
                u = _uniform(rng)
                c = count - 1
                acc = 0.0
                use_targeted = targeted and mass > 0.0
                for a in range(count):
                    acc += p_used[a] if use_targeted else p_plain[a]
                    if u < acc:
                        c = a
                        break
                # Rounding may land on a move of probability zero: take the last one that is not.
                chosen = p_used[c] if use_targeted else p_plain[c]
                if chosen <= 0.0:
                    for a in range(count - 1, -1, -1):
                        if (p_used[a] if use_targeted else p_plain[a]) > 0.0:
                            c = a
                            break
                q_targeted *= p_used[c] if mass > 0.0 else 0.0
                q_plain *= p_plain[c]
                if kind[n] == CHANCE_NODE:
                    other *= p_plain[c]
                    chance *= p_plain[c]
                elif acting == traverser:
                    path_node[length] = n
                    path_action[length] = c
                    length += 1
                    reach[acting] *= sigma[length - 1, c]
                else:
                    other *= row[c]
                    reach[acting] *= row[c]
                n = first + c
            # The sampled counterfactual value of node h's action a is the payoff times the
            # reach of z from h through a by everybody, times the chance and opponent reach of
            # h, over q(z): with the chance and opponent parts together, w below; the
            # traverser's own part from the child is `after`.
            utility = payoff[n] if traverser == 0 else -payoff[n]
            w = utility * other / (delta * q_targeted + (1.0 - delta) * q_plain)
            tail = 1.0  # the traverser's own reach from below the node updated to the end
            for i in range(length - 1, -1, -1):
                m = path_node[i]
                base = node_base[m]
                c = path_action[i]
                after = tail  # own reach from the child on
                tail *= sigma[i, c]
                for a in range(num_children[m]):
                    regrets[base + a] -= w * tail
                regrets[base + c] += w * after


class OOSSearch:
    """Online outcome sampling on a game, one search per decision.

    Example::

        from solver.algorithms.oos import OOSSearch
        from solver.games import get_game

        search = OOSSearch(get_game("kuhn"))
        search.decide("K|pb", iterations=10_000, seed=1)   # about (0, 1): call with the king
        strategy = search.assembled(iterations=1_000)       # every information set, searched
    """

    def __init__(self, game: Game, *, delta: float = DELTA, epsilon: float = EPSILON) -> None:
        self.tree: PublicTree = compile_game(game)
        self.history: HistoryTree = compile_history_tree(game)
        if self.history.num_infosets != self.tree.num_infosets:
            raise ValueError(f"{self.tree.game}: history tree and public tree disagree")
        self.delta, self.epsilon = delta, epsilon
        offsets = self.tree.infoset_regret_offset
        h = self.history
        self._node_base = np.where(h.infoset >= 0, offsets[np.maximum(h.infoset, 0)], -1)
        self._parent = np.full(len(h.kind), -1, np.int64)
        for n in range(len(h.kind)):
            first, count = int(h.first_child[n]), int(h.num_children[n])
            self._parent[first:first + count] = n
        self._index = {key: i for i, key in enumerate(self.tree.infoset_keys)}

    def search(self, target: int, iterations: int, seed: int = 0) -> np.ndarray:
        """Fresh regrets and average after `iterations` iterations targeted at information set
        number `target`: the average, normalised, as a flat (information set, action) array."""
        h = self.history
        regrets = np.zeros(self.tree.num_regrets)
        average = np.zeros(self.tree.num_regrets)
        leads = leading_nodes(h.infoset, self._parent, target)
        rng = np.array([(seed * 1_000_003 + target) % 2**64], dtype=np.uint64)
        oos_iterations(h.kind, h.player, h.first_child, h.num_children, h.probability,
                       h.payoff, self._node_base, h.infoset, leads, target, regrets, average,
                       rng, iterations, self.delta, self.epsilon, h.max_depth, h.max_children)
        return normalize(self.tree, average)

    def decide(self, key: str, iterations: int, seed: int = 0) -> np.ndarray:
        """The probabilities the bot plays at information set `key` after its search."""
        i = self._index[key]
        offsets = self.tree.infoset_regret_offset
        return self.search(i, iterations, seed)[offsets[i]:offsets[i + 1]]

    def assembled(self, iterations: int, seed: int = 0) -> np.ndarray:
        """The strategy the bot plays everywhere: at each information set, what a fresh
        search of `iterations` iterations targeted there ends with."""
        offsets = self.tree.infoset_regret_offset
        out = np.zeros(self.tree.num_regrets)
        for i in range(self.tree.num_infosets):
            lo, hi = offsets[i], offsets[i + 1]
            out[lo:hi] = self.search(i, iterations, seed)[lo:hi]
        return out
