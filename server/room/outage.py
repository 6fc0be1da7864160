"""How a room lives through failures: the one retry mechanism for its services (the store
and the bus), what it tells the seats while it waits for one, and the re-arm scheduled
after a failed command. A collaborator of the room actor, which owns one :class:`Outages`
and calls it from its task only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from redis.backoff import AbstractBackoff

from server.bus import transient as bus_transient
from server.loops import running_loop
from server.room.errors import RoomError
from server.store import Conflict
from server.store import transient as store_transient

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The services a room may wait for (``degraded`` / ``recovered`` messages name them).
DATABASE, BUS = "database", "bus"
#: A database write without an answer for this long (seconds) counts as an outage for the
#: seats (``degraded``), though the write goes on waiting (a partition that may heal).
SLOW_SECONDS = 2.0


class Outages:
    """Retries of room ``code``'s store writes and publishes, the outages they live
    through, and the re-arm after a failed command.

    Owns: ``degraded`` (the services the room is waiting for, announced to the seats),
    ``waiting`` (True while an attempt waits for a failed service: the room's state is
    still consistent), the tasks announcing a slow write, and the re-arm timer with its
    count of consecutive failed commands. Given: ``backoff()`` (the delays between
    attempts, read at each one), ``announce(message)`` (one attempt to tell every
    audience, failures only logged), ``fenced(verify)`` (raises ``RoomError unavailable``
    unless this process still holds the room; ``verify``: ask Redis) and ``stopping()``
    (the room is moving).
    """

    def __init__(
        self,
        code: str,
        backoff: Callable[[], AbstractBackoff],
        announce: Callable[[dict[str, Any]], Awaitable[None]],
        fenced: Callable[[bool], Awaitable[None]],
        stopping: Callable[[], bool],
    ) -> None:
        self.code = code
        self.backoff = backoff
        self.announce = announce
        self.fenced = fenced
        self.stopping = stopping
        self.degraded: set[str] = set()
        self.waiting = False
        self._side_tasks: set[asyncio.Task[None]] = set()
        self._rearm_timer: asyncio.TimerHandle | None = None
        self._rearm_failures = 0

    async def retry(
        self,
        service: str,
        attempt: Callable[[], Awaitable[T]],
        *,
        committed: Callable[[], Awaitable[bool]] | None = None,
        write: bool = True,
    ) -> T:
        """Run ``attempt()`` (one store write, ``service`` :data:`DATABASE`, or one publish,
        :data:`BUS`) until it succeeds: the one retry mechanism of the room.

        A failure that only says the service is unreachable (``server.store.transient`` /
        ``server.bus.transient``) is retried after ``backoff`` (25 ms doubling to 2 s),
        inside the current command: no later command runs meanwhile, so nothing is applied
        before it is logged and the room does not advance past events it could not publish.
        From the second failure in a row, or once a write has waited :data:`SLOW_SECONDS`
        for its answer (a partition: no error, no answer), the seats get ``{"type":
        "degraded", "service": "database"}`` (the bus cannot carry news of its own
        failure), and ``{"type": "recovered", ...}`` at the next success. A write whose
        failed attempt may have committed (its answer lost) is retried as is:
        ``committed()`` (a read) tells whether a :class:`Conflict` of a retry is that
        earlier attempt's own row, which then counts as success (the result is then
        ``None``). Writes (``write``) are fenced: before each attempt the lease must be
        held and after each failure it is proven in Redis, else :class:`RoomError`
        ``unavailable`` is raised (the room moved: stop writing). Any other error is raised
        at once. Cancellation (``stop``) ends the wait."""
        failures, began = 0, time.monotonic()
        try:
            while True:
                if self.stopping():  # the room is moving: its next owner carries on
                    raise RoomError("unavailable", f"room {self.code} is moving")
                if write:
                    await self.fenced(False)
                slow = (
                    running_loop().call_later(SLOW_SECONDS, self._slow, service)
                    if service == DATABASE
                    else None
                )
                try:
                    try:
                        result = await attempt()
                    except Conflict:
                        if not (failures and committed is not None and await committed()):
                            raise
                        result = cast(T, None)
                except Exception as exc:
                    if isinstance(exc, RoomError) or not (
                        store_transient(exc) if service == DATABASE else bus_transient(exc)
                    ):
                        if write and not isinstance(exc, RoomError):
                            await self.fenced(True)  # refused as stale? say so
                        raise
                    failures += 1
                    self.waiting = True
                    if write:
                        await self.fenced(True)  # lost the room meanwhile? stop here
                    if failures == 1 or failures % 25 == 0:
                        log.warning(
                            "room %s: %s unavailable (%s: %s); retrying (attempt %d)",
                            self.code, service, type(exc).__name__, exc, failures + 1,
                        )  # fmt: skip
                    if failures == 2 and service == DATABASE:
                        await self.degrade(service)
                    await asyncio.sleep(self.backoff().compute(failures - 1))
                    continue
                finally:
                    if slow is not None:
                        slow.cancel()
                if service in self.degraded:
                    log.warning(
                        "room %s: %s back after %d attempts (%.1f s)",
                        self.code, service, failures + 1, time.monotonic() - began,
                    )  # fmt: skip
                    self.degraded.discard(service)
                    await self.announce({"type": "recovered", "service": service})
                elif failures:
                    log.info("room %s: %s back after %d attempts", self.code, service, failures)
                return result
        finally:
            self.waiting = False

    def _slow(self, service: str) -> None:
        """A write waited :data:`SLOW_SECONDS` for its answer: the room is waiting for its
        database even though nothing failed (yet); say so (from a timer callback)."""
        if service not in self.degraded:
            log.warning(
                "room %s: %s has not answered for %g s; waiting", self.code, service, SLOW_SECONDS
            )
            self.waiting = True
            task = asyncio.get_running_loop().create_task(self.degrade(service))
            self._side_tasks.add(task)
            task.add_done_callback(self._side_tasks.discard)

    async def degrade(self, service: str) -> None:
        """Mark ``service`` as awaited and tell every audience (once)."""
        if service not in self.degraded:
            self.degraded.add(service)
            await self.announce({"type": "degraded", "service": service})

    # ------------------------------------------------------------------ failed commands

    def schedule_rearm(self, rearm: Callable[[], None]) -> None:
        """After a failed command: call ``rearm()`` (it queues a ``Rearm``) after a backoff
        delay, growing with consecutive failures so that a failure that repeats does not
        spin; nothing if one is already due or the room is stopping."""
        if self._rearm_timer is not None or self.stopping():
            return
        self._rearm_failures += 1
        delay = self.backoff().compute(min(self._rearm_failures, 8))

        def fire() -> None:
            self._rearm_timer = None
            rearm()

        self._rearm_timer = asyncio.get_running_loop().call_later(delay, fire)

    def rearmed(self) -> None:
        """A re-arm succeeded: the next failure starts the backoff again."""
        self._rearm_failures = 0

    def cancel_rearm(self) -> None:
        """Forget the re-arm due (the room stops)."""
        if self._rearm_timer is not None:
            self._rearm_timer.cancel()
            self._rearm_timer = None
