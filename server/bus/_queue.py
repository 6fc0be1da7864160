"""The subscription object shared by both bus implementations."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from server.bus import SubscriptionClosed, decode

DEFAULT_MAXSIZE = 10_000


class QueueSubscription:
    """A channel subscription backed by a queue of JSON-encoded messages.

    The bus calls :meth:`_deliver` with the encoded text; :meth:`get` decodes, so every
    subscriber gets an independent copy; :meth:`get_text` hands out the text itself.
    ``on_close`` detaches it from the bus. Made inside the event loop that reads it.

    (A deque and one future per waiting reader, made from the loop kept here: an
    ``asyncio.Queue`` asks for the running loop at every wait, a ``getpid`` system call
    each time, and a relay waits once per message it forwards.)
    """

    def __init__(
        self,
        channel: str,
        on_close: Callable[[QueueSubscription], Coroutine[Any, Any, None]],
        maxsize: int = DEFAULT_MAXSIZE,
    ) -> None:
        self.channel = channel
        self.overflowed = False
        self._items: deque[str] = deque()
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._loop = asyncio.get_running_loop()
        self._maxsize = maxsize
        self._closed = False
        self._on_close = on_close

    @property
    def closed(self) -> bool:
        """True once closed (messages already queued can still be read)."""
        return self._closed

    def _deliver(self, text: str) -> None:
        if self._closed:
            return
        if len(self._items) >= self._maxsize:
            self.overflowed = True
            self._shutdown()
            self._loop.create_task(self._on_close(self))
            return
        self._items.append(text)
        self._wake_one()

    def _wake_one(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _shutdown(self) -> None:
        if not self._closed:
            self._closed = True
            while self._waiters:  # every reader learns that it is closed
                waiter = self._waiters.popleft()
                if not waiter.done():
                    waiter.set_result(None)

    async def get(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message (see :class:`server.bus.Subscription`)."""
        return decode(await self.get_text(timeout))

    async def get_text(self, timeout: float | None = None) -> str:
        """The next message's JSON text as published (see :class:`server.bus.Subscription`)."""
        if timeout is None:
            return await self._next()
        async with asyncio.timeout(timeout):
            return await self._next()

    async def _next(self) -> str:
        items = self._items
        while not items:
            if self._closed:
                raise SubscriptionClosed(self.channel)
            waiter = self._loop.create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                if not waiter.done() or waiter.cancelled():
                    with contextlib.suppress(ValueError):
                        self._waiters.remove(waiter)
                elif items:
                    self._wake_one()  # woken, then cancelled: the message is another's
                raise
        return items.popleft()

    async def close(self) -> None:
        """Stop receiving; idempotent."""
        if not self._closed:
            self._shutdown()
            await self._on_close(self)

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            try:
                yield await self.get()
            except SubscriptionClosed:
                return

    async def __aenter__(self) -> QueueSubscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
