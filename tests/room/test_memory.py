"""Memory is given back (issue 16): after 1,000 finished bot hands (250 rooms of 4 hands,
ten at a time, each watched by a spectator's subscription, finished and unloaded) nothing of
the rooms is left (no actor object, no lock, no subscription) and the process's memory is
back within 10 % of what it was after a warm-up. Without ``--slow``: 48 hands.

Measure: ``tracemalloc`` is started after the warm-up (40 hands: caches, pools, compiled
SQL), so what it traces at the end is exactly what the hands left allocated. The rules
engine's memo tables (``server.rules.hand``'s ``@cache`` functions, the games' settlement
caches of at most 1,024 entries, the views' seat entries) are emptied first: they are
bounded by the game's tile patterns or a fixed size, not by the rooms played. Asserted:
that residue is at most 10 % of the process's resident memory (psutil RSS) at the start,
and at most 2 KiB per hand (a leak of a room would be far more: an actor with its hand is
tens of KiB). RSS itself is reported only: CPython rarely gives freed arenas back to the
system, so it measures fragmentation too.

Real `RoomManager` and `RoomActor`, the real store, the in-memory bus, a manual clock."""

from __future__ import annotations

import asyncio
import gc
import itertools
import sys
import tracemalloc
import weakref
from typing import Any

import psutil
import pytest

from server.bus.memory import MemoryBus
from server.room.actor import RoomActor, Timing, seat_channel
from server.room.clock import ManualClock
from server.room.manager import RoomManager
from server.rules.registry import find_game, game_names

HANDS_PER_ROOM = 4
AT_ONCE = 10


async def play_rooms(manager: RoomManager, bus: MemoryBus, rooms: int) -> int:
    """Play ``rooms`` bot rooms to their end, ``AT_ONCE`` at a time, unloading each batch;
    returns the hands played."""
    hands = 0
    for start in range(0, rooms, AT_ONCE):
        actors = [
            await manager.create_room({"hands": HANDS_PER_ROOM})
            for _ in range(min(AT_ONCE, rooms - start))
        ]
        subs = [await bus.subscribe(seat_channel(a.code, None)) for a in actors]
        drains = [asyncio.create_task(drain(sub)) for sub in subs]
        for actor in actors:
            await manager.add_bots(actor.code, 4)
        for actor in actors:
            for _ in range(10_000):
                await actor.idle(timeout=120)
                if actor.status == "finished":
                    break
            assert actor.status == "finished"
            hands += actor.hand_no
        for sub in subs:
            await sub.close()
        await asyncio.gather(*drains)
        unloaded = await manager.unload_idle()
        assert sorted(unloaded) == sorted(a.code for a in actors)
        del actors, subs, drains
    return hands


async def drain(sub: Any) -> None:
    async for _ in sub:
        pass


def rss() -> int:
    gc.collect()
    return int(psutil.Process().memory_info().rss)


def traced_residue() -> int:
    """Bytes traced now, once the rules engine's memo tables are emptied."""
    for module in [m for n, m in sys.modules.items() if n.startswith("server.rules")]:
        for name in dir(module):  # every memo table of the engine (hand analysis, hints, ...)
            table = getattr(module, name)
            if not isinstance(table, type) and callable(getattr(table, "cache_clear", None)):
                table.cache_clear()
    for name in game_names():
        settled = getattr(find_game(name), "_settled", None)
        if settled is not None:
            settled.clear()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


@pytest.mark.slow
async def test_memory_returns_after_finished_bot_hands(store: Any, full_size: bool) -> None:
    bus = MemoryBus()
    manager = RoomManager(store, bus, ManualClock(), Timing(claim_min_ms=0), idle_seconds=60)
    seeds = itertools.count()
    manager.new_seed = lambda: f"memory-{next(seeds)}"
    total = 1000 if full_size else 48
    assert await play_rooms(manager, bus, 10) == 40  # warm-up
    await asyncio.sleep(0)
    traced_residue()  # (imports every game once, outside the measure)
    start = rss()
    tracemalloc.start(1)
    try:
        played = await play_rooms(manager, bus, total // HANDS_PER_ROOM)
        await asyncio.sleep(0)  # the last stopped task's callbacks let go of its actor
        residue = traced_residue()
    finally:
        tracemalloc.stop()
    after = rss()
    assert played == total
    assert manager.rooms == {} and manager._locks == {}
    assert store._room_ids == {} and store._hand_ids == {}
    assert bus.subscriber_count(seat_channel("X", None)) == 0 and not bus._subs
    assert [o for o in gc.get_objects() if isinstance(o, RoomActor)] == []
    report = f"residue {residue / 1024:.0f} KiB; RSS {start / 2**20:.1f} -> {after / 2**20:.1f} MiB"
    assert residue <= 0.10 * start, report
    assert residue <= 2048 * total, report
    await manager.close()
    await bus.close()


async def test_an_unloaded_room_is_freed_by_reference_counting(store: Any) -> None:
    """No reference cycle holds a room (`server.heap`: a serving process never collects
    cycles of its rooms): with the collector off, a finished bot room that is unloaded and
    let go is gone at once, its actor and collaborators with it, and a full collection
    then finds nothing of it."""
    bus = MemoryBus()
    manager = RoomManager(store, bus, ManualClock(), Timing(claim_min_ms=0), idle_seconds=60)
    seeds = itertools.count()
    manager.new_seed = lambda: f"freed-{next(seeds)}"
    await play_rooms(manager, bus, 1)  # warm-up: caches, pools, lazy imports
    gc.collect()
    gc.disable()
    try:
        actor = await manager.create_room({"hands": HANDS_PER_ROOM})
        await manager.add_bots(actor.code, 4)
        for _ in range(10_000):
            await actor.idle(timeout=120)
            if actor.status == "finished":
                break
        parts = [weakref.ref(o) for o in (actor, actor.prompts, actor.publisher, actor.claims)]
        parts += [weakref.ref(o) for o in (actor.outages, actor.vote, actor.legal)]
        del actor
        assert len(await manager.unload_idle()) == 1
        await asyncio.sleep(0)  # the stopped task's callbacks let go of its actor
        assert [r for r in parts if r() is not None] == []
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            assert [o for o in gc.garbage if isinstance(o, RoomActor)] == []
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    finally:
        gc.enable()
    await manager.close()
    await bus.close()
