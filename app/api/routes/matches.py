"""Matches: create one (get its token), deal hands, see the results."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, status
from sqlalchemy.orm import Session

from app import services
from app.api.errors import (
    AUTH,
    IN_PROGRESS,
    JSON_BODY,
    NO_HAND_HISTORY,
    NOT_FOUND,
    NOT_READY,
    UNAVAILABLE,
    require_json_body,
)
from app.api.params import Digits, QueryBool
from app.deps import BackendDep, MatchIdPath, OptionalBearerDep, TokenDep
from app.schemas import (
    HandExport,
    HandHistoryPage,
    HandView,
    MatchCreate,
    MatchCreated,
    MatchResults,
)
from app.services.play.matches import DEFAULT_PAGE, MAX_EXPORT_PAGE, MAX_PAGE
from app.services.players.api_keys import require_key_owner

router = APIRouter(prefix="/matches", tags=["matches"])

BeforeQuery = Annotated[int | None, Query(ge=1, le=10**9, description=(
    "Only hands numbered below this: the ``next_cursor`` of the previous page.")), Digits]
"""The cursor of the paged hand lists."""


@router.post("", status_code=status.HTTP_201_CREATED, response_model=MatchCreated,
             responses=NOT_FOUND | JSON_BODY | NOT_READY | UNAVAILABLE | AUTH,
             dependencies=[Depends(require_json_body)])
async def create_match(body: MatchCreate, backend: BackendDep,
                       bearer: OptionalBearerDep = None) -> MatchCreated:
    """A new match against the bot. The token in the answer opens the match's endpoints
    (``Authorization: Bearer <token>``); it is shown only this once. Sent with a personal API
    key, the match is the key's account's, and the key opens it too; what is played over the
    API counts on the programs' boards."""

    def work(session: Session) -> MatchCreated:
        if services.is_api_key(bearer):
            owner = require_key_owner(session, str(bearer))
            return services.create_match(session, backend.source, body.game,
                                         account_id=owner.account_id, opponent=body.opponent)
        return services.create_match(session, backend.source, body.game,
                                     opponent=body.opponent)

    return await backend.run(work)


@router.get("/{match_id}", response_model=MatchResults, responses=AUTH | NOT_FOUND)
async def match_results(
    match_id: MatchIdPath, access: TokenDep, backend: BackendDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Hands per page."), Digits
                     ] = DEFAULT_PAGE,
    before: BeforeQuery = None,
) -> MatchResults:
    """Winnings so far with a 95% confidence interval (Student's t) and a verdict once there
    are enough hands, the equilibrium expectation for the seats played, the cumulative series
    (at most 500 points) and a page of the hands, newest first."""

    summary = await backend.call(services.match_results, backend.source, match_id, access,
                                 limit=limit, before=before)
    if summary.hands_analysing:
        backend.analyse(summary.match_id)
    return summary


@router.get("/{match_id}/export", response_model=HandExport, responses=AUTH | NOT_FOUND)
async def export(
    match_id: MatchIdPath, access: TokenDep, backend: BackendDep,
    limit: Annotated[int, Query(ge=1, le=MAX_EXPORT_PAGE, description="Hands per page."), Digits
                     ] = DEFAULT_PAGE,
    before: BeforeQuery = None,
) -> HandExport:
    """The match's finished hands as records (cards of both players, every action, results),
    newest first, a page at a time."""

    return await backend.call(services.export_hands, match_id, access, limit=limit,
                              before=before)


@router.get("/{match_id}/hand-histories", response_model=HandHistoryPage,
            responses=AUTH | NO_HAND_HISTORY)
async def hand_histories(
    match_id: MatchIdPath, access: TokenDep, backend: BackendDep,
    limit: Annotated[int, Query(ge=1, le=MAX_EXPORT_PAGE, description="Hands per page."), Digits
                     ] = DEFAULT_PAGE,
    before: BeforeQuery = None,
) -> HandHistoryPage:
    """The match's finished hands in the game's standard hand-history format (PHH for
    poker, which pokerkit and other tools read), newest first, a page at a
    time; 404 for a game that has no such format."""

    return await backend.call(services.export_hand_histories, match_id, access, limit=limit,
                              before=before)


@router.post("/{match_id}/hands", status_code=status.HTTP_201_CREATED, response_model=HandView,
             responses=AUTH | NOT_FOUND | IN_PROGRESS | UNAVAILABLE)
async def start_hand(
    match_id: MatchIdPath, access: TokenDep, backend: BackendDep, hint: QueryBool = False
) -> HandView:
    """Deal the next hand (seats alternate, hand 1 you act first); the bot may already have
    acted. 409 if the previous hand is unfinished."""

    return backend.analysed(await backend.call(
        services.start_hand, backend.source, backend.bot, match_id, access, rng=backend.rng,
        hint=hint))
