"""The FastAPI application: the REST API, the HTML pages and the static files.

``create_app(settings)`` builds one; ``uvicorn app.main:app`` (or ``python -m app``) serves the
one configured from the environment.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware
from starlette.types import ASGIApp

from app.api import errors
from app.api.main import API_TAGS, api_router
from app.api.routes import health
from app.core.config import REPO_ROOT, Settings
from app.core.origin import RelativeRedirectsMiddleware, believing_proxies
from app.core.security import (
    BodySizeLimitMiddleware,
    SecurityHeadersMiddleware,
    content_security_policy,
)
from app.db.engine import WalCheckpointer, create_tables, make_engine, make_sessionmaker
from app.services import StoredStrategyBot, StrategySource
from app.services.bots.warm import keep_warm
from app.services.play import forfeits
from app.web import errors as web_errors
from app.web.charts import SVG_CSS
from app.web.routes import router as pages_router
from app.web.templating import templates

log = logging.getLogger("app")

API_PREFIX = "/api/v1"
OPENAPI_PATH = "/openapi.json"
SESSION_COOKIE = "solved_bots_session"
STATIC_DIR = REPO_ROOT / "static"
HTMX_DIR = REPO_ROOT / "node_modules" / "htmx.org" / "dist"
SWAGGER_UI_DIR = REPO_ROOT / "node_modules" / "swagger-ui-dist"
CONTENT_SECURITY_POLICY = content_security_policy(inline_styles=[SVG_CSS])
"""The policy of every answer: nothing inline except the charts' style block."""
"""Swagger UI for ``/docs`` (app/web/routes/docs.py), from npm like htmx: FastAPI's own docs
pages load it from a CDN, which a machine without network cannot reach."""


class SolvedBotsApp(FastAPI):
    """FastAPI with the security headers (app.core.security) and relative redirects
    (app.core.origin) around everything, Starlette's own answers included (its error
    middleware is outside any middleware added to the app), outermost the configured proxies'
    forwarded headers, and its OpenAPI schema generated once, off the event loop
    (`serve_openapi`)."""

    _openapi_lock = threading.Lock()

    def build_middleware_stack(self) -> ASGIApp:
        settings: Settings = self.state.settings
        stack = SecurityHeadersMiddleware(
            RelativeRedirectsMiddleware(super().build_middleware_stack()), CONTENT_SECURITY_POLICY)
        return believing_proxies(stack, settings.forwarded_allow_ips)

    def openapi(self) -> dict[str, Any]:
        with self._openapi_lock:
            return super().openapi()

    def serve_openapi(self, path: str = OPENAPI_PATH) -> None:
        """Serve the schema at `path` from the thread pool: generating it takes a second or
        two, which FastAPI's own route spends on the event loop."""

        async def schema(_request: Request) -> Response:
            return JSONResponse(await run_in_threadpool(self.openapi))

        self.add_route(path, schema, include_in_schema=False)


def freeze_startup_objects() -> None:
    """Move everything allocated so far (the libraries, the app, its tables) out of the garbage
    collector's reach: those objects live as long as the process, and scanning them again in
    every full collection paused a worker for 70-80 ms a few times a minute under load, long
    enough to show in the p99 latency. Requests' own objects are collected as before."""
    gc.collect()
    gc.freeze()


def settle_forfeits(app: FastAPI) -> None:
    """Settle the hands left unfinished too long (`app.services.play.forfeits`); every worker does
    at start, and the hands' version guard settles each exactly once."""
    state = app.state
    try:
        with state.sessionmaker() as session:
            settled = forfeits.sweep_all(session, state.bot,
                                         hours=state.settings.forfeit_after_hours)
        if settled:
            log.info("settled %d hand(s) left unfinished as forfeits", settled)
    except Exception:  # never keep the app from starting
        log.exception("settling the forfeits at start-up failed; they are settled when read")


def prepare(app: FastAPI) -> None:
    """What the first request of a kind would otherwise pay for on the event loop, done in a
    thread once the app answers, as the strategies are warmed (`start_warming`): the pages'
    templates (compiled on first use: 0.7 s of CPU in all) and the OpenAPI schema (a second or
    two to generate)."""
    for name in templates.env.list_templates(extensions=["html"]):
        templates.env.get_template(name)
    app.openapi()


def start_warming(app: FastAPI, source: StrategySource, stop: threading.Event
                  ) -> threading.Thread | None:
    """Warm the stored strategies in a thread once the app answers, then each solve a build
    stores while it runs (`app.services.bots.warm.keep_warm`), with a bot of its own (a test's bot
    in ``app.state.bot`` is left alone); what it warmed first goes to ``app.state.warmed``.
    Off with ``settings.warm_strategies = False``."""
    app.state.warmed = None
    if not app.state.settings.warm_strategies:
        return None
    source.warming = True

    def done(took: dict[str, float]) -> None:
        app.state.warmed = took

    thread = threading.Thread(
        target=keep_warm, name="warm-strategies", daemon=True,
        args=(source, StoredStrategyBot(source), stop, done))
    thread.start()
    return thread


def create_app(settings: Settings | None = None) -> FastAPI:
    """An app on `settings` (default: from the environment). Creates the play tables; a missing
    or broken strategy store is logged and reported by ``/healthz``, not fatal."""
    settings = settings if settings is not None else Settings.from_env()
    engine = make_engine(settings.database_url)
    create_tables(engine)
    source = StrategySource(settings.strategy_store, settings.build_status)
    if (error := source.open()) is not None:
        log.error("starting without strategies (games answer 503 until it is fixed): %s", error)
    else:
        for why in source.status().incomplete.values():
            log.error("starting without a game (it answers 503 until it is fixed): %s", why)

    checkpointer = WalCheckpointer(engine) if WalCheckpointer.wanted(engine) else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settle_forfeits(app)
        freeze_startup_objects()
        if checkpointer is not None:
            checkpointer.start()
        stop = threading.Event()
        if settings.warm_strategies:
            threading.Thread(target=prepare, args=(app,), name="prepare", daemon=True).start()
        warming = start_warming(app, source, stop)
        yield
        stop.set()
        if warming is not None:
            warming.join(timeout=30)
        if checkpointer is not None:
            checkpointer.stop()
        source.close()
        engine.dispose()

    app = SolvedBotsApp(
        title="Solved bots",
        summary="Play imperfect-information games against bots that follow CFR equilibria.",
        version="1.0.0",
        lifespan=lifespan,
        openapi_tags=API_TAGS,
        docs_url=None,  # served by the pages (app/web/routes/docs.py) from node_modules
        redoc_url=None,
        openapi_url=None,  # served by serve_openapi
    )
    app.serve_openapi()
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.strategies = source
    app.state.bot = StoredStrategyBot(source)

    # The session cookie is signed, HttpOnly (Starlette always sets it), SameSite=Lax and,
    # when browsers reach the app over HTTPS, Secure; it carries the browser's player id and
    # its CSRF token (app.web.csrf).
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.secret_key,
        session_cookie=SESSION_COOKIE,
        same_site="lax",
        https_only=settings.https_only,
    )
    # Added last = outermost (inside SolvedBotsApp's security headers): a too-large body is
    # refused before anything reads it.
    app.add_middleware(BodySizeLimitMiddleware)
    errors.install(app)
    app.include_router(api_router, prefix=API_PREFIX)  # first: the routes under load
    app.include_router(health.router)
    # Most specific mounts first: /static/vendor/... must not be shadowed by /static.
    if HTMX_DIR.is_dir():
        app.mount("/static/vendor/htmx", StaticFiles(directory=HTMX_DIR), name="htmx")
    if SWAGGER_UI_DIR.is_dir():
        app.mount("/static/vendor/swagger-ui", StaticFiles(directory=SWAGGER_UI_DIR),
                  name="swagger-ui")
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        """Browsers ask for it on every site, whatever the pages link."""
        return FileResponse(STATIC_DIR / "favicon.ico", media_type="image/x-icon",
                            headers={"Cache-Control": "public, max-age=86400"})

    app.include_router(pages_router)

    async def http_error(request: Request, exc: Exception) -> Response:
        """An address no route answers, or a method it does not take: a page for a browser,
        the API's JSON for everybody else."""
        assert isinstance(exc, StarletteHTTPException)
        if web_errors.wants_html(request) and exc.status_code >= 400:
            return web_errors.http_error_page(request, exc)
        return await errors.http_error(request, exc)

    app.add_exception_handler(StarletteHTTPException, http_error)
    return app


def __getattr__(name: str) -> Any:
    """``app.main.app``: the app configured from the environment, built on first access."""
    if name == "app":
        application = create_app()
        globals()["app"] = application
        return application
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
