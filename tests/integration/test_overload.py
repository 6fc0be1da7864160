"""An overloaded owner (its event loop frozen past the lease time) and fencing, with real
server processes on PostgreSQL and Redis.

Process A owns three rooms (one human each, playing through process B's sockets, three
bots) that play without pause. The test holds PostgreSQL's lock on the action log for a
moment, so A's next appends are in flight (sent, not yet run), then freezes A with SIGSTOP
(as a CPU hog blocking its loop would, only longer and on cue) while one human's answer to
its own turn is in flight to A. B takes the rooms over; then the log is unlocked and A
thaws, with those writes in flight and leases it no longer holds. Afterwards:

* A's writes in flight were refused (their lease generation is stale) and no room was run
  by two processes at once: in every hand's log the lease generations (logged with each
  action) never go down, so no write of the old owner landed after the new owner's;
* the answer in flight was not refused (no ``stale_prompt``): B logged it, under its own
  generation, as the very next action;
* A stopped running the rooms, and every settled hand replays to its stored settlement.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from live_helpers import choose
from processes import REPO, ServerProcess
from sqlalchemy.engine import make_url
from websockets.asyncio.client import ClientConnection, connect

from server.store import Store

LEASE = 1.5
#: Appends waiting for the lock on the action log (the test's ``LOCK TABLE``).
WAITING = (
    "SELECT count(*) FROM pg_locks WHERE relation = 'actions'::regclass AND NOT granted "
    "AND mode = 'RowExclusiveLock'"
)
ENV = {
    "CLAIM_MIN_MS": "0",
    "TURN_SECONDS": "300",
    "CLAIM_SECONDS": "300",
    "READY_SECONDS": "300",
    "ADMIN_TOKEN": "",
    "LEASE_SECONDS": str(LEASE),
    # the address limits are shared through Redis: repeated runs must not meet them
    "ROOMS_PER_MINUTE": "1000",
    "SOCKETS_PER_MINUTE": "1000",
    "JOINS_PER_MINUTE": "1000",
    "MESSAGES_PER_SECOND": "10000",
    "MESSAGE_BURST": "10000",
}


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _post(
    http: str, path: str, body: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    """POST ``body``; ``token``: a seat token sent as ``Authorization: Bearer`` (bots)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=http, timeout=60) as client:
        r = await client.post(path, json=body, headers=headers)
        assert r.status_code in (200, 201), r.text
        return r.json()  # type: ignore[no-any-return]


class Human:
    """One scripted human: answers every prompt at once with its number, says ready between
    hands. With ``hold`` set it stops at its next own turn (``waiting`` set, the prompt in
    ``held``) until ``release`` is set, then sends that answer."""

    def __init__(self, ws_url: str, code: str, token: str) -> None:
        self.url = f"{ws_url}/ws/rooms/{code}?token={token}"
        self.errors: list[dict[str, Any]] = []
        self.last: tuple[Any, ...] = ()  # the last message seen (for a failure's message)
        self.answers = 0
        self.hold = False
        self.waiting = asyncio.Event()
        self.release = asyncio.Event()
        self.held: dict[str, Any] | None = None
        self.held_seq: int | None = None
        #: The seqs of the answers to claim windows: a window decided by the other seats
        #: (a bot's win over this seat's pong) closes at once (CLAIM_MIN_MS=0), and an
        #: answer crossing that close is refused as stale in any room, moved or not.
        self.claim_seqs: set[int] = set()
        self.done = asyncio.Event()
        self._ws: ClientConnection | None = None

    async def run(self) -> None:
        async with connect(self.url, open_timeout=20, max_size=2**22) as ws:
            self._ws = ws
            answered: tuple[int, int] | None = None
            seq = 0
            while not self.done.is_set():
                try:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                except TimeoutError:
                    continue
                kind = msg.get("type")
                self.last = (kind, msg.get("hand_no"), msg.get("version"), msg.get("prompt"))
                if kind == "error":
                    self.errors.append(msg)
                    await asyncio.sleep(0.2)  # e.g. ``unavailable`` while the room moves
                    await ws.send(json.dumps({"type": "sync"}))
                    answered = None
                    continue
                if kind == "hand_end" and msg.get("next_hand"):
                    await ws.send(json.dumps({"type": "ready"}))
                    continue
                if kind == "snapshot" and (msg.get("room") or {}).get("status") == "between":
                    # a fresh snapshot (the room moved) between hands: ready, else the
                    # room waits READY_SECONDS for this seat
                    await ws.send(json.dumps({"type": "ready"}))
                    continue
                if kind == "session_end":
                    return
                if kind not in ("snapshot", "event") or not msg.get("legal"):
                    continue
                prompt = (msg["hand_no"], msg["prompt"])
                if prompt == answered:
                    continue
                answered = prompt
                action = choose(msg["legal"], msg["view"])
                seq += 1
                own_turn = any(a["kind"] == "discard" for a in msg["legal"])
                if any(a["kind"] == "pass" for a in msg["legal"]):
                    self.claim_seqs.add(seq)
                if self.hold and own_turn:
                    self.hold = False
                    self.held = {**msg, "answer": action}
                    self.held_seq = seq
                    self.waiting.set()
                    await self.release.wait()
                body = {"type": "action", "seq": seq, "prompt": msg["prompt"], "action": action}
                await ws.send(json.dumps(body))
                self.answers += 1


def _audit(database_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server", "audit", "--database-url", database_url],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.postgres
@pytest.mark.redis
async def test_frozen_owner_is_fenced_and_answers_in_flight_survive(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {**ENV, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url}
    a = ServerProcess(env, tmp_path / "a.log")
    b = ServerProcess(env, tmp_path / "b.log")
    humans: list[Human] = []
    tasks: list[asyncio.Task[None]] = []
    store = Store(postgres_url)
    frozen = False
    try:
        a.wait_ready()
        b.wait_ready()
        codes = []
        for _ in range(3):
            room = await _post(a.http, "/api/rooms", {"game": "guiyang", "options": {"hands": 16}})
            code = room["code"]
            joined = await _post(b.http, f"/api/rooms/{code}/join", {"name": "ann"})
            assert joined["seat"] == 0
            human = Human(b.ws, code, joined["token"])
            humans.append(human)
            tasks.append(asyncio.create_task(human.run()))
            await _post(b.http, f"/api/rooms/{code}/bots", {"count": 3}, joined["token"])
            codes.append(code)
        async with httpx.AsyncClient(timeout=10) as client:
            assert (await client.get(f"{a.http}/api/health")).json()["rooms"] == 3

        # let the rooms play a little, then catch room 0's human at its own turn
        while sum(h.answers for h in humans) < 6:
            await asyncio.sleep(0.05)
        first = humans[0]
        first.hold = True
        await asyncio.wait_for(first.waiting.wait(), 120)
        assert first.held is not None
        hand_no = first.held["hand_no"]
        logged = await store.hand_actions(codes[0], hand_no)

        # hold the action log: the other rooms' next appends by A wait in PostgreSQL
        lock = await asyncpg.connect(_asyncpg_dsn(postgres_url))
        # A's generation for room 0 (``logged`` is empty when the held answer is the hand's
        # first action)
        old_gen = await lock.fetchval("SELECT lease_gen FROM rooms WHERE code = $1", codes[0])
        locked = lock.transaction()
        await locked.start()
        await lock.execute("LOCK TABLE actions IN EXCLUSIVE MODE")
        waiting = 0
        for _ in range(200):
            waiting = await lock.fetchval(WAITING)
            if waiting:
                break
            await asyncio.sleep(0.05)
        assert waiting

        os.kill(a.proc.pid, signal.SIGSTOP)  # A's loop is blocked from now on
        frozen = True
        first.release.set()  # its answer goes to B, which forwards it to the frozen owner
        # B takes the rooms over once their leases lapse (a room whose row the frozen A
        # holds locked in an open transaction waits for A: B must see whether it commits)
        async with httpx.AsyncClient(timeout=10) as client:
            deadline = time.monotonic() + 4 * LEASE
            while (await client.get(f"{b.http}/api/health")).json()["rooms"] < 3:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
        # what B rebuilt the rooms it fenced from: the committed log (A's appends waiting)
        taken: dict[str, tuple[int, int, int]] = {}
        for code in codes:
            hand = (await store.hands(code))[-1]
            logged_now = await store.hand_actions(code, hand.hand_no)
            gen = await lock.fetchval("SELECT lease_gen FROM rooms WHERE code = $1", code)
            if logged_now and gen > max(p["lease"] for _, p in logged_now):
                taken[code] = (hand.hand_no, len(logged_now), gen)
        assert taken, "B fenced no room while A was frozen"
        await locked.commit()  # A's appends in flight run now: refused, they are stale
        await lock.close()
        os.kill(a.proc.pid, signal.SIGCONT)
        frozen = False
        async with httpx.AsyncClient(timeout=10) as client:
            deadline = time.monotonic() + 30
            while (await client.get(f"{b.http}/api/health")).json()["rooms"] < 3:
                assert time.monotonic() < deadline, "B never took the rooms over"
                await asyncio.sleep(0.1)

        # the answer in flight is logged by the new owner, as the very next action
        deadline = time.monotonic() + 60
        while len(actions := await store.hand_actions(codes[0], hand_no)) <= len(logged):
            assert not [e for e in first.errors if e.get("seq") == first.held_seq], first.errors
            assert time.monotonic() < deadline, "the answer in flight was never logged"
            await asyncio.sleep(0.1)
        seat, payload = actions[len(logged)]
        assert (seat, payload["action"], payload["source"]) == (0, first.held["answer"], "player")
        assert all(p["lease"] == old_gen for _, p in logged), (old_gen, logged)
        assert payload["lease"] > old_gen, "logged by the new owner"
        assert not [e for e in first.errors if e.get("seq") == first.held_seq]
        # nor any answer at the seat's own turn (which only its answer ends): a rebuilt room
        # that numbered its prompts anew would refuse those
        stale = [e for e in first.errors if e["code"] == "stale_prompt"]
        assert not [e for e in stale if e.get("seq") not in first.claim_seqs], first.errors

        # the rooms play on at B; A has let go of all of them
        target = [h.answers + 5 for h in humans]
        deadline = time.monotonic() + 90
        while any(
            h.answers < t and not tk.done() for h, t, tk in zip(humans, target, tasks, strict=True)
        ):
            stuck = [(h.answers, h.last) for h in humans]
            assert time.monotonic() < deadline, ("the rooms did not play on", stuck)
            await asyncio.sleep(0.1)
        async with httpx.AsyncClient(timeout=10) as client:
            for _ in range(100):
                if (await client.get(f"{a.http}/api/health")).json()["rooms"] == 0:
                    break
                await asyncio.sleep(0.1)
            assert (await client.get(f"{a.http}/api/health")).json()["rooms"] == 0
            assert (await client.get(f"{b.http}/api/health")).json()["rooms"] == 3
        for h in humans:
            h.done.set()
        await asyncio.gather(*tasks)
        assert "lease lost" in a.log.read_text(errors="replace")

        # A's appends that were in flight were refused: everything logged after the point
        # B rebuilt from is B's (without fencing, A's would sit right there; a room B could
        # fence only after A thawed is covered by the generations check below)
        for code, (hand_no, count, gen) in taken.items():
            later = (await store.hand_actions(code, hand_no))[count:]
            assert [p["lease"] for _, p in later] == [gen] * len(later), code

        # no room was run by two processes at once: generations never go down in a log
        for code in codes:
            for hand in await store.hands(code):
                gens = [p["lease"] for _, p in await store.hand_actions(code, hand.hand_no)]
                assert gens == sorted(gens), (code, hand.hand_no, gens)
        _audit(postgres_url)
    finally:
        if frozen:
            os.kill(a.proc.pid, signal.SIGCONT)
        for h in humans:
            h.done.set()
        for task in tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        await store.close()
        a.stop()
        b.stop()
