"""Redis bus: Redis pub/sub, messages JSON-encoded. For several server processes.

One Redis connection per process carries every subscription: a reader task reads it and
fans each message out to the local subscriptions of that channel. A channel is SUBSCRIBEd
when its first local subscription opens and UNSUBSCRIBEd when its last one closes;
``subscribe`` returns only after Redis confirmed, so later publishes are never missed.
If the connection drops, redis-py reconnects and re-subscribes; messages published meanwhile
are lost (pub/sub is at-most-once): once a channel is subscribed again each of its local
subscriptions receives the gap marker (:data:`server.bus.GAP_TEXT`), and clients
resynchronise from a snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.bus import GAP_TEXT, BusError, Payload, encode
from server.bus._queue import DEFAULT_MAXSIZE, QueueSubscription

log = logging.getLogger(__name__)

#: Connections one bus keeps to Redis at most (publishes in flight, plus its subscriber's).
POOL_SIZE = 100
#: A publish that finds them all in use waits this long for one (redis-py's
#: ``BlockingConnectionPool``) rather than failing at once with "Too many connections" (its
#: default pool's answer, which a process running 1,000 busy rooms met on every publish).
POOL_WAIT_SECONDS = 10.0


class RedisBus:
    """A :class:`server.bus.Bus` over Redis pub/sub at ``url``; channel ``c`` is the Redis
    channel ``prefix + c``. At most ``pool_size`` connections (`POOL_SIZE`); a publish waits
    for a free one (`POOL_WAIT_SECONDS`, then redis-py's ``ConnectionError``)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "",
        maxsize: int = DEFAULT_MAXSIZE,
        pool_size: int = POOL_SIZE,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self._maxsize = maxsize
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=pool_size, timeout=POOL_WAIT_SECONDS, decode_responses=True
        )
        self._redis = aioredis.Redis.from_pool(pool)  # (closing the client closes the pool)
        self._pubsub = self._redis.pubsub()
        self._subs: dict[str, set[QueueSubscription]] = {}
        self._confirm: dict[str, list[asyncio.Future[None]]] = {}
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._closed = False
        #: Channels subscribed when the connection dropped: each gets the gap marker when
        #: Redis confirms it again.
        self._dropped: set[str] = set()

    async def publish(self, channel: str, message: Payload) -> int:
        """PUBLISH the JSON encoding of ``message`` on ``prefix + channel``; returns the
        number of Redis connections (processes) that received it."""
        if self._closed:
            raise BusError("bus is closed")
        return int(await self._redis.publish(self.prefix + channel, encode(message)))

    async def publish_many(self, messages: Sequence[tuple[str, Payload]]) -> list[int]:
        """PUBLISH every ``(channel, message)`` in order, in one pipelined round trip (no
        MULTI: a pipeline, not a transaction); returns each one's receiver count."""
        if self._closed:
            raise BusError("bus is closed")
        texts = [(self.prefix + channel, encode(message)) for channel, message in messages]
        if not texts:
            return []
        if len(texts) == 1:
            return [int(await self._redis.publish(*texts[0]))]
        async with self._redis.pipeline(transaction=False) as pipe:
            for key, text in texts:
                pipe.publish(key, text)
            return [int(n) for n in await pipe.execute()]

    async def subscribe(self, channel: str, timeout: float = 10.0) -> QueueSubscription:
        """A new subscription of ``channel``; returns once Redis confirmed the SUBSCRIBE
        (``TimeoutError`` after ``timeout`` seconds, redis-py's ``ConnectionError`` if Redis
        is unreachable)."""
        if self._closed:
            raise BusError("bus is closed")
        key = self.prefix + channel
        sub = QueueSubscription(channel, self._detach, self._maxsize)
        async with self._lock:
            local = self._subs.get(key)
            if local:
                local.add(sub)
                return sub
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._confirm.setdefault(key, []).append(waiter)
            self._subs[key] = {sub}
            try:
                await self._pubsub.subscribe(key)
                if self._reader is None or self._reader.done():
                    self._reader = asyncio.create_task(self._read(), name="redis-bus-reader")
                async with asyncio.timeout(timeout):
                    await asyncio.shield(waiter)
            except BaseException:
                self._subs.pop(key, None)
                if waiter in self._confirm.get(key, []):
                    self._confirm[key].remove(waiter)
                with contextlib.suppress(Exception):
                    await self._pubsub.unsubscribe(key)
                raise
        return sub

    async def _detach(self, sub: QueueSubscription) -> None:
        key = self.prefix + sub.channel
        async with self._lock:
            local = self._subs.get(key)
            if local is None:
                return
            local.discard(sub)
            if not local:
                del self._subs[key]
                self._dropped.discard(key)
                if not self._closed:
                    with contextlib.suppress(RedisConnectionError, RedisTimeoutError):
                        await self._pubsub.unsubscribe(key)

    async def _read(self) -> None:
        while not self._closed:
            try:
                msg = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                if not self._dropped:
                    log.warning("redis bus: connection lost (%s); reconnecting", exc)
                self._dropped.update(self._subs)
                await asyncio.sleep(0.5)
                continue
            except RuntimeError:  # no connection yet (nothing subscribed)
                await asyncio.sleep(0.05)
                continue
            if msg is None:
                continue
            kind, key = msg.get("type"), msg.get("channel")
            if kind == "message":
                for sub in list(self._subs.get(key, ())):
                    sub._deliver(msg["data"])
            elif kind == "subscribe":
                for waiter in self._confirm.pop(key, []):
                    if not waiter.done():
                        waiter.set_result(None)
                if key in self._dropped:  # subscribed again after a drop: say so
                    self._dropped.discard(key)
                    if not self._dropped:
                        log.warning("redis bus: connection back")
                    for sub in list(self._subs.get(key, ())):
                        sub._deliver(GAP_TEXT)

    def subscriber_count(self, channel: str) -> int:
        """How many live subscriptions ``channel`` has in this process."""
        return len(self._subs.get(self.prefix + channel, ()))

    async def close(self) -> None:
        """Close every subscription, stop the reader and release connections; idempotent."""
        if self._closed:
            return
        self._closed = True
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub._shutdown()
        self._subs.clear()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        await self._redis.aclose()
