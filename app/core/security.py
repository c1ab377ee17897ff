"""HTTP hardening as pure ASGI middleware: security headers and a request body size limit.

``SecurityHeadersMiddleware`` adds to every response (pages, API, static files, errors):

- ``Content-Security-Policy``: only this origin's scripts, styles, images and connections; no
  inline scripts, no inline style attributes, no framing (``frame-ancestors 'none'``), forms
  post only here. The only inline ``<style>`` blocks allowed are those the app names, by
  their sha256 hash (:func:`content_security_policy`: the SVG charts' own style block, so a
  chart stays a self-contained SVG).
  The API docs (``/docs``, Swagger UI) are a page like the others: Swagger UI is served from
  this app (npm's ``swagger-ui-dist``) and started by a script file, so the one policy holds
  everywhere and nothing needs a CDN.
- ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``, ``Referrer-Policy``,
  ``Cross-Origin-Opener-Policy``, ``Permissions-Policy``; API answers also get
  ``Cache-Control: no-store`` (a new match's answer carries its token).

``BodySizeLimitMiddleware`` answers 413 before the app parses anything: at once if
``Content-Length`` is over the limit, else while counting the bytes actually streamed (a chunked
body or a lying ``Content-Length``). The body is read into memory only up to the limit, then
handed to the app unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 16 * 1024
"""Largest request body accepted: far above anything the API or the forms send."""


def csp_hash(text: str) -> str:
    """A CSP hash source for an inline element whose text is `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def _policy(directives: Iterable[tuple[str, str]]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives)


def content_security_policy(inline_styles: Iterable[str]) -> str:
    """The policy of every page: nothing inline except the style blocks `inline_styles`."""
    styles = " ".join(csp_hash(style) for style in inline_styles)
    return _policy([
        ("default-src", "'self'"),
        ("script-src", "'self'"),
        ("style-src", f"'self' {styles}".rstrip()),
        ("img-src", "'self' data:"),
        ("font-src", "'self'"),
        ("connect-src", "'self'"),
        ("object-src", "'none'"),
        ("base-uri", "'none'"),
        ("form-action", "'self'"),
        ("frame-ancestors", "'none'"),
    ])

SECURITY_HEADERS: dict[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}


def _encoded(headers: dict[str, str]) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items())


class SecurityHeadersMiddleware:
    """Adds the security headers, with the Content-Security-Policy `policy`, to every HTTP
    response (those the app set itself win)."""

    def __init__(self, app: ASGIApp, policy: str) -> None:
        self.app = app
        page = {**SECURITY_HEADERS, "Content-Security-Policy": policy}
        self._page_headers = _encoded(page)
        self._api_headers = _encoded({**page, "Cache-Control": "no-store"})
        """The headers as ASGI sends them, encoded once rather than for every response."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        encoded = self._api_headers if path.startswith("/api/") else self._page_headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((k, v) for k, v in encoded if k not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def too_large_message(limit: int, size: int | None = None) -> str:
    got = f"{size:,} bytes" if size is not None else "more than that"
    return (f"request body too large: the limit is {limit:,} bytes ({limit // 1024} KiB), "
            f"got {got}")


class BodySizeLimitMiddleware:
    """413 for request bodies over `max_bytes`, before the app reads or parses them."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._reject(scope, send, declared)
            return
        # Read the whole body now, counting; at most max_bytes are ever held.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client went away: nothing to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._reject(scope, send, None)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect

        await self.app(scope, replay, send)

    async def _reject(self, scope: Scope, send: Send, size: int | None) -> None:
        message = too_large_message(self.max_bytes, size)
        if _wants_html(scope):
            content_type = b"text/html; charset=utf-8"
            payload = _html_page(413, "Request too large", message)
        else:
            content_type = b"application/json"
            payload = json.dumps({"detail": message}).encode("utf-8")
        await send({
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(payload)).encode("ascii")),
                (b"connection", b"close"),
            ],
        })
        await send({"type": "http.response.body", "body": payload, "more_body": False})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _content_length(scope: Scope) -> int | None:
    text = _header(scope, b"content-length")
    if text is None or not text.strip().isdigit():
        return None  # absent or malformed (the server rejects the latter): count instead
    return int(text.strip())


def _wants_html(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    if path.startswith("/api/") or path in ("/healthz", "/openapi.json"):
        return False
    return ("text/html" in (_header(scope, b"accept") or "")
            or _header(scope, b"hx-request") == "true")


def _html_page(status: int, title: str, message: str) -> bytes:
    from html import escape

    text = (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)} · Solved bots</title>"
        "<link rel=\"stylesheet\" href=\"/static/app.css\"></head><body>"
        "<main class=\"wrap\"><div class=\"error-page panel\" role=\"alert\">"
        f"<div class=\"code\">{status}</div><h1>{escape(title)}</h1>"
        f"<p>{escape(message[:1].upper() + message[1:])}.</p>"
        "<p><a class=\"btn btn-primary\" href=\"/\">Back to the games</a></p>"
        "</div></main></body></html>"
    )
    return text.encode("utf-8")

