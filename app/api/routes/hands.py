"""Hands: look at one, act in it."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from sqlalchemy.orm import Session

from app import services
from app.api.errors import AUTH, ILLEGAL, JSON_BODY, NOT_FOUND, UNAVAILABLE, require_json_body
from app.deps import BackendDep, HandIdPath, TokenDep
from app.schemas import ActionRequest, HandView

router = APIRouter(prefix="/hands", tags=["hands"])


@router.get("/{hand_id}", response_model=HandView, responses=AUTH | NOT_FOUND | UNAVAILABLE)
async def get_hand(
    hand_id: HandIdPath, token: TokenDep, backend: BackendDep, hint: bool = False
) -> HandView:
    """The hand as you see it; ``?hint=true`` adds the equilibrium strategy at your turn."""

    def work(session: Session) -> HandView:
        hand = services.hand_for_token(session, hand_id, token)
        return services.hand_view(session, backend.source, hand, hint=hint, rng=backend.rng)

    return await backend.run(work)


@router.post("/{hand_id}/actions", response_model=HandView,
             responses=AUTH | NOT_FOUND | ILLEGAL | JSON_BODY | UNAVAILABLE,
             dependencies=[Depends(require_json_body)])
async def act(
    body: ActionRequest, hand_id: HandIdPath, token: TokenDep, backend: BackendDep,
    hint: bool = False,
) -> HandView:
    """Play an action by its label (one of ``legal_actions``); the answer includes the bot's
    replies. 409 with the legal actions if it is illegal, not your turn, or the hand is over;
    409 if ``seq`` is not the hand's (stale view) or another action on this hand is being
    played at the same moment (exactly one of two simultaneous submissions is played)."""

    def work(session: Session) -> HandView:
        hand = services.hand_for_token(session, hand_id, token)
        return services.act(session, backend.source, hand, body.action, rng=backend.rng,
                            hint=hint, expected_seq=body.seq)

    return await backend.run(work)
