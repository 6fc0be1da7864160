"""Real server processes: stopping one (SIGTERM) is bounded and its rooms move at once.

Two processes on PostgreSQL and Redis: ``B`` stays up, ``A`` is started for each trial and
owns two busy rooms (a human test client and three bots, playing at full speed; one
human's socket is on ``B``, the other's on ``A``, which reconnects to ``B`` when ``A``
closes it). ``A`` gets SIGTERM; each trial checks that

* ``A`` exits cleanly (by the signal uvicorn re-raises when its shutdown is done, not by
  the watchdog) within 5 s of the signal;
* when it has exited no lease of its rooms is still its own (they were released, not left
  to lapse: the lease time is 15 s here, so a lapse would take far longer than allowed);
* both rooms continue on ``B`` at once: within 2 s of the exit ``B`` holds their leases and
  each human has been sent a newer message than the last one before the signal.

Ten trials under ``--slow``, two by default.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from processes import Player, ServerProcess
from test_processes import ENV, _join, _post

#: The lease time: a lapse-based takeover would need this much, a released lease none.
LEASE_SECONDS = 15.0
#: How long a stopping process may take, and how soon its rooms must run elsewhere.
EXIT_WITHIN = 5.0
CONTINUE_WITHIN = 2.0


def _version(msg: dict[str, Any] | None) -> tuple[int, int]:
    return (-1, -1) if msg is None else (msg["hand_no"], msg["version"])


async def _busy_room(owner: ServerProcess, socket_on: ServerProcess, name: str) -> Player:
    """A room created on ``owner`` (which then holds its lease) with a human whose socket is
    on ``socket_on`` and three bots; returns the human, already playing."""
    code = (await _post(owner.http, "/api/rooms", {"game": "guiyang", "options": {"hands": 16}}))[
        "code"
    ]
    seat, token = await _join(owner.http, code, name)
    player = Player(code, seat, token, socket_on.ws)
    await player.connect()
    await _post(owner.http, f"/api/rooms/{code}/bots", {"count": 3}, token)
    return player


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
async def test_sigterm_with_busy_rooms_exits_within_5s_and_rooms_continue_at_once(
    postgres_url: str, redis_url: str, tmp_path: Path, full_size: bool
) -> None:
    trials = 10 if full_size else 2
    env = {**ENV, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url}
    env["LEASE_SECONDS"] = str(LEASE_SECONDS)
    for limit in ("ROOMS", "SOCKETS", "JOINS", "LOOKUPS"):  # one address makes all the rooms
        env[f"{limit}_PER_MINUTE"] = "100000"
    redis = aioredis.from_url(redis_url, decode_responses=True)
    b = ServerProcess(env, tmp_path / "b.log")
    a: ServerProcess | None = None
    tasks: list[asyncio.Task[None]] = []
    players: list[Player] = []
    try:
        b.wait_ready()
        b_id = f"{socket.gethostname()}:{b.proc.pid}:"
        exits: list[float] = []
        for trial in range(trials):
            a = ServerProcess(env, tmp_path / f"a{trial}.log")
            a.wait_ready()
            a_id = f"{socket.gethostname()}:{a.proc.pid}:"
            players = [await _busy_room(a, b, "ann"), await _busy_room(a, a, "bob")]
            codes = [p.code for p in players]
            for code in codes:
                assert str(await redis.get(f"zhuoji:lease:{code}")).startswith(a_id)
            tasks = [asyncio.create_task(p.play_on()) for p in players]
            # busy: both rooms are playing (each human has answered a few prompts)
            deadline = time.monotonic() + 60
            while any(p.actions < 3 for p in players):
                assert time.monotonic() < deadline, "the rooms did not get going"
                assert not any(t.done() for t in tasks), [t.result() for t in tasks if t.done()]
                await asyncio.sleep(0.05)
            players[1].ws_url = b.ws  # bob's socket, closed by A, reconnects to B
            before = [_version(p.last) for p in players]

            signalled = time.monotonic()
            a.proc.terminate()
            code = await asyncio.to_thread(a.proc.wait, 30)
            exited = time.monotonic() - signalled
            exits.append(exited)
            # uvicorn re-raises the signal once its shutdown is done (the watchdog: code 1)
            assert code == -signal.SIGTERM, a.output()
            assert exited < EXIT_WITHIN, (trial, exited, a.output())
            for room in codes:
                owner = await redis.get(f"zhuoji:lease:{room}")
                assert owner is None or not owner.startswith(a_id), (trial, room, owner)

            deadline = time.monotonic() + CONTINUE_WITHIN
            while True:
                owners = [await redis.get(f"zhuoji:lease:{room}") for room in codes]
                moved = all(o is not None and o.startswith(b_id) for o in owners)
                news = [_version(p.last) > v for p, v in zip(players, before, strict=True)]
                if moved and all(news):
                    break
                assert time.monotonic() < deadline, (trial, owners, before, b.output())
                assert not any(t.done() for t in tasks), [t.result() for t in tasks if t.done()]
                await asyncio.sleep(0.02)

            for task in tasks:
                task.cancel()
            for p in players:
                await p.close()
            a.stop()
            a = None
        assert len(exits) == trials and max(exits) < EXIT_WITHIN
    finally:
        for task in tasks:
            task.cancel()
        for p in players:
            with contextlib.suppress(Exception):
                await p.close()
        if a is not None:
            a.kill()
        b.stop()
        await redis.aclose()
