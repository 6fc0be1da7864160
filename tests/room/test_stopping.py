"""Stopping a room is bounded, and a seat's timer waits for the bus (real store, manual
clock, the in-memory bus made to misbehave as Redis has).

* A publish that swallows cancellation (as redis-py has: redis/redis-py #2028, #2551) holds
  the actor's task: ``RoomManager.close`` still returns within its time, the actor's queued
  callers are refused with ``unavailable`` and nothing new is accepted.
* A process whose stop overruns is ended by the watchdog.
* A publish that fails (the bus is away): the seat whose timer runs meanwhile is not timed
  out; once the bus works its prompt is sent again with a full new time, and only a timer
  that ran entirely while the bus worked times it out.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from server.bus import Payload
from server.bus.memory import MemoryBus
from server.room.actor import RoomError, Timing, seat_channel
from server.room.clock import ManualClock
from server.room.manager import RoomManager
from server.rules.guiyang import acting_seats, default_action, prompt_kind

ROOT = Path(__file__).resolve().parents[2]
TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=30)


class MisbehavingBus(MemoryBus):
    """The in-memory bus, except that while ``stuck`` a publish waits for ``release`` and
    swallows every cancellation meanwhile, and while ``failing`` it raises
    ``ConnectionError`` (Redis gone)."""

    def __init__(self) -> None:
        super().__init__()
        self.stuck = False
        self.failing = False
        self.release = asyncio.Event()
        self.swallowed = 0

    async def publish_many(self, messages: Sequence[tuple[str, Payload]]) -> list[int]:
        if self.failing:
            raise ConnectionError("the bus is away")
        if self.stuck:
            while not self.release.is_set():
                try:
                    await self.release.wait()
                except asyncio.CancelledError:
                    self.swallowed += 1
        return await super().publish_many(messages)


async def _full_room(manager: RoomManager) -> Any:
    actor = await manager.create_room({"bank_seconds": 0})
    for name in ("ann", "bob", "cid", "dan"):
        await manager.join(actor.code, name)
    await actor.idle()
    return actor


async def test_close_is_bounded_when_a_publish_swallows_cancellation(store: Any) -> None:
    bus = MisbehavingBus()
    clock = ManualClock()
    manager = RoomManager(store, bus, clock, TIMING)
    manager.new_seed = lambda: "turn-timeout"
    actor = await _full_room(manager)
    assert prompt_kind(actor.state) == "turn" and acting_seats(actor.state) == [0]
    bus.stuck = True
    try:
        await _stop_while_stuck(manager, bus, actor)
    finally:
        bus.release.set()  # the publish returns at last (else the loop's teardown hangs)
    await bus.close()


async def _stop_while_stuck(manager: RoomManager, bus: MisbehavingBus, actor: Any) -> None:
    await bus.subscribe(seat_channel(actor.code, 0))  # a listener: the events are published
    moving = asyncio.create_task(actor.act(0, default_action(actor.state, 0)))
    queued = asyncio.create_task(actor.mark_ready(1))
    await asyncio.sleep(0.05)
    # the action is logged (its caller answered), its events' publish hangs the actor
    assert moving.done() and not queued.done()
    assert len(await actor.store.hand_actions(actor.code, 1)) == 1

    loop = asyncio.get_running_loop()
    started = loop.time()
    await manager.close(timeout=1.0)
    took = loop.time() - started
    assert took < 1.5, took
    assert bus.swallowed == 1  # cancelled once, swallowed: left behind, not awaited
    assert manager.rooms == {}
    with pytest.raises(RoomError) as refused:
        await queued
    assert refused.value.code == "unavailable"
    with pytest.raises(RoomError) as late:
        await actor.mark_ready(2)
    assert late.value.code == "unavailable"

    bus.release.set()  # the publish returns at last: the stopped actor ends, writes no more
    await asyncio.sleep(0.05)
    assert len(await actor.store.hand_actions(actor.code, 1)) == 1


async def test_a_timer_that_ran_while_the_bus_failed_times_nobody_out(
    store: Any, clock: ManualClock
) -> None:
    """Seat 0's turn timer runs out while the room is held by a publish the bus refuses
    (the room retries it: nothing moves on meanwhile). Once the bus is back, seat 0 is not
    timed out for a prompt that may not have reached it: it is sent again (a snapshot) with
    a full new time, and only a timer that ran entirely while the bus worked times it out."""
    bus = MisbehavingBus()
    manager = RoomManager(store, bus, clock, TIMING)
    manager.new_seed = lambda: "turn-timeout"
    actor = await _full_room(manager)
    sub = await bus.subscribe(seat_channel(actor.code, 0))
    assert prompt_kind(actor.state) == "turn" and acting_seats(actor.state) == [0]
    expected = default_action(actor.state, 0)

    bus.failing = True
    held = asyncio.create_task(actor.set_auto(2, True))  # its publish fails: retried
    await asyncio.sleep(0.2)
    assert actor.publisher.failing and not held.done()
    clock.advance(20.1)  # seat 0's time is up while nobody can be told anything
    bus.failing = False
    await held
    await actor.idle()
    assert await store.hand_actions(actor.code, 1) == []
    assert actor.auto == {2} and not actor.publisher.failing
    got = [m async for m in _drain(sub)]
    again = [m for m in got if m["type"] == "snapshot" and m["legal"]]
    assert again, got
    assert again[-1]["deadline"] == int((clock.now() + 20) * 1000)  # a full new time from now

    clock.advance(19.9)
    await actor.idle()
    assert await store.hand_actions(actor.code, 1) == []
    clock.advance(0.2)  # a timer that ran while the bus worked: seat 0 is timed out
    await actor.idle()
    assert await store.hand_actions(actor.code, 1) == [
        (0, {"action": expected.to_dict(), "source": "timeout"})
    ]
    assert actor.auto == {0, 2}
    await sub.close()
    await manager.close()
    await bus.close()


async def _drain(sub: Any) -> Any:
    """Every message already queued on ``sub``."""
    while True:
        try:
            yield await sub.get(timeout=0.05)
        except TimeoutError:
            return


def test_the_watchdog_ends_a_process_that_does_not_exit() -> None:
    """The backstop of a bounded stop: a process still running (here: asleep, as one held
    by a task that ignores cancellation would be) is ended at the watchdog's time."""
    code = "from server.room.bounded import watchdog; import time; watchdog(0.3, 3); time.sleep(30)"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=20, capture_output=True)
    took = time.monotonic() - started
    assert done.returncode == 3, done.stderr
    assert took < 10, took  # 0.3 s plus the interpreter's start
    assert b"still running 0.3 s after the stop began: exiting now" in done.stderr
