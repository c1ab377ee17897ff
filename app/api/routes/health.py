"""``/healthz``: is the app up, and which games can the bot play."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.errors import MALFORMED_HTTP
from app.deps import SourceDep
from app.schemas import Health

router = APIRouter(tags=["health"])


UNHEALTHY: dict[int | str, dict[str, Any]] = {503: {"model": Health}}


@router.get("/healthz", response_model=Health, responses=UNHEALTHY | MALFORMED_HTTP)
async def healthz(source: SourceDep) -> JSONResponse:
    """200 ``ok`` once the bot can play (``games``; ``unsolved`` lists the games not built,
    ``incomplete`` those whose solve lacks a piece, with why), 503 ``unavailable`` while the
    strategy store is missing, unreadable or empty."""
    # On the event loop (async): a few cached reads of the store, and no thread of the pool
    # to wait for, whatever the pool is busy with.
    status = source.status()
    state: Literal["ok", "unavailable"] = "ok"
    code = 200
    if status.error is not None or not status.ready:
        state, code = "unavailable", 503
    health = Health(
        status=state,
        games=list(status.ready),
        unsolved=list(status.unsolved),
        incomplete=status.incomplete,
        store=status.path.name,  # not where it lives: answers never name the server's paths
        store_error=status.error,
    )
    return JSONResponse(health.model_dump(mode="json"), status_code=code)
