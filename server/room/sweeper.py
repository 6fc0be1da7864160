"""No room left behind: a periodic task that resumes unfinished rooms nobody runs.

Every ``interval`` seconds each process lists the rooms the store says are ``playing`` or
``between`` hands, drops those it runs itself and (in a cluster) those whose lease another
process holds, and asks its :class:`~server.room.manager.RoomManager` for the rest: that
takes the lapsed lease (``SET NX``: one process wins, the others get a handle on it) and
rebuilds the room from the action log, so a dead process's rooms continue whether or not
anybody is connected (rooms whose host left them to bots, players who are away). ``open``
rooms (seats free, no hand) have nothing to continue and are left to be loaded when asked
for; so are rooms without a human seat when unwatched rooms pause (``pause_unwatched``):
the first socket on one resumes it. (With ``pause_unwatched="auto"`` a room whose humans
are all on auto-play cannot be told from the store: it is resumed, pauses again at once,
and is unloaded again once idle.)

Without a cluster (one process) the same sweep resumes, after a restart, every unfinished
room at once instead of when it is first asked for.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from server.bus import transient as bus_transient
from server.store import transient as store_transient

log = logging.getLogger(__name__)

#: Room statuses with something to continue.
UNFINISHED = ("playing", "between")


async def sweep(manager: Any, store: Any, cluster: Any | None) -> list[str]:
    """One pass; returns the codes of the rooms this process took over."""
    codes: list[str] = []
    # a room without a human seat pauses while nobody watches (``pause_unwatched``): it is
    # resumed by the first socket, not here
    bots_wait = getattr(getattr(manager, "timing", None), "pause_unwatched", "never") != "never"
    for code, bots_only in await store.unfinished_rooms(UNFINISHED):
        if not (bots_wait and bots_only) and code not in manager.rooms:
            codes.append(code)
    if cluster is not None and codes:
        owners = await cluster.owners(codes)
        codes = [c for c in codes if owners.get(c) is None]
    taken: list[str] = []
    for code in codes:
        try:
            await manager.get(code)
        except Exception as err:  # one broken room must not stop the others
            log.warning("sweep: room %s not resumed: %s", code, err, extra={"room": code})
            continue
        if code in manager.rooms:
            taken.append(code)
            log.info("sweep: resumed room %s", code, extra={"room": code})
    return taken


def transient(exc: BaseException) -> bool:
    """A failure of the store or of Redis that a later attempt may not meet."""
    return store_transient(exc) or bus_transient(exc)


async def run(manager: Any, store: Any, cluster: Any | None, interval: float) -> None:
    """Sweep every ``interval`` seconds (with up to 20% jitter, so processes started
    together do not race each other every time) until cancelled."""
    while True:
        await asyncio.sleep(interval * random.uniform(0.8, 1.0))
        try:
            await sweep(manager, store, cluster)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if transient(exc):  # the database (or Redis) is away: the next sweep retries
                log.warning("sweep skipped: %s unavailable (%s)", type(exc).__name__, exc)
            else:
                log.exception("sweep failed")
