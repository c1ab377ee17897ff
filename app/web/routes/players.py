"""The profile page and the leaderboards: the same service results as the API's JSON."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app.deps import Backend, BackendDep, GamePath, OwnerDep
from app.schemas.players import ApiKeyCreated, Profile
from app.services import OwnerAccess, list_games
from app.services.players import accounts, profiles
from app.web.accuracy_chart import accuracy_chart
from app.web.errors import PageRoute
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)
NEW_KEY = "new_key"
"""Where the session holds a key just made, until the profile page shows it (once)."""
NOTICE = "notice"
"""Where the session holds a word about what was just done, for the profile page (once)."""


async def profile_page(request: Request, backend: Backend, access: OwnerAccess, *,
                       message: str | None = None, status_code: int = 200,
                       new_key: ApiKeyCreated | None = None, notice: str | None = None
                       ) -> Response:
    """The signed-in player's profile; the sign-in page for anybody else."""
    hours = float(request.app.state.settings.forfeit_after_hours)

    def work(session: Session) -> Profile | None:
        account = accounts.signed_in(session, access)
        if account is None:
            return None
        return profiles.profile(session, backend.source, backend.bot, account,
                               forfeit_hours=hours)

    profile = await backend.run(work)
    if profile is None:
        return RedirectResponse("/account", status_code=303)
    charts = {f"{g.game}/{g.kind}": accuracy_chart([p.day for p in g.accuracy_series],
                                                   [p.accuracy for p in g.accuracy_series])
              for g in profile.games}
    context: dict[str, Any] = {"profile": profile, "charts": charts, "message": message,
                               "new_key": new_key, "notice": notice, "nav": "account"}
    return templates.TemplateResponse(request, "profile.html", context,
                                      status_code=status_code)


@router.get("/profile", name="profile")
async def profile(request: Request, backend: BackendDep, access: OwnerDep) -> Response:
    """The profile, with the key just made or the word about what was just done, if the
    session holds one: taken out of it, so a reload shows it no more."""
    held = request.session.pop(NEW_KEY, None)
    new_key = ApiKeyCreated.model_validate(held) if isinstance(held, dict) else None
    notice = request.session.pop(NOTICE, None)
    return await profile_page(request, backend, access, new_key=new_key,
                              notice=notice if isinstance(notice, str) else None)


@router.get("/leaderboards", name="leaderboards")
async def leaderboards(request: Request, backend: BackendDep) -> Response:
    """The games that have boards."""
    games = [g for g in list_games(backend.source) if g.listed or g.available]
    return templates.TemplateResponse(request, "leaderboards.html",
                                      {"games": games, "nav": "boards"})


@router.get("/leaderboards/{game}", name="leaderboard")
async def leaderboard(request: Request, game: GamePath, backend: BackendDep,
                      kind: Annotated[str, Query(max_length=16)] = "people",
                      min_hands: Annotated[int, Query(ge=1, le=10**9)] = profiles.THRESHOLDS[0],
                      opponent: Annotated[str, Query(max_length=32)] = "equilibrium"
                      ) -> Response:
    hours = float(request.app.state.settings.forfeit_after_hours)
    board = await backend.call(
        profiles.leaderboard, backend.bot, game, kind=kind, min_hands=min_hands,
        opponent=opponent, forfeit_hours=hours, source=backend.source)
    return templates.TemplateResponse(request, "leaderboard.html",
                                      {"board": board, "nav": "boards"})

