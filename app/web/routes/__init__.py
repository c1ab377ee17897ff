"""The pages, one module each, under one router whose routes answer errors as HTML."""

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.web.errors import PageRoute
from app.web.routes import accounts, docs, lobby, play, players, replay, strategy, table

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse,
                   route_class=PageRoute)
for module in (lobby, play, table, replay, strategy, docs, accounts, players):
    router.include_router(module.router)
