"""In-process bus: asyncio queues, one per subscription. For a single server process."""

from __future__ import annotations

from collections.abc import Sequence

from server.bus import BusError, Payload, encode
from server.bus._queue import DEFAULT_MAXSIZE, QueueSubscription


class MemoryBus:
    """A :class:`server.bus.Bus` inside one event loop.

    ``publish`` JSON-encodes once and every subscription decodes its own copy, so messages
    behave exactly as over Redis (non-JSON values fail at publish time).
    """

    #: Every subscriber is in this process (`server.bus.Bus.process_local`).
    process_local = True

    def __init__(self, maxsize: int = DEFAULT_MAXSIZE) -> None:
        self._subs: dict[str, set[QueueSubscription]] = {}
        self._maxsize = maxsize
        self._closed = False

    async def publish(self, channel: str, message: Payload) -> int:
        """Deliver ``message`` to every subscription of ``channel``; returns how many."""
        return (await self.publish_many([(channel, message)]))[0]

    async def publish_many(
        self, messages: Sequence[tuple[str, Payload]], *, local: bool = False
    ) -> list[int]:
        """Deliver each ``(channel, message)`` in order (see :class:`server.bus.Bus`; every
        delivery is ``local``)."""
        if self._closed:
            raise BusError("bus is closed")
        texts = [(channel, encode(message)) for channel, message in messages]
        counts = []
        for channel, text in texts:
            subs = list(self._subs.get(channel, ()))
            for sub in subs:
                sub._deliver(text)
            counts.append(len(subs))
        return counts

    async def subscribe(self, channel: str) -> QueueSubscription:
        """A new subscription of ``channel``."""
        if self._closed:
            raise BusError("bus is closed")
        sub = QueueSubscription(channel, self._detach, self._maxsize)
        self._subs.setdefault(channel, set()).add(sub)
        return sub

    async def _detach(self, sub: QueueSubscription) -> None:
        subs = self._subs.get(sub.channel)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.channel]

    def others(self, channel: str) -> bool:
        """No other process shares this bus."""
        return False

    def subscriber_count(self, channel: str) -> int:
        """How many live subscriptions ``channel`` has in this process."""
        return len(self._subs.get(channel, ()))

    async def close(self) -> None:
        """Close every subscription; idempotent."""
        self._closed = True
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub._shutdown()
        self._subs.clear()
