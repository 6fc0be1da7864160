"""The subscription object shared by both bus implementations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from server.bus import SubscriptionClosed, decode

_CLOSED = object()
DEFAULT_MAXSIZE = 10_000


class QueueSubscription:
    """A channel subscription backed by an ``asyncio.Queue`` of JSON-encoded messages.

    The bus calls :meth:`_deliver` with the encoded text; :meth:`get` decodes, so every
    subscriber gets an independent copy; :meth:`get_text` hands out the text itself.
    ``on_close`` detaches it from the bus.
    """

    def __init__(
        self,
        channel: str,
        on_close: Callable[[QueueSubscription], Coroutine[Any, Any, None]],
        maxsize: int = DEFAULT_MAXSIZE,
    ) -> None:
        self.channel = channel
        self.overflowed = False
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
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
        if self._queue.qsize() >= self._maxsize:
            self.overflowed = True
            self._shutdown()
            asyncio.get_running_loop().create_task(self._on_close(self))
            return
        self._queue.put_nowait(text)

    def _shutdown(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(_CLOSED)

    async def get(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message (see :class:`server.bus.Subscription`)."""
        return decode(await self.get_text(timeout))

    async def get_text(self, timeout: float | None = None) -> str:
        """The next message's JSON text as published (see :class:`server.bus.Subscription`)."""
        if self._closed and self._queue.empty():
            raise SubscriptionClosed(self.channel)
        if timeout is None:
            item = await self._queue.get()
        else:
            async with asyncio.timeout(timeout):
                item = await self._queue.get()
        if item is _CLOSED:
            self._queue.put_nowait(_CLOSED)  # wake any other waiter too
            raise SubscriptionClosed(self.channel)
        return str(item)

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
