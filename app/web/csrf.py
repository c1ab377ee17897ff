"""Cross-site request forgery protection for the HTML pages: a synchronizer token.

Each browser session gets a random token, kept in the signed session cookie (so it is tied to
that session and cannot be forged without the app's secret). Every page carries it: in every
``<form method="post">`` as the hidden field ``csrf_token``, and for htmx requests in the
``X-CSRF-Token`` header that ``<body hx-headers=...>`` adds (also in ``<meta name="csrf-token">``).
A page's POST is refused with a 403 page unless the field or the header equals the session's
token (compared in constant time). A page on another site can make the browser post, but cannot
read the token; ``SameSite=Lax`` on the cookie is a second line of defence.

The JSON API needs none of this: it is opened by a bearer token that a browser never sends by
itself.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Annotated

from fastapi import Form, Header, Request

SESSION_KEY = "csrf"
FIELD = "csrf_token"
HEADER = "X-CSRF-Token"
TOKEN_MAX_LENGTH = 128


class CsrfError(Exception):
    """A page's POST without the session's CSRF token; answered with a 403 page."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def csrf_token(request: Request) -> str:
    """This session's token, created (and stored in the session cookie) on first use."""
    token = request.session.get(SESSION_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    return token


async def verify_csrf(
    request: Request,
    csrf_token: Annotated[str | None, Form(max_length=TOKEN_MAX_LENGTH)] = None,
    x_csrf_token: Annotated[
        str | None, Header(alias=HEADER, max_length=TOKEN_MAX_LENGTH)] = None,
) -> None:
    """Dependency of every page that changes something (the POST routes)."""
    sent = x_csrf_token or csrf_token
    expected = request.session.get(SESSION_KEY)
    if not sent:
        raise CsrfError(
            "This form was sent without its security token, so nothing was done. Reload the "
            "page and try again (forms only work from this site's own pages).")
    if not isinstance(expected, str) or not expected or not hmac.compare_digest(
            sent.encode("utf-8"), expected.encode("utf-8")):
        raise CsrfError(
            "This form's security token does not match your session (the page may be out of "
            "date, or the form came from another site), so nothing was done. Reload the page "
            "and try again.")
