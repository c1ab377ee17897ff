"""FastAPI dependencies: settings, database session, strategies, rng, credentials.

All of them are ``async`` and never block, so that FastAPI does not hop to its thread pool for
them; the database is touched only in the route's own work (see :class:`Backend`).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Concatenate, ParamSpec, TypeVar

from fastapi import BackgroundTasks, Depends, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.core.config import Settings
from app.schemas import HandReplay, HandView
from app.services import Bot, OwnerAccess, StrategySource, TokenAccess
from app.services.analysis import analyse
from app.services.bots.bot import valuers_of
from solver.games import game_names

T = TypeVar("T")
P = ParamSpec("P")
H = TypeVar("H", HandView, HandReplay)

OWNER_KEY = "owner"
SESSION_ID_KEY = "sid"
"""The signed-in session's id in the cookie (`app.services.players.accounts`)."""


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_source(request: Request) -> StrategySource:
    source: StrategySource = request.app.state.strategies
    return source


async def get_rng() -> random.Random:
    """Dealing and the bot's sampling; tests override this with a seeded ``random.Random``."""
    return services.system_rng()


_bearer = HTTPBearer(
    auto_error=False,
    description="The token returned once by POST /api/v1/matches, or a personal API key "
                "(made on the profile page), which opens every match of its account.",
)


async def bearer_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> TokenAccess:
    """The match token of an API request (401 without one, before anything is looked up)."""
    token = credentials.credentials if credentials is not None else None
    return TokenAccess(services.require_token(token))


@dataclass(frozen=True, slots=True)
class Backend:
    """What a request works with: the play database, the strategies, the bot and the rng.

    Every route (API and pages alike) is ``async`` and runs all of its database work (the
    lookups and the service call) in one go, :meth:`run`, with a session of its own. A plain
    ``def`` route with a database dependency costs three hops to the thread pool (the
    dependency, the route, and FastAPI validating the answer), and each hop, with the GIL
    changing hands twice, cost about as much CPU as the SQLite work itself.

    On SQLite (`inline`) the work runs right on the event loop: it is local, CPU-bound and
    takes a millisecond or two, so the requests of a worker simply run one after the other,
    which is what the GIL makes of them anyway. A database across a network (PostgreSQL)
    would stall the loop while it waits, so there the work goes to the thread pool; so does
    every request while a stored solve is not warm yet, or while a bot computes its strategy
    at play time (`StrategySource.light`): a request that takes long then holds up only
    itself, never ``/healthz`` nor the other players."""

    sessions: sessionmaker[Session]
    source: StrategySource
    bot: Bot
    rng: random.Random
    inline: bool
    tasks: BackgroundTasks | None = None
    """The request's background tasks: a finished hand's analysis is computed there, after
    the answer is sent, where it takes longer than a request should
    (`app.services.analysis.analyse`)."""

    async def run(self, work: Callable[[Session], T]) -> T:
        """``work(session)``, on the event loop or in the thread pool; the session is
        closed where it was used."""
        if self.inline:
            return self.run_here(work)
        return await run_in_threadpool(self.run_here, work)

    async def call(self, service: Callable[Concatenate[Session, P], T], /, *args: P.args,
                   **kwargs: P.kwargs) -> T:
        """``service(session, *args, **kwargs)``, run as :meth:`run` runs its work: what a
        route that makes one service call awaits (several calls in one session: :meth:`run`)."""
        return await self.run(lambda session: service(session, *args, **kwargs))

    def analyse(self, match_id: str) -> None:
        """Have the match's hands that wait for their analysis analysed once the answer is
        sent (nothing if the bot has no value functions)."""
        valuers = valuers_of(self.bot)
        if valuers is not None and self.tasks is not None:
            self.tasks.add_task(analyse.analyse_match, self.sessions, valuers, match_id)

    def analysed(self, view: H) -> H:
        """`view` (a hand's view or replay), with its hand's analysis under way if pending."""
        if view.outcome is not None and view.outcome.analysis == "pending":
            self.analyse(view.match_id)
        return view

    def run_here(self, work: Callable[[Session], T]) -> T:
        """``work(session)`` in the calling thread: for work already off the event loop (the
        iterator of a streamed response, which Starlette runs in its thread pool)."""
        with self.sessions() as session:
            return work(session)


async def get_backend(request: Request, rng: Annotated[random.Random, Depends(get_rng)],
                      tasks: BackgroundTasks) -> Backend:
    state = request.app.state
    return Backend(state.sessionmaker, state.strategies, state.bot, rng,
                   inline=state.engine.dialect.name == "sqlite" and state.strategies.light(),
                   tasks=tasks)


async def optional_bearer(request: Request) -> str | None:
    """The bearer token of a request that works without one too (a personal API key makes
    a new match the account's). Read from the header directly, so that the OpenAPI schema
    does not declare the route as needing credentials."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


async def current_owner(request: Request) -> OwnerAccess:
    """The browser player's id, kept in the signed session cookie; created on first use; and
    the id of its signed-in session, if any (checked against the database by the services)."""
    owner = request.session.get(OWNER_KEY)
    if not isinstance(owner, str) or not owner:
        owner = secrets.token_urlsafe(24)
        request.session[OWNER_KEY] = owner
    sid = request.session.get(SESSION_ID_KEY)
    return OwnerAccess(owner, sid if isinstance(sid, str) and sid else None)


ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""What a match or hand id (32 hex digits) or a game name can look like at all: anything else
(too long, unicode, control characters, NUL) is a 422 before any lookup."""

MatchIdPath = Annotated[str, Path(pattern=ID_PATTERN, description="The match's id.",
                                  examples=["0f3c2a9e8d7b4c6a9e1f2d3c4b5a6978"])]
HandIdPath = Annotated[str, Path(pattern=ID_PATTERN, description="The hand's id.",
                                 examples=["7e1d2c3b4a5f46e8a9b0c1d2e3f4a5b6"])]
GamePath = Annotated[str, Path(pattern=ID_PATTERN, description="The game's name.",
                               examples=list(game_names()[:1]))]

SettingsDep = Annotated[Settings, Depends(get_settings)]
SourceDep = Annotated[StrategySource, Depends(get_source)]
TokenDep = Annotated[TokenAccess, Depends(bearer_token)]
OwnerDep = Annotated[OwnerAccess, Depends(current_owner)]
OptionalBearerDep = Annotated[str | None, Depends(optional_bearer)]
BackendDep = Annotated[Backend, Depends(get_backend)]
