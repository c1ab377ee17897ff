"""Signing up, in and out, the password, deleting the account, the boards opt-out and the API
keys: plain forms, each with the session's CSRF token, answered by a redirect (or, for a new
key, the profile page showing it once).

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

from app.deps import OWNER_KEY, SESSION_ID_KEY, Backend, BackendDep, OwnerDep
from app.services import OwnerAccess, accounts, api_keys
from app.services.accounts import NAME_HELP, PASSWORD_MAX, PASSWORD_MIN, SignedIn
from app.services.errors import ServiceError
from app.web.csrf import verify_csrf
from app.web.errors import PageRoute
from app.web.routes.players import profile_page
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


def account_page(request: Request, message: str | None = None, status_code: int = 200,
                 form: str | None = None) -> Response:
    context: dict[str, Any] = {"message": message, "form": form, "nav": "account",
                               "name_help": NAME_HELP, "password_min": PASSWORD_MIN}
    return templates.TemplateResponse(request, "account.html", context,
                                      status_code=status_code)


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


@router.get("/account", name="account")
async def account(request: Request, backend: BackendDep, access: OwnerDep) -> Response:
    """Sign up or sign in; a signed-in player is sent to the profile."""
    signed = await backend.run(lambda session: accounts.signed_in(session, access))
    if signed is not None:
        return RedirectResponse("/profile", status_code=303)
    return account_page(request)


@router.post("/account/signup", name="sign_up", dependencies=[Depends(verify_csrf)])
async def sign_up(request: Request, backend: BackendDep, access: OwnerDep, username: Name = "",
                  password: Password = "") -> Response:
    try:
        signed = await _off_loop(backend, lambda session: accounts.sign_up(
            session, username, password, owner=access.owner))
    except ServiceError as error:
        return account_page(request, error.message, error.status_code, "signup")
    start_session(request, signed)
    return RedirectResponse("/profile", status_code=303)


@router.post("/account/signin", name="sign_in", dependencies=[Depends(verify_csrf)])
async def sign_in(request: Request, backend: BackendDep, access: OwnerDep, username: Name = "",
                  password: Password = "") -> Response:
    address = _address(request)
    try:
        signed = await _off_loop(backend, lambda session: accounts.sign_in(
            session, username, password, address=address, owner=access.owner))
    except ServiceError as error:
        return account_page(request, error.message[:1].upper() + error.message[1:] + ".",
                            error.status_code, "signin")
    start_session(request, signed)
    return RedirectResponse("/profile", status_code=303)


@router.post("/account/signout", name="sign_out", dependencies=[Depends(verify_csrf)])
async def sign_out(request: Request, backend: BackendDep, access: OwnerDep) -> Response:
    await backend.run(lambda session: accounts.sign_out(session, access))
    request.session.clear()
    return RedirectResponse("/", status_code=303)


@router.post("/account/password", name="change_password", dependencies=[Depends(verify_csrf)])
async def change_password(request: Request, backend: BackendDep, access: OwnerDep,
                          current: Password = "", new: Password = "") -> Response:
    try:
        signed = await _off_loop(backend, lambda session: accounts.change_password(
            session, access, current, new))
    except ServiceError as error:
        return await profile_page(request, backend, access, message=error.message,
                                  status_code=error.status_code)
    start_session(request, signed)
    return await profile_page(request, backend, OwnerAccess(request.session[OWNER_KEY],
                                                            signed.sid),
                              message="Your password was changed; every other device was "
                                      "signed out.")


@router.post("/account/delete", name="delete_account", dependencies=[Depends(verify_csrf)])
async def delete_account(request: Request, backend: BackendDep, access: OwnerDep,
                         password: Password = "") -> Response:
    try:
        await _off_loop(backend, lambda session: accounts.delete_account(
            session, access, password))
    except ServiceError as error:
        return await profile_page(request, backend, access, message=error.message,
                                  status_code=error.status_code)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


@router.post("/account/boards", name="boards_opt", dependencies=[Depends(verify_csrf)])
async def boards(backend: BackendDep, access: OwnerDep,
                 on_boards: Annotated[str, Form(max_length=8)] = "") -> Response:
    await backend.run(lambda session: accounts.set_on_boards(
        session, access, on_boards == "1"))
    return RedirectResponse("/profile", status_code=303)


@router.post("/account/keys", name="create_key", dependencies=[Depends(verify_csrf)])
async def create_key(request: Request, backend: BackendDep, access: OwnerDep,
                     name: Annotated[str, Form(max_length=80)] = "",
                     kind: Annotated[str, Form(max_length=16)] = "program") -> Response:
    """A new key, shown on the profile page this once."""
    created = await backend.run(lambda session: api_keys.create_key(session, access, name,
                                                                     kind))
    return await profile_page(request, backend, access, new_key=created)


@router.post("/account/keys/{key_id}/revoke", name="revoke_key",
             dependencies=[Depends(verify_csrf)])
async def revoke_key(key_id: str, backend: BackendDep, access: OwnerDep) -> Response:
    await backend.run(lambda session: api_keys.revoke_key(session, access, key_id[:64]))
    return RedirectResponse("/profile", status_code=303)
