"""Several server processes on one Redis: room leases and command forwarding.

A room is owned by one process at a time: the owner holds the room's **lease**, a Redis key
``{prefix}lease:{code}`` whose value is the owner's process id, set with ``SET NX PX`` and
renewed every third of its time to live by a compare-and-extend script (redis-py's
:class:`redis.asyncio.lock.Lock` does both). A process that dies stops renewing, the key
expires, and the next process that needs the room takes the lease and rebuilds the room from
the store (:func:`server.room.manager.rebuild`).

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
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.lock import Lock
from redis.exceptions import LockError

from server.bus import Bus, Subscription, SubscriptionClosed
from server.room.actor import RoomError

log = logging.getLogger(__name__)

#: Handler of forwarded calls on the owner: ``(call, kwargs) -> JSON-able result``.
CallHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]


class NoOwner(Exception):
    """Nobody listens on the room's command channel (no live owner right now)."""


def command_channel(code: str) -> str:
    """The bus channel on which the owner of room ``code`` receives forwarded calls."""
    return f"room:{code}:cmd"


def new_process_id() -> str:
    """A process id unique across hosts and restarts: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class Lease:
    """This process's lease on one room (a redis-py :class:`Lock` with our process id as its
    token). ``on_lost`` is called (once) if a renewal finds the lease gone or taken."""

    def __init__(self, cluster: Cluster, code: str, on_lost: Callable[[], Awaitable[None]]) -> None:
        self.code = code
        self.cluster = cluster
        self._lock = Lock(
            cluster.redis,
            cluster.lease_key(code),
            timeout=cluster.lease_seconds,
            blocking=False,
            thread_local=False,
            raise_on_release_error=False,
        )
        self._on_lost = on_lost
        self._renewer: asyncio.Task[None] | None = None

    async def acquire(self) -> bool:
        """Take the lease if it is free (``SET NX PX``); on success start renewing it."""
        if not await self._lock.acquire(blocking=False, token=self.cluster.process_id):
            return False
        self._renewer = asyncio.create_task(self._renew(), name=f"lease-{self.code}")
        return True

    async def _renew(self) -> None:
        interval = self.cluster.lease_seconds / 3
        while True:
            await asyncio.sleep(interval)
            try:
                await self._lock.reacquire()  # compare-and-extend (Lua)
            except LockError:
                log.warning("room %s: lease lost", self.code)
                break
            except (OSError, ConnectionError, aioredis.RedisError) as exc:
                log.warning("room %s: lease renewal failed (%s)", self.code, exc)
                continue
        self._renewer = None
        await self._on_lost()

    async def release(self) -> None:
        """Stop renewing and delete the key if it is still ours; idempotent."""
        task, self._renewer = self._renewer, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(LockError, aioredis.RedisError, OSError):
            await self._lock.release()


class Cluster:
    """This process's membership of the cluster: its id, its Redis client for leases, and
    request/reply over the bus for calls to rooms owned elsewhere.

    ``lease_seconds`` is the lease's time to live: how long a dead owner's rooms wait before
    another process takes them over.
    """

    def __init__(
        self,
        redis_url: str,
        bus: Bus,
        *,
        lease_seconds: float = 5.0,
        prefix: str = "zhuoji:",
        process_id: str | None = None,
    ) -> None:
        self.redis = aioredis.from_url(redis_url, decode_responses=True)
        self.bus = bus
        self.lease_seconds = lease_seconds
        self.prefix = prefix
        self.process_id = process_id or new_process_id()
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._reply_sub: Subscription | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._servers: dict[str, tuple[Subscription, asyncio.Task[None]]] = {}

    @property
    def reply_channel(self) -> str:
        """Where answers to this process's requests arrive."""
        return f"proc:{self.process_id}"

    def lease_key(self, code: str) -> str:
        """The Redis key of room ``code``'s lease."""
        return f"{self.prefix}lease:{code}"

    async def start(self) -> None:
        """Subscribe to this process's reply channel."""
        self._reply_sub = await self.bus.subscribe(self.reply_channel)
        self._spawn(self._read_replies(self._reply_sub))

    async def close(self) -> None:
        """Stop serving and reading; fail pending requests; close the Redis client."""
        for code in list(self._servers):
            await self.stop_serving(code)
        if self._reply_sub is not None:
            await self._reply_sub.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(RoomError("unavailable", "server shutting down"))
        await self.redis.aclose()

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ leases

    def lease(self, code: str, on_lost: Callable[[], Awaitable[None]]) -> Lease:
        """A (not yet acquired) lease on room ``code``."""
        return Lease(self, code, on_lost)

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        """The process id holding each room's lease (``None``: free), in one ``MGET``."""
        if not codes:
            return {}
        values = await self.redis.mget([self.lease_key(c) for c in codes])
        # str with decode_responses=True; redis-py's annotation says bytes | str regardless
        return dict(zip(codes, values, strict=True))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ calls

    async def request(
        self, code: str, call: str, kwargs: dict[str, Any], timeout: float = 10.0
    ) -> Any:
        """Run ``call(**kwargs)`` on the owner of room ``code`` and return its result.

        Raises :class:`NoOwner` if nobody serves the room's command channel,
        ``TimeoutError`` if the owner did not answer in ``timeout`` seconds, and
        :class:`RoomError` for a call the owner refused.
        """
        req_id = secrets.token_hex(8)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[req_id] = fut
        try:
            receivers = await self.bus.publish(
                command_channel(code),
                {"id": req_id, "reply": self.reply_channel, "call": call, "kwargs": kwargs},
            )
            if receivers == 0:
                raise NoOwner(code)
            async with asyncio.timeout(timeout):
                return await fut
        finally:
            self._pending.pop(req_id, None)

    async def _read_replies(self, sub: Subscription) -> None:
        async for msg in sub:
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
