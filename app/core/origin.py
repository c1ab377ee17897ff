"""Where a request comes from, and where a redirect sends it back: nothing a client writes in a
header decides either, unless the app is configured to believe it.

* **The client's address and scheme** are the connection's own, unless the connection comes
  from a proxy named in ``FORWARDED_ALLOW_IPS`` (`app.core.config`); then they are taken from its
  ``X-Forwarded-For`` and ``X-Forwarded-Proto``. The sign-in limits count per address, so a
  client that could name its own address could pick a fresh allowance for every attempt.
  uvicorn's own handling believes those headers from 127.0.0.1 by default, which is every
  client of a server on this machine; so the app applies uvicorn's middleware itself, with
  the configured proxies only, and `app.core.serve`'s protocol takes uvicorn's away, whatever
  uvicorn was told.
* **Redirects are relative.** Starlette writes the request's ``Host`` header into the
  redirects it makes itself (``/api/v1/games/`` to ``/api/v1/games``): a forged ``Host``
  would send the browser, or a cache in front of the app, to another site. A ``Location`` on
  the request's own host becomes the path alone. Relative rather than a list of accepted hosts:
  it needs no configuration, holds behind any proxy and under any name the app is reached by,
  and the app never sends anybody to another host.
"""

from __future__ import annotations

from typing import cast
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware


def believing_proxies(app: ASGIApp, proxies: tuple[str, ...]) -> ASGIApp:
    """`app`, taking the client's address and scheme from the forwarded headers of the
    connections that come from `proxies` (addresses, networks or ``*``); `app` itself if none."""
    if not proxies:
        return app
    believing = ProxyHeadersMiddleware(app, trusted_hosts=list(proxies))  # type: ignore[arg-type]
    return cast(ASGIApp, believing)  # uvicorn's ASGI types are narrower than Starlette's


def relative_location(location: str, host: str | None) -> str:
    """`location` without its scheme and host if its host is `host` (the request's own)."""
    parts = urlsplit(location)
    if not parts.netloc or host is None or parts.netloc.lower() != host.lower():
        return location
    path = "/" + parts.path.lstrip("/")  # never "//other.example": a host of its own
    return path + (f"?{parts.query}" if parts.query else "") + (
        f"#{parts.fragment}" if parts.fragment else "")


class RelativeRedirectsMiddleware:
    """Redirects to the request's own host name the path alone (see the module's text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((bytes(value).decode("latin-1") for name, value in scope["headers"]
                     if name == b"host"), None)

        async def send_relative(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                headers = [
                    (name, relative_location(value.decode("latin-1"), host).encode("latin-1"))
                    if name.lower() == b"location" else (name, value)
                    for name, value in message.get("headers", [])]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_relative)
