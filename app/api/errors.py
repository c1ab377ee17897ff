"""Errors as JSON responses: the domain's 404, 401 (with WWW-Authenticate), 403, 409, 503, and
the request's own problems: 422 for invalid input (never echoing a huge input back), 413 for a
body over the limit (:mod:`app.core.security`), 415 for a body that is not JSON."""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.errors import (
    AuthenticationError,
    BotStalledError,
    ConflictError,
    GameNotReadyError,
    HandFinishedError,
    HandInProgressError,
    IllegalActionError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
    SignInError,
    StrategyUnavailableError,
    TooManyAttemptsError,
    UnguardedActionError,
)
from app.schemas import (
    BuildProgress,
    ErrorOut,
    GameNotReadyOut,
    HandInProgressOut,
    IllegalActionOut,
)

log = logging.getLogger("app.api")


def api_message(error: ServiceError) -> str:
    """The service's message, with what an API client does about it."""
    if isinstance(error, AuthenticationError):
        return (f"{error.message}: send 'Authorization: Bearer <token>' with the token returned "
                "by POST /api/v1/matches")
    if isinstance(error, HandFinishedError):
        return (f"{error.message}: POST /api/v1/matches/{error.match_id}/hands deals the next "
                "hand")
    if isinstance(error, UnguardedActionError):
        return (f"{error.message}. Send the hand view's 'seq' in the body "
                "({\"action\": ..., \"seq\": <seq of the view>}), and an 'Idempotency-Key' "
                "header as well to retry safely")
    if isinstance(error, BotStalledError):
        return f"{error.message}: POST /api/v1/hands/{error.hand_id}/resume"
    return error.message


def json_safe(value: Any) -> Any:
    """`value` with what JSON (or UTF-8) cannot carry made printable, so that an error can
    always be sent: lone surrogates (``"\\ud800"`` in a body) escaped as ``\\ud800``, and
    NaN, Infinity and numbers beyond a float (``1e400``) written as text."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


STATUS: dict[type[ServiceError], int] = {
    ServiceError: 400,
    NotFoundError: 404,
    AuthenticationError: 401,
    SignInError: 401,
    PermissionDeniedError: 403,
    InvalidRequestError: 422,
    TooManyAttemptsError: 429,
    ConflictError: 409,
    StrategyUnavailableError: 503,
    GameNotReadyError: 409,
}
"""The HTTP status of each domain error (a subclass not named answers as its nearest base), for
the API and the pages alike. A game not built yet is a 409, not a 503: the server is up and the
game exists (its description answers), but it is not in a state to be played or read yet; the
answer says why and how far its build has come, and the client tries again later. 503 would
tell monitors and clients the server is down, 404 that the game does not exist, and 425/423 mean
other things (TLS early data, WebDAV locks)."""


def status_of(error: ServiceError) -> int:
    """`error`'s HTTP status, from :data:`STATUS`."""
    return next(STATUS[kind] for kind in type(error).__mro__ if kind in STATUS)


def error_response(error: ServiceError) -> JSONResponse:
    body: dict[str, Any] = {"detail": api_message(error)}
    headers = None
    if isinstance(error, IllegalActionError):
        body["legal_actions"] = list(error.legal_actions)
    if isinstance(error, HandInProgressError):
        body["hand_id"] = error.hand_id
    if isinstance(error, GameNotReadyError):
        body["building"] = (BuildProgress.model_validate(error.building).model_dump(mode="json")
                            if error.building else None)
    if isinstance(error, AuthenticationError):
        headers = {"WWW-Authenticate": "Bearer"}
    return JSONResponse(json_safe(body), status_code=status_of(error), headers=headers)


async def _service_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    if status_of(exc) >= 500:
        log.warning("%s", exc.message)
    return error_response(exc)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": "internal error; it was logged"}, status_code=500)


# ---- invalid requests --------------------------------------------------------------------------

PREVIEW_CHARS = 80
"""Longest piece of a request's own input that an error message quotes back."""


def preview(value: Any) -> Any:
    """`value` as an error may quote it: long strings cut to :data:`PREVIEW_CHARS` with their
    length, bytes described, big structures replaced by a cut JSON text."""
    if isinstance(value, str):
        if len(value) <= PREVIEW_CHARS:
            return value
        return f"{value[:PREVIEW_CHARS]}… ({len(value):,} characters)"
    if isinstance(value, bytes | bytearray):
        return f"<{len(value):,} bytes>"
    try:
        encoded = jsonable_encoder(value)
        text = json.dumps(encoded, ensure_ascii=False)
    except (TypeError, ValueError):
        return preview(repr(value))
    return encoded if len(text) <= 2 * PREVIEW_CHARS else preview(text)


def validation_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """FastAPI's list of errors (``type``, ``loc``, ``msg``, ``input``, ``ctx``) with every
    quoted input shortened, and a plain message for a body that is not JSON."""
    out: list[dict[str, Any]] = []
    for error in exc.errors():
        kind = str(error.get("type", "value_error"))
        loc = [part if isinstance(part, str | int) else str(part) for part in error.get("loc", ())]
        msg = str(error.get("msg", "invalid value"))
        ctx = error.get("ctx")
        if kind == "json_invalid":
            reason = ctx.get("error") if isinstance(ctx, dict) else None
            msg = "the body is not valid JSON" + (f": {reason}" if reason else "")
        item: dict[str, Any] = {"type": kind, "loc": loc, "msg": preview(msg)}
        if "input" in error:
            item["input"] = preview(error["input"])
        if isinstance(ctx, dict) and ctx:
            item["ctx"] = {str(k): preview(v if isinstance(v, int | float | bool) else str(v))
                           for k, v in ctx.items()}
        out.append(item)
    return out


def validation_response(exc: RequestValidationError) -> JSONResponse:
    """422 with the errors; whatever the input was (a lone surrogate, NaN, 1e400), the answer
    is valid JSON, so that it is sent and the connection stays usable."""
    return JSONResponse(json_safe({"detail": validation_errors(exc)}), status_code=422)


async def _validation_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return validation_response(exc)


BODY_PARSE_ERROR = "There was an error parsing the body"
"""FastAPI's 400 for a body it cannot even decode (e.g. JSON that is not UTF-8)."""


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's/FastAPI's HTTP errors as JSON; a body that cannot be decoded is a 422 like
    any other malformed JSON (FastAPI says 400)."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and exc.detail == BODY_PARSE_ERROR:
        error = {"type": "json_invalid", "loc": ["body"],
                 "msg": "the body is not valid JSON: it could not be decoded as UTF-8 text"}
        return JSONResponse({"detail": [error]}, status_code=422)
    return await http_exception_handler(request, exc)


def unsupported_media_type(content_type: str) -> HTTPException:
    shown = preview(content_type) if content_type else "none"
    return HTTPException(
        status_code=415,
        detail=f"the body must be JSON, sent with 'Content-Type: application/json' "
               f"(got Content-Type: {shown})")


async def require_json_body(request: Request) -> None:
    """Dependency of the routes that take a JSON body: 415 for a body of another type (FastAPI
    would otherwise ignore it and answer that the body is missing)."""
    length = request.headers.get("content-length", "").strip()
    has_body = (length.isdigit() and int(length) > 0) or "transfer-encoding" in request.headers
    if not has_body:
        return
    content_type = request.headers.get("content-type", "")
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or (media.startswith("application/")
                                        and media.endswith("+json")):
        return
    raise unsupported_media_type(content_type)


def install(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, _unexpected)


# For the OpenAPI description of the routes.
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorOut}}
UNAVAILABLE: dict[int | str, dict[str, Any]] = {503: {
    "model": ErrorOut, "description": "The strategy store is missing or unreadable, or the bot "
                                      "could not answer."}}
AUTH: dict[int | str, dict[str, Any]] = {401: {"model": ErrorOut}, 403: {"model": ErrorOut}}
# A 409 is one of the domain's (with the legal actions, or the unfinished hand) or, when another
# request changed the hand at the same moment, a plain one.
ILLEGAL: dict[int | str, dict[str, Any]] = {409: {
    "model": IllegalActionOut | ErrorOut,
    "description": "Illegal action, not your turn, hand over, stale ``seq`` (with the legal "
                   "actions), or another request played in this hand at the same moment."}}
IN_PROGRESS: dict[int | str, dict[str, Any]] = {409: {
    "model": HandInProgressOut | GameNotReadyOut | ErrorOut,
    "description": "The previous hand is unfinished (with its id), another request dealt "
                   "at the same moment, or the game's strategy is not built (any more)."}}
NOT_READY: dict[int | str, dict[str, Any]] = {409: {
    "model": GameNotReadyOut,
    "description": "The game's strategy is not built yet: being built in the background (with "
                   "its progress), waiting its turn, failed (with why) or not started. Try "
                   "again once it is built."}}
TOO_LARGE: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorOut, "description": "The request body is over the size limit."}}
MALFORMED_HTTP: dict[int | str, dict[str, Any]] = {400: {
    "description": "Not a valid HTTP request (a malformed Transfer-Encoding header, say): "
                   "refused by the HTTP server before the app sees it, as plain text.",
    "content": {"text/plain": {"schema": {"type": "string"}}}}}
JSON_BODY: dict[int | str, dict[str, Any]] = {
    415: {"model": ErrorOut, "description": "The body is not JSON."}}
ACTION_INPUT: dict[int | str, dict[str, Any]] = {
    422: {"description": "Invalid body (no ``seq``, or one that is not an integer: nothing "
                         "was played), or an ``Idempotency-Key`` already used for another "
                         "action of the match."}}
NO_HAND_HISTORY: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "Unknown match, or a game that has no standard "
                                            "hand-history format (its hands export as records "
                                            "instead)."}}
