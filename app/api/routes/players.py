"""A player's profile (with a personal API key) and the leaderboards."""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy.orm import Session

from app import services
from app.api.errors import AUTH, NOT_FOUND
from app.api.params import Digits
from app.core.errors import AuthenticationError
from app.deps import BackendDep, GamePath, TokenDep
from app.schemas.players import BoardKind, Leaderboard, Profile
from app.services.play.tokens import require_token
from app.services.players import profiles
from app.services.players.api_keys import require_key_owner

router = APIRouter(tags=["players"])

MinHands = IntEnum("MinHands", {f"hands_{n}": n for n in profiles.THRESHOLDS})  # type: ignore[misc]
"""The boards' thresholds, as the OpenAPI schema's enum."""
FEWEST = MinHands(profiles.THRESHOLDS[0])


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
        if not services.is_api_key(token):
            raise AuthenticationError("the profile is opened with a personal API key, not a "
                                      "match token")
        owner = require_key_owner(session, token)
        account = profiles.account_row(session, owner.account_id)
        return profiles.profile(session, backend.source, backend.bot, account,
                               forfeit_hours=hours)

    return await backend.run(work)


@router.get("/leaderboards/{game}", response_model=Leaderboard, responses=NOT_FOUND)
async def leaderboard(
    request: Request, game: GamePath, backend: BackendDep,
    kind: Annotated[BoardKind, Query(description="People (the hands played on the pages "
                                     "while signed in), or programs (the hands played over "
                                     "the API, with a key or a match token).")] = "people",
    min_hands: Annotated[MinHands, Query(description="One of the board's thresholds."),
                         Digits] = FEWEST,
    opponent: Annotated[str, Query(max_length=32, pattern=r"^[A-Za-z0-9_-]+$",
                                   description="The board of the matches against this "
                                   "opponent (``equilibrium``, or one of the game's "
                                   "exploitable opponents).")] = "equilibrium",
) -> Leaderboard:
    """The players with at least `min_hands` hands, ranked by the luck-adjusted result per
    hand with its 95% interval, the raw rate beside it; display names only."""
    hours = _hours(request)

    return await backend.call(profiles.leaderboard, backend.bot, game, kind=kind,
                              min_hands=int(min_hands), opponent=opponent,
                              forfeit_hours=hours, source=backend.source)

