"""The lobby: every game, whether the bot can play it, and why not."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app import services
from app.deps import SourceDep
from app.web.errors import PageRoute
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)


@router.get("/", name="lobby")
async def lobby(request: Request, source: SourceDep) -> Response:
    games = services.list_games(source)
    status = source.status()
    rows = []
    for g in games:
        if not (g.listed or g.available):
            continue  # a variant, shown once it is solved
        reason = None
        if not g.available:
            reason = (f"No solved strategy is stored for this game yet ({status.error})."
                      if status.error else
                      f"No solved strategy is stored for this game yet: `{g.build_command}` "
                      "builds it.")
        rows.append({"game": g, "reason": reason})
    return templates.TemplateResponse(
        request, "lobby.html", {"games": rows, "store_error": status.error, "nav": "lobby"})
