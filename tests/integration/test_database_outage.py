"""PostgreSQL unreachable for 10 s mid-hand (issue 16): no command is lost, no room freezes.

Real server processes (``python -m server serve``) on the shared PostgreSQL through a TCP
proxy (``tests/tcp_proxy.py``) that the test cuts: every connection is reset and new ones
are refused for 10 s, as when PostgreSQL is stopped (the shared server itself is never
touched). A room of two scripted humans and two bots; the human whose turn it is answers
during the outage. Then, without anyone doing anything more, the hand finishes by itself,
its settlement is the one a replay of the logged seed and actions gives, each payment is in
the ledger once and ``python -m server audit`` is clean; both humans were told that the room
waited for its database (``degraded``) and that it is back (``recovered``).

(a) one process (no Redis); (b) two processes on PostgreSQL + Redis, the waiting human on
the process that does not own the room (its answer is forwarded), and the owner keeps the
room throughout (one lease generation in the whole log). Also: the cut lands on a bot's
turn (the issue's frozen room), and the owner loses its lease during the outage (fenced:
it stops writing, the room is taken over).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from processes import REPO, Player, ServerProcess
from sqlalchemy.engine import make_url
from tcp_proxy import TcpProxy

from server.rules.registry import find_game
from server.rules.replay import log_steps, replay
from server.store import Store

#: Game timers that never fire while the test plays (no test waits for a game timer).
ENV = {"CLAIM_MIN_MS": "0", "TURN_SECONDS": "300", "CLAIM_SECONDS": "300", "ADMIN_TOKEN": ""}
OUTAGE_SECONDS = 10.0


@dataclass
class Watcher(Player):
    """A scripted human that also records the type of every message it receives."""

    kinds: list[str] = field(default_factory=list)
    #: A short line per message received (type, hand, version, prompt, legal, error code).
    seen: list[str] = field(default_factory=list)
    task: asyncio.Task[dict[str, Any]] | None = None

    def _see(self, msg: dict[str, Any]) -> None:
        self.kinds.append(str(msg.get("type")))
        fields = ("hand_no", "version", "prev_version", "prompt", "code", "service")
        line = " ".join(f"{k}={msg[k]}" for k in fields if k in msg)
        legal = msg.get("legal")
        evs = ",".join(f"{e.get('type')}{e.get('seat', '')}" for e in msg.get("events") or [])
        self.seen.append(f"{msg.get('type')} {line} legal={len(legal or [])} [{evs}]")
        super()._see(msg)


async def _post(
    http: str, path: str, body: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=http, timeout=30) as client:
        r = await client.post(path, json=body, headers=headers)
        assert r.status_code in (200, 201), r.text
        return r.json()


async def _paused_room(owner: ServerProcess, other: ServerProcess) -> tuple[str, Watcher, Watcher]:
    """A room created on ``owner``: seat 0 joins and plays on ``other`` and pauses before
    its third answer (the room then waits for it), seat 1 on ``owner``, two bots. A new
    room if the hand ends before the pause (a bot won at once); returns the code and the
    two players, both playing."""
    for _attempt in range(5):
        created = await _post(owner.http, "/api/rooms", {"game": "guiyang", "options": {}})
        code = created["code"]
        j0 = await _post(other.http, f"/api/rooms/{code}/join", {"name": "ann"})
        j1 = await _post(owner.http, f"/api/rooms/{code}/join", {"name": "bob"})
        assert (j0["seat"], j1["seat"]) == (0, 1)
        p0 = Watcher(code, 0, j0["token"], other.ws, pause_at=2)
        p1 = Watcher(code, 1, j1["token"], owner.ws)
        await p0.connect()
        await p1.connect()
        await _post(owner.http, f"/api/rooms/{code}/bots", {"count": 2}, j1["token"])
        p0.task = asyncio.create_task(p0.play())
        p1.task = asyncio.create_task(p1.play())
        paused = asyncio.create_task(p0.paused.wait())
        await asyncio.wait([paused, p0.task], timeout=60, return_when="FIRST_COMPLETED")
        if paused.done():
            return code, p0, p1
        paused.cancel()
        p1.task.cancel()
        await p0.close()
        await p1.close()
    raise AssertionError("five hands in a row ended before seat 0 could pause")


async def _check_ledger(database_url: str, code: str, hand_end: dict[str, Any]) -> set[int]:
    """Hand 1 of ``code`` replays (seed + logged actions) to the settlement the players were
    sent and the database holds; its ledger rows are its payments, once; the deltas sum to
    zero. Returns the lease generations logged with its actions."""
    store = Store(database_url)
    try:
        room = await store.get_room(code)
        assert room is not None
        hand = (await store.hands(code))[0]
        actions = await store.hand_actions(code, 1)
        done = replay(
            find_game(room.game),
            room.options,
            log_steps(actions),
            seed=hand.seed,
            dealer=hand.dealer,
            dealer_streak=hand.dealer_streak,
            weekday=hand.weekday,
        )
        assert done.settlement is not None, "the logged actions do not end the hand"
        replayed = done.settlement.to_dict()
        assert hand.settlement == replayed
        assert hand_end["settlement"] == replayed
        assert hand.deltas == replayed["deltas"] and sum(hand.deltas) == 0
        expected = [
            {k: p.get(k) for k in ("from", "to", "points", "reason", "detail")}
            for p in replayed["payments"]
        ]
        assert await store.ledger_by_hand(code, 1) == expected  # nothing lost or doubled
        rows = await store.ledger(code=code, limit=10_000)
        assert len([r for r in rows if r["hand_no"] == 1]) == len(expected)
        return {payload.get("lease") for _, payload in actions}
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
    assert "0 problem(s)" in done.stdout, done.stdout


async def _outage_mid_hand(
    proxy: TcpProxy, owner: ServerProcess, other: ServerProcess
) -> tuple[str, dict[str, Any]]:
    """Cut PostgreSQL while the room waits for seat 0, let seat 0 answer during the
    outage, restore it after :data:`OUTAGE_SECONDS`; the hand must then finish by itself.
    Returns the code and seat 0's ``hand_end``."""
    code, p0, p1 = await _paused_room(owner, other)
    assert p0.task is not None and p1.task is not None
    plays = [p0.task, p1.task]
    proxy.cut()
    refused_before = proxy.refused
    p0.resume.set()  # its answer meets the outage
    await asyncio.sleep(OUTAGE_SECONDS)
    assert not any(t.done() for t in plays), "the hand ended without its database"
    assert proxy.refused > refused_before, "the server never tried the database"
    for p in (p0, p1):
        assert "degraded" in p.kinds, p.kinds
    proxy.restore()
    try:
        end0, end1 = await asyncio.wait_for(asyncio.gather(*plays), 60)
    except TimeoutError:
        tails = "\n".join(f"seat {p.seat}: " + " | ".join(p.seen[-12:]) for p in (p0, p1))
        raise AssertionError(f"the hand did not finish; last messages:\n{tails}") from None
    assert end0["settlement"] == end1["settlement"]
    for p in (p0, p1):  # told, in this order: waiting for the database, back
        last_degraded = len(p.kinds) - 1 - p.kinds[::-1].index("degraded")
        assert "recovered" in p.kinds[last_degraded:], p.kinds
        await p.close()
    return code, end0


def _start_proxy(postgres_url: str) -> tuple[TcpProxy, str]:
    parsed = make_url(postgres_url)
    proxy = TcpProxy((parsed.host or "127.0.0.1", parsed.port or 5432)).start()
    url = parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    return proxy, url


@pytest.mark.postgres
async def test_database_outage_one_process(postgres_url: str, tmp_path: Path) -> None:
    proxy, via_proxy = _start_proxy(postgres_url)
    server = ServerProcess({**ENV, "DATABASE_URL": via_proxy, "REDIS_URL": ""}, tmp_path / "a.log")
    try:
        server.wait_ready()
        code, end = await _outage_mid_hand(proxy, server, server)
        server.output()  # (flushes)
        log = server.log.read_text(errors="replace")
        assert "database unavailable" in log and "database back after" in log, log
        assert await _check_ledger(postgres_url, code, end) == {None}
        _audit(postgres_url)
    finally:
        server.stop()
        proxy.close()


@pytest.mark.postgres
@pytest.mark.redis
async def test_database_outage_two_processes(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    proxy, via_proxy = _start_proxy(postgres_url)
    env = {**ENV, "DATABASE_URL": via_proxy, "REDIS_URL": redis_url, "LEASE_SECONDS": "2"}
    a = ServerProcess(env, tmp_path / "a.log")
    b = ServerProcess(env, tmp_path / "b.log")
    try:
        a.wait_ready()
        b.wait_ready()
        code, end = await _outage_mid_hand(proxy, a, b)
        a.output()  # (flushes)
        log = a.log.read_text(errors="replace")
        assert "database unavailable" in log and "database back after" in log, log
        async with httpx.AsyncClient(timeout=10) as client:
            assert (await client.get(f"{a.http}/api/health")).json()["rooms"] >= 1
            assert (await client.get(f"{b.http}/api/health")).json()["rooms"] == 0
        leases = await _check_ledger(postgres_url, code, end)
        assert len(leases) == 1 and None not in leases, leases  # one tenure: no takeover
        _audit(postgres_url)
    finally:
        a.stop()
        b.stop()
        proxy.close()


@pytest.mark.postgres
@pytest.mark.redis
async def test_owner_that_loses_its_lease_during_the_outage_stops_writing(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    """Fencing through an outage: while PostgreSQL is cut, the owner's lease vanishes (its
    key deleted, as when it lapses); the owner stops the room (its waiting write is given
    up), the room is taken over once the database is back (by either process, under a new
    lease generation), and the hand still finishes with the ledger exact: in the log no
    action of the old generation follows one of the new."""
    import redis.asyncio as aioredis

    proxy, via_proxy = _start_proxy(postgres_url)
    env = {**ENV, "DATABASE_URL": via_proxy, "REDIS_URL": redis_url, "LEASE_SECONDS": "2"}
    a = ServerProcess(env, tmp_path / "a.log")
    b = ServerProcess(env, tmp_path / "b.log")
    client = aioredis.from_url(redis_url)
    try:
        a.wait_ready()
        b.wait_ready()
        code, p0, p1 = await _paused_room(a, b)
        assert p0.task is not None and p1.task is not None
        proxy.cut()
        p0.resume.set()  # forwarded to the owner, which waits for the database
        await asyncio.sleep(1.0)
        assert await client.delete(f"zhuoji:lease:{code}") == 1
        for _ in range(100):  # the owner's next renewal finds the lease gone
            if "lease lost" in a.log.read_text(errors="replace"):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the owner never noticed it lost the lease")
        await asyncio.sleep(OUTAGE_SECONDS - 3)
        assert not p0.task.done() and not p1.task.done()
        proxy.restore()
        end0, end1 = await asyncio.wait_for(asyncio.gather(p0.task, p1.task), 60)
        assert end0["settlement"] == end1["settlement"]
        await p0.close()
        await p1.close()
        store = Store(postgres_url)
        try:
            actions = await store.hand_actions(code, 1)
        finally:
            await store.close()
        generations = [payload["lease"] for _, payload in actions]
        assert generations == sorted(generations), generations  # fenced: never interleaved
        assert len(set(generations)) >= 2, generations  # the room was taken over
        await _check_ledger(postgres_url, code, end0)
        _audit(postgres_url)
    finally:
        await client.aclose()
        a.stop()
        b.stop()
        proxy.close()


async def _until_ready(http: str, timeout: float = 30.0) -> None:
    """Until ``/readyz`` answers 200: after a cut, the server's first statements meet the
    pool's broken connections (503 ``unavailable``) before it has new ones."""
    deadline = asyncio.get_running_loop().time() + timeout
    async with httpx.AsyncClient(base_url=http, timeout=5) as client:
        while (await client.get("/readyz")).status_code != 200:
            assert asyncio.get_running_loop().time() < deadline, "the server did not recover"
            await asyncio.sleep(0.1)


async def _bots_turn_room(
    server: ServerProcess, store: Store, proxy: TcpProxy
) -> tuple[str, Watcher, int]:
    """A room of one human (seat 0, paused before its third answer) and three bots; seat 0
    then answers and PostgreSQL is cut as soon as that answer is logged, in the claim window
    it opens (so the cut lands before the bots' next move). Returns the code, the player and
    how many actions were logged at the cut. A new room if the hand ended before the pause
    or at that discard (a bot won at once), or if that answer was not a discard (a pass on
    seat 3's discard is followed by seat 0's own draw and discard, not by a bot's move)."""
    for _attempt in range(5):
        created = await _post(server.http, "/api/rooms", {"game": "guiyang", "options": {}})
        code = created["code"]
        joined = await _post(server.http, f"/api/rooms/{code}/join", {"name": "ann"})
        p0 = Watcher(code, 0, joined["token"], server.ws, pause_at=2)
        await p0.connect()
        await _post(server.http, f"/api/rooms/{code}/bots", {"count": 3}, joined["token"])
        p0.task = asyncio.create_task(p0.play())
        paused = asyncio.create_task(p0.paused.wait())
        await asyncio.wait([paused, p0.task], timeout=60, return_when="FIRST_COMPLETED")
        if paused.done():
            logged = len(await store.hand_actions(code, 1))
            p0.resume.set()  # seat 0 discards: the bots' turns follow, each after a window
            for _ in range(500):
                if len(await store.hand_actions(code, 1)) > logged:
                    break
                await asyncio.sleep(0.005)
            proxy.cut()
            actions = await store.hand_actions(code, 1)
            answer = actions[logged] if len(actions) > logged else (0, {"action": {}})
            if (await store.hands(code))[0].settlement is None and answer[1]["action"].get(
                "kind"
            ) == "discard":
                return code, p0, len(actions)
            proxy.restore()
            await _until_ready(server.http)  # the cut left the server's pool to heal first
        paused.cancel()
        p0.task.cancel()
        await p0.close()
    raise AssertionError("five hands in a row ended too early")


@pytest.mark.postgres
async def test_database_outage_on_a_bots_turn(postgres_url: str, tmp_path: Path) -> None:
    """The issue's case: the database goes while the bots are playing (one human, three
    bots; every claim window held 150 ms, so the cut lands between two bot moves). The bot
    whose move meets the outage plays it once the database is back; the hand finishes."""
    proxy, via_proxy = _start_proxy(postgres_url)
    env = {**ENV, "CLAIM_MIN_MS": "150", "DATABASE_URL": via_proxy, "REDIS_URL": ""}
    server = ServerProcess(env, tmp_path / "a.log")
    store = Store(postgres_url)  # the test's own view of the database, past the proxy
    try:
        server.wait_ready()
        code, p0, before = await _bots_turn_room(server, store, proxy)
        assert p0.task is not None
        await asyncio.sleep(OUTAGE_SECONDS)
        assert not p0.task.done()
        assert len(await store.hand_actions(code, 1)) == before  # nothing written meanwhile
        assert "degraded" in p0.kinds
        proxy.restore()
        end = await asyncio.wait_for(p0.task, 60)
        await p0.close()
        actions = await store.hand_actions(code, 1)
        assert actions[before][0] != 0 and actions[before][1]["source"] == "bot"
        assert await _check_ledger(postgres_url, code, end) == {None}
        _audit(postgres_url)
    finally:
        await store.close()
        server.stop()
        proxy.close()
