"""FastAPI dependencies: settings, database session, strategies, rng, credentials.

The ones that never block are ``async`` so that FastAPI does not hop to its thread pool for
them; the ones that touch the database are plain functions and run in the pool.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.config import Settings
from app.models import Hand, Match
from app.services import StrategySource

OWNER_KEY = "owner"


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_session(request: Request) -> AsyncIterator[Session]:
    """A session for the request. Creating one does no I/O (a connection is taken from the
    pool on first use, in the thread pool); closing it hands the connection back."""
    factory: sessionmaker[Session] = request.app.state.sessionmaker
    session = factory()
    try:
        yield session
    finally:
        if request.app.state.engine.dialect.name == "sqlite":
            session.close()  # a local rollback: microseconds, not worth a thread hop
        else:
            await run_in_threadpool(session.close)


async def get_source(request: Request) -> StrategySource:
    source: StrategySource = request.app.state.strategies
    return source


async def get_rng() -> random.Random:
    """Dealing and the bot's sampling; tests override this with a seeded ``random.Random``."""
    return services.system_rng()


_bearer = HTTPBearer(
    auto_error=False,
    description="The token returned once by POST /api/v1/matches.",
)


async def bearer_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    return credentials.credentials if credentials is not None else None


async def current_owner(request: Request) -> str:
    """The browser player's id, kept in the signed session cookie; created on first use."""
    owner = request.session.get(OWNER_KEY)
    if not isinstance(owner, str) or not owner:
        owner = secrets.token_urlsafe(24)
        request.session[OWNER_KEY] = owner
    return owner


ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""What a match or hand id (32 hex digits) or a game name can look like at all: anything else
(too long, unicode, control characters, NUL) is a 422 before any lookup."""

MatchIdPath = Annotated[str, Path(pattern=ID_PATTERN, description="The match's id.",
                                  examples=["0f3c2a9e8d7b4c6a9e1f2d3c4b5a6978"])]
HandIdPath = Annotated[str, Path(pattern=ID_PATTERN, description="The hand's id.",
                                 examples=["7e1d2c3b4a5f46e8a9b0c1d2e3f4a5b6"])]
GamePath = Annotated[str, Path(pattern=ID_PATTERN, description="The game's name.",
                               examples=["kuhn"])]

SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
SourceDep = Annotated[StrategySource, Depends(get_source)]
RngDep = Annotated[random.Random, Depends(get_rng)]
TokenDep = Annotated[str | None, Depends(bearer_token)]
OwnerDep = Annotated[str, Depends(current_owner)]


def _require_token(token: str | None) -> str:
    if not token:
        # Before any lookup, so that a missing token reveals nothing about what exists.
        raise services.AuthenticationError(
            "this endpoint needs the match's token: send 'Authorization: Bearer <token>' "
            "with the token returned by POST /api/v1/matches"
        )
    return token


def authorized_match(match_id: MatchIdPath, session: SessionDep, token: TokenDep) -> Match:
    """The match in the path, opened by the bearer token (401 none, 404 unknown, 403 wrong)."""
    token = _require_token(token)
    match = services.get_match(session, match_id)
    services.check_token(match, token)
    return match


def authorized_hand(hand_id: HandIdPath, session: SessionDep, token: TokenDep) -> Hand:
    """The hand in the path, opened by its match's bearer token."""
    token = _require_token(token)
    hand = services.get_hand(session, hand_id)
    services.check_token(hand.match, token)
    return hand


MatchDep = Annotated[Match, Depends(authorized_match)]
HandDep = Annotated[Hand, Depends(authorized_hand)]
