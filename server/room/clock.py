"""Clocks for the room actor: every timer the actor uses goes through one of these.

``Clock`` is the protocol; ``RealClock`` runs on the event loop, ``ManualClock`` is driven by
tests, which move time with ``advance()`` and never sleep for a timer.

Time is in seconds (float). ``now()`` is wall-clock-like (seconds since the epoch for
``RealClock``) so that ``int(now() * 1000)`` can be sent to clients as a deadline in ms.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol

from server.loops import running_loop


class TimerHandle(Protocol):
    """A scheduled callback; ``cancel()`` is idempotent."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """What the room actor needs from time."""

    def now(self) -> float:
        """Seconds since the epoch (or since a test's chosen origin)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback()`` (synchronously, on the loop) after ``delay`` seconds."""
        ...

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds of this clock's time."""
        ...


class RealClock:
    """The event loop's clock, offset to epoch seconds for ``now()``."""

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        return running_loop().call_later(max(0.0, delay), callback)

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(max(0.0, delay))


class _ManualHandle:
    def __init__(self, clock: ManualClock, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False
        self._clock = clock

    def cancel(self) -> None:
        self.cancelled = True
        self.callback = _nothing  # as asyncio's handles: what it would have run is freed


def _nothing() -> None:
    pass


class ManualClock:
    """A clock that moves only when a test calls ``advance(seconds)``.

    Callbacks due at or before the new time run in time order (ties in scheduling order),
    each seeing ``now()`` equal to its due time.
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _ManualHandle]] = []
        self._counter = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        handle = _ManualHandle(self, self._now + max(0.0, delay), callback)
        heapq.heappush(self._heap, (handle.when, next(self._counter), handle))
        return handle

    async def sleep(self, delay: float) -> None:
        if delay <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not fut.done():
                fut.set_result(None)

        self.call_later(delay, wake)
        await fut

    def pending(self) -> int:
        """Number of scheduled, not cancelled callbacks."""
        return sum(1 for _, _, h in self._heap if not h.cancelled)

    def next_due(self) -> float | None:
        """The due time of the earliest pending callback, or None."""
        for when, _, h in sorted(self._heap):
            if not h.cancelled:
                return when
        return None

    def advance(self, seconds: float) -> int:
        """Move time forward by ``seconds``; run every callback now due. Returns how many ran."""
        target = self._now + seconds
        ran = 0
        while self._heap and self._heap[0][0] <= target:
            when, _, handle = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            self._now = max(self._now, when)
            handle.callback()
            ran += 1
        self._now = target
        return ran
