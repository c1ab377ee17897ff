"""The API's documentation: Swagger UI served from this app (the npm package ``swagger-ui-dist``,
pinned in package-lock.json like htmx), so that it works without network access and under the
same Content-Security-Policy as every other page (its start-up is a file, not an inline
script)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web.errors import PageRoute
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)


@router.get("/docs", name="docs")
async def docs(request: Request) -> Response:
    return templates.TemplateResponse(request, "docs.html", {"nav": "docs"})
