"""The running event loop, cheaply: shared by every layer (it imports nothing of ours)."""

from __future__ import annotations

import asyncio
import threading

_local = threading.local()


def running_loop() -> asyncio.AbstractEventLoop:
    """The event loop running in this thread: ``asyncio.get_running_loop()``, which makes a
    ``getpid`` system call each time (to notice a fork), kept per thread while that loop
    runs (a thread runs one loop at a time, and all code of the thread then runs inside
    it). Raises ``RuntimeError`` outside a running loop."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or not loop.is_running():
        loop = _local.loop = asyncio.get_running_loop()
    return loop
