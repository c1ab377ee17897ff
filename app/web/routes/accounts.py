"""Signing up, in and out, the password, deleting the account, the boards opt-out and the API
keys: plain forms, each with the session's CSRF token. What succeeds is answered by a redirect
(Post/Redirect/Get: a reload never posts again); a new key, or a word about what was done, is
held in the session until the profile page shows it, once. What fails is answered by the form's
page with the reason, and a 429 with ``Retry-After`` once too many attempts were made.

Signing up or in rotates the session: the cookie is emptied and refilled with a new player id,
a new CSRF token and the new server-side session's id, so nothing of the signed-out session
(a fixed or stolen cookie) carries over. Password hashing is slow on purpose, so these routes
run their work in the thread pool, never on the event loop.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Form, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app.api.errors import status_of
from app.core.errors import ServiceError, TooManyAttemptsError
from app.deps import OWNER_KEY, SESSION_ID_KEY, Backend, BackendDep, OwnerDep
from app.services.players import accounts, api_keys
from app.services.players.accounts import NAME_HELP, SignedIn
from app.services.players.passwords import PASSWORD_MAX, PASSWORD_MIN
from app.web import devices
from app.web.csrf import verify_csrf
from app.web.errors import PageRoute
from app.web.routes.players import NEW_KEY, NOTICE, profile_page
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)
T = TypeVar("T")

Name = Annotated[str, Form(max_length=64)]
Password = Annotated[str, Form(max_length=PASSWORD_MAX + 1)]


async def _off_loop(backend: Backend, work: Callable[[Session], T]) -> T:
    """Work that hashes a password, in the thread pool (Argon2 takes a good part of a
    second of CPU: on the event loop it would stall every request of the worker)."""
    return await run_in_threadpool(backend.run_here, work)


def start_session(request: Request, signed: SignedIn) -> None:
    """Empty the cookie's session and refill it for the signed-in player."""
    request.session.clear()
    request.session[OWNER_KEY] = secrets.token_urlsafe(24)
    request.session[SESSION_ID_KEY] = signed.sid


def signed_in_redirect(request: Request, signed: SignedIn) -> Response:
    """To the profile, with a new session and this browser's device cookie noting the name."""
    start_session(request, signed)
    response = RedirectResponse("/profile", status_code=303)
    devices.remember(request, response, signed.account.username, signed.device)
    return response


def with_retry_after(response: Response, error: ServiceError) -> Response:
    """`response`, with ``Retry-After`` if `error` is a refusal of too many attempts."""
    if isinstance(error, TooManyAttemptsError):
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def account_page(request: Request, message: str | None = None, status_code: int = 200,
                 form: str | None = None) -> Response:
    context: dict[str, Any] = {"message": message, "form": form, "nav": "account",
                               "name_help": NAME_HELP, "password_min": PASSWORD_MIN}
    return templates.TemplateResponse(request, "account.html", context,
                                      status_code=status_code)


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + "."


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


@router.get("/account", name="account")
async def account(request: Request, backend: BackendDep, access: OwnerDep) -> Response:
    """Sign up or sign in; a signed-in player is sent to the profile."""
    signed = await backend.call(accounts.signed_in, access)
    if signed is not None:
        return RedirectResponse("/profile", status_code=303)
    return account_page(request)


@router.post("/account/signup", name="sign_up", dependencies=[Depends(verify_csrf)])
async def sign_up(request: Request, backend: BackendDep, access: OwnerDep, username: Name = "",
                  password: Password = "") -> Response:
    address = _address(request)
    try:
        signed = await _off_loop(backend, lambda session: accounts.sign_up(
            session, username, password, address=address, owner=access.owner))
    except ServiceError as error:
        return with_retry_after(account_page(request, _sentence(error.message),
                                             status_of(error), "signup"), error)
    return signed_in_redirect(request, signed)


@router.post("/account/signin", name="sign_in", dependencies=[Depends(verify_csrf)])
async def sign_in(request: Request, backend: BackendDep, access: OwnerDep, username: Name = "",
                  password: Password = "") -> Response:
    address = _address(request)
    device = devices.device_id(request, username)
    try:
        signed = await _off_loop(backend, lambda session: accounts.sign_in(
            session, username, password, address=address, device=device,
            owner=access.owner))
    except ServiceError as error:
        return with_retry_after(account_page(request, _sentence(error.message),
                                             status_of(error), "signin"), error)
    return signed_in_redirect(request, signed)


@router.post("/account/signout", name="sign_out", dependencies=[Depends(verify_csrf)])
async def sign_out(request: Request, backend: BackendDep, access: OwnerDep) -> Response:
    await backend.call(accounts.sign_out, access)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


@router.post("/account/password", name="change_password", dependencies=[Depends(verify_csrf)])
async def change_password(request: Request, backend: BackendDep, access: OwnerDep,
                          current: Password = "", new: Password = "") -> Response:
    try:
        signed = await _off_loop(backend, lambda session: accounts.change_password(
            session, access, current, new))
    except ServiceError as error:
        return with_retry_after(await profile_page(
            request, backend, access, message=_sentence(error.message),
            status_code=status_of(error)), error)
    start_session(request, signed)
    request.session[NOTICE] = "Your password was changed; every other device was signed out."
    return RedirectResponse("/profile", status_code=303)


@router.post("/account/delete", name="delete_account", dependencies=[Depends(verify_csrf)])
async def delete_account(request: Request, backend: BackendDep, access: OwnerDep,
                         password: Password = "") -> Response:
    try:
        await _off_loop(backend, lambda session: accounts.delete_account(
            session, access, password))
    except ServiceError as error:
        return with_retry_after(await profile_page(
            request, backend, access, message=_sentence(error.message),
            status_code=status_of(error)), error)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


@router.post("/account/boards", name="boards_opt", dependencies=[Depends(verify_csrf)])
async def boards(backend: BackendDep, access: OwnerDep,
                 on_boards: Annotated[str, Form(max_length=8)] = "") -> Response:
    await backend.call(accounts.set_on_boards, access, on_boards == "1")
    return RedirectResponse("/profile", status_code=303)


@router.post("/account/keys", name="create_key", dependencies=[Depends(verify_csrf)])
async def create_key(request: Request, backend: BackendDep, access: OwnerDep,
                     name: Annotated[str, Form(max_length=80)] = "") -> Response:
    """A new key, held in the session until the profile page shows it, once (the session's
    cookie already lets whoever holds it make keys, so carrying one there for a redirect gives
    nobody anything new)."""
    created = await backend.call(api_keys.create_key, access, name)
    request.session[NEW_KEY] = created.model_dump(mode="json")
    return RedirectResponse("/profile#new-key", status_code=303)


@router.post("/account/keys/{key_id}/revoke", name="revoke_key",
             dependencies=[Depends(verify_csrf)])
async def revoke_key(key_id: str, backend: BackendDep, access: OwnerDep) -> Response:
    await backend.call(api_keys.revoke_key, access, key_id[:64])
    return RedirectResponse("/profile", status_code=303)
