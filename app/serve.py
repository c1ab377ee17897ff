"""Serving with uvicorn: the HTTP protocol class to use, with or without several workers.

With ``--workers N`` (N > 1) uvicorn binds the listening socket itself with ``proto`` 0, and
asyncio only sets ``TCP_NODELAY`` on accepted sockets whose ``proto`` is TCP: Nagle's algorithm
then holds back the body of every response until the client's delayed ACK, about 40 ms on
Linux, on every keep-alive request (uvicorn issue #3149). :data:`HTTP_PROTOCOL` names uvicorn's
h11 protocol with ``TCP_NODELAY`` set on each connection; ``python -m app --workers N`` uses it,
and so can ``uvicorn app.main:app --workers N --http app.serve:NoDelayH11Protocol``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

HTTP_PROTOCOL = "app.serve:NoDelayH11Protocol"


class NoDelayH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with ``TCP_NODELAY`` on every TCP connection."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
