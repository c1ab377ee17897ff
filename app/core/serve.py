"""Serving with uvicorn: the HTTP protocol class to use, with one worker or several.

The protocol is uvicorn's httptools one (a C parser: about a millisecond less per request than
the pure-Python h11 one at the sizes this API answers), with three changes:

* ``TCP_NODELAY`` on every connection. Setting it ourselves matters with ``--workers N``
  (N > 1) on the standard asyncio loop: uvicorn then binds the listening socket itself with
  ``proto`` 0, asyncio only sets ``TCP_NODELAY`` on accepted sockets whose ``proto`` is TCP,
  and Nagle's algorithm holds back the body of every keep-alive response until the client's
  delayed ACK, about 40 ms on Linux (uvicorn issue #3149). uvloop, which uvicorn picks when it
  is installed, sets it anyway.
* **A bound on the request's head** (its request line and headers): past
  :data:`MAX_HEAD_BYTES` the answer is 431 and the connection is closed. httptools has no such
  setting and buffers whatever it is sent (a 64 MiB header was read whole and answered 200);
  uvicorn's h11 protocol has one (``h11_max_incomplete_event_size``, 16 KiB). Counted as the
  bytes arrive, so no more than the limit and one read of the socket is ever held.
* **uvicorn's forwarded-header handling taken away**: it believes ``X-Forwarded-For`` from
  127.0.0.1 unless told otherwise, and the app applies its own, with the proxies it is
  configured to believe (`app.core.origin`), whichever way uvicorn was started.

``python -m app`` uses :data:`HTTP_PROTOCOL`; so can
``uvicorn app.main:app --workers N --http app.core.serve:NoDelayHttpToolsProtocol``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

HTTP_PROTOCOL = "app.core.serve:NoDelayHttpToolsProtocol"
MAX_HEAD_BYTES = 32 * 1024
"""Largest request line and headers taken: twice what uvicorn's h11 protocol and Node take,
since a browser sends every cookie of the host name, whichever program on it set them."""
LINGER_SECONDS = 5.0
"""How long a refused connection is still read (and what it sends thrown away) so that the
client, still sending, reads the 431 rather than a reset connection."""


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """``TCP_NODELAY`` on the transport's socket, if it is a TCP one."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def head_too_large_answer() -> bytes:
    message = (f"request header fields too large: the request line and headers may take "
               f"{MAX_HEAD_BYTES // 1024} KiB at most\n").encode("ascii")
    return b"".join([STATUS_LINE[431], b"content-type: text/plain; charset=utf-8\r\n",
                     b"content-length: ", str(len(message)).encode("ascii"), b"\r\n",
                     b"connection: close\r\n\r\n", message])


class NoDelayHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with ``TCP_NODELAY`` on every TCP connection, a bound on
    the request head, and no forwarded headers believed but those the app believes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(self.app, ProxyHeadersMiddleware):
            self.app = self.app.app
        self.head_bytes = 0
        """Bytes received since the current request began, while its head is incomplete."""
        self.reading_head = True
        self.refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # thrown away until the connection closes
        if self.reading_head:
            self.head_bytes += len(data)
            if self.head_bytes > MAX_HEAD_BYTES:
                self.refuse_head()
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self.reading_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.reading_head = True
        self.head_bytes = 0

    def refuse_head(self) -> None:
        """Answer 431 and close; read (and drop) what the client still sends for a while."""
        self.refused = True
        self.logger.warning("Request head over %d bytes refused.", MAX_HEAD_BYTES)
        if self.cycle is not None and not self.cycle.response_complete:
            self.transport.close()  # an earlier request's answer is still being sent
            return
        self.transport.write(head_too_large_answer())
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.close)
        else:
            self.transport.close()
