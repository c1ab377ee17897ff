"""A game's start page, and starting a match from it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app import services
from app.deps import BackendDep, GamePath, OwnerDep
from app.schemas import MatchSummary
from app.services.players import accounts
from app.web.csrf import verify_csrf
from app.web.errors import PageRoute
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)


@router.get("/play/{game}", name="play")
async def play_page(request: Request, game: GamePath, backend: BackendDep,
                    access: OwnerDep) -> Response:
    """The game's start page: rules, the value, your matches of this game, a start button
    (404 for a game the lobby does not offer, 409 saying how far its build has come)."""
    services.ready_solve(backend.source, game)
    detail = services.game_detail(backend.source, game)

    def work(session: Session) -> list[MatchSummary]:
        account = accounts.signed_in(session, access)
        return services.list_matches(session, access.owner, game, limit=10,
                                     account_id=account.id if account else None,
                                     source=backend.source)

    mine = await backend.run(work)
    return templates.TemplateResponse(
        request, "play.html", {"game": detail, "matches": mine, "nav": "lobby"})


@router.post("/play/{game}", name="start_match", dependencies=[Depends(verify_csrf)])
async def start_match(request: Request, game: GamePath, backend: BackendDep,
                      access: OwnerDep,
                      opponent: Annotated[str, Form(max_length=32)] = "equilibrium"
                      ) -> Response:
    """Create a match owned by this browser (and by its account, if it is signed in) against
    the chosen opponent, deal its first hand, go to its table."""

    def work(session: Session) -> str:
        account = accounts.signed_in(session, access)
        created = services.create_match(session, backend.source, game, access.owner,
                                        account_id=account.id if account else None,
                                        opponent=opponent)
        services.start_hand(session, backend.source, backend.bot, created.match_id, access,
                            backend.rng)
        return created.match_id

    match_id = await backend.run(work)
    return RedirectResponse(f"/matches/{match_id}", status_code=303)



