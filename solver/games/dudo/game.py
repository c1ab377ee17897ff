"""Dudo as a `Game`: its states, how a player sees them, and its OpenSpiel mapping (the rules
themselves are `solver.games.dudo.rules`; the public tree is laid out directly as arrays by
`solver.games.dudo.tree`)."""

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
    bid_groups,
    bluff_test,
    call_result,
    describe_rules,
    dice_text,
    explain_call,
    tables,
)
from solver.games.dudo.style import DUDO_OPPONENTS, DUDO_STYLE, add_round, dudo_bend
from solver.games.dudo.tree import compile_dudo, tree_sizes
from solver.games.opponents import OpponentStyle
from solver.games.views import (
    ActionGroup,
    Die,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    StyleCounts,
    StyleStat,
)


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
        (`solver.abstractions.dudo_recall.memory`)."""
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

    def private_view(self, player: int) -> str:
        return self.private_key(player)

    def private_pieces(self, player: int) -> tuple[Piece, ...]:
        return tuple(Die(face) for face in self.dice(player))

    def public_view(self) -> PublicView:
        bids = tuple(tables(self.rules).labels[m] for m in self.moves() if m < self.rules.dudo)
        held = None if self.rules.dice == (1, 1) else self.rules.dice
        return PublicView(bids=bids, last_bid=bids[-1] if bids else None, pieces_held=held)

    def action_groups(self) -> tuple[ActionGroup, ...]:
        return bid_groups(self.rules)

    def outcome_text(self, names: tuple[str, str]) -> str:
        if not self.is_terminal():
            return ""
        return explain_call(self.rules, (self.dice(0), self.dice(1)), self.moves(), names,
                            "1")[0]


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


def _dice_word(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


class DudoGame(GameDefaults):
    """Dudo with `dice` for the first and second player, plain or with calzo; a plain class
    because `Game` declares settable fields."""

    name: str
    title: str
    rules: str
    reference_value: float | None
    pieces: PieceKind = "dice"
    wins_and_losses: bool = True
    history_legend = "History: the bids so far, quantity x face."
    history_example = "e.g. 1x2,1x6"

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
            held = "One secret die each"
        else:
            self.title = (f"Dudo, {_dice_word(dice[0])} against {_dice_word(dice[1])}"
                          + (" with calzo" if calzo else ""))
            held = f"Secret dice: {dice[0]} for the opener, {dice[1]} for the other"
        extra = " or calzo (exactly right)" if calzo else ""
        on = "both dice" if dice == (1, 1) else f"all {dice[0] + dice[1]} dice"
        self.rules = (
            f"{held}, 1s wild. Bid 'quantity x face' on {on}, each bid stronger than the last.\n"
            f"Or call dudo (the bid is wrong){extra}: the loser of the call pays 1."
        )
        self.reference_value = -7.0 / 258.0 if dice == (1, 1) and not calzo and faces == 6 \
            else None
        self.openspiel = DudoOpenSpiel() if dice == (1, 1) and not calzo and faces == 6 \
            else None
        self.notes = (
            "A bid 'q x f' says that at least q of all the dice show f or a 1: 1s are wild.",
            "A bid must be stronger than the last: more dice, or as many on a higher face. "
            + ("Each row of bids ends with the 1s: a bid on 1s counts only 1s, so it outranks "
               "the same quantity of any other face." if dice == (1, 1) else
               "The grid has a row per quantity and the 1s in a column of their own: a bid on "
               "1s counts only 1s, so n x 1 ranks just above (2n - 1) x 6 and below 2n x 2 "
               "(the bids still open to you are the ones not greyed out)."),
            "Dudo: you doubt the last bid. If fewer dice match, its bidder loses; otherwise you "
            "lose." + (" Calzo: you claim the last bid is exactly right; you win if it is, "
                       "and lose otherwise." if calzo else ""),
        )

    @property
    def build(self) -> BuildPlan:
        return self._build

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return dice_label_parts(label)

    def describe_history(self, public: str) -> str:
        return f"Bids: {public.replace(',', ', ')}" if public else "Opening bid"

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


def dice_label_parts(label: str) -> tuple[LabelPart, ...]:
    """``"2x5"`` as 2 x a die, a roll ``"16"`` as its dice, anything else as text."""
    quantity, sep, face = label.partition("x")
    if sep and quantity.isdigit() and face.isdigit():
        return (f"{quantity}×", Die(int(face)))
    if label.isdigit() and "0" not in label:
        return tuple(Die(int(c)) for c in label)
    return (label,)
