"""Serving with uvicorn: the HTTP protocol class to use, with one worker or several.

The protocol is uvicorn's httptools one (a C parser: about a millisecond less per request than
the pure-Python h11 one at the sizes this API answers), with ``TCP_NODELAY`` set on every
connection. Setting it ourselves matters with ``--workers N`` (N > 1) on the standard asyncio
loop: uvicorn then binds the listening socket itself with ``proto`` 0, asyncio only sets
``TCP_NODELAY`` on accepted sockets whose ``proto`` is TCP, and Nagle's algorithm holds back
the body of every keep-alive response until the client's delayed ACK, about 40 ms on Linux
(uvicorn issue #3149). uvloop, which uvicorn picks when it is installed, sets it anyway.

``python -m app`` uses :data:`HTTP_PROTOCOL`; so can
``uvicorn app.main:app --workers N --http app.serve:NoDelayHttpToolsProtocol``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HTTP_PROTOCOL = "app.serve:NoDelayHttpToolsProtocol"


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """``TCP_NODELAY`` on the transport's socket, if it is a TCP one."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with ``TCP_NODELAY`` on every TCP connection."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        super().connection_made(transport)
