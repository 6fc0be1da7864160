"""Real server processes: a crash mid-hand loses nothing.

* Two processes on PostgreSQL and Redis: a room with a human on each, the owner killed
  with SIGKILL mid-hand; the other process takes the room over (its lease lapses), the
  hand finishes there, and its settlement is the one an uninterrupted replay of the same
  seed and actions gives; the ledger holds exactly that hand's payments, once.
* One process on SQLite (the default, no Redis): killed mid-hand and started again, the
  room resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from processes import REPO, Player, ServerProcess

from server.room.actor import replay_hand
from server.rules.guiyang import GuiyangOptions, settle
from server.store import Store

#: Timers long enough never to fire while the test plays (no test waits for a game timer).
#: The test clients answer each prompt the moment it arrives, in rooms whose bots play at full
#: speed: on a fast machine more than a person's 20 messages a second (MESSAGES_PER_SECOND).
ENV = {
    "CLAIM_MIN_MS": "0",
    "TURN_SECONDS": "300",
    "CLAIM_SECONDS": "300",
    "ADMIN_TOKEN": "",
    "MESSAGES_PER_SECOND": "1000",
    "MESSAGE_BURST": "1000",
}


async def _join(http: str, code: str, name: str) -> tuple[int, str]:
    async with httpx.AsyncClient(base_url=http, timeout=30) as client:
        r = await client.post(f"/api/rooms/{code}/join", json={"name": name})
        assert r.status_code == 200, r.text
        return r.json()["seat"], r.json()["token"]


async def _post(
    http: str, path: str, body: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    """POST ``body``; ``token``: a seat token sent as ``Authorization: Bearer`` (bots)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=http, timeout=30) as client:
        r = await client.post(path, json=body, headers=headers)
        assert r.status_code in (200, 201), r.text
        return r.json()


async def _check_hand(database_url: str, code: str, hand_end: dict[str, Any]) -> None:
    """The stored hand replays (seed + logged actions) to the settlement the players were
    sent and the database holds; the ledger has each payment exactly once."""
    store = Store(database_url)
    try:
        room = await store.get_room(code)
        assert room is not None
        hand = (await store.hands(code))[0]
        actions = await store.hand_actions(code, hand.hand_no)
        state, _ = replay_hand(
            GuiyangOptions(**room.options),
            hand.seed,
            hand.dealer,
            hand.dealer_streak,
            actions,
            hand.weekday,
        )
        replayed = settle(state)
        assert replayed is not None, "the logged actions do not end the hand"
        assert hand.settlement == replayed
        assert hand_end["settlement"] == replayed
        assert hand.deltas == replayed["deltas"]
        rows = await store.ledger_by_hand(code, hand.hand_no)
        expected = [
            {k: p.get(k) for k in ("from", "to", "points", "reason", "detail")}
            for p in replayed["payments"]
        ]
        assert rows == expected  # nothing lost, nothing doubled
        everything = await store.ledger(code=code, limit=10_000)
        assert len([r for r in everything if r["hand_no"] == hand.hand_no]) == len(expected)
    finally:
        await store.close()


def _audit(database_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server", "audit", "--database-url", database_url],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _same_position(before: dict[str, Any], after: dict[str, Any]) -> None:
    """``after`` (a snapshot from the new process) shows the seat the same hand as ``before``."""
    assert after["hand_no"] == before["hand_no"]
    assert after["version"] >= before["version"]
    for key in ("hand", "drawn", "melds"):
        if key in before["view"]:
            assert after["view"].get(key) == before["view"][key], key


@pytest.mark.postgres
@pytest.mark.redis
async def test_owner_killed_mid_hand_other_process_finishes_it(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {**ENV, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url}
    env["LEASE_SECONDS"] = "1.5"
    a = ServerProcess(env, tmp_path / "a.log")
    b = ServerProcess(env, tmp_path / "b.log")
    try:
        a.wait_ready()
        b.wait_ready()
        for attempt in range(1, 6):
            code = (
                await _post(a.http, "/api/rooms", {"game": "guiyang", "options": {"hands": 4}})
            )["code"]
            seat0, token0 = await _join(a.http, code, "ann")  # on the owner
            seat1, token1 = await _join(b.http, code, "bob")  # forwarded to the owner
            assert (seat0, seat1) == (0, 1)
            p0 = Player(code, seat0, token0, a.ws, pause_at=2)
            p1 = Player(code, seat1, token1, b.ws)
            await p0.connect()
            await p1.connect()
            bots = await _post(b.http, f"/api/rooms/{code}/bots", {"count": 2}, token1)
            assert bots["seats"] == [2, 3]
            async with httpx.AsyncClient(timeout=10) as client:
                assert (await client.get(f"{a.http}/api/health")).json()["rooms"] == attempt
                assert (await client.get(f"{b.http}/api/health")).json()["rooms"] == 0
                info = (await client.get(f"{b.http}/api/rooms/{code}")).json()
                assert [s["connected"] for s in info["seats"]] == [True, True, True, True]

            plays = [asyncio.create_task(p0.play()), asyncio.create_task(p1.play())]
            paused = asyncio.create_task(p0.paused.wait())  # the room then waits for seat 0
            await asyncio.wait([paused, plays[0]], timeout=60, return_when="FIRST_COMPLETED")
            if paused.done():
                break
            # The dealt hand ended (a bot won at once) before seat 0's pause: a new room.
            assert plays[0].done(), "seat 0 neither paused nor saw the hand end"
            for task in (paused, plays[1]):
                task.cancel()
            await p0.close()
            await p1.close()
        else:
            raise AssertionError("five hands in a row ended before seat 0 could pause")
        # seat 1 may not have read the event that gave seat 0 its prompt yet: wait for it
        assert p0.last is not None
        for _ in range(250):
            if p1.last is not None and p1.last["version"] >= p0.last["version"]:
                break
            await asyncio.sleep(0.02)
        before0, before1 = p0.last, p1.last
        assert before0 is not None and before1 is not None
        n0, n1 = len(p0.snapshots), len(p1.snapshots)
        a.kill()

        store = Store(postgres_url)
        try:
            hand = (await store.hands(code))[0]
            assert hand.settlement is None, "the hand ended before the kill"
            logged = len(await store.hand_actions(code, 1))
        finally:
            await store.close()
        assert logged > 0

        p0.ws_url = b.ws  # seat 0 reconnects to the surviving process with its token
        p0.resume.set()
        end0, end1 = await asyncio.wait_for(asyncio.gather(*plays), 120)
        assert p0.reconnects >= 1
        _same_position(before0, p0.snapshots[n0])
        # seat 1 never reconnected: its socket on B got a fresh snapshot after the takeover
        assert p1.reconnects == 0
        assert len(p1.snapshots) > n1
        _same_position(before1, p1.snapshots[n1])
        assert end0["settlement"] == end1["settlement"]
        async with httpx.AsyncClient(timeout=10) as client:
            assert (await client.get(f"{b.http}/api/health")).json()["rooms"] >= 1
        await p0.close()
        await p1.close()
        await _check_hand(postgres_url, code, end0)
        _audit(postgres_url)
    finally:
        a.kill()
        b.stop()


async def test_single_process_restart_mid_hand_resumes(tmp_path: Path) -> None:
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'zhuoji.db'}"
    env = {**ENV, "DATABASE_URL": database_url, "REDIS_URL": ""}
    first = ServerProcess(env, tmp_path / "first.log")
    second: ServerProcess | None = None
    try:
        first.wait_ready()
        for _attempt in range(5):
            code = (
                await _post(first.http, "/api/rooms", {"game": "guiyang", "options": {"hands": 4}})
            )["code"]
            seat, token = await _join(first.http, code, "ann")
            player = Player(code, seat, token, first.ws, pause_at=2)
            await player.connect()
            await _post(first.http, f"/api/rooms/{code}/bots", {"count": 3}, token)
            play = asyncio.create_task(player.play())
            paused = asyncio.create_task(player.paused.wait())
            await asyncio.wait([paused, play], timeout=60, return_when="FIRST_COMPLETED")
            if paused.done():
                break
            # The dealt hand ended (a bot won at once) before the pause: a new room.
            assert play.done(), "the player neither paused nor saw the hand end"
            paused.cancel()
            await player.close()
        else:
            raise AssertionError("five hands in a row ended before the player could pause")
        before = player.last
        assert before is not None
        seen = len(player.snapshots)
        first.kill()

        second = ServerProcess(env, tmp_path / "second.log", port=first.port)
        second.wait_ready()
        player.resume.set()
        end = await asyncio.wait_for(play, 120)
        assert player.reconnects == 1
        _same_position(before, player.snapshots[seen])
        await player.close()
        await _check_hand(database_url, code, end)
        _audit(database_url)
    finally:
        first.kill()
        if second is not None:
            second.stop()
