"""A player's profile (with a personal API key) and the leaderboards."""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy.orm import Session

from app.api.errors import AUTH, NOT_FOUND
from app.deps import BackendDep, GamePath, TokenDep
from app.schemas.players import BoardKind, Leaderboard, Profile
from app.services import players
from app.services.api_keys import key_owner_or_401
from app.services.credentials import is_api_key
from app.services.errors import AuthenticationError
from app.services.tokens import require_token

router = APIRouter(tags=["players"])

MinHands = IntEnum("MinHands", {f"hands_{n}": n for n in players.THRESHOLDS})  # type: ignore[misc]
"""The boards' thresholds, as the OpenAPI schema's enum."""
FEWEST = MinHands(players.THRESHOLDS[0])


def _hours(request: Request) -> float:
    return float(request.app.state.settings.forfeit_after_hours)


@router.get("/profile", response_model=Profile, responses=AUTH)
async def profile(request: Request, access: TokenDep, backend: BackendDep) -> Profile:
    """The profile of the API key's account: every match, and per game the hands, the raw and
    luck-adjusted results with 95% intervals, the coach's accuracy by day and the style
    figures beside the equilibrium's own from the same seats."""
    token = require_token(access.token)
    hours = _hours(request)

    def work(session: Session) -> Profile:
        if not is_api_key(token):
            raise AuthenticationError("the profile is opened with a personal API key, not a "
                                      "match token")
        owner = key_owner_or_401(session, token)
        account = players.account_row(session, owner.account_id)
        return players.profile(session, backend.source, backend.bot, account,
                               forfeit_hours=hours)

    return await backend.run(work)


@router.get("/leaderboards/{game}", response_model=Leaderboard, responses=NOT_FOUND)
async def leaderboard(
    request: Request, game: GamePath, backend: BackendDep,
    kind: Annotated[BoardKind, Query(description="People, or programs (played with a "
                                     "program's API key).")] = "people",
    min_hands: Annotated[MinHands, Query(description="One of the board's thresholds.")
                         ] = FEWEST,
) -> Leaderboard:
    """The players with at least `min_hands` hands, ranked by the luck-adjusted result per
    hand with its 95% interval, the raw rate beside it; display names only."""
    hours = _hours(request)

    def work(session: Session) -> Leaderboard:
        return players.leaderboard(session, backend.bot, game, kind=kind,
                                   min_hands=int(min_hands),
                                   forfeit_hours=hours)

    return await backend.run(work)

