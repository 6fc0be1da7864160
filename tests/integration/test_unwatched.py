"""Bounded rooms through the live server (issue 16): a room without a human seat plays only
while a socket watches it (here a spectator's), and a finished room leaves the server's
memory once its sockets are gone, and its link still shows its final state."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from live_helpers import Live, recv, recv_until


async def bot_room(live: Live, hands: int) -> str:
    """A room of four bots made on the server (the API seats bots only for a seated human)."""
    manager = live.app.state.manager

    async def make() -> str:
        actor = await manager.create_room({"hands": hands})
        await manager.add_bots(actor.code, 4)
        return str(actor.code)

    return await live.on_server(make())


async def until(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.02)


async def test_bot_room_plays_only_while_a_socket_watches(live: Live) -> None:
    code = await bot_room(live, 16)
    actor = live.app.state.manager.rooms[code]
    await asyncio.sleep(0.3)
    assert actor.paused and actor.version == 0 and actor.action_idx == 0
    ws = await live.connect(code)  # a spectator
    snap = await recv(ws)
    assert snap["type"] == "snapshot" and snap["seat"] is None
    for _ in range(20):
        await recv_until(ws, "event")
    assert actor.connected == {-1: 1} and not actor.paused
    await ws.close()
    await until(lambda: actor.paused and actor.connected == {-1: 0})
    await live.idle()
    moved = (actor.hand_no, actor.action_idx)  # (the action index restarts with each hand)
    await asyncio.sleep(0.5)
    # (paused mid-hand, or between hands if the last hand ended as the spectator left)
    assert (actor.hand_no, actor.action_idx) == moved and actor.status in ("playing", "between")
    assert moved >= (1, 10) and actor.hand_no < 16, "it played while watched, stopped when left"


async def test_finished_room_leaves_memory_and_its_link_shows_the_end(live_with: Any) -> None:
    live = live_with(unload_seconds=0.1, room_idle_seconds=3600)
    code = await bot_room(live, 4)
    ws = await live.connect(code)
    end, _ = await recv_until(ws, "session_end", timeout=60)
    await asyncio.sleep(0.5)
    assert code in live.app.state.manager.rooms, "kept while a socket is open"
    await ws.close()
    await until(lambda: code not in live.app.state.manager.rooms)
    async with live.client() as client:
        r = await client.get(f"/api/rooms/{code}")  # the link, opened again
    assert r.status_code == 200 and r.json()["status"] == "finished"
    assert r.json()["totals"] == end["totals"]
    ws = await live.connect(code)
    snap = await recv(ws)
    assert snap["type"] == "snapshot" and snap["standings"] == end["standings"]
    assert snap["room"]["status"] == "finished" and snap["settlement"] is not None
    assert snap["settlement"]["deltas"] and sum(snap["settlement"]["deltas"]) == 0
    await ws.close()
