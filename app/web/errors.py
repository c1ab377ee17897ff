"""Errors as the pages show them: a friendly page, or a flash in place of the htmx target.

The pages handle their own errors (:class:`PageRoute`), beside the API's JSON handlers rather
than in place of them: a service error, invalid input or a forged form on a page's route
becomes HTML here, with the status the API gives it (`app.api.errors.STATUS`), while the same
error on an API route stays JSON. Addresses that match no route at all are answered by
:func:`http_error_page` for browsers (the app picks it for requests that want HTML and are not
under the API).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api.errors import status_of
from app.core.errors import (
    BotStalledError,
    GameNotReadyError,
    HandFinishedError,
    PermissionDeniedError,
    ServiceError,
    StrategyUnavailableError,
    UnguardedActionError,
)
from app.services import list_games
from app.web.csrf import CsrfError
from app.web.templating import templates

ERROR_TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not your match",
    404: "Not found",
    405: "Not allowed",
    409: "Not possible right now",
    413: "Request too large",
    422: "Bad request",
    503: "Strategy unavailable",
}
NO_PAGE = "There is no page at this address. The games are listed on the front page."
MAX_QUOTED = 80


def is_htmx(request: Request) -> bool:
    """True for requests made by htmx (they get partials, not whole pages)."""
    return request.headers.get("HX-Request") == "true"


def htmx_target(request: Request) -> str | None:
    return request.headers.get("HX-Target") if is_htmx(request) else None


def error_page(request: Request, status_code: int, message: str, *, title: str | None = None,
               back_url: str = "/", back_text: str = "Back to the games") -> HTMLResponse:
    """A friendly HTML error: a whole page, or a flash that replaces the htmx target."""
    context = {
        "status_code": status_code,
        "title": title or ERROR_TITLES.get(status_code, "Something went wrong"),
        "message": message,
        "back_url": back_url,
        "back_text": back_text,
        "target_id": htmx_target(request),
    }
    name = "partials/error_flash.html" if is_htmx(request) else "error.html"
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def page_message(error: ServiceError) -> str:
    """The service's message, with what a player in the browser does about it."""
    if isinstance(error, PermissionDeniedError):
        return (f"{error.message}. Matches are tied to the browser that started them; start "
                "your own match from the games page.")
    if isinstance(error, BotStalledError):
        return (f"The bot could not answer: {error.message}. Press “Let the bot move” on the "
                "table once the strategies are back.")
    if isinstance(error, GameNotReadyError):
        return f"{error.why}."
    if isinstance(error, StrategyUnavailableError):
        return (f"The bot cannot play this game right now: {error.message}. Other games may "
                "still be available.")
    if isinstance(error, HandFinishedError):
        return "This hand is over: press “Next hand” to deal a new one."
    if isinstance(error, UnguardedActionError):
        return "This form was incomplete (no hand version): reload the table and try again."
    return error.message


def service_error_page(request: Request, error: ServiceError) -> HTMLResponse:
    """A service error on a page; inside a match the way back is the table."""
    match_id = request.path_params.get("match_id")
    if match_id is not None and status_of(error) not in (403, 404):
        return error_page(request, status_of(error), page_message(error),
                          back_url=f"/matches/{match_id}", back_text="Back to the table")
    if isinstance(error, GameNotReadyError):
        if not is_htmx(request):
            return not_built_page(request, error)
        return error_page(request, status_of(error), page_message(error), title="Not built yet")
    return error_page(request, status_of(error), page_message(error))


def not_built_page(request: Request, error: GameNotReadyError) -> HTMLResponse:
    """A game whose bot is not built yet, for a player: what is being built and how far it has
    come (updating itself while it is built), and the games that can be played meanwhile."""
    games = list_games(request.app.state.strategies)
    game = next(g for g in games if g.name == error.game)
    context = {"g": game, "ready": [g for g in games if g.available],
               "reason": "This game has not been built on this server yet.", "nav": "lobby"}
    return templates.TemplateResponse(request, "not_built.html", context,
                                      status_code=status_of(error))


def validation_error_page(request: Request, error: RequestValidationError) -> HTMLResponse:
    """Invalid input on a page: 404 for an address that cannot exist (a malformed id or game
    name), else 422 naming the field."""
    problems = list(error.errors())
    if any(tuple(p.get("loc", ()))[:1] == ("path",) for p in problems):
        return error_page(request, 404, NO_PAGE)
    parts = []
    for problem in problems[:3]:
        field = ".".join(str(x) for x in tuple(problem.get("loc", ()))[1:]) or "the request"
        parts.append(f"{field}: {str(problem.get('msg', 'invalid'))[:MAX_QUOTED]}")
    return error_page(request, 422, "This request was not understood (" + "; ".join(parts) +
                      "). Reload the page and try again.")


class PageRoute(APIRoute):
    """A page's route: its service errors, invalid input and forged forms answer as HTML."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def handle_page(request: Request) -> Response:
            try:
                return await handle(request)
            except ServiceError as error:
                return service_error_page(request, error)
            except RequestValidationError as error:
                return validation_error_page(request, error)
            except CsrfError as error:
                return error_page(request, 403, error.message, title="Form expired or forged")

        return handle_page


def wants_html(request: Request) -> bool:
    """A browser's request for a page (not the JSON API, nor a client asking for JSON)."""
    path = request.url.path
    if path.startswith("/api/") or path in ("/healthz", "/openapi.json"):
        return False
    return is_htmx(request) or "text/html" in request.headers.get("accept", "")


def http_error_page(request: Request, error: StarletteHTTPException) -> HTMLResponse:
    """An address no page answers (404) or a method it does not take (405), for a browser."""
    messages = {
        400: "The request could not be read (a malformed form?). Reload the page and try "
             "again.",
        404: NO_PAGE,
        405: "This address does not accept that kind of request.",
    }
    message = messages.get(error.status_code, str(error.detail)[:MAX_QUOTED])
    response = error_page(request, error.status_code, message)
    if error.headers:
        response.headers.update(error.headers)
    return response
