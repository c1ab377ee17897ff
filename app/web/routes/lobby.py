"""The lobby: every game, whether the bot can play it, and why not."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app import services
from app.deps import GamePath, SourceDep
from app.schemas import GameSummary
from app.web.errors import PageRoute
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)


def _reason(game: GameSummary, store_error: str | None) -> str | None:
    if game.available:
        return None
    if store_error:
        return f"No solved strategy is stored for this game yet ({store_error})."
    return "This game has not been built on this server yet."


@router.get("/", name="lobby")
async def lobby(request: Request, source: SourceDep) -> Response:
    games = services.list_games(source)
    status = source.status()
    rows = [{"game": g, "reason": _reason(g, status.error)} for g in games
            if g.listed or g.available]  # a variant is shown once it is solved
    return templates.TemplateResponse(
        request, "lobby.html", {"games": rows, "store_error": status.error, "nav": "lobby"})


@router.get("/lobby/games/{game}/build", name="lobby_build")
async def build_status(request: Request, game: GamePath, source: SourceDep) -> Response:
    """A lobby card's build status, which polls itself while the game is built or waits: once
    the game is ready the lobby reloads (htmx's ``HX-Refresh``) to show it playable."""
    found = [g for g in services.list_games(source) if g.name == game and (g.listed or
                                                                           g.available)]
    if not found:
        services.offered_game(source, game)  # the 404 naming the lobby's games
    summary = found[0]
    if summary.available and (summary.building is None
                              or summary.building.state not in ("building", "waiting")):
        return Response(status_code=200, headers={"HX-Refresh": "true"})
    return templates.TemplateResponse(
        request, "partials/build_status.html",
        {"g": summary, "reason": _reason(summary, source.status().error), "oob": True})
