"""Dudo with one six-sided die each and 1s wild (the course exercise), optionally with calzo.

Bids are ids 0..11 in increasing strength, so "a stronger bid" is just "a higher id" and a state
is nothing but its history: cheap to extend, which matters because the tree has ~300k histories.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.games.base import (
    CHANCE,
    TERMINAL,
    ActionGroup,
    Die,
    GameDefaults,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    State,
)

NUM_BIDS = 12
DUDO = 12
"""Challenge the last bid: it is checked against the dice."""
CALZO = 13
"""Claim the last bid is exactly right (calzo variant only)."""
BID_FACES = (2, 3, 4, 5, 6, 1)
"""Face of bid ``b`` is ``BID_FACES[b % 6]``; its quantity is ``b // 6 + 1``."""
BID_LABELS: tuple[str, ...] = tuple(f"{b // 6 + 1}x{BID_FACES[b % 6]}" for b in range(NUM_BIDS))
"""``1x2, 1x3, ..., 1x6, 1x1, 2x2, ..., 2x1``."""
_MOVE_LABELS = (*BID_LABELS, "dudo", "calzo")
_ROLLS = tuple((o, 1.0 / 6.0) for o in range(6))
_FACES = tuple(range(6))


def bid_quantity(bid: int) -> int:
    return bid // 6 + 1


def bid_face(bid: int) -> int:
    return BID_FACES[bid % 6]


def count_matching(dice: tuple[int, ...], face: int) -> int:
    """Dice showing `face` or a wild 1; a bid on 1s counts only the 1s."""
    return sum(1 for d in dice if d == face or (d == 1 and face != 1))


def _illegal(state: DudoState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} at history {state.history}; legal actions: {legal}")


@dataclass(frozen=True, slots=True)
class DudoState:
    """A Dudo position: the history is the two rolls (face - 1) followed by the moves."""

    calzo: bool = False
    history: tuple[int, ...] = ()

    def current_player(self) -> int:
        h = self.history
        if len(h) < 2:
            return CHANCE
        if len(h) > 2 and h[-1] >= DUDO:
            return TERMINAL
        return len(h) % 2

    def is_terminal(self) -> bool:
        h = self.history
        return len(h) > 2 and h[-1] >= DUDO

    def is_chance(self) -> bool:
        return len(self.history) < 2

    def legal_actions(self) -> tuple[int, ...]:
        h = self.history
        if len(h) < 2:
            return _FACES
        if len(h) == 2:
            return _OPENING
        last = h[-1]
        if last >= DUDO:
            return ()
        return _AFTER_BID[self.calzo][last]

    def action_label(self, action: int) -> str:
        if len(self.history) < 2:
            if not 0 <= action < 6:
                raise ValueError(f"no roll {action} in Dudo (0..5 for faces 1..6)")
            return str(action + 1)
        if 0 <= action < NUM_BIDS:
            return BID_LABELS[action]
        if action == DUDO:
            return "dudo"
        if action == CALZO and self.calzo:
            return "calzo"
        raise ValueError(f"no action {action} in {'Dudo with calzo' if self.calzo else 'Dudo'}")

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        return _ROLLS if len(self.history) < 2 else ()

    def apply_action(self, action: int) -> DudoState:
        h = self.history
        n = len(h)
        if n < 2:
            ok = 0 <= action < 6
        elif n == 2:
            ok = 0 <= action < NUM_BIDS
        else:
            last = h[-1]
            ok = last < DUDO and (
                last < action < NUM_BIDS or action == DUDO or (action == CALZO and self.calzo)
            )
        if not ok:
            raise _illegal(self, action)
        return DudoState(self.calzo, h + (action,))

    def returns(self) -> tuple[float, float]:
        h = self.history
        if len(h) <= 2 or h[-1] < DUDO:
            return (0.0, 0.0)
        caller = (len(h) - 1) % 2  # moves alternate from player 0 at index 2
        bid = h[-2]
        count = count_matching((h[0] + 1, h[1] + 1), bid_face(bid))
        # Dudo says the bid is too high; calzo says it is exactly right.
        exact = count == bid_quantity(bid)
        caller_wins = count < bid_quantity(bid) if h[-1] == DUDO else exact
        u = 1.0 if caller_wins == (caller == 0) else -1.0
        return (u, -u)

    def moves(self) -> tuple[int, ...]:
        """The moves after the rolls: bids, then possibly dudo or calzo."""
        return self.history[2:]

    def information_state_key(self, player: int | None = None) -> str:
        """``"3|1x2,2x5"``: own die face, then the bids so far."""
        p = self.current_player() if player is None else player
        if p not in (0, 1):
            raise ValueError("information_state_key needs a player at chance or terminal states")
        return f"{self.private_key(p)}|{self.public_key()}"

    def public_key(self) -> str:
        """The moves so far, comma-joined labels (a final ``dudo``/``calzo`` included)."""
        return ",".join([_MOVE_LABELS[a] for a in self.history[2:]])

    def private_key(self, player: int) -> str:
        return str(self.history[player] + 1) if player < len(self.history) else ""

    def private_view(self, player: int) -> str:
        return self.private_key(player)

    def private_pieces(self, player: int) -> tuple[Piece, ...]:
        return (Die(self.history[player] + 1),) if player < len(self.history) else ()

    def public_view(self) -> PublicView:
        bids = tuple(BID_LABELS[m] for m in self.moves() if m < NUM_BIDS)
        return PublicView(bids=bids, last_bid=bids[-1] if bids else None)

    def action_groups(self) -> tuple[ActionGroup, ...]:
        calls = ("dudo", "calzo") if self.calzo else ("dudo",)
        return (ActionGroup("Bids", BID_LABELS, columns=6), ActionGroup("Calls", calls))

    def outcome_text(self, names: tuple[str, str]) -> str:
        if not self.is_terminal():
            return ""
        h = self.history
        caller, bidder = (len(h) - 1) % 2, len(h) % 2
        bid = h[-2]
        quantity, face = bid_quantity(bid), bid_face(bid)
        dice = (h[0] + 1, h[1] + 1)
        count = count_matching(dice, face)
        counted = describe_count(dice, face)
        call = "dudo" if h[-1] == DUDO else "calzo"
        text = f"{names[caller].capitalize()} called {call} on {BID_LABELS[bid]}: {counted}"
        if h[-1] == DUDO:
            stands = count >= quantity
            verdict = "the bid stands" if stands else "the bid fails"
            winner = bidder if stands else caller
        else:
            exact = count == quantity
            verdict = "exactly right" if exact else f"not exactly {quantity}"
            winner = caller if exact else bidder
        return f"{text}, {verdict}: 1 to {names[winner]}."


_OPENING = tuple(range(NUM_BIDS))
"""Player 0 must open with a bid."""
_AFTER_BID: dict[bool, tuple[tuple[int, ...], ...]] = {
    calzo: tuple(
        tuple(range(last + 1, NUM_BIDS)) + ((DUDO, CALZO) if calzo else (DUDO,))
        for last in range(NUM_BIDS)
    )
    for calzo in (False, True)
}
"""Legal moves after bid ``last``: any stronger bid, dudo, and calzo if playing it."""


def describe_count(dice: tuple[int, ...], face: int) -> str:
    """``"one 5 and a wild 1 make 2"``: how the dice count for a bid on `face`."""
    plain = sum(1 for d in dice if d == face)
    wild = sum(1 for d in dice if d == 1) if face != 1 else 0
    if plain + wild == 0:
        return f"no {face} and no wild 1" if face != 1 else "no 1 at all"
    parts = [f"{_count_word(plain)} {face}" + ("s" if plain > 1 else "")] if plain else []
    if wild:
        parts.append(f"{'a' if wild == 1 else _count_word(wild)} wild 1"
                     + ("s" if wild > 1 else ""))
    verb = "makes" if len(parts) == 1 and plain + wild == 1 else "make"
    return f"{' and '.join(parts)} {verb} {plain + wild}"


def _count_word(n: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[n] if n < len(words) else str(n)


class DudoOpenSpiel:
    """OpenSpiel's ``liars_dice`` (one die each): its wild face is its highest (6), placed
    last within each quantity, so bid and "Liar" ids coincide with ours and only the roll
    outcomes move (our face 1 is its 6, our face r its r - 1). Its information state is
    ``"<its face> <q-f> <q-f> ..."`` with bids in its labelling."""

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


class DudoGame(GameDefaults):
    """Dudo, plain or with calzo; a plain class because `Game` declares settable fields."""

    name: str
    title: str
    rules: str
    reference_value: float | None
    pieces: PieceKind = "dice"
    history_legend = "History: the bids so far, quantity x face."
    history_example = "e.g. 1x2,1x6"

    def __init__(self, calzo: bool = False) -> None:
        self.calzo = calzo
        self.name = "dudo-calzo" if calzo else "dudo"
        self.title = "Dudo with calzo" if calzo else "Dudo"
        extra = " or calzo (exactly right)" if calzo else ""
        self.rules = (
            "One secret die each, 1s wild. Bid 'quantity x face' on both dice, each bid"
            " stronger than the last.\n"
            f"Or call dudo (the bid is wrong){extra}: the loser of the call pays 1."
        )
        self.reference_value = None if calzo else -7.0 / 258.0
        self.openspiel = None if calzo else DudoOpenSpiel()
        self.notes = (
            "A bid 'q x f' says that at least q of all the dice show f or a 1: 1s are wild.",
            "A bid must be stronger than the last: more dice, or as many on a higher face. "
            "Each row of bids ends with the 1s: a bid on 1s counts only 1s, so it outranks "
            "the same quantity of any other face.",
            "Dudo: you doubt the last bid. If fewer dice match, its bidder loses; otherwise you "
            "lose." + (" Calzo: you claim the last bid is exactly right; you win if it is, "
                       "and lose otherwise." if calzo else ""),
        )

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        quantity, sep, face = label.partition("x")
        if sep and quantity.isdigit() and face.isdigit():
            return (f"{quantity}×", Die(int(face)))
        if label.isdigit() and len(label) == 1:
            return (Die(int(label)),)
        return (label,)

    def describe_history(self, public: str) -> str:
        return f"Bids: {public.replace(',', ', ')}" if public else "Opening bid"

    def initial_state(self) -> DudoState:
        return DudoState(self.calzo)

    def num_distinct_actions(self) -> int:
        return 14 if self.calzo else 13

    def __repr__(self) -> str:
        return f"DudoGame(calzo={self.calzo})"
