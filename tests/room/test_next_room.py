"""再来一场 (`RoomManager.again`): one next room per finished session, whoever asks and on
whichever process; a room made by a process that lost the race to record it is dissolved
at once, never left open for the admin's room list."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.room.actor import Timing
from server.room.clock import ManualClock
from server.room.manager import RoomManager

TIMING = Timing(claim_min_ms=0)


async def finished_room(store: Any, bus: Any, clock: ManualClock) -> str:
    """A stored room with bots in seats 1 and 3 whose session is over."""
    first = RoomManager(store, bus, clock, TIMING)
    actor = await first.create_room({"hands": 4, "yao_bai_ji": True})
    await first.add_bots(actor.code, 1, seat=1)
    await first.add_bots(actor.code, 1, seat=3)
    await first.close()
    await store.set_room_status(actor.code, "finished")
    return actor.code


async def test_one_process_asked_twice_at_once_makes_one_room(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    code = await finished_room(store, bus, clock)
    manager = RoomManager(store, bus, clock, TIMING)
    codes = await asyncio.gather(manager.again(code), manager.again(code))
    assert codes[0] == codes[1] != code
    assert [r.code for r in await store.rooms()] == [code, codes[0]]
    assert "again:" + code not in manager._locks  # (nothing kept per finished session)
    await manager.close()


async def test_the_room_of_a_process_that_lost_the_race_is_dissolved(
    store: Any, bus: Any, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes (two managers on one store) ask at once: both find no next room, both
    make one, the store keeps the first recorded; the other room is dissolved (in the store
    and in its process, which then unloads it), with its bots, never dealt."""
    code = await finished_room(store, bus, clock)
    both_looked = asyncio.Barrier(2)
    next_room = store.next_room

    async def look_together(c: str) -> str | None:
        found = await next_room(c)
        await both_looked.wait()  # neither records before the other has looked
        return found

    monkeypatch.setattr(store, "next_room", look_together)
    a, b = RoomManager(store, bus, clock, TIMING), RoomManager(store, bus, clock, TIMING)
    codes = await asyncio.gather(a.again(code), b.again(code))
    assert codes[0] == codes[1] != code
    kept = codes[0]
    rooms = {r.code: r for r in await store.rooms()}
    assert set(rooms) - {code, kept} != set(), "each process made a room"
    (lost,) = set(rooms) - {code, kept}
    assert rooms[kept].status == "open" and rooms[lost].status == "dissolved"
    assert [(p.seat, p.is_bot) for p in rooms[lost].players] == [(1, True), (3, True)]
    loser = a if lost in a.rooms else b
    assert loser.rooms[lost].status == "dissolved"
    assert lost in await loser.unload_idle() and lost not in loser.rooms
    assert (await store.get_room(code)).next_code == kept
    await a.close()
    await b.close()
