"""Broadcast bus: publish JSON-able dicts on named channels; every live subscription of a
channel receives them, in publish order (per publisher).

Two implementations share one interface (:class:`Bus` / :class:`Subscription`):

* :class:`server.bus.memory.MemoryBus`: one process, asyncio queues (the default).
* :class:`server.bus.redis.RedisBus`: several processes, Redis pub/sub (``REDIS_URL``).

``publish_many`` sends several messages (one change's messages to its audiences) in one
go: on Redis one pipelined round trip, in list order. A payload may be a dict (encoded to
JSON once) or a ``str`` that already holds JSON text (passed through as is).
:meth:`Subscription.get_text` returns a message's JSON text exactly as published, so a relay
(the WebSocket handler) can forward it without re-encoding.

**Groups.** A channel named ``<group>|<member>`` (split at the first ``|``,
:func:`group_of`) belongs to group ``<group>``; a channel without ``|`` belongs to none.
Grouping changes no delivery: a subscription of ``g|m`` still receives exactly the messages
published on ``g|m``. It is a publisher's opt-in for channels that are published together
(one room's audiences): on Redis all the messages of one group in a ``publish_many`` go out
as one ``PUBLISH`` and every process subscribed to any member of the group receives all of
them (and hands each only to its member's local subscriptions): server processes see every
member's messages, subscribers (clients) still only their channel's (see
:mod:`server.bus.redis`). A grouped message's receiver count is then the number of
processes subscribed to the group. The in-process bus ignores groups.

Delivery is at-most-once: a subscription only sees messages published after
``await bus.subscribe(channel)`` returned; a lagging subscriber whose queue overflows is
closed (its ``get`` raises :class:`SubscriptionClosed`), and clients recover by asking for a
fresh snapshot. When a subscription may have missed messages without being closed (the Redis
connection dropped and came back), it receives the marker ``{"type": "_gap"}`` (:data:`GAP`)
once it is subscribed again: its reader should resynchronise. Publishers never send it.

Usage::

    sub = await bus.subscribe("room:ABCD")
    await bus.publish("room:ABCD", {"type": "event", "version": 3})
    msg = await sub.get(timeout=1.0)      # {"type": "event", "version": 3}
    async for msg in sub: ...             # ends when the subscription is closed
    await sub.close()
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol, runtime_checkable

import orjson

from server.jsontext import dumps

#: The ``type`` of the marker a subscription receives after it may have missed messages.
GAP = "_gap"
#: The marker's JSON text.
GAP_TEXT = '{"type":"_gap"}'

#: What may be published: a JSON-able dict, or the JSON text of one (sent as is).
Payload = dict[str, Any] | str


def group_of(channel: str) -> tuple[str, str] | None:
    """``(group, member)`` of a channel ``"<group>|<member>"`` (split at the first ``|``),
    ``None`` for a channel without ``|`` (no group)."""
    group, bar, member = channel.partition("|")
    return (group, member) if bar else None


def encode(payload: Payload) -> str:
    """The JSON text of ``payload`` (`server.jsontext.dumps`); a ``str`` is taken to be JSON
    text already and returned unchanged."""
    if isinstance(payload, str):
        return payload
    return dumps(payload)


def decode(text: str | bytes) -> Any:
    """The value of the JSON text ``text``; ``ValueError`` (a ``json.JSONDecodeError``) if
    it is not JSON."""
    return orjson.loads(text)


class BusError(Exception):
    """Base class of the bus's errors."""


class SubscriptionClosed(BusError):
    """``get`` on a subscription that was closed (by ``close()``, by the bus closing, or
    because it fell too far behind: ``overflowed`` is then true)."""


@runtime_checkable
class Subscription(Protocol):
    """One subscriber's stream of one channel's messages."""

    channel: str
    overflowed: bool

    async def get(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message. Raises ``TimeoutError`` after ``timeout`` seconds (``None``:
        wait forever) and :class:`SubscriptionClosed` once closed and drained."""
        ...

    async def get_text(self, timeout: float | None = None) -> str:
        """Like :meth:`get`, but the message's JSON text exactly as published (no decoding)."""
        ...

    async def close(self) -> None:
        """Stop receiving; idempotent. Pending ``get`` calls raise SubscriptionClosed."""
        ...

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]: ...

    async def __aenter__(self) -> Subscription: ...

    async def __aexit__(self, *exc: object) -> None: ...


@runtime_checkable
class Bus(Protocol):
    """Publish/subscribe over named channels."""

    #: True when every subscription lives in this process, so that `subscriber_count` is
    #: the whole truth (the in-process bus); False when other processes may subscribe.
    process_local: bool

    def subscriber_count(self, channel: str) -> int:
        """How many live subscriptions ``channel`` has in this process."""
        ...

    async def publish(self, channel: str, message: Payload) -> int:
        """Send ``message`` (must be JSON-serializable: ``TypeError``/``ValueError``
        otherwise; a ``str`` is sent as JSON text as is) to every current subscription of
        ``channel``. Each subscriber receives its own decoded copy. Returns how many
        received it (Redis: how many subscribed connections, one per process, of a group
        member: subscribed to its group; memory: how many subscriptions)."""
        ...

    async def publish_many(
        self, messages: Sequence[tuple[str, Payload]], *, local: bool = False
    ) -> list[int]:
        """Publish ``[(channel, message), ...]`` in list order per channel, each message
        encoded once; on Redis in one pipelined round trip (not a transaction), the
        messages of one group as one PUBLISH at the place of the group's first. Returns
        each message's receiver count as :meth:`publish` does. Every message is encoded
        before anything is sent, so a non-JSON message (``TypeError``/``ValueError``)
        sends nothing. ``local``: only this process's subscriptions receive them (counts:
        theirs), for a publisher that knows no other process listens (:meth:`others`)."""
        ...

    def others(self, channel: str) -> bool:
        """Whether a subscription of another process may receive ``channel``'s messages,
        as far as this bus knows (False: none did at its last publish there; a process
        that subscribed since is not known until the next one that is not ``local``)."""
        ...

    async def subscribe(self, channel: str) -> Subscription:
        """Start receiving ``channel``; once this returns, every later publish arrives."""
        ...

    async def close(self) -> None:
        """Close every subscription and release connections; idempotent."""
        ...


def transient(exc: BaseException) -> bool:
    """True if ``exc`` (raised by a publish) means the bus could not be reached or the
    connection broke (Redis down or restarting, a connection pool exhausted), so the same
    publish may succeed later; a message of a failed ``publish_many`` may or may not have
    gone out. Never :class:`BusError` (a closed bus) or an encoding error."""
    if isinstance(exc, (BusError, TypeError, ValueError)):
        return False
    if isinstance(exc, OSError):
        return True
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    # (BusyLoadingError and MaxConnectionsError are ConnectionErrors)
    return isinstance(exc, (RedisConnectionError, RedisTimeoutError))


class RedisUnavailable(RuntimeError):
    """Redis did not answer within the wait allowed at start."""


class RedisMisconfigured(RuntimeError):
    """Redis answered and refused us (a wrong password, a database number it lacks): no
    wait mends it."""


async def wait_for_redis(url: str, timeout: float, *, interval: float = 1.0) -> None:
    """Retry ``PING`` on ``url`` until Redis answers, logging each failure (as
    :func:`server.store.schema.wait_for_database` does for the database):
    :class:`RedisUnavailable` after ``timeout`` seconds, :class:`RedisMisconfigured` at
    once for a refusal."""
    import asyncio
    import logging
    import time

    import redis.asyncio as aioredis
    from redis.exceptions import AuthenticationError, ResponseError

    log = logging.getLogger(__name__)
    deadline = time.monotonic() + timeout
    while True:
        client = aioredis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        try:
            await client.ping()
            return
        except (AuthenticationError, ResponseError) as err:
            raise RedisMisconfigured(f"Redis refused: {err}") from None
        except Exception as err:  # connection refused, DNS, timeout: not up yet
            left = deadline - time.monotonic()
            if left <= 0:
                raise RedisUnavailable(
                    f"Redis did not answer for {timeout:g} s: {type(err).__name__}: {err}"
                ) from None
            log.warning("Redis not available yet (%s: %s); retrying", type(err).__name__, err)
            await asyncio.sleep(min(interval, left))
        finally:
            await client.aclose()


def make_bus(redis_url: str | None, *, prefix: str = "zhuoji:") -> Bus:
    """A :class:`RedisBus` on ``redis_url`` (channel names get ``prefix``), or a
    :class:`MemoryBus` when ``redis_url`` is ``None`` or empty."""
    if redis_url:
        from server.bus.redis import RedisBus

        return RedisBus(redis_url, prefix=prefix)
    from server.bus.memory import MemoryBus

    return MemoryBus()


__all__ = [
    "GAP",
    "GAP_TEXT",
    "Bus",
    "BusError",
    "Payload",
    "RedisMisconfigured",
    "RedisUnavailable",
    "Subscription",
    "SubscriptionClosed",
    "encode",
    "group_of",
    "make_bus",
    "transient",
    "wait_for_redis",
]
