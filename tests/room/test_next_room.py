"""再来一场 (`RoomManager.again`): one next room per finished session, whoever asks and on
whichever process; a room made by a process that lost the race to record it is dissolved
at once, never left open for the admin's room list."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from server.room.actor import RoomError, Timing
from server.room.clock import ManualClock
from server.room.manager import HOLD_SECONDS, RoomManager
from server.store import profiles

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


async def test_the_next_room_keeps_each_players_seat_for_them(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """再来一场 after a session of ann (seat 0) and bo (seat 2) with two bots: the next room
    keeps seats 0 and 2 for them. ann, back first, is seated in hers whatever seat she asks;
    she can then neither put a bot in bo's seat (which made him find the room full) nor can
    a newcomer take it, until bo sits down or ``HOLD_SECONDS`` pass."""
    code = await finished_room(store, bus, clock)
    ann, _ = await profiles.create_profile(store, "ann")
    bo, _ = await profiles.create_profile(store, "bo")
    cat, _ = await profiles.create_profile(store, "cat")
    await store.add_player(code, 0, "ann", "h0", False, profile_id=ann.id)
    await store.add_player(code, 2, "bo", "h2", False, profile_id=bo.id)
    manager = RoomManager(store, bus, clock, TIMING)
    nxt = await manager.again(code)
    until = int((clock.now() + HOLD_SECONDS) * 1000)
    kept = [{"seat": 0, "name": "ann", "until": until}, {"seat": 2, "name": "bo", "until": until}]
    assert (await manager.info(nxt))["held"] == kept
    assert (await manager.join(nxt, "ann", profile_id=ann.id, seat=2))[0] == 0
    assert (await manager.info(nxt))["held"] == kept[1:]
    for refused in (
        manager.add_bots(nxt, 1),
        manager.add_bots(nxt, 1, seat=2),
        manager.join(nxt, "cat", profile_id=cat.id),
        manager.join(nxt, "cat", profile_id=cat.id, seat=2),
    ):
        with pytest.raises(RoomError) as err:
            await refused
        assert err.value.code == "seat_held" and "bo" in err.value.message
    assert [p.seat for p in (await store.get_room(nxt)).players] == [0, 1, 3]
    clock.advance(HOLD_SECONDS - 1)
    assert (await manager.info(nxt))["held"] == kept[1:]
    clock.advance(1)  # the seat is anyone's again
    assert (await manager.info(nxt))["held"] == []
    assert await manager.add_bots(nxt, 1) == [2]
    await manager.close()


async def test_a_returning_player_takes_the_kept_seat(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """The seat kept for bo is his (asked by seat or not); once taken nothing is kept."""
    code = await finished_room(store, bus, clock)
    bo, _ = await profiles.create_profile(store, "bo")
    await store.add_player(code, 2, "bo", "h2", False, profile_id=bo.id)
    manager = RoomManager(store, bus, clock, TIMING)
    nxt = await manager.again(code)
    assert (await manager.join(nxt, "bo", profile_id=bo.id))[0] == 2
    assert (await manager.info(nxt))["held"] == []
    assert await manager.add_bots(nxt, 1) == [0]  # the one free seat, kept for nobody
    await manager.close()


async def test_the_kept_seats_outlast_a_restart(store: Any, bus: Any) -> None:
    """The next room loaded again (a restarted or another process) keeps bo's seat for him
    until the time counted from the room's making: a restart does not hand it to a
    newcomer or a bot."""
    clock = ManualClock(start=time.time())  # (the room's making is stored in real time)
    code = await finished_room(store, bus, clock)
    bo, _ = await profiles.create_profile(store, "bo")
    await store.add_player(code, 2, "bo", "h2", False, profile_id=bo.id)
    first = RoomManager(store, bus, clock, TIMING)
    nxt = await first.again(code)
    await first.close()
    restarted = RoomManager(store, bus, clock, TIMING)
    made = (await store.get_room(nxt)).created_at.timestamp()
    until = int((made + HOLD_SECONDS) * 1000)
    assert (await restarted.info(nxt))["held"] == [{"seat": 2, "name": "bo", "until": until}]
    with pytest.raises(RoomError) as err:
        await restarted.add_bots(nxt, 1, seat=2)
    assert err.value.code == "seat_held"
    clock.advance(HOLD_SECONDS + 5)
    assert (await restarted.info(nxt))["held"] == []
    await restarted.close()


@pytest.mark.parametrize("status", ["finished", "dissolved"])
async def test_a_room_whose_session_is_over_is_not_joined(
    store: Any, bus: Any, clock: ManualClock, status: str
) -> None:
    """Joining an ended room says so (``session_over``), not ``room_full`` (a player
    typing an old code was told the room was full), and seats nobody, even where a seat
    is free (the bots sat in 1 and 3 of this one)."""
    code = await finished_room(store, bus, clock)
    await store.set_room_status(code, status)
    manager = RoomManager(store, bus, clock, TIMING)
    with pytest.raises(RoomError) as refused:
        await manager.join(code, "late")
    assert refused.value.code == "session_over"
    assert status in refused.value.message
    room = await store.get_room(code)
    assert room is not None and [p.seat for p in room.players] == [1, 3]
    await manager.close()
