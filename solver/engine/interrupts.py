"""Stopping a long solve cleanly: SIGINT (Ctrl-C) and SIGTERM (a process manager's stop)
raised as KeyboardInterrupt where the solve can save its state, and held back while it
writes."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Ctrl-C, and a process manager's stop (the background builder's `terminate`, `kill`)."""


def interrupted(*_: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def signals_handled(handler: Callable[..., None]) -> Iterator[None]:
    """`handler` for SIGINT and SIGTERM while inside, except one the process was started to
    ignore (as a shell's background job ignores SIGINT), and nothing outside the main thread,
    where Python cannot set handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in STOPPING_SIGNALS
                if signal.getsignal(s) != signal.SIG_IGN}
    for s in previous:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, before in previous.items():
            signal.signal(s, before)


@contextmanager
def interrupts_deferred() -> Iterator[list[bool]]:
    """SIGINT or SIGTERM noted instead of raised while a checkpoint is written (raised after
    it, as KeyboardInterrupt)."""
    noted: list[bool] = []
    with signals_handled(lambda *_: noted.append(True)):
        yield noted
    if noted:
        raise KeyboardInterrupt


__all__ = ["STOPPING_SIGNALS", "interrupted", "interrupts_deferred", "signals_handled"]
