"""Load benchmark: R rooms of 4 WebSocket players against the server and a bare broadcast.

    python bench/load.py [--rooms R] [--seconds 10] [--mode closed|paced|both]
                         [--config sqlite|pg|both] [--repeat 3]

(default: both modes, both configurations, 20 rooms closed-loop and 100 rooms paced)

For each repeat, mode and configuration it starts, on a free loopback port,

* the reference: ``bench/baseline_app.py``, a bare FastAPI + uvicorn broadcast (a room of 4
  sockets; each frame in goes out to the 4), played by the same load client with a
  ~1 KB frame per "action";
* the server, ``python -m server serve``, on a throw-away SQLite file (``sqlite``) or on a
  private PostgreSQL database created on 127.0.0.1:5432 and dropped afterwards, with Redis
  (``pg``: ``REDIS_URL``, default ``redis://127.0.0.1:6379/5``, which is flushed);

and plays ``--rooms`` rooms from this process (the load client: asyncio + ``websockets``;
the server is a separate process). Each room: ``POST /api/rooms``, four ``join`` calls, one
socket per seat; each socket answers each prompt once with one of the legal actions the
protocol sends with it (win or self-draw when legal, else a seeded random choice), sends
``ready`` after each hand, and the room starts a new session when one ends.

* ``closed``: zero think time (``CLAIM_MIN_MS=0``): an answer goes out as soon as its prompt
  arrives. The client never sends more than the protocol's per-socket rate limit allows
  (token bucket, 18/s, burst 30); ``throttled`` counts the sends it delayed.
* ``paced``: one action per room per second, each room on its own grid of seconds from a
  random offset (`PacedSlots`), with the server's default claim protection
  (``CLAIM_MIN_MS`` unset).

Measured over ``--seconds`` once every room is seated and connected and has played
``--warm-up`` seconds more (`WARM_UP_SECONDS` by default; the client's heap is frozen
out of its collector first, as the server's; ``--profile DIR`` samples the server with
py-spy over the window; ``--latencies DIR`` writes every latency of the window, with its
send time, as CSV, and each second's actions, ended hands and server CPU per action):

* ``frames/cpu-s``: WebSocket frames (both directions) per second of the server process's
  CPU (user + system, from psutil), and as % of the baseline of the same repeat and mode;
* ``cpu ms/act``: server CPU per action sent (baseline: per frame sent in);
* ``p50`` / ``p99``: from the send of an action to the moment all four sockets of the room
  received the change it caused (a message with a higher ``(hand_no, version)`` than the
  last one the sending socket had; for the baseline, the frame itself). A claim answer
  the room holds (the window waits for other seats' answers or its minimum time, spec §3)
  changes nothing yet: it is timed to its seat's acknowledgement (a snapshot of the same
  version with nothing left to answer), the wait the rules impose left out; ``held_answers``
  (stderr, JSON) counts them;
* ``errors``: HTTP errors, ``error`` messages, unexpected disconnects, client exceptions,
  and ``timeouts`` (a seat put on auto-play because its answer came too late), from the
  first room's setup to the window's end;
* ``srv exc``: tracebacks in the server's log over the whole run (the last exception of
  each chain; the kinds are printed under the table), and leases it found lost
  (``lease_lost``, PostgreSQL + Redis);
* ``gc runs`` / ``gc max ms``: the server's garbage collector runs in the window and the
  bucket bound of the longest pause (its ``zhuoji_gc_pause_seconds``, read from
  ``/metrics`` before and after): each run stops every room at once;
* ``rss/sock``: (server RSS at the end - RSS before the first room) / sockets;
* ``client cpu %``: the load client's own CPU (% of one core): near 100 it is the limit.

Each printed table gives the median over ``--repeat`` runs. The load client is one Python
process: on a 2-core machine it takes about one core, so at high load it, not the server,
may be what limits throughput and latency (the ratios per CPU-second are not affected).
1,000 rooms need about 4,000 file descriptors per side (``ulimit -n``; this script raises
its soft limit to the hard limit) and a long setup (``--setup-seconds``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
import websockets
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from server.__main__ import GC_THRESHOLDS  # noqa: E402

BENCH = Path(__file__).resolve().parent
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
PG_HOST = "postgres@127.0.0.1:5432"
DEFAULT_REDIS = "redis://127.0.0.1:6379/5"
#: Play between the setup and the measured window.
WARM_UP_SECONDS = 5.0
#: The server's ``METRICS_TOKEN`` for this run (its ``/metrics`` is off without one).
METRICS_TOKEN = "bench-scraper"
#: Client-side token bucket, under the server's per-socket limit (burst 40, 20/s).
BUCKET = (30.0, 18.0)
PAD = "x" * 1000  # baseline frame body: about one game message's size


# ---------------------------------------------------------------------------- measuring


@dataclass
class Stats:
    """Counters of one run; copied at the window's start and end."""

    frames_in: int = 0  # server -> client frames received
    frames_out: int = 0  # client -> server frames sent
    actions: int = 0
    throttled: int = 0
    hands: int = 0
    held: int = 0  # claim answers done at their acknowledgement (`RoomBase.observe`)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent at, seconds)
    errors: Counter[str] = field(default_factory=Counter)

    def counts(self) -> dict[str, int]:
        return {
            "frames": self.frames_in + self.frames_out,
            "actions": self.actions,
            "throttled": self.throttled,
            "hands": self.hands,
            "held": self.held,
            "errors": sum(self.errors.values()),
        }


class Bucket:
    """The client's own rate limit per socket, so it never trips the server's."""

    def __init__(self, stats: Stats) -> None:
        self.tokens, self.last = BUCKET[0], time.monotonic()
        self.stats = stats

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(BUCKET[0], self.tokens + (now - self.last) * BUCKET[1])
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            self.stats.throttled += 1
            await asyncio.sleep((1 - self.tokens) / BUCKET[1])


class Pending:
    """An action of seat ``seat`` of a room, waiting until all four sockets saw a later
    change (or, a claim answer the room holds, until its seat's acknowledgement)."""

    def __init__(self, key: tuple[int, int], t: float, seat: int) -> None:
        self.key, self.t, self.seat, self.got = key, t, seat, set[int]()


class Load:
    """Shared state of one run's load client."""

    def __init__(self, args: argparse.Namespace, mode: str, target: Target) -> None:
        self.args, self.mode, self.target = args, mode, target
        self.stats = Stats()
        self.stopping = asyncio.Event()
        self.rng = random.Random(args.seed)
        self.ready = 0  # rooms seated and connected
        self.all_ready = asyncio.Event()
        self.http = httpx.AsyncClient(
            base_url=target.base_url,
            timeout=60,
            limits=httpx.Limits(max_connections=args.setup_concurrency * 2),
        )
        self.setup = asyncio.Semaphore(args.setup_concurrency)

    def room_ready(self) -> None:
        self.ready += 1
        if self.ready >= self.args.rooms:
            self.all_ready.set()


class PacedSlots:
    """One action per room per second, on the room's own grid (``first`` + k seconds, its
    offset drawn at random): an answer waits for the room's next slot, or goes at once when
    its prompt came after that slot, and the slot after it is the grid's next one. The
    rooms' phases stay spread over the second. (Counting the next slot from a late answer
    let every room that a slow moment of the server held back restart its second at the
    same instant: the rooms fell into step, a third of each second without actions and
    twice the mean rate in the rest, a load no set of players makes.)"""

    def __init__(self, first: float) -> None:
        self.next = first

    def reserve(self, now: float) -> float:
        """Seconds to wait before answering at clock time ``now``."""
        if self.next >= now:
            delay, self.next = self.next - now, self.next + 1.0
            return delay
        self.next += math.floor(now - self.next) + 1.0  # the grid's first slot after now
        return 0.0


class RoomBase:
    def __init__(self, load: Load, idx: int) -> None:
        self.load, self.idx = load, idx
        self.stats = load.stats
        self.pending: list[Pending] = []
        self.loop = asyncio.get_running_loop()
        self.slots = PacedSlots(self.loop.time() + load.rng.random())
        self.counted_ready = False

    def sent(self, key: tuple[int, int], seat: int = 0) -> None:
        """An action went out from socket ``seat``, whose last message had ``key``."""
        self.pending.append(Pending(key, time.perf_counter(), seat))

    def observe(self, seat: int, key: tuple[int, int], ack: bool = False) -> None:
        """Socket ``seat`` received a message of ``key``: the actions sent before it are
        done once all four sockets got such a message. ``ack``: the message is a snapshot
        with nothing left to answer: for an action of ``seat`` at that same ``key`` (a
        claim answer while the window waits for other seats or its minimum time, which
        the rules hold: spec §3, ``claim_min_ms``) the room's answer, so it is done."""
        if not self.pending:
            return
        for p in list(self.pending):
            if key > p.key:
                p.got.add(seat)
                done = len(p.got) == 4
            else:
                done = ack and seat == p.seat and key == p.key
                self.stats.held += done
            if done:
                self.stats.latencies.append((p.t, time.perf_counter() - p.t))
                self.pending.remove(p)

    async def run(self) -> None:
        while not self.load.stopping.is_set():
            try:
                await self.session()
            except (OSError, httpx.HTTPError, websockets.WebSocketException, TimeoutError) as err:
                if self.load.stopping.is_set():
                    return
                self.stats.errors[f"client_{type(err).__name__}"] += 1
                await asyncio.sleep(1)

    async def session(self) -> None:
        raise NotImplementedError

    def mark_ready(self) -> None:
        if not self.counted_ready:
            self.counted_ready = True
            self.load.room_ready()

    async def stop_or(self, aw: Any) -> None:
        """Wait for ``aw`` or for the run's end, whichever comes first."""
        stop = asyncio.ensure_future(self.load.stopping.wait())
        task = asyncio.ensure_future(aw)
        await asyncio.wait({stop, task}, return_when=asyncio.FIRST_COMPLETED)
        for t in (stop, task):
            if not t.done():
                t.cancel()
        with contextlib.suppress(BaseException):
            await task


class SeatState:
    def __init__(self, stats: Stats) -> None:
        self.key = (0, -1)
        self.hand_no = 0
        self.prompt = -1
        self.legal: list[dict[str, Any]] = []
        self.answered: tuple[int, int] | None = None
        self.want_ready = False
        self.auto = False
        self.wake = asyncio.Event()
        self.bucket = Bucket(stats)

    def owes(self) -> bool:
        return bool(self.legal) and self.answered != (self.hand_no, self.prompt)


class GameRoom(RoomBase):
    """One room of the real server: four human seats over REST + WebSocket."""

    async def session(self) -> None:
        load, stats = self.load, self.stats
        async with load.setup:
            r = await load.http.post("/api/rooms", json={"options": {"hands": 16}})
            if r.status_code != 201:
                stats.errors[f"http_{r.status_code}_create"] += 1
                await asyncio.sleep(1)
                return
            code = r.json()["code"]
            tokens = []
            for i in range(4):
                r = await load.http.post(f"/api/rooms/{code}/join", json={"name": f"p{i}"})
                if r.status_code != 200:
                    stats.errors[f"http_{r.status_code}_join"] += 1
                    await asyncio.sleep(1)
                    return
                tokens.append(r.json()["token"])
            sockets = []
            try:
                for t in tokens:
                    sockets.append(
                        await websockets.connect(
                            f"{load.target.ws_url}/ws/rooms/{code}?token={t}",
                            max_size=2**22,
                            open_timeout=60,
                        )
                    )
            except BaseException:
                for ws in sockets:
                    await ws.close()
                raise
        self.seats = [SeatState(stats) for _ in range(4)]
        self.over = asyncio.Event()
        tasks = [asyncio.create_task(self.reader(i, ws)) for i, ws in enumerate(sockets)]
        tasks += [asyncio.create_task(self.answerer(i, ws)) for i, ws in enumerate(sockets)]
        self.mark_ready()
        try:
            await self.stop_or(self.over.wait())
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        self.pending = []

    async def reader(self, i: int, ws: Any) -> None:
        seat, stats = self.seats[i], self.stats
        try:
            async for raw in ws:
                stats.frames_in += 1
                msg = orjson.loads(raw)
                typ = msg.get("type")
                if typ in ("snapshot", "event", "hand_end"):
                    key = (msg["hand_no"], msg["version"])
                    if key > seat.key:
                        seat.key = key
                    self.observe(i, key, typ == "snapshot" and not msg["legal"])
                if typ in ("snapshot", "event"):
                    seat.hand_no, seat.prompt = msg["hand_no"], msg["prompt"]
                    seat.legal = msg["legal"]
                    if seat.owes():
                        seat.wake.set()
                elif typ == "hand_end":
                    seat.legal = []
                    # After the session's last hand (next_hand null) the room is finished.
                    seat.want_ready = msg.get("next_hand") is not None
                    seat.wake.set()
                    if i == 0:
                        stats.hands += 1
                elif typ == "auto":
                    on = i in msg["auto"]
                    if on and not seat.auto:
                        stats.errors["timeouts"] += 1
                    seat.auto = on
                elif typ == "session_end":
                    self.over.set()
                elif typ == "error":
                    stats.errors[error_kind(msg)] += 1
        except websockets.ConnectionClosed as err:
            if not self.load.stopping.is_set():
                rcvd = err.rcvd.code if err.rcvd is not None else "none"
                stats.errors[f"disconnect_{rcvd}"] += 1
        if not self.load.stopping.is_set():
            self.over.set()

    async def answerer(self, i: int, ws: Any) -> None:
        seat, stats, load = self.seats[i], self.stats, self.load
        rng = random.Random(f"{load.args.seed}-{self.idx}-{i}")
        while True:
            await seat.wake.wait()
            seat.wake.clear()
            if seat.want_ready:
                seat.want_ready = False
                await seat.bucket.take()
                await ws.send('{"type":"ready"}')
                stats.frames_out += 1
            if not seat.owes():
                continue
            if load.mode == "paced":
                await asyncio.sleep(self.slots.reserve(self.loop.time()))
                if not seat.owes():
                    continue
            await seat.bucket.take()
            if not seat.owes():
                continue
            action = pick(seat.legal, rng)
            seat.answered = (seat.hand_no, seat.prompt)
            text = json.dumps({"type": "action", "prompt": seat.prompt, "action": action})
            self.sent(seat.key, i)
            await ws.send(text)
            stats.frames_out += 1
            stats.actions += 1


def error_kind(msg: dict[str, Any]) -> str:
    """An ``error`` message's code; a ``stale_prompt`` also says which of its two cases it
    is: ``:over`` (the answer reached the room after its prompt had closed: the race of an
    answer crossing the message that closed it) or ``:answered`` (the room had taken an
    answer of this seat to that prompt already)."""
    code = str(msg.get("code", "error"))
    if code == "stale_prompt":
        text = str(msg.get("message", ""))
        return f"{code}:{'over' if 'is over' in text else 'answered'}"
    return code


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Win when possible, else one legal action at random (sent exactly as received)."""
    for a in legal:
        if a["kind"] in ("win", "self_draw"):
            choice = a
            break
    else:
        choice = rng.choice(legal)
    return {k: v for k, v in choice.items() if v is not None}


class BaselineRoom(RoomBase):
    """One room of the broadcast baseline: the seats take turns sending a frame; the next
    goes out once all four received the previous one (closed) or a second later (paced)."""

    async def session(self) -> None:
        load, stats = self.load, self.stats
        room = f"r{self.idx}-{uuid.uuid4().hex[:6]}"
        async with load.setup:
            sockets = [
                await websockets.connect(f"{load.target.ws_url}/ws/{room}", open_timeout=60)
                for _ in range(4)
            ]
        self.n = 0
        self.done = asyncio.Event()
        readers = [asyncio.create_task(self.reader(i, ws)) for i, ws in enumerate(sockets)]
        buckets = [Bucket(stats) for _ in range(4)]
        self.mark_ready()
        try:
            while not load.stopping.is_set():
                self.n += 1
                sender = self.n % 4
                if load.mode == "paced":
                    await asyncio.sleep(self.slots.reserve(self.loop.time()))
                await buckets[sender].take()
                self.done.clear()
                self.sent((0, self.n - 1))
                await sockets[sender].send(json.dumps({"n": self.n, "pad": PAD}))
                stats.frames_out += 1
                stats.actions += 1
                try:
                    await asyncio.wait_for(self.done.wait(), 30)
                except TimeoutError:
                    stats.errors["lost"] += 1
                    self.pending = []
                if any(t.done() for t in readers):
                    break
        finally:
            for t in readers:
                t.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)

    async def reader(self, i: int, ws: Any) -> None:
        try:
            async for raw in ws:
                self.stats.frames_in += 1
                n = orjson.loads(raw)["n"]
                self.observe(i, (0, n))
                if not self.pending:
                    self.done.set()
        except websockets.ConnectionClosed:
            if not self.load.stopping.is_set():
                self.stats.errors["disconnect"] += 1


# ---------------------------------------------------------------------------- processes


@dataclass
class Target:
    name: str
    port: int
    proc: subprocess.Popen[bytes]
    health: str
    cleanup: list[Any] = field(default_factory=list)
    log: Path | None = None  # the process's stderr

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(target: Target, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if target.proc.poll() is not None:
            raise RuntimeError(f"{target.name} exited with {target.proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(target.base_url + target.health, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{target.name} did not come up in {timeout} s")


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["METRICS_TOKEN"] = METRICS_TOKEN
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def start_baseline() -> Target:
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "--app-dir", str(BENCH), "baseline_app:app"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    cmd += ["--ws-per-message-deflate", "false"]  # like the server (WS_DEFLATE off)
    proc = subprocess.Popen(cmd, env=clean_env(), cwd=BENCH)
    target = Target("baseline", port, proc, "/health")
    wait_healthy(target)
    return target


def pg_create() -> tuple[str, str]:
    name = f"h9bench_{uuid.uuid4().hex[:10]}"
    psql(f"CREATE DATABASE {name}")
    return name, f"postgresql+asyncpg://{PG_HOST}/{name}"


def psql(sql: str) -> None:
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(PG_ADMIN_URL)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


def redis_flush(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()


def start_server(config: str, mode: str, args: argparse.Namespace) -> Target:
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="h9bench-"))
    env = clean_env()
    # Every simulated player comes from 127.0.0.1: the per-address limits and caps, meant
    # for one person's browser, are lifted (the per-connection budget is kept by the client).
    for name in (
        "ROOMS_PER_MINUTE",
        "JOINS_PER_MINUTE",
        "LOOKUPS_PER_MINUTE",
        "SOCKETS_PER_MINUTE",
        "SOCKETS_PER_ADDRESS",
        "MESSAGE_BURST",
    ):
        env[name] = "100000000"
    env["MESSAGES_PER_SECOND"] = "100000000"
    if mode == "closed":
        env["CLAIM_MIN_MS"] = "0"  # claim protection off: zero think time all the way
        env["CLAIM_HOLD"] = "min"
    else:
        env.pop("CLAIM_MIN_MS", None)
        env.pop("CLAIM_HOLD", None)
    cleanup: list[Any] = [lambda: shutil.rmtree(workdir, ignore_errors=True)]
    if config == "sqlite":
        env["DATABASE_URL"] = f"sqlite+aiosqlite:///{workdir / 'bench.db'}"
    else:
        name, url = pg_create()
        env["DATABASE_URL"] = url
        env["REDIS_URL"] = args.redis_url
        redis_flush(args.redis_url)
        cleanup.append(lambda: psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        cleanup.append(lambda: redis_flush(args.redis_url))
    cmd = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--log-level", "warning"]
    log = workdir / "server.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(cmd, env=env, cwd=workdir, stderr=err)
    target = Target(config, port, proc, "/api/health", cleanup, log)
    try:
        wait_healthy(target)
    except BaseException:
        stop(target)
        raise
    return target


def stop(target: Target, keep_logs: Path | None = None) -> Counter[str]:
    """Stop the process, clean up; returns the exceptions its log shows, by type."""
    if target.proc.poll() is None:
        target.proc.send_signal(signal.SIGTERM)
        try:
            target.proc.wait(30)
        except subprocess.TimeoutExpired:
            target.proc.kill()
            target.proc.wait()
    found = logged_exceptions(target.log) if target.log else Counter()
    if target.log and keep_logs is not None:
        keep_logs.mkdir(parents=True, exist_ok=True)
        shutil.copy(target.log, keep_logs / f"{target.name}-{target.port}.log")
    for fn in reversed(target.cleanup):
        with contextlib.suppress(Exception):
            fn()
    return found


def logged_exceptions(log: Path) -> Counter[str]:
    """``{exception type: count}`` of the tracebacks in a log: the last exception of each
    chain ("The above exception was the direct cause of ..." counts once); and
    ``lease_lost``: the rooms whose lease this process found lost (`server.room.cluster`)."""
    found: Counter[str] = Counter()
    last: str | None = None  # the exception that ended the previous traceback
    inside = False
    for line in log.read_text(errors="replace").splitlines():
        if ": lease lost" in line:
            found["lease_lost"] += 1
        elif line.startswith("Traceback (most recent call last)"):
            inside = True
        elif line.startswith(("The above exception", "During handling")):
            if last is not None:  # chained: only the chain's last exception counts
                found[last] -= 1
                last = None
        elif inside and line and not line[0].isspace():
            last = line.split(":", 1)[0].rsplit(".", 1)[-1]
            found[last] += 1
            inside = False
    return +found


def cpu_seconds(p: psutil.Process) -> float:
    t = p.cpu_times()
    return float(t.user + t.system)


# ---------------------------------------------------------------------------- one run


async def gc_pauses(load: Load, target: Target) -> dict[float, float] | None:
    """The server's ``zhuoji_gc_pause_seconds`` summed over generations, from its
    ``/metrics``: ``{bucket bound (inf: the count): cumulative count, -1.0: sum}``;
    None for the baseline (it has none)."""
    if target.name == "baseline":
        return None
    scraper = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    text = (await load.http.get("/metrics", headers=scraper)).text
    out: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name != "zhuoji_gc_pause_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                bound = float(sample.labels["le"])
                out[bound] = out.get(bound, 0.0) + sample.value
            elif sample.name.endswith("_sum"):
                out[-1.0] = out.get(-1.0, 0.0) + sample.value
    return out


def gc_window(
    before: dict[float, float] | None, after: dict[float, float] | None
) -> dict[str, float]:
    """The collector's runs in the window: how many, their total and the bound of the
    histogram bucket of the longest (ms)."""
    if before is None or after is None:
        return {"gc_runs": float("nan"), "gc_ms": float("nan"), "gc_max_ms": float("nan")}
    delta = {k: after[k] - before.get(k, 0.0) for k in after}
    runs = delta.get(float("inf"), 0.0)
    longest = min((b for b, n in delta.items() if b > 0 and n == runs), default=float("nan"))
    return {
        "gc_runs": runs,
        "gc_ms": 1000 * delta.get(-1.0, 0.0),
        "gc_max_ms": 1000 * longest if runs else 0.0,
    }


async def play(args: argparse.Namespace, mode: str, target: Target) -> dict[str, Any]:
    proc = psutil.Process(target.proc.pid)
    rss_idle = proc.memory_info().rss
    load = Load(args, mode, target)
    cls = BaselineRoom if target.name == "baseline" else GameRoom
    rooms = [cls(load, i) for i in range(args.rooms)]
    tasks = [asyncio.create_task(r.run()) for r in rooms]
    setup_start = time.monotonic()
    try:
        await asyncio.wait_for(load.all_ready.wait(), args.setup_seconds)
    except TimeoutError:
        load.stats.errors["setup_timeout"] += 1
    setup = time.monotonic() - setup_start
    # The client's own collector pauses would count as the server's latency: its heap of
    # sockets, set up by now, is taken out of the collector's sight (``freeze``: no pause,
    # unlike the full collection it replaced, which stopped this client for a second and
    # sent the server the play it held back at once) and the collector is off until the
    # window ends (a young collection of this heap is a pause of its own).
    gc.freeze()
    gc.disable()
    await asyncio.sleep(args.warm_up)
    stamp = time.strftime("%H:%M:%S")
    print(f"    {target.name}: measuring from {stamp} UTC", file=sys.stderr, flush=True)
    spy = profile(args, target, proc.pid, mode)
    gc0 = await gc_pauses(load, target)
    before = load.stats.counts()
    cpu0, t0, client0 = cpu_seconds(proc), time.monotonic(), time.process_time()
    lat_t0 = time.perf_counter()
    trace = asyncio.create_task(per_second(load, proc, args.seconds))
    await asyncio.sleep(args.seconds)
    cpu1, t1, client1 = cpu_seconds(proc), time.monotonic(), time.process_time()
    after = load.stats.counts()
    gc1 = await gc_pauses(load, target)
    errors = Counter(load.stats.errors)  # setup included: a refused join is an error
    rss = proc.memory_info().rss
    if spy is not None:
        spy.wait(timeout=60)
    gc.enable()
    load.stopping.set()
    await asyncio.wait(tasks, timeout=30)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await load.http.aclose()
    d = {k: after[k] - before[k] for k in after}
    cpu, wall = cpu1 - cpu0, t1 - t0
    window = [(ts - lat_t0, x) for ts, x in load.stats.latencies if lat_t0 <= ts]
    if args.latencies is not None:  # to see whether the tail is steady or in bursts
        args.latencies.mkdir(parents=True, exist_ok=True)
        out = args.latencies / f"{target.name}-{mode}-{args.rooms}.csv"
        start = time.time() - (time.perf_counter() - lat_t0)  # the window's start, epoch s
        lines = [f"# window start {start:.3f} (epoch s)\n"]
        out.write_text("".join(lines + [f"{ts:.4f},{1000 * x:.2f}\n" for ts, x in window]))
        seconds = await trace
        rows = ["second,actions,hands,server_cpu_ms_per_action\n"]
        rows += [f"{i},{n},{h},{ms:.3f}\n" for i, (n, h, ms) in enumerate(seconds)]
        out.with_name(out.stem + "-seconds.csv").write_text("".join(rows))
    trace.cancel()
    lat = sorted(x for _, x in window)
    return {
        "target": target.name,
        "mode": mode,
        "rooms": load.ready,
        "setup_s": setup,
        "wall_s": wall,
        "cpu_s": cpu,
        "cpu_pct": 100 * cpu / wall,
        "client_cpu_pct": 100 * (client1 - client0) / wall,
        "actions_per_s": d["actions"] / wall,
        "frames_per_cpu_s": d["frames"] / cpu if cpu > 0 else float("nan"),
        "cpu_ms_per_action": 1000 * cpu / d["actions"] if d["actions"] else float("nan"),
        "p50_ms": 1000 * quantile(lat, 0.50),
        "p99_ms": 1000 * quantile(lat, 0.99),
        "samples": len(lat),
        "throttled": d["throttled"],
        "hands": d["hands"],
        "held_answers": d["held"],
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "rss_per_socket_kb": (rss - rss_idle) / 1024 / max(1, 4 * load.ready),
        "rss_mb": rss / 2**20,
        **gc_window(gc0, gc1),
    }


def profile(
    args: argparse.Namespace, target: Target, pid: int, mode: str
) -> subprocess.Popen[bytes] | None:
    """With ``--profile DIR``: py-spy samples the server over the measured window, into
    DIR/<target>-<mode>-<rooms>.txt (collapsed stacks, idle frames left out)."""
    if args.profile is None or target.name == "baseline":
        return None
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    args.profile.mkdir(parents=True, exist_ok=True)
    out = args.profile / f"{target.name}-{mode}-{args.rooms}.txt"
    cmd = [spy, "record", "-p", str(pid), "-d", str(int(args.seconds)), "-r", "100"]
    cmd += ["-f", "raw", "-o", str(out), "--threads"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def per_second(
    load: Load, proc: psutil.Process, seconds: float
) -> list[tuple[int, int, float]]:
    """Each whole second of the window: the actions sent, the hands ended and the server's
    CPU ms per action (``--latencies``: whether an action's cost grows over the window)."""
    out: list[tuple[int, int, float]] = []
    prev, cpu = load.stats.counts(), cpu_seconds(proc)
    for _ in range(int(seconds)):
        await asyncio.sleep(1.0)
        now, cpu_now = load.stats.counts(), cpu_seconds(proc)
        acts = now["actions"] - prev["actions"]
        ms = 1000 * (cpu_now - cpu) / acts if acts else float("nan")
        out.append((acts, now["hands"] - prev["hands"], ms))
        prev, cpu = now, cpu_now
    return out


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run_one(args: argparse.Namespace, mode: str, name: str) -> dict[str, Any]:
    target = start_baseline() if name == "baseline" else start_server(name, mode, args)
    try:
        result = asyncio.run(play(args, mode, target))
    finally:
        logged = stop(target, args.logs)
    result["server_exceptions"] = sum(logged.values())
    result["error_kinds"].update({f"server:{k}": v for k, v in logged.items()})
    return result


def use_uvloop() -> None:
    """The load client runs on uvloop when it is installed (uvicorn[standard] brings it),
    as the servers do."""
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


# ---------------------------------------------------------------------------- report

COLUMNS = [
    ("target", "{}", "target"),
    ("rooms", "{}", "rooms"),
    ("actions_per_s", "{:.0f}", "act/s"),
    ("cpu_pct", "{:.0f}", "cpu %"),
    ("client_cpu_pct", "{:.0f}", "client cpu %"),
    ("frames_per_cpu_s", "{:.0f}", "frames/cpu-s"),
    ("vs_baseline", "{:.1f}", "% of base"),
    ("cpu_ms_per_action", "{:.2f}", "cpu ms/act"),
    ("p50_ms", "{:.1f}", "p50 ms"),
    ("p99_ms", "{:.1f}", "p99 ms"),
    ("errors", "{:.0f}", "errors"),
    ("server_exceptions", "{:.0f}", "srv exc"),
    ("gc_runs", "{:.0f}", "gc runs"),
    ("gc_max_ms", "{:.0f}", "gc max ms"),
    ("rss_per_socket_kb", "{:.0f}", "rss/sock KB"),
]


def median_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"target": rows[0]["target"], "mode": rows[0]["mode"]}
    for key, value in rows[0].items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = statistics.median(r[key] for r in rows)
    kinds: Counter[str] = Counter()
    for r in rows:
        kinds.update(r.get("error_kinds", {}))
    out["error_kinds"] = dict(kinds)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    head = "| " + " | ".join(c[2] for c in COLUMNS) + " |"
    sep = "|" + "|".join("---" for _ in COLUMNS) + "|"
    lines = [head, sep]
    for r in rows:
        cells = []
        for key, fmt, _ in COLUMNS:
            v = r.get(key)
            cells.append("-" if v is None else fmt.format(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def raise_fd_limit(rooms: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 4 * rooms + 256
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft < need:
        print(f"warning: ulimit -n is {soft}, {rooms} rooms need about {need}", file=sys.stderr)


def expand(choice: str, both: tuple[str, ...]) -> Iterator[str]:
    yield from (both if choice == "both" else (choice,))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rooms", type=int, default=None, help="default: 20 closed-loop, 100 paced"
    )
    parser.add_argument("--seconds", type=float, default=10, help="measured window per run")
    parser.add_argument(
        "--warm-up",
        type=float,
        default=WARM_UP_SECONDS,
        help="seconds of play between the setup and the window (the rooms, seated together,"
        " end their first hands together; a longer warm-up measures them out of step)",
    )
    parser.add_argument("--mode", choices=["closed", "paced", "both"], default="both")
    parser.add_argument("--config", choices=["sqlite", "pg", "both"], default="both")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--setup-seconds", type=float, default=300)
    parser.add_argument("--setup-concurrency", type=int, default=8)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--json", type=Path, help="also write every run's numbers here")
    parser.add_argument("--logs", type=Path, help="keep the server logs in this folder")
    parser.add_argument(
        "--profile", type=Path, help="py-spy the server over each measured window, into here"
    )
    parser.add_argument(
        "--latencies",
        type=Path,
        help="write each window's latencies here (CSV: seconds into the window, ms), and"
        " per second its actions, ended hands and server CPU per action (*-seconds.csv)",
    )
    args = parser.parse_args()
    raise_fd_limit(args.rooms or 100)
    gc.set_threshold(*GC_THRESHOLDS)  # the server's (a few hundred objects per frame)
    use_uvloop()
    configs = list(expand(args.config, ("sqlite", "pg")))
    all_runs: list[dict[str, Any]] = []
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# bench/load.py {date}, {os.cpu_count()} cores, load avg {os.getloadavg()[0]:.1f}")
    rooms_arg = args.rooms
    for mode in expand(args.mode, ("closed", "paced")):
        args.rooms = rooms_arg or (20 if mode == "closed" else 100)
        runs: dict[str, list[dict[str, Any]]] = {n: [] for n in ["baseline", *configs]}
        for rep in range(args.repeat):
            for name in runs:
                r = run_one(args, mode, name)
                r["repeat"] = rep
                base = runs["baseline"][-1] if name != "baseline" else r
                r["vs_baseline"] = 100 * r["frames_per_cpu_s"] / base["frames_per_cpu_s"]
                runs[name].append(r)
                all_runs.append(r)
                print(
                    f"  {mode} {name} #{rep + 1}: {r['rooms']} rooms up in {r['setup_s']:.0f} s, "
                    f"{r['actions_per_s']:.0f} act/s, "
                    f"{r['cpu_ms_per_action']:.2f} cpu ms/act, p99 {r['p99_ms']:.0f} ms "
                    f"({r['held_answers']} held answers), "
                    f"errors {r['error_kinds'] or 0}",
                    file=sys.stderr,
                    flush=True,
                )
        rows = [median_row(rs) for rs in runs.values()]
        print(
            f"\n{mode}, {args.rooms} rooms x 4 sockets, {args.seconds:g} s, "
            f"median of {args.repeat}:"
        )
        print(table(rows))
        for r in rows:
            if r["error_kinds"]:
                print(f"  {r['target']} errors (all runs): {r['error_kinds']}")
    if args.json:
        args.json.write_text(json.dumps(all_runs, indent=1))


if __name__ == "__main__":
    main()
