"""Redis bus: Redis pub/sub, messages JSON-encoded. For several server processes.

One Redis connection per process carries every subscription: a reader task reads it and
fans each message out to the local subscriptions of that channel. A Redis channel is
SUBSCRIBEd when its first local subscription opens and UNSUBSCRIBEd when its last one
closes; ``subscribe`` returns only after Redis confirmed, so later publishes are never
missed. If the connection drops, redis-py reconnects and re-subscribes; messages published
meanwhile are lost (pub/sub is at-most-once): once a Redis channel is subscribed again each
of its local subscriptions receives the gap marker (:data:`server.bus.GAP_TEXT`), and
clients resynchronise from a snapshot.

**Own messages.** A process's group messages reach its own subscriptions directly when Redis
has taken them (or, with ``publish_many(..., local=True)``, without Redis at all: for a
publisher that knows no other process listens, `RedisBus.others`); the copy Redis sends
back is recognised by the origin in its header and skipped, so a process never parses what
it published; its number (``@<bus>.<n>``) tells `RedisBus.others` that Redis counted this
process among the group's subscribers for that PUBLISH.

Publishing: one pipeline in flight per process; the ``publish_many`` calls made while it is
in flight are queued and sent together in the next one (one round trip, one connection, in
call order), so a busy process pays redis-py's per-command overhead once per loop turn
rather than once per room.

**Groups.** A channel named ``<group>|<member>`` (the first ``|`` splits; see
:func:`server.bus.group_of`) is a member of group ``<group>``, and every member of a group
travels on one Redis channel, ``prefix + <group> + "|"``:

* ``publish_many`` sends all the messages of one group in the call as ONE ``PUBLISH`` on the
  group's Redis channel (at the place of the group's first message in the call; the other
  messages as before, all in one round trip). Its payload frames the parts (`frame`): a
  header line of decimal lengths ``"<len member> <len text> ..."`` then ``"\\n"`` then each
  part's member and text, concatenated: texts are neither escaped nor copied into JSON.
* A process SUBSCRIBEs to the group's Redis channel once, while any of its local
  subscriptions is to a member of the group, and delivers each part only to the local
  subscriptions of that part's channel, in order; a part with no local subscriber is
  skipped (neither sliced out nor decoded). After a dropped connection every local
  subscription of the group gets the gap marker.
* A grouped message's receiver count is the number of processes subscribed to the *group*
  (some of them may have no subscriber of that member).
* Privacy: every process subscribed to a group receives all its members' messages. These
  are server processes; a client only ever gets its own channel's messages (the relay
  forwards one subscription's). Channels without ``|`` are plain, one Redis channel each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import Counter
from collections.abc import Sequence

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.bus import GAP_TEXT, BusError, Payload, encode, group_of
from server.bus._queue import DEFAULT_MAXSIZE, QueueSubscription
from server.loops import running_loop

log = logging.getLogger(__name__)

#: Connections one bus keeps to Redis at most (its subscriber's, its publishing pipeline's;
#: more only if that pipeline's connection is being replaced).
POOL_SIZE = 100
#: A publish that finds them all in use waits this long for one (redis-py's
#: ``BlockingConnectionPool``) rather than failing at once with "Too many connections" (its
#: default pool's answer, which a process running 1,000 busy rooms met on every publish).
POOL_WAIT_SECONDS = 10.0
#: Groups whose `RedisBus.others` (and channels whose Redis names) a bus remembers at most.
OTHERS_KEPT = 100_000


def frame(parts: Sequence[tuple[str, str]], origin: str = "") -> str:
    """One group message carrying ``[(member, text), ...]`` in order: the header line
    ``"[<origin> ]<len member> <len text> ..."`` (lengths in characters; ``origin``, if
    given, a token starting with ``@`` that names the publishing bus), ``"\\n"``, then each
    part's member and text. (Lengths, not separators: neither member nor text is
    escaped.)"""
    head = " ".join(f"{len(member)} {len(text)}" for member, text in parts)
    if origin:
        head = f"{origin} {head}"
    return head + "\n" + "".join(member + text for member, text in parts)


def unframe(data: str) -> list[tuple[str, str]]:
    """The ``[(member, text), ...]`` of a `frame`; ``ValueError`` if ``data`` is not one."""
    return [(member, data[start:end]) for member, start, end in _parts(data)]


def _parts(data: str) -> list[tuple[str, int, int]]:
    """``[(member, start, end), ...]``: each part's member and where its text is in ``data``
    (so a text nobody wants is never sliced out). ``ValueError`` if not a `frame`."""
    nl = data.index("\n")
    tokens = data[:nl].split()
    if tokens and tokens[0].startswith("@"):  # the publisher's origin (`frame`)
        del tokens[0]
    lengths = [int(n) for n in tokens]
    if len(lengths) % 2:
        raise ValueError("odd number of lengths in a group message's header")
    out = []
    pos = nl + 1
    for i in range(0, len(lengths), 2):
        start = pos + lengths[i]
        end = start + lengths[i + 1]
        out.append((data[pos:start], start, end))
        pos = end
    if pos != len(data):
        raise ValueError("group message's lengths do not add up")
    return out


#: One `RedisBus.publish_many` call waiting to go out: its Redis PUBLISHes ``(channel,
#: text)``, what it delivers here ``(channel, member, text)`` and the future of its counts.
_Call = tuple[list[tuple[str, str]], list[tuple[str, str, str]], "asyncio.Future[list[int]]"]


class RedisBus:
    """A :class:`server.bus.Bus` over Redis pub/sub at ``url``; plain channel ``c`` is the
    Redis channel ``prefix + c``, a member of group ``g`` (``g|m``) travels on ``prefix + g
    + "|"`` (module docstring). At most ``pool_size`` connections (`POOL_SIZE`); a publish
    waits for a free one (`POOL_WAIT_SECONDS`, then redis-py's ``ConnectionError``)."""

    #: Other processes may subscribe (`server.bus.Bus.process_local`).
    process_local = False

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
        # RESP2: redis-py's pure-Python RESP3 parser spends more per pub/sub message
        # (push-notification handling) for nothing the bus uses (a URL's ?protocol= wins).
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=pool_size,
            timeout=POOL_WAIT_SECONDS,
            decode_responses=True,
            protocol=2,
        )
        self._redis = aioredis.Redis.from_pool(pool)  # (closing the client closes the pool)
        self._pubsub = self._redis.pubsub()
        #: Local subscriptions by Redis channel, then by member (``""`` for a plain channel).
        self._subs: dict[str, dict[str, set[QueueSubscription]]] = {}
        #: The Redis channels that carry groups (so their messages are unframed).
        self._groups: set[str] = set()
        self._confirm: dict[str, list[asyncio.Future[None]]] = {}
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._closed = False
        #: Publishes waiting for the one in flight: each ``publish_many``'s Redis PUBLISHes,
        #: the messages it delivers here and the future of their counts; `_send` sends them.
        self._queued: list[_Call] = []
        self._sender: asyncio.Task[None] | None = None
        #: Redis channels with a queued or in-flight call (how many calls): a `local` call
        #: on channels none of them touches is delivered at once, not behind the round
        #: trip of other rooms' publishes (the order that matters is per channel).
        self._pending: Counter[str] = Counter()
        #: This bus's mark on its group messages (`frame`), ``<origin>.<number>``: read
        #: back from Redis, they are skipped (`publish_many` delivered them here already),
        #: their number telling `others` that Redis counted this process among the group's.
        self._origin = "@" + secrets.token_hex(6)
        self._own = self._origin + "."
        self._number = 0
        #: `_key` of the channels met lately.
        self._keys: dict[str, tuple[str, str, bool]] = {}
        #: Per group Redis channel: whether another process subscribed to it at this bus's
        #: last PUBLISH there (`others`).
        self._others: dict[str, bool] = {}
        #: Group PUBLISHes whose receiver count includes this process's own subscription
        #: only if their echo comes back: number -> (Redis channel, count) while the echo is
        #: awaited, or None when it came before the count.
        self._echoes: dict[int, tuple[str, int] | None] = {}
        #: Redis channels subscribed when the connection dropped: each of their local
        #: subscriptions gets the gap marker when Redis confirms the channel again.
        self._dropped: set[str] = set()

    def _key(self, channel: str) -> tuple[str, str, bool]:
        """``(Redis channel, member, grouped)`` of ``channel`` (kept: asked for each
        audience of each change)."""
        known = self._keys.get(channel)
        if known is not None:
            return known
        split = group_of(channel)
        if split is None:
            known = (self.prefix + channel, "", False)
        else:
            known = (self.prefix + split[0] + "|", split[1], True)
        if len(self._keys) >= OTHERS_KEPT:
            self._keys.clear()
        self._keys[channel] = known
        return known

    async def publish(self, channel: str, message: Payload) -> int:
        """PUBLISH the JSON encoding of ``message`` on ``channel``'s Redis channel (a group
        member's as a one-part group message); returns the number of Redis connections
        (processes) that received it (of a member: subscribed to its group)."""
        return (await self.publish_many([(channel, message)]))[0]

    async def publish_many(
        self, messages: Sequence[tuple[str, Payload]], *, local: bool = False
    ) -> list[int]:
        """PUBLISH every ``(channel, message)`` in order, in one pipelined round trip (no
        MULTI: a pipeline, not a transaction), a group's messages as one PUBLISH (module
        docstring); returns each message's receiver count (a grouped message: its group's
        PUBLISH's). One pipeline is in flight per bus: calls made meanwhile are queued and
        go out together in the next (in call order), each getting its own counts or, if
        that pipeline fails, its error (redis-py's ``ConnectionError`` ...).

        A grouped message reaches this process's own subscriptions directly once Redis took
        it (never read back from Redis). ``local``: nothing goes to Redis; each message
        reaches this process's subscriptions only (after the calls before it on the same Redis
        channel; at once if none is pending), its count theirs: for a publisher that knows
        no other process listens (`others`)."""
        if self._closed:
            raise BusError("bus is closed")
        # One entry per PUBLISH: (Redis channel, text, or a group's [(member, text)]).
        sends: list[tuple[str, str | list[tuple[str, str]]]] = []
        at: list[int] = []  # message i's PUBLISH
        group_at: dict[str, int] = {}
        here: list[tuple[str, str, str]] = []  # (Redis channel, member, text) delivered here
        for channel, message in messages:
            text = encode(message)
            key, member, grouped = self._key(channel)
            if grouped or local:
                here.append((key, member, text))
            if local:
                continue
            if not grouped:
                at.append(len(sends))
                sends.append((key, text))
                continue
            index = group_at.get(key)
            if index is None:
                index = group_at[key] = len(sends)
                sends.append((key, []))
            parts = sends[index][1]
            assert isinstance(parts, list)
            parts.append((member, text))
            at.append(index)
        if local:
            pending = self._pending
            if not pending or not any(key in pending for key, _, _ in here):
                return self._deliver_here(here)
            at = []  # (counted by `_deliver_here` in `_send`, after what was queued before)
        elif not sends:
            return []
        texts = [
            (key, body if isinstance(body, str) else frame(body, self._mark()))
            for key, body in sends
        ]
        done: asyncio.Future[list[int]] = running_loop().create_future()
        self._queued.append((texts, here, done))
        self._pending.update(self._keys_of(texts, here))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send(), name="redis-bus-sender")
        counts = await done
        return counts if local else [counts[i] for i in at]

    @staticmethod
    def _keys_of(texts: list[tuple[str, str]], here: list[tuple[str, str, str]]) -> set[str]:
        """The Redis channels one `publish_many` call touches (`_pending`)."""
        return {key for key, _ in texts} | {key for key, _, _ in here}

    def _mark(self) -> str:
        """The origin token of this bus's next group message (`frame`): ``@<id>.<n>``."""
        self._number += 1
        return f"{self._own}{self._number}"

    def _number_of(self, data: str) -> int:
        """The number in the origin token (`_mark`) of this bus's group message ``data``."""
        return int(data[len(self._own) : data.index(" ")])

    def _deliver_here(self, here: Sequence[tuple[str, str, str]]) -> list[int]:
        """Deliver each ``(Redis channel, member, text)`` to this process's subscriptions of
        that member; returns how many each reached."""
        counts = []
        for key, member, text in here:
            subs = self._subs.get(key, {}).get(member)
            if subs:
                for sub in list(subs):
                    sub._deliver(text)
            counts.append(len(subs) if subs else 0)
        return counts

    def others(self, channel: str) -> bool:
        """Whether another process may subscribe to ``channel``'s group: as Redis counted at
        this bus's last PUBLISH on the group, less this process's own subscription once
        Redis sent this process that very message back (so a subscription Redis dropped
        before this process noticed is not taken off); True before any, until that echo,
        and for a plain channel. Another process that subscribes after that PUBLISH is not
        seen until the next: a publisher that goes `local` on False must learn of newcomers
        otherwise (a room's sockets elsewhere ask its owner for a snapshot once
        subscribed)."""
        key, _, grouped = self._key(channel)
        return self._others.get(key, True) if grouped else True

    async def _send(self) -> None:
        """Send the queued publishes, each batch in one pipeline, until none is left; then
        deliver each call's messages to this process's subscriptions, in call order, and
        give each caller its counts (a `local` call: its own), or the batch's error."""
        while self._queued:
            batch, self._queued = self._queued, []
            try:
                await self._send_batch(batch)
            finally:
                for texts, here, _ in batch:
                    self._pending.subtract(self._keys_of(texts, here))
                self._pending = +self._pending  # (drops the channels back at zero)

    async def _send_batch(self, batch: list[_Call]) -> None:
        """Send one batch of `_queued` calls (`_send`)."""
        publishes = [(key, text) for texts, _, _ in batch for key, text in texts]
        try:
            if len(publishes) == 1:
                counts = [int(await self._redis.publish(*publishes[0]))]
            elif publishes:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for key, text in publishes:
                        pipe.publish(key, text)
                    counts = [int(n) for n in await pipe.execute()]
            else:
                counts = []
        except BaseException as exc:
            error = BusError("bus is closed") if isinstance(exc, asyncio.CancelledError) else exc
            for texts, here, done in batch:
                if not texts:  # a local call needs no Redis: delivered all the same
                    delivered = self._deliver_here(here)
                    if not done.done():
                        done.set_result(delivered)
                elif not done.done():  # (a caller cancelled meanwhile: nobody to tell)
                    done.set_exception(error)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        for (key, text), n in zip(publishes, counts, strict=True):
            if key.endswith("|"):  # a group's (`_key`): its count, for `others`
                self._counted(key, text, n)
        pos = 0
        for texts, here, done in batch:
            delivered = self._deliver_here(here)
            if not done.done():
                done.set_result(delivered if not texts else counts[pos : pos + len(texts)])
            pos += len(texts)

    def _counted(self, key: str, text: str, count: int) -> None:
        """Redis gave ``count`` receivers for this bus's group message ``text`` on ``key``:
        with no subscription of the group here, all are other processes; with one, this
        process is among them only if Redis sends the message back (`_echoed`), and until
        then the group counts as shared."""
        if len(self._others) >= OTHERS_KEPT and key not in self._others:
            self._others.clear()  # (forgotten: shared, the safe answer)
        if key not in self._subs:
            self._others[key] = count > 0
            return
        number = self._number_of(text)
        if number in self._echoes:  # the echo came first
            del self._echoes[number]
            self._others[key] = count > 1
            return
        if len(self._echoes) >= OTHERS_KEPT:
            self._echoes.clear()  # (echoes that never came: those groups stay shared)
        self._echoes[number] = (key, count)
        self._others[key] = True

    def _echoed(self, data: str) -> None:
        """Redis sent back this bus's group message ``data``: its count included this
        process (`_counted`)."""
        awaited = self._echoes.pop(self._number_of(data), None)
        if awaited is None:
            if len(self._echoes) < OTHERS_KEPT:
                self._echoes[self._number_of(data)] = None  # (its count is on its way)
            return
        key, count = awaited
        self._others[key] = count > 1

    async def subscribe(self, channel: str, timeout: float = 10.0) -> QueueSubscription:
        """A new subscription of ``channel``; returns once Redis confirmed the SUBSCRIBE of
        its Redis channel (at once if this process already subscribes to it: another
        subscription of the channel or of its group) (``TimeoutError`` after ``timeout``
        seconds, redis-py's ``ConnectionError`` if Redis is unreachable)."""
        if self._closed:
            raise BusError("bus is closed")
        key, member, grouped = self._key(channel)
        sub = QueueSubscription(channel, self._detach, self._maxsize)
        async with self._lock:
            local = self._subs.get(key)
            if local:
                local.setdefault(member, set()).add(sub)
                return sub
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._confirm.setdefault(key, []).append(waiter)
            self._subs[key] = {member: {sub}}
            if grouped:
                self._groups.add(key)
            try:
                await self._pubsub.subscribe(key)
                if self._reader is None or self._reader.done():
                    self._reader = asyncio.create_task(self._read(), name="redis-bus-reader")
                async with asyncio.timeout(timeout):
                    await asyncio.shield(waiter)
            except BaseException:
                self._subs.pop(key, None)
                self._groups.discard(key)
                if waiter in self._confirm.get(key, []):
                    self._confirm[key].remove(waiter)
                with contextlib.suppress(Exception):
                    await self._pubsub.unsubscribe(key)
                raise
        return sub

    async def _detach(self, sub: QueueSubscription) -> None:
        key, member, _ = self._key(sub.channel)
        async with self._lock:
            local = self._subs.get(key)
            subs = None if local is None else local.get(member)
            if local is None or subs is None:
                return
            subs.discard(sub)
            if not subs:
                del local[member]
            if not local:
                del self._subs[key]
                self._groups.discard(key)
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
                self._echoes.clear()  # (lost with the connection: those groups stay shared)
                await asyncio.sleep(0.5)
                continue
            except RuntimeError:  # no connection yet (nothing subscribed)
                await asyncio.sleep(0.05)
                continue
            if msg is None:
                continue
            kind, key = msg.get("type"), msg.get("channel")
            if kind == "message":
                local = self._subs.get(key)
                if not local:
                    continue
                data = msg["data"]
                if key in self._groups:
                    if data.startswith(self._own):  # ours: delivered when published
                        self._echoed(data)
                    else:
                        self._deliver_group(key, local, data)
                else:
                    for sub in list(local.get("", ())):
                        sub._deliver(data)
            elif kind == "subscribe":
                for waiter in self._confirm.pop(key, []):
                    if not waiter.done():
                        waiter.set_result(None)
                if key in self._dropped:  # subscribed again after a drop: say so
                    self._dropped.discard(key)
                    if not self._dropped:
                        log.warning("redis bus: connection back")
                    for subs in list(self._subs.get(key, {}).values()):
                        for sub in list(subs):
                            sub._deliver(GAP_TEXT)

    @staticmethod
    def _deliver_group(key: str, local: dict[str, set[QueueSubscription]], data: str) -> None:
        """Each part of group message ``data`` to ``local``'s subscriptions of its member."""
        try:
            parts = _parts(data)
        except ValueError:
            log.warning("redis bus: dropped a malformed message on group channel %s", key)
            return
        for member, start, end in parts:
            subs = local.get(member)
            if subs:
                text = data[start:end]
                for sub in list(subs):
                    sub._deliver(text)

    def subscriber_count(self, channel: str) -> int:
        """How many live subscriptions ``channel`` has in this process."""
        key, member, _ = self._key(channel)
        return len(self._subs.get(key, {}).get(member, ()))

    async def close(self) -> None:
        """Close every subscription, stop the reader and release connections; idempotent."""
        if self._closed:
            return
        self._closed = True
        for local in list(self._subs.values()):
            for subs in list(local.values()):
                for sub in list(subs):
                    sub._shutdown()
        self._subs.clear()
        self._groups.clear()
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sender
        for _, _, done in self._queued:
            if not done.done():
                done.set_exception(BusError("bus is closed"))
        self._queued.clear()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        await self._redis.aclose()
