"""Hands: look at one, act in it, let the bot move after an interruption."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Response

from app import services
from app.api.errors import (
    ACTION_INPUT,
    AUTH,
    ILLEGAL,
    IN_PROGRESS,
    JSON_BODY,
    NOT_FOUND,
    UNAVAILABLE,
    require_json_body,
)
from app.api.params import QueryBool
from app.deps import BackendDep, HandIdPath, TokenDep
from app.schemas import ActionRequest, HandReplay, HandView

router = APIRouter(prefix="/hands", tags=["hands"])

IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", max_length=255, pattern=r"^[\x21-\x7e]{1,255}$",
    description="A key of your choosing, new for each action (a UUID, say), for retrying "
    "safely: a request repeated with the same key and body gets the first answer again, "
    "marked ``Idempotent-Replayed: true``, and nothing is played twice (the same key with "
    "another action of the match is a 422).")]


@router.get("/{hand_id}", response_model=HandView, responses=AUTH | NOT_FOUND)
async def get_hand(
    hand_id: HandIdPath, access: TokenDep, backend: BackendDep, hint: QueryBool = False
) -> HandView:
    """The hand as you see it; ``?hint=true`` adds the equilibrium strategy at your turn.
    Looking never changes the hand."""

    return backend.analysed(
        await backend.call(services.hand_view, backend.bot, hand_id, access, hint=hint))


@router.get("/{hand_id}/replay", response_model=HandReplay,
            responses=AUTH | NOT_FOUND | IN_PROGRESS)
async def replay(hand_id: HandIdPath, access: TokenDep, backend: BackendDep) -> HandReplay:
    """A finished hand step by step, both hands shown: the public state after every action,
    the bot's probabilities at its decisions, the coach's figures at yours. 409 while the hand
    is in progress."""

    return backend.analysed(
        await backend.call(services.hand_replay, backend.bot, hand_id, access))


@router.post("/{hand_id}/actions", response_model=HandView,
             responses=AUTH | NOT_FOUND | ILLEGAL | JSON_BODY | ACTION_INPUT | UNAVAILABLE,
             dependencies=[Depends(require_json_body)])
async def act(
    body: ActionRequest, hand_id: HandIdPath, access: TokenDep, backend: BackendDep,
    response: Response, idempotency_key: IdempotencyKey = None, hint: QueryBool = False,
) -> HandView:
    """Play an action by its label (one of ``legal_actions``), or a move whose size you
    choose as ``{"action": "raise", "amount": N}`` (the hand view's ``amount_choice`` gives
    the range), with the ``seq`` of the hand view you chose it on; the answer includes the
    bot's replies. Every action is played exactly
    once: a stale ``seq`` (a double click, another tab, a retry after the hand moved on) is
    refused with 409, and with an ``Idempotency-Key`` header as well a retry gets the first
    answer again. 409 with the legal actions if it is illegal, not your turn, or the hand is
    over; 409 if another action on this hand is being played at the same moment. (An older
    client's action with only the ``Idempotency-Key`` header and no ``seq`` is still played
    once; one with neither is a 422 and nothing is played.)"""

    played = await backend.call(
        services.act, backend.source, backend.bot, hand_id, access, body.action,
        amount=body.amount, seq=body.seq,
        idempotency_key=idempotency_key, rng=backend.rng, hint=hint)
    if played.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return backend.analysed(played.view)


@router.post("/{hand_id}/resume", response_model=HandView,
             responses=AUTH | NOT_FOUND | UNAVAILABLE)
async def resume(
    hand_id: HandIdPath, access: TokenDep, backend: BackendDep, hint: QueryBool = False
) -> HandView:
    """If the bot could not answer your last action (503: its strategy store was
    unavailable), it moves now; otherwise the hand as it is."""

    return backend.analysed(await backend.call(
        services.resume_hand, backend.bot, hand_id, access, rng=backend.rng, hint=hint))
