"""Bounded rooms (issue 16): finished and long-idle rooms leave the manager's memory and come
back from the store on demand; a room without a human seat does not play while nobody
watches.

Real store, in-memory bus, :class:`ManualClock` (the idle time is the manager's clock)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.room import sweeper
from server.room.actor import SPECTATORS, RoomActor, Timing, seat_channel
from server.room.clock import ManualClock
from server.room.errors import RoomError
from server.room.manager import RoomManager
from server.rules.types import Action

BOTS_WAIT = Timing(claim_min_ms=0, ready_seconds=30, pause_unwatched="bots")


def manager_of(store: Any, bus: Any, clock: ManualClock, timing: Timing) -> RoomManager:
    manager = RoomManager(store, bus, clock, timing, idle_seconds=60)
    manager.new_seed = iter(f"unload-{n}" for n in range(1000)).__next__
    return manager


async def watch(actor: RoomActor, sockets: int) -> None:
    """``sockets`` spectator sockets on ``actor`` (as the WebSocket handler counts them)."""
    actor.connected[SPECTATORS] = sockets
    await actor.publish_room()


async def test_finished_room_is_unloaded_and_reopens_in_its_final_state(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    manager = manager_of(store, bus, clock, Timing(claim_min_ms=0))
    actor = await manager.create_room({"hands": 4})
    code = actor.code
    assert await manager.add_bots(code, 4) == [0, 1, 2, 3]
    for _ in range(100):
        await actor.idle()
        if actor.status == "finished":
            break
    assert actor.status == "finished"
    final = await actor.snapshot(None)
    seat_final = await actor.snapshot(2)
    assert final["standings"] is not None and final["settlement"] is not None
    with pytest.raises(RoomError) as err:  # the session is over: nothing to auto-play
        await actor.set_auto(2, True)
    assert err.value.code == "no_hand" and actor.auto == set()

    assert await manager.unload_idle() == [code]
    assert code not in manager.rooms and code not in manager._locks
    assert not actor.running
    assert await manager.unload_idle() == []

    again = await manager.get(code)  # the link is opened again
    assert again is not actor and manager.rooms[code] is again
    assert not again.running  # a finished room has nothing to run
    assert await again.snapshot(None) == final
    assert await again.snapshot(2) == seat_final
    assert again.info() == actor.info()
    # a seat's commands to it are refused at once, as the running room refused them (they
    # used to wait for an actor that never runs, and hung the socket that sent them)
    refused = {
        "not_between_hands": again.mark_ready(2),
        "no_session": again.vote_dissolve(2, True),
        "no_hand": again.act(2, Action("pass")),
    }
    for code_, call in refused.items():
        with pytest.raises(RoomError) as err:
            await asyncio.wait_for(call, 2)
        assert err.value.code == code_
    with pytest.raises(RoomError) as err:
        await asyncio.wait_for(again.set_auto(2, True), 2)
    assert err.value.code == "no_hand"
    assert await again.snapshot(2) == seat_final and not again.running
    await manager.close()


async def test_a_room_waiting_for_players_refuses_commands_at_once(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """A room not yet full has no running actor: a seated player's ``ready`` or ``auto``
    gets its refusal at once, not when (if ever) the room fills."""
    manager = manager_of(store, bus, clock, Timing(claim_min_ms=0))
    actor = await manager.create_room({"hands": 4})
    assert await manager.add_bots(actor.code, 2) == [0, 1]
    assert not actor.running and actor.status == "open"
    with pytest.raises(RoomError) as err:
        await asyncio.wait_for(actor.mark_ready(0), 2)
    assert err.value.code == "not_between_hands"
    with pytest.raises(RoomError) as err:
        await asyncio.wait_for(actor.set_auto(0, True), 2)
    assert err.value.code == "no_hand"
    assert actor.auto == set() and actor.inbox.empty()
    await manager.close()


async def test_idle_room_is_unloaded_and_rebuilt_with_the_same_versions_and_prompts(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    manager = manager_of(store, bus, clock, BOTS_WAIT)
    actor = await manager.create_room({"hands": 4})
    code = actor.code
    await manager.add_bots(code, 4)
    spectator = await bus.subscribe(seat_channel(code, None))
    await watch(actor, 1)  # watched: it plays; after a few moves nobody watches any more
    events = 0
    while events < 12:
        events += (await spectator.get(timeout=5))["type"] == "event"
    await watch(actor, 0)
    await actor.idle()
    assert actor.paused and actor.status == "playing"
    before = await actor.snapshot(None)
    version, prompt, logged = actor.version, actor.prompts.window, actor.action_idx
    assert version >= 12 and logged >= 1

    clock.advance(59)
    assert await manager.unload_idle() == []  # idle for 59 s only
    clock.advance(1)
    assert await manager.unload_idle() == [code]
    assert code not in manager.rooms and not actor.running
    assert len(await store.hand_actions(code, 1)) == logged  # it did not move meanwhile

    again = await manager.get(code)  # e.g. a socket connects
    await again.idle()
    assert again is not actor and again.running and again.paused
    assert (again.version, again.prompts.window, again.action_idx) == (version, prompt, logged)
    assert await again.snapshot(None) == before
    # somebody watches: it plays on from there to the end of the session
    await watch(again, 1)
    for _ in range(100):
        await again.idle()
        if again.status == "finished":
            break
    assert again.status == "finished"
    hands = await store.hands(code)
    assert [h.hand_no for h in hands] == [1, 2, 3, 4] and all(h.settlement for h in hands)
    assert len(await store.hand_actions(code, 1)) > logged
    await spectator.close()
    await manager.close()


async def test_bot_room_nobody_watches_waits_and_resumes_on_a_socket(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    manager = manager_of(store, bus, clock, BOTS_WAIT)
    actor = await manager.create_room({"hands": 4})
    code = actor.code
    await manager.add_bots(code, 4)  # dealt, then parked: nobody watches
    await actor.idle()
    clock.advance(3600)
    await actor.idle()
    assert actor.paused and actor.status == "playing" and actor.hand_no == 1
    assert actor.version == 0 and await store.hand_actions(code, 1) == []
    await watch(actor, 1)  # a spectator's socket: on it goes
    for _ in range(100):
        await actor.idle()
        if actor.status == "finished":
            break
    assert actor.status == "finished" and not actor.paused
    assert (await store.hands(code))[0].settlement is not None
    await manager.close()


async def test_room_with_a_human_plays_on_unwatched(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """``pause_unwatched="bots"`` leaves a room with a human seat alone (its host may be away,
    on auto-play); ``"auto"`` pauses it too once every human is on auto-play."""
    for mode, moves in (("bots", True), ("auto", False)):
        manager = manager_of(store, bus, clock, Timing(claim_min_ms=0, pause_unwatched=mode))
        actor = await manager.create_room({"hands": 4})
        code = actor.code
        await manager.join(code, "host")
        await manager.add_bots(code, 3)
        await actor.set_auto(0, True)
        for _ in range(20):
            clock.advance(1.0)
            await actor.idle()
        logged = len(await store.hand_actions(code, 1))
        assert (logged > 0) is moves, mode
        assert actor.paused is not moves
        await manager.close()


async def test_sweeper_leaves_unwatched_bot_rooms_to_their_first_socket(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """After a restart the sweep resumes a room with a human seat at once, but not a room of
    bots only while such rooms pause unwatched (``pause_unwatched`` not ``never``)."""
    first = manager_of(store, bus, clock, BOTS_WAIT)
    bots = await first.create_room({"hands": 4})
    await first.add_bots(bots.code, 4)
    hosted = await first.create_room({"hands": 4})
    await first.join(hosted.code, "host")
    await first.add_bots(hosted.code, 3)
    assert (bots.status, hosted.status) == ("playing", "playing")
    await first.close()

    for timing, resumed in ((BOTS_WAIT, [hosted.code]), (Timing(), [bots.code, hosted.code])):
        manager = manager_of(store, bus, clock, timing)
        assert await sweeper.sweep(manager, store, None) == resumed
        assert sorted(manager.rooms) == sorted(resumed)
        await manager.close()
