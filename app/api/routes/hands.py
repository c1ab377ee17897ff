"""Hands: look at one, act in it."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app import services
from app.api.errors import AUTH, ILLEGAL, JSON_BODY, NOT_FOUND, UNAVAILABLE, require_json_body
from app.deps import HandDep, RngDep, SessionDep, SourceDep
from app.schemas import ActionRequest, HandView

router = APIRouter(prefix="/hands", tags=["hands"])


@router.get("/{hand_id}", response_model=HandView, responses=AUTH | NOT_FOUND | UNAVAILABLE)
def get_hand(
    hand: HandDep, session: SessionDep, source: SourceDep, rng: RngDep, hint: bool = False
) -> HandView:
    """The hand as you see it; ``?hint=true`` adds the equilibrium strategy at your turn."""
    return services.hand_view(session, source, hand, hint=hint, rng=rng)


@router.post("/{hand_id}/actions", response_model=HandView,
             responses=AUTH | NOT_FOUND | ILLEGAL | JSON_BODY | UNAVAILABLE,
             dependencies=[Depends(require_json_body)])
def act(
    body: ActionRequest,
    hand: HandDep,
    session: SessionDep,
    source: SourceDep,
    rng: RngDep,
    hint: bool = False,
) -> HandView:
    """Play an action by its label (one of ``legal_actions``); the answer includes the bot's
    replies. 409 with the legal actions if it is illegal, not your turn, or the hand is over;
    409 if ``seq`` is not the hand's (stale view) or another action on this hand is being
    played at the same moment (exactly one of two simultaneous submissions is played)."""
    return services.act(session, source, hand, body.action, rng=rng, hint=hint,
                        expected_seq=body.seq)
