"""Several server processes on one Redis: room leases and command forwarding.

A room is owned by one process at a time: the owner holds the room's **lease**, a Redis key
``{prefix}lease:{code}`` whose value is the owner's process id, set with ``SET NX PX``. One
task per process renews *all* its leases every third of their time to live in one call (a
compare-and-extend Lua script over all the keys), so a thousand rooms cost one round trip,
not a thousand. The task measures how late it wakes (event-loop lag): a lease counts as
surely held only until the last renewal's send time + the time to live - ``margin``; past
that (the loop lagged more than the margin) the owner proves ownership in Redis before its
next durable write (:meth:`Lease.ensure`). A process that dies stops renewing, the key
expires, and the next process that needs the room takes the lease and rebuilds the room from
the store (:func:`server.room.manager.rebuild`).

**Fencing**: a process that lost a lease while it was stalled may still have a write in
flight. Each tenure gets a generation number from the store (``Store.fence``, which also
makes every older generation stale); the owner logs it with each action and the store
refuses an action of an older generation (a trigger, migration 0004), so a stale owner's
writes never interleave with the new owner's. (The script is multi-key: one Redis, or keys
in one hash slot on Redis Cluster.)

Commands for a room owned elsewhere travel over the bus: the owner subscribes to
``room:{code}:cmd``; a request is ``{"id", "reply", "call", "kwargs"}`` and the answer comes
back on the requester's own channel ``proc:{process_id}`` as ``{"id", "result"}`` or
``{"id", "error": {"code", "message"}}``. Events need no forwarding: the owner publishes them
on the seat channels, which every process's sockets subscribe to.

Without ``REDIS_URL`` none of this runs: one process owns every room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import redis.asyncio as aioredis

from server.bus import GAP, Bus, Subscription, SubscriptionClosed
from server.bus import transient as bus_transient
from server.loops import running_loop
from server.room.actor import RoomError
from server.room.bounded import settle

log = logging.getLogger(__name__)

#: Handler of forwarded calls on the owner: ``(call, kwargs) -> JSON-able result``.
CallHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]


class NoOwner(Exception):
    """Nobody listens on the room's command channel (no live owner right now)."""


class ReplyLost(TimeoutError):
    """The bus reconnected under this process's reply channel while a call waited: its
    answer may have been published while nobody here listened, so the call is sent again
    (a ``TimeoutError``, as one not answered in time)."""


def unreachable(err: BaseException) -> bool:
    """True for the errors of Redis being away (refused, dropped, timed out, no owner
    answering): an outage to log as a warning, not a bug's traceback."""
    return bus_transient(err) or isinstance(err, (NoOwner, TimeoutError))


def command_channel(code: str) -> str:
    """The bus channel on which the owner of room ``code`` receives forwarded calls."""
    return f"room:{code}:cmd"


#: Where a stopping process announces the rooms it released (``{"rooms", "process"}``).
RELEASED_CHANNEL = "cluster:released"


def new_process_id() -> str:
    """A process id unique across hosts and restarts: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


#: Renew every key of ``KEYS`` whose value is ``ARGV[1]`` (this process) for ``ARGV[2]`` ms;
#: returns 1 (renewed) or 0 (gone or someone else's) per key. One call for all the leases.
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    redis.call('pexpire', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""

#: Delete ``KEYS[1]`` if its value is ``ARGV[1]``.
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class Lease:
    """This process's lease on one room: the key ``{prefix}lease:{code}`` holding our process
    id. The cluster renews all of a process's leases together (:meth:`Cluster.renew_all`).

    ``valid_until`` (event-loop time) is how long the lease is surely ours: the time the
    last successful renewal was *sent* plus the time to live. ``generation`` is the room's
    fencing token for this tenure (set by the owner, e.g. from
    :meth:`server.store.Store.fence`), stored with every logged action so the store refuses
    a stale owner's writes. ``on_lost`` is called (once, in its own task) when the lease is
    found gone or taken.
    """

    def __init__(self, cluster: Cluster, code: str, on_lost: Callable[[], Awaitable[None]]) -> None:
        self.code = code
        self.cluster = cluster
        self.key = cluster.lease_key(code)
        self.valid_until = 0.0
        self.generation: int | None = None
        self.lost = False
        #: True once :meth:`release` deleted the key (the room is free for others now).
        self.released = False
        self._on_lost = on_lost

    async def acquire(self) -> bool:
        """Take the lease if it is free (``SET NX PX``); on success it is renewed with the
        process's other leases until :meth:`release`. False if it is not free, if Redis
        cannot be asked, or if this process is stopping."""
        cluster = self.cluster
        if cluster.stopping:
            return False
        sent = asyncio.get_running_loop().time()
        try:
            ok = await cluster.redis.set(
                self.key, cluster.process_id, nx=True, px=int(cluster.lease_seconds * 1000)
            )
        except (OSError, aioredis.RedisError) as exc:  # Redis away: not ours (yet)
            log.debug("room %s: lease not taken (%s)", self.code, exc)
            return False
        if not ok:
            return False
        self.valid_until = sent + cluster.lease_seconds
        self.lost = False
        cluster._register(self)
        return True

    @property
    def held(self) -> bool:
        """True if the lease is surely ours for at least the cluster's margin more (no
        round trip): the last renewal was not late by more than the margin."""
        return not self.lost and running_loop().time() + self.cluster.margin < self.valid_until

    async def ensure(self, verify: bool = False) -> bool:
        """Prove the lease is still ours before a durable write: free while :attr:`held`
        (unless ``verify``), else (renewals were late: the loop lagged) one
        compare-and-extend round trip. Returns False, and reports the loss, if it is gone
        or someone else's; False also if Redis cannot be asked (then nothing is proven, and
        nothing should be written)."""
        if self.lost or self.cluster.stopping:  # a stopping process writes nothing more
            return False
        if self.held and not verify:
            return True
        try:
            await self.cluster.renew_all([self])
        except (OSError, aioredis.RedisError) as exc:
            log.warning("room %s: lease check failed (%s)", self.code, exc)
            return False
        return self.held

    def _renewed(self, sent: float) -> None:
        if not self.lost:
            self.valid_until = max(self.valid_until, sent + self.cluster.lease_seconds)

    def _lose(self) -> None:
        if self.lost:
            return
        self.lost = True
        self.valid_until = 0.0
        self.cluster.lost_leases += 1
        self.cluster._unregister(self)
        log.warning("room %s: lease lost", self.code)
        self.cluster._spawn(self._on_lost())

    async def release(self) -> None:
        """Stop renewing and delete the key if it is still ours; idempotent."""
        self.cluster._unregister(self)
        if self.lost:
            return
        self.lost = True
        with contextlib.suppress(aioredis.RedisError, OSError):
            deleted = await self.cluster.redis.eval(_RELEASE, 1, self.key, self.cluster.process_id)
            self.released = bool(deleted)


class Cluster:
    """This process's membership of the cluster: its id, its Redis client for leases, and
    request/reply over the bus for calls to rooms owned elsewhere.

    ``lease_seconds`` is the lease's time to live: how long a dead owner's rooms wait before
    another process takes them over. ``margin`` (default a third of it) is how late a
    renewal may be before leases are no longer trusted without asking Redis; renewals run
    every ``lease_seconds / 3``. ``lag`` / ``max_lag`` are the renewal task's last and
    largest wake-up delay (seconds), ``lost_leases`` counts leases found lost.
    """

    def __init__(
        self,
        redis_url: str,
        bus: Bus,
        *,
        lease_seconds: float = 5.0,
        margin: float | None = None,
        prefix: str = "zhuoji:",
        process_id: str | None = None,
        call_timeout: float = 10.0,
    ) -> None:
        self.redis = aioredis.from_url(redis_url, decode_responses=True)
        #: Seconds :meth:`request` waits for an answer by default.
        self.call_timeout = call_timeout
        self.bus = bus
        self.lease_seconds = lease_seconds
        self.margin = lease_seconds / 3 if margin is None else margin
        self.lag = 0.0
        self.max_lag = 0.0
        self.lost_leases = 0
        self._leases: dict[str, Lease] = {}
        self._renewer: asyncio.Task[None] | None = None
        self._renew_script = self.redis.register_script(_RENEW)
        self.prefix = prefix
        self.process_id = process_id or new_process_id()
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._reply_sub: Subscription | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._servers: dict[str, tuple[Subscription, asyncio.Task[None]]] = {}
        #: Set by :meth:`stop_renewing`: no lease is renewed, taken or trusted any more.
        self.stopping = False
        #: Called with the codes another process released when it stopped.
        self.on_released: Callable[[list[str]], Awaitable[None]] | None = None
        self._released_sub: Subscription | None = None

    @property
    def reply_channel(self) -> str:
        """Where answers to this process's requests arrive."""
        return f"proc:{self.process_id}"

    def lease_key(self, code: str) -> str:
        """The Redis key of room ``code``'s lease."""
        return f"{self.prefix}lease:{code}"

    async def start(self) -> None:
        """Subscribe to this process's reply channel and to :data:`RELEASED_CHANNEL`."""
        self._reply_sub = await self.bus.subscribe(self.reply_channel)
        self._spawn(self._read_replies(self._reply_sub))
        self._released_sub = await self.bus.subscribe(RELEASED_CHANNEL)
        self._spawn(self._read_released(self._released_sub))

    def stop_renewing(self) -> None:
        """The process is stopping: renew no lease any more, take none, and trust none
        before a write (:meth:`Lease.ensure` answers False), so nothing more is written
        under them; they are then released (:meth:`Lease.release`) or lapse."""
        self.stopping = True
        if self._renewer is not None:
            self._renewer.cancel()  # not awaited: see close()

    async def announce_released(self, codes: list[str]) -> None:
        """Tell the other processes that this one released rooms ``codes`` (it is
        stopping), so they take them over now rather than when the leases would lapse."""
        await self.bus.publish(RELEASED_CHANNEL, {"rooms": codes, "process": self.process_id})

    async def _read_released(self, sub: Subscription) -> None:
        async for msg in sub:
            codes = msg.get("rooms")
            if msg.get("process") == self.process_id or not isinstance(codes, list):
                continue
            if self.on_released is not None and not self.stopping:
                try:
                    await self.on_released([str(c) for c in codes])
                except Exception:
                    log.exception("taking released rooms failed")

    async def close(self) -> None:
        """Stop serving, renewing and reading; fail pending requests; close the Redis
        client. (Leases are not released here: their owner releases them.) Every wait is
        bounded (a second or so in all, :func:`server.room.bounded.settle`), whatever
        Redis does."""
        self.stop_renewing()
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(RoomError("unavailable", "server shutting down"))
        renewer, self._renewer = self._renewer, None
        await settle([renewer] if renewer is not None else [], 0.1, what="lease renewer")
        await settle([self.stop_serving(c) for c in list(self._servers)], 0.3, what="server")
        subs = [s for s in (self._reply_sub, self._released_sub) if s is not None]
        await settle([s.close() for s in subs], 0.2, what="subscription")
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await settle(tasks, 0.2, what="cluster task")
        await settle([self.redis.aclose()], 0.3, what="redis client")

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ leases

    def lease(self, code: str, on_lost: Callable[[], Awaitable[None]]) -> Lease:
        """A (not yet acquired) lease on room ``code``."""
        return Lease(self, code, on_lost)

    @property
    def leases(self) -> dict[str, Lease]:
        """The leases this process holds (and renews), by room code."""
        return dict(self._leases)

    def _register(self, lease: Lease) -> None:
        self._leases[lease.code] = lease
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.create_task(self._renew_loop(), name="lease-renewer")

    def _unregister(self, lease: Lease) -> None:
        if self._leases.get(lease.code) is lease:
            del self._leases[lease.code]

    async def renew_all(self, leases: list[Lease] | None = None) -> None:
        """Renew ``leases`` (default: all this process holds) in one script call; a lease
        found gone or someone else's is reported lost. Raises redis-py's errors."""
        if self.stopping:
            return
        batch = list(self._leases.values()) if leases is None else leases
        batch = [lease for lease in batch if not lease.lost]
        if not batch:
            return
        sent = asyncio.get_running_loop().time()
        renewed = await self._renew_script(
            keys=[lease.key for lease in batch],
            args=[self.process_id, int(self.lease_seconds * 1000)],
        )
        for lease, ok in zip(batch, renewed, strict=True):
            if ok:
                lease._renewed(sent)
            else:
                lease._lose()

    async def _renew_loop(self) -> None:
        """Every ``lease_seconds / 3``: renew every lease; measure how late we woke."""
        loop = asyncio.get_running_loop()
        interval = self.lease_seconds / 3
        due = loop.time() + interval
        while not self.stopping:
            await asyncio.sleep(max(0.0, due - loop.time()))
            now = loop.time()
            self.lag = now - due
            self.max_lag = max(self.max_lag, self.lag)
            if self.lag > self.margin:
                log.warning("lease renewal %.3f s late (margin %.3f s)", self.lag, self.margin)
            due = now + interval
            try:
                await self.renew_all()
            except asyncio.CancelledError:
                raise
            except (OSError, aioredis.RedisError) as exc:
                log.warning("lease renewal failed (%s)", exc)

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        """The process id holding each room's lease (``None``: free), in one ``MGET``."""
        if not codes:
            return {}
        values = await self.redis.mget([self.lease_key(c) for c in codes])
        # str with decode_responses=True; redis-py's annotation says bytes | str regardless
        return dict(zip(codes, values, strict=True))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ calls

    async def request(
        self,
        code: str,
        call: str,
        kwargs: dict[str, Any],
        timeout: float | None | Literal["default"] = "default",
    ) -> Any:
        """Run ``call(**kwargs)`` on the owner of room ``code`` and return its result.

        ``timeout``: seconds to wait for the answer (``"default"``: :attr:`call_timeout`;
        None: no limit, for a caller that watches the owner's lease itself).

        Raises :class:`NoOwner` if nobody serves the room's command channel (or the bus
        cannot be reached),
        ``TimeoutError`` if the owner did not answer in ``timeout`` seconds,
        :class:`ReplyLost` if the bus reconnected while the call waited, and
        :class:`RoomError` for a call the owner refused.
        """
        if timeout == "default":
            timeout = self.call_timeout
        req_id = secrets.token_hex(8)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[req_id] = fut
        try:
            try:
                receivers = await self.bus.publish(
                    command_channel(code),
                    {"id": req_id, "reply": self.reply_channel, "call": call, "kwargs": kwargs},
                )
            except (OSError, aioredis.RedisError) as exc:  # the bus is away: nobody answers
                raise NoOwner(code) from exc
            if receivers == 0:
                raise NoOwner(code)
            async with asyncio.timeout(timeout):
                return await fut
        finally:
            self._pending.pop(req_id, None)

    async def _read_replies(self, sub: Subscription) -> None:
        async for msg in sub:
            if msg.get("type") == GAP:  # replies sent meanwhile are lost: ask again
                for waiting in self._pending.values():
                    if not waiting.done():
                        waiting.set_exception(ReplyLost("the bus reconnected; a reply may be lost"))
                continue
            fut = self._pending.get(str(msg.get("id")))
            if fut is None or fut.done():
                continue
            err = msg.get("error")
            if err is not None:
                fut.set_exception(RoomError(err.get("code", "internal"), err.get("message", "")))
            else:
                fut.set_result(msg.get("result"))

    async def serve(self, code: str, handler: CallHandler) -> None:
        """Answer calls forwarded to room ``code`` with ``handler`` (until
        :meth:`stop_serving`). Calls start in arrival order."""
        if code in self._servers:
            return
        sub = await self.bus.subscribe(command_channel(code))
        task = self._spawn(self._serve(sub, handler))
        self._servers[code] = (sub, task)

    async def stop_serving(self, code: str) -> None:
        """Stop answering calls for room ``code``; idempotent."""
        entry = self._servers.pop(code, None)
        if entry is not None:
            sub, task = entry
            await sub.close()
            if task is not asyncio.current_task():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _serve(self, sub: Subscription, handler: CallHandler) -> None:
        with contextlib.suppress(SubscriptionClosed):
            async for msg in sub:
                if msg.get("type") == GAP:
                    continue
                # One task per call, created in arrival order: each reaches the actor's
                # inbox before the next starts, and a slow call does not block the others.
                self._spawn(self._answer(msg, handler))

    async def _answer(self, msg: dict[str, Any], handler: CallHandler) -> None:
        reply: dict[str, Any] = {"id": msg.get("id")}
        try:
            reply["result"] = await handler(str(msg.get("call")), dict(msg.get("kwargs") or {}))
        except RoomError as err:
            reply["error"] = {"code": err.code, "message": err.message}
        except Exception as err:  # a bug: tell the caller rather than leave it waiting
            log.exception("forwarded call %s failed", msg.get("call"))
            reply["error"] = {"code": "internal", "message": str(err)}
        with contextlib.suppress(Exception):
            await self.bus.publish(str(msg.get("reply")), reply)
