"""Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser
that has signed in with a user name keeps a note of it, so that the sign-in throttle
(`app.services.players.throttle`) counts that browser's attempts apart from everybody else's.

The cookie maps the user names (their keys) this browser has signed in with, at most
`MAX_NAMES` of them, to a random device id each, signed with the app's secret
(itsdangerous, as Starlette's session cookie is): it cannot be forged, and naming a user name
in it opens nothing, it only gives that browser its own allowance of attempts. It is a cookie
of its own, not part of the session, because it must outlive signing out; it is sent only to
the account pages (``Path=/account``), ``HttpOnly``, ``SameSite=Lax``, and ``Secure`` when the
app is served over HTTPS.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeSerializer

from app.core.config import Settings
from app.services.players.accounts import name_key

DEVICE_COOKIE = "solved_bots_device"
MAX_NAMES = 5
MAX_AGE = 365 * 24 * 3600
_DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def _serializer(request: Request) -> URLSafeSerializer:
    settings: Settings = request.app.state.settings
    return URLSafeSerializer(settings.secret_key, salt="device-cookie")


def _devices(request: Request) -> dict[str, str]:
    """The user names (keys) and device ids the browser's cookie holds, if it is genuine."""
    text = request.cookies.get(DEVICE_COOKIE)
    if not text or len(text) > 4096:
        return {}
    try:
        loaded: Any = _serializer(request).loads(text)
    except BadSignature:
        return {}
    if not isinstance(loaded, list):
        return {}
    return {str(pair[0]): str(pair[1]) for pair in loaded[:MAX_NAMES]
            if isinstance(pair, list) and len(pair) == 2
            and isinstance(pair[0], str) and isinstance(pair[1], str)
            and _DEVICE_ID.fullmatch(pair[1])}


def device_id(request: Request, username: str) -> str | None:
    """The id of this browser for `username`, if it has signed in with that name before."""
    return _devices(request).get(name_key(username)[:64])


def remember(request: Request, response: Response, username: str, device: str) -> None:
    """Note in the browser's device cookie that it signed in with `username` (as `device`),
    the most recent name first."""
    key = name_key(username)[:64]
    others = [[name, known] for name, known in _devices(request).items() if name != key]
    pairs = [[key, device], *others][:MAX_NAMES]
    settings: Settings = request.app.state.settings
    response.set_cookie(DEVICE_COOKIE, _serializer(request).dumps(pairs), max_age=MAX_AGE,
                        path="/account", secure=settings.https_only, httponly=True,
                        samesite="lax")
