"""Real server processes: Redis stopped for 10 s mid-hand loses nothing a player needs.

Two processes (``A`` owns the room, ``B`` relays one human) on PostgreSQL and a Redis of
the test's own (started here, stopped for 10 s mid-hand and started again empty, so every
lease and subscription is gone). Two humans (scripted test clients answering every prompt
at once, one socket on each process) and two bots; turn and claim timers are 8 s, shorter
than the outage, so a timer that ran out on a prompt nobody received would show. Checks:

* no seat is timed out: the hand's log has no ``timeout`` / ``auto`` action, no seat is on
  auto at the end;
* no event is missing at any client: in each client's stream every ``event`` /
  ``hand_end`` carries an int ``prev_version`` equal to the version of the message before it
  (after a snapshot: not above it), within a hand versions never go down, and a new hand
  starts with its deal snapshot;
* each client's view after the outage equals a fresh snapshot: once the room waits for a
  human (paused after the outage), each client asks for one (``sync``) and it shows exactly
  what its last message showed (hand, version, view, legal actions and, if there are any,
  the prompt they answer);
* the hand ends by itself with one settlement, the same at both clients and in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from processes import Player, ServerProcess
from test_processes import ENV, _join, _post

from server.store import Store
from tests.redis_server import RedisServer

OUTAGE_SECONDS = 10.0
TIMERS = "8"


def _check_stream(name: str, received: list[dict[str, Any]]) -> None:
    """No silent gap in one client's versioned messages (see the module docstring)."""
    last: dict[str, Any] | None = None
    for msg in received:
        kind = msg["type"]
        if last is not None and msg["hand_no"] == last["hand_no"]:
            assert msg["version"] >= last["version"], (name, last, msg)
        if kind in ("event", "hand_end"):
            assert last is not None and msg["hand_no"] == last["hand_no"], (name, last, msg)
            prev = msg["prev_version"]
            assert isinstance(prev, int), (name, last, msg)
            if last["type"] == "snapshot":
                assert prev <= last["version"], (name, last, msg)
            else:
                assert prev == last["version"], (name, last, msg)
        last = msg


async def _fresh_view_matches(player: Player, resume: bool) -> None:
    """Ask for a snapshot on the player's socket (the room is quiet) and compare it with
    the last message the player had: same hand, version, prompt, view and legal actions."""
    before = len(player.received)
    await player.send({"type": "sync"})
    if resume:
        player.resume.set()
    deadline = time.monotonic() + 20
    while len(player.received) <= before:
        assert time.monotonic() < deadline, "no snapshot after sync"
        await asyncio.sleep(0.02)
    fresh, shown = player.received[before], player.received[before - 1]
    assert fresh["type"] == "snapshot"
    for key in ("hand_no", "version", "view", "legal"):
        assert fresh[key] == shown[key], (player.seat, key, shown, fresh)
    if shown["legal"]:  # the prompt those actions answer (without any, it is not used)
        assert fresh["prompt"] == shown["prompt"], (player.seat, shown, fresh)


@pytest.mark.postgres
async def test_redis_stopped_10s_mid_hand_loses_nothing_a_player_needs(
    postgres_url: str, tmp_path: Path
) -> None:
    redis = RedisServer(tmp_path / "redis.log")
    redis.start()
    env = {**ENV, "DATABASE_URL": postgres_url, "REDIS_URL": redis.url, "LEASE_SECONDS": "3"}
    env |= {"TURN_SECONDS": TIMERS, "CLAIM_SECONDS": TIMERS}
    a = ServerProcess(env, tmp_path / "a.log")
    b = ServerProcess(env, tmp_path / "b.log")
    plays: list[asyncio.Task[dict[str, Any]]] = []
    players: list[Player] = []
    try:
        a.wait_ready()
        b.wait_ready()
        for _attempt in range(5):
            code = (
                await _post(
                    a.http,
                    "/api/rooms",
                    {"game": "guiyang", "options": {"hands": 4, "bank_seconds": 0}},
                )
            )["code"]
            seat0, token0 = await _join(a.http, code, "ann")
            seat1, token1 = await _join(b.http, code, "bob")
            players = [Player(code, seat0, token0, a.ws), Player(code, seat1, token1, b.ws)]
            for p in players:
                await p.connect()
            await _post(a.http, f"/api/rooms/{code}/bots", {"count": 2}, token0)
            plays = [asyncio.create_task(p.play()) for p in players]
            deadline = time.monotonic() + 60
            while sum(p.actions for p in players) < 3 and not any(t.done() for t in plays):
                assert time.monotonic() < deadline, "the room did not get going"
                await asyncio.sleep(0.02)
            if not any(t.done() for t in plays):
                redis.stop()  # mid-hand: every lease and subscription goes with it
                # Nothing the room sends can reach a client while Redis is down: a hand_end
                # read in this moment was sent before the stop (the hand ended at full speed
                # between the check above and the stop).
                await asyncio.sleep(0.5)
                if not any(t.done() for t in plays):
                    break
                redis.start()
            for t in plays:  # the hand ended at once (a bot won): another room
                t.cancel()
            for p in players:
                await p.close()
        else:
            raise AssertionError("five hands in a row ended before the outage")

        await asyncio.sleep(OUTAGE_SECONDS - 0.5)
        assert not any(t.done() for t in plays), "the hand ended during the outage"
        after = [len(p.received) for p in players]
        redis.start()

        # the room carries on by itself: both clients are sent something new
        deadline = time.monotonic() + 30
        while any(len(p.received) <= n for p, n in zip(players, after, strict=True)):
            assert time.monotonic() < deadline, (a.output(), b.output())
            await asyncio.sleep(0.05)
        # then wait for a moment when the room waits for ann, and compare views
        ann, bob = players
        ann.pause_at = ann.actions
        paused = asyncio.create_task(ann.paused.wait())
        await asyncio.wait([paused, plays[0]], timeout=60, return_when="FIRST_COMPLETED")
        if paused.done():
            await asyncio.sleep(1.0)  # the others' messages of that prompt arrive
            await _fresh_view_matches(bob, resume=False)
            await _fresh_view_matches(ann, resume=True)
        else:  # the hand ended before ann's next prompt: her end is the fresh view
            paused.cancel()
        ends = await asyncio.wait_for(asyncio.gather(*plays), 120)

        for p in players:
            _check_stream(f"seat {p.seat}", p.received)
        assert ends[0]["settlement"] == ends[1]["settlement"]
        store = Store(postgres_url)
        try:
            hand = (await store.hands(code))[0]
            assert hand.settlement == ends[0]["settlement"]
            actions = await store.hand_actions(code, 1)
        finally:
            await store.close()
        sources = {(seat, payload["source"]) for seat, payload in actions}
        assert sources <= {(0, "player"), (1, "player"), (2, "bot"), (3, "bot")}, sources
        async with httpx.AsyncClient(timeout=10) as client:
            info = (await client.get(f"{b.http}/api/rooms/{code}")).json()
        assert [s["auto"] for s in info["seats"]] == [False, False, False, False]
    finally:
        for t in plays:
            t.cancel()
        for p in players:
            with contextlib.suppress(Exception):
                await p.close()
        a.stop()
        b.stop()
        redis.stop()
