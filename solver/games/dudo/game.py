"""Dudo as a `Game`: its states and its OpenSpiel mapping (the rules themselves are
`solver.games.dudo.rules`; the public tree is laid out directly as arrays by
`solver.games.dudo.tree`; how a player sees it, `solver.games.dudo.view`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.engine.tree import PublicTree
from solver.games.base import (
    CHANCE,
    TERMINAL,
    BuildPlan,
    GameDefaults,
    State,
    private_then_public_key,
)
from solver.games.dudo.rules import (
    FACES,
    DudoRules,
    bluff_test,
    call_result,
    describe_rules,
    dice_text,
    tables,
)
from solver.games.dudo.style import DUDO_OPPONENTS, DUDO_STYLE, add_round, dudo_bend
from solver.games.dudo.tree import compile_dudo, tree_sizes
from solver.games.opponents import OpponentStyle
from solver.games.view_values import StyleCounts, StyleStat


def _illegal(state: DudoState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} at history {state.history}; legal actions: {legal}")


@dataclass(frozen=True, slots=True)
class DudoState:
    """A Dudo position: the history is the two rolls (multiset indices, see `rolls`) followed
    by the moves."""

    rules: DudoRules = DudoRules()
    history: tuple[int, ...] = ()

    def current_player(self) -> int:
        h = self.history
        if len(h) < 2:
            return CHANCE
        if len(h) > 2 and h[-1] >= self.rules.dudo:
            return TERMINAL
        return len(h) % 2

    def is_terminal(self) -> bool:
        h = self.history
        return len(h) > 2 and h[-1] >= self.rules.dudo

    def is_chance(self) -> bool:
        return len(self.history) < 2

    def legal_actions(self) -> tuple[int, ...]:
        h = self.history
        t = tables(self.rules)
        if len(h) < 2:
            return tuple(o for o, _ in t.outcomes[len(h)])
        if len(h) == 2:
            return t.opening
        last = h[-1]
        if last >= self.rules.dudo:
            return ()
        return t.after_bid[last]

    def action_label(self, action: int) -> str:
        t = tables(self.rules)
        n = len(self.history)
        if n < 2:
            if not 0 <= action < len(t.rolls[n]):
                raise ValueError(f"no roll {action} for player {n}: 0..{len(t.rolls[n]) - 1} "
                                 f"for {', '.join(dice_text(d) for d, _ in t.rolls[n])}")
            return dice_text(t.rolls[n][action][0])
        if 0 <= action < len(t.labels):
            return t.labels[action]
        raise ValueError(f"no action {action} in {describe_rules(self.rules)}")

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        n = len(self.history)
        return tables(self.rules).outcomes[n] if n < 2 else ()

    def apply_action(self, action: int) -> DudoState:
        h = self.history
        n = len(h)
        rules = self.rules
        if n < 2:
            ok = 0 <= action < len(tables(rules).rolls[n])
        elif n == 2:
            ok = 0 <= action < rules.num_bids
        else:
            last = h[-1]
            ok = last < rules.dudo and (last < action < rules.num_bids or action == rules.dudo
                                        or (action == rules.calzo_action and rules.calzo))
        if not ok:
            raise _illegal(self, action)
        return DudoState(rules, h + (action,))

    def dice(self, player: int) -> tuple[int, ...]:
        """`player`'s dice, faces sorted; empty before its roll."""
        if player >= len(self.history):
            return ()
        return tables(self.rules).rolls[player][self.history[player]][0]

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        h = self.history
        moves = h[2:]
        caller = (len(moves) - 1) % 2
        _, winner_role = call_result(self.rules, (self.dice(0), self.dice(1)), moves[-2],
                                     moves[-1])
        winner = caller if winner_role == 0 else 1 - caller
        u = 1.0 if winner == 0 else -1.0
        return (u, -u)

    def moves(self) -> tuple[int, ...]:
        """The moves after the rolls: bids, then possibly dudo or calzo."""
        return self.history[2:]

    def round_position(self, player: int) -> tuple[str, tuple[int, int], str, tuple[str, ...]]:
        """What a player remembering only some bids keys its strategy by
        (`solver.abstractions.dudo_recall.remembered_bids`)."""
        labels = tables(self.rules).labels
        bids = tuple(labels[m] for m in self.moves() if m < self.rules.dudo)
        return "", self.rules.dice, self.private_key(player), bids

    def information_state_key(self, player: int | None = None) -> str:
        """``"16|1x2,2x5"``: own dice (faces sorted), then the bids so far."""
        return private_then_public_key(self, player)

    def public_key(self) -> str:
        """The moves so far, comma-joined labels (a final ``dudo``/``calzo`` included)."""
        labels = tables(self.rules).labels
        return ",".join([labels[a] for a in self.history[2:]])

    def private_key(self, player: int) -> str:
        return dice_text(self.dice(player))


class DudoOpenSpiel:
    """OpenSpiel's ``liars_dice`` (one die each): its wild face is its highest (6), placed
    last within each quantity, so bid and "Liar" ids coincide with ours and only the roll
    outcomes move (our face 1 is its 6, our face r its r - 1). Its information state is
    ``"<its face> <q-f> <q-f> ..."`` with bids in its labelling.  (With more dice its order
    keeps the wild bids inside each quantity, unlike ours: no mapping then.)"""

    game_string = "liars_dice"

    def information_state_string(self, state: State, player: int) -> str:
        assert isinstance(state, DudoState)
        moves = "".join(f" {b // 6 + 1}-{b % 6 + 1}" for b in state.moves())
        return f"{openspiel_face(state.history[player] + 1)}{moves}"

    def action_id(self, state: State, action: int) -> int:
        # Our roll outcome is face - 1; OpenSpiel's is its face - 1.
        return openspiel_face(action + 1) - 1 if state.is_chance() else action


def openspiel_face(face: int) -> int:
    """Our die face -> liars_dice's face (its wild 6 is our wild 1)."""
    return 6 if face == 1 else face - 1


def game_name(dice: tuple[int, int], calzo: bool = False, faces: int = FACES) -> str:
    """``dudo``, ``dudo-calzo``, ``dudo-1v2``, ``dudo-2v2-calzo``, ``dudo-2v2-d3``."""
    name = "dudo" if dice == (1, 1) else f"dudo-{dice[0]}v{dice[1]}"
    return name + ("-calzo" if calzo else "") + (f"-d{faces}" if faces != FACES else "")


def dice_word(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


class DudoGame(GameDefaults):
    """Dudo with `dice` for the first and second player, plain or with calzo; a plain class
    because `Game` declares settable fields."""

    name: str
    title: str
    reference_value: float | None

    def __init__(self, calzo: bool = False, dice: tuple[int, int] = (1, 1),
                 faces: int = FACES) -> None:
        self.dudo_rules = DudoRules(dice, faces, calzo)
        self.calzo = calzo
        self.name = game_name(dice, calzo, faces)
        # The lobby shows one die each, with and without calzo, and two each; the other
        # variants once a solve of them is stored.
        self.listed = dice in ((1, 1), (2, 2)) and faces == FACES
        exact = sum(dice) <= 3  # 2^18 bid sequences at most: solved as it is
        command = (("solve", self.name) if exact
                   else ("recall", self.name, "--memory", "3", "--quiet"))
        # One die each is solved in seconds, among the quick games; the others take minutes
        # (exact) or are solved remembering three bids.
        quick = dice == (1, 1) and faces == FACES
        # Pruning what the other player does not reach pays on every exact Dudo but the one
        # solved by predictive CFR+ (benchmarks/pruning.py).
        predictive = quick and calzo
        self._build = BuildPlan(command, algorithm="pdcfr+" if predictive else "dcfr",
                                background=not quick, pruning=not predictive,
                                opponents=quick)
        if dice == (1, 1):
            self.title = "Dudo with calzo" if calzo else "Dudo"
        else:
            self.title = (f"Dudo, {dice_word(dice[0])} against {dice_word(dice[1])}"
                          + (" with calzo" if calzo else ""))
        self.reference_value = -7.0 / 258.0 if dice == (1, 1) and not calzo and faces == 6 \
            else None
        self.openspiel = DudoOpenSpiel() if dice == (1, 1) and not calzo and faces == 6 \
            else None

    @property
    def build(self) -> BuildPlan:
        return self._build

    def initial_state(self) -> DudoState:
        return DudoState(self.dudo_rules)

    def num_distinct_actions(self) -> int:
        return self.dudo_rules.num_bids + (2 if self.calzo else 1)

    style_stats: tuple[StyleStat, ...] = DUDO_STYLE
    opponent_styles: tuple[OpponentStyle, ...] = DUDO_OPPONENTS

    def bend(self, style: str, labels: tuple[str, ...], probabilities: np.ndarray
             ) -> np.ndarray:
        return dudo_bend(style, labels, probabilities)

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        assert isinstance(state, DudoState)
        counts: StyleCounts = {}
        add_round(counts, seat, state.moves(), lambda i: i % 2,
                  bluff_test(tables(self.dudo_rules).bids, state.dice(0) + state.dice(1)))
        return counts

    def forfeit_payoff(self, state: State, seat: int) -> float:
        return -1.0  # the round lost, as a lost call

    def compile_public_tree(self) -> PublicTree:
        """The public tree built as arrays (`solver.games.dudo.tree`), not walked."""
        return compile_dudo(self.name, self.dudo_rules)

    def sizes(self) -> dict[str, int | dict[str, int]]:
        """Exact counts without building anything (`solver.games.dudo.tree.tree_sizes`)."""
        return dict(tree_sizes(self.dudo_rules))

    def __repr__(self) -> str:
        return f"DudoGame(calzo={self.calzo}, dice={self.dudo_rules.dice})"

