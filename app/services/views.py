"""What the human may see of a hand: public state and the event history.

The rule that keeps the bot's secrets: an event's label is shown mid-hand only if it is public
(it changed the public key, like Leduc's board card, or it is a bet everybody sees) or private to
the human. Whether a move is private is read off the game itself: a chance outcome that leaves
the public key unchanged is a private deal to whoever's private key changed, and a move that
changes its own player's private key (a Rock-Paper-Scissors choice) is secret too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.schemas import Event, PublicState
from solver.games import CHANCE, State
from solver.games.dudo import BID_LABELS, NUM_BIDS, DudoState
from solver.games.kuhn import KuhnState
from solver.games.leduc import CARD_NAMES, LeducState

_SUIT_SYMBOLS = {"s": "♠", "h": "♥"}


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded action with the states around it."""

    seq: int
    actor: int
    action: int
    label: str
    before: State
    after: State


def replay_steps(initial: State, actions: Sequence[tuple[int, int, int]]) -> list[Step]:
    """`actions` as (seq, actor, action id) in order -> steps with their states."""
    steps = []
    state = initial
    for seq, actor, action in actions:
        after = state.apply_action(action)
        steps.append(Step(seq, actor, action, state.action_label(action), state, after))
        state = after
    return steps


def _owner_of_secret(step: Step) -> int | None:
    """The seat a step is secret to, or None if it is public."""
    if step.actor == CHANCE:
        if step.after.public_key() != step.before.public_key():
            return None
        for seat in (0, 1):
            if step.after.private_key(seat) != step.before.private_key(seat):
                return seat
        return -1  # changes nothing anybody sees: keep it hidden from both
    if step.after.private_key(step.actor) != step.before.private_key(step.actor):
        return step.actor
    return None


def _leduc_card(card: int) -> str:
    name = CARD_NAMES[card]
    return name[0] + _SUIT_SYMBOLS[name[1]]


def event_for(step: Step, human_seat: int, reveal_all: bool) -> Event:
    """The event as the human sees it (everything once `reveal_all`, at the end of the hand)."""
    secret_of = _owner_of_secret(step)
    hidden = not reveal_all and secret_of is not None and secret_of != human_seat
    label = None if hidden else step.label
    if step.actor == CHANCE:
        seat = secret_of if secret_of is not None and secret_of >= 0 else None
        if seat is None:
            shown = _leduc_card(step.action) if isinstance(step.before, LeducState) else label
            what = "Board card" if isinstance(step.before, LeducState) else "Chance"
            text = f"{what}: {shown}"
        else:
            whom = "you" if seat == human_seat else "the bot"
            shown = "hidden" if hidden else step.after.private_view(seat)
            text = f"Dealt to {whom}: {shown}"
        return Event(seq=step.seq, actor="chance", seat=seat, label=label, hidden=hidden,
                     text=text)
    mine = step.actor == human_seat
    who = "You" if mine else "Bot"
    return Event(
        seq=step.seq,
        actor="you" if mine else "bot",
        seat=step.actor,
        label=label,
        hidden=hidden,
        text=f"{who}: {'hidden' if hidden else step.label}",
    )


def public_state(state: State) -> PublicState:
    """The public facts of a position, per game (Rock-Paper-Scissors has none)."""
    if isinstance(state, KuhnState):
        contributions = [1, 1]
        for i, char in enumerate(state.bets):
            if char == "b":
                contributions[i % 2] += 1
        return PublicState(pot=sum(contributions), contributions=contributions, round=1)
    if isinstance(state, LeducState):
        board = _leduc_card(state.cards[2]) if len(state.cards) >= 3 else None
        stakes = list(state.stakes)
        return PublicState(
            pot=sum(stakes), contributions=stakes, round=2 if board else 1, board=board
        )
    if isinstance(state, DudoState):
        bids = [BID_LABELS[m] for m in state.moves() if 0 <= m < NUM_BIDS]
        return PublicState(bids=bids, last_bid=bids[-1] if bids else None)
    return PublicState()
