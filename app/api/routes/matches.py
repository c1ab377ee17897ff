"""Matches: create one (get its token), deal hands, see the results."""

from __future__ import annotations

from fastapi import APIRouter, Depends, status

from app import services
from app.api.errors import (
    AUTH,
    IN_PROGRESS,
    JSON_BODY,
    NOT_FOUND,
    UNAVAILABLE,
    require_json_body,
)
from app.deps import MatchDep, RngDep, SessionDep, SourceDep
from app.schemas import HandView, MatchCreate, MatchCreated, MatchResults

router = APIRouter(prefix="/matches", tags=["matches"])


@router.post("", status_code=status.HTTP_201_CREATED, response_model=MatchCreated,
             responses=NOT_FOUND | JSON_BODY | UNAVAILABLE,
             dependencies=[Depends(require_json_body)])
def create_match(body: MatchCreate, session: SessionDep, source: SourceDep) -> MatchCreated:
    """A new match against the bot. The token in the answer opens the match's endpoints
    (``Authorization: Bearer <token>``); it is shown only this once."""
    match, token = services.create_match(session, source, body.game)
    return services.match_created(match, token)


@router.get("/{match_id}", response_model=MatchResults, responses=AUTH | NOT_FOUND)
def match_results(match: MatchDep, session: SessionDep, source: SourceDep) -> MatchResults:
    """Winnings so far with a 95% confidence interval, the equilibrium expectation for the
    seats played, the cumulative series and the hands, newest first."""
    return services.match_results(session, source, match)


@router.post("/{match_id}/hands", status_code=status.HTTP_201_CREATED, response_model=HandView,
             responses=AUTH | NOT_FOUND | IN_PROGRESS | UNAVAILABLE)
def start_hand(
    match: MatchDep, session: SessionDep, source: SourceDep, rng: RngDep, hint: bool = False
) -> HandView:
    """Deal the next hand (seats alternate, hand 1 you act first); the bot may already have
    acted. 409 if the previous hand is unfinished."""
    return services.start_hand(session, source, match, rng=rng, hint=hint)
