"""Dudo with one six-sided die each and 1s wild (the course exercise), optionally with calzo.

Bids are ids 0..11 in increasing strength, so "a stronger bid" is just "a higher id" and a state
is nothing but its history: cheap to extend, which matters because the tree has ~300k histories.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.games.base import CHANCE, TERMINAL

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
        return f"die {self.history[player] + 1}" if player < len(self.history) else ""


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


class DudoGame:
    """Dudo, plain or with calzo; a plain class because `Game` declares settable fields."""

    name: str
    title: str
    rules: str
    reference_value: float | None

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

    def initial_state(self) -> DudoState:
        return DudoState(self.calzo)

    def num_distinct_actions(self) -> int:
        return 14 if self.calzo else 13

    def __repr__(self) -> str:
        return f"DudoGame(calzo={self.calzo})"
