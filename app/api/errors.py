"""Domain errors as JSON responses: 404, 401 (with WWW-Authenticate), 403, 409, 503."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.schemas import ErrorOut, HandInProgressOut, IllegalActionOut
from app.services import (
    AuthenticationError,
    HandInProgressError,
    IllegalActionError,
    ServiceError,
)

log = logging.getLogger("app.api")


def error_response(error: ServiceError) -> JSONResponse:
    body: dict[str, Any] = {"detail": error.message}
    headers = None
    if isinstance(error, IllegalActionError):
        body["legal_actions"] = list(error.legal_actions)
    if isinstance(error, HandInProgressError):
        body["hand_id"] = error.hand_id
    if isinstance(error, AuthenticationError):
        headers = {"WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=error.status_code, headers=headers)


async def _service_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    if exc.status_code >= 500:
        log.warning("%s", exc.message)
    return error_response(exc)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": "internal error; it was logged"}, status_code=500)


def install(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(Exception, _unexpected)


# For the OpenAPI description of the routes.
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorOut}}
UNAVAILABLE: dict[int | str, dict[str, Any]] = {503: {"model": ErrorOut}}
AUTH: dict[int | str, dict[str, Any]] = {401: {"model": ErrorOut}, 403: {"model": ErrorOut}}
ILLEGAL: dict[int | str, dict[str, Any]] = {409: {"model": IllegalActionOut}}
IN_PROGRESS: dict[int | str, dict[str, Any]] = {409: {"model": HandInProgressOut}}
