"""Benchmark of the store's write path; prints ratios against references run in the same run.

    .venv/bin/python bench/store.py [--repeats 5] [--actions 400] [--rooms 50] [--hands 100]
                                    [--database-url postgresql+asyncpg://...] [--no-postgres]

Per action (append to the log) and per hand (settle), each measured ``--repeats`` times;
the table shows the medians of the times and of the per-run ratios.

* **PostgreSQL**: `server.store.Store` against ``pgbench -n -c1 -M prepared`` running the
  SAME statements (custom ``-f`` scripts) on the same server, in a private database this
  script creates and drops (``--database-url`` names the server and an existing database to
  connect to first; default ``TEST_DATABASE_URL`` or the local ``test`` database).
  The pgbench scripts are built from the store's own statement strings
  (``server.store.store.PG_*``), each ``$k`` a pgbench variable, so under ``-M prepared``
  pgbench sends exactly the store's prepared statements with the same values as parameters.
  - *append, 1 per commit*: one room appending alone, each action awaited: one
    ``PG_INSERT_ACTION`` (autocommit: Bind/Execute/Sync) per action.
  - *append, batched*: ``--rooms`` rooms appending at once (each awaiting its own action, as a
    room actor does): the store group-commits them; pgbench runs a batch of the same size as
    pipelined INSERTs up to one Sync (one implicit transaction: asyncpg's executemany).
  - *settle*: ``Store.finish_hand`` (settle + room status + totals, one transaction);
    pgbench: ``BEGIN; PG_SETTLE_HAND; <pipelined PG_INSERT_LEDGER>; <pipelined
    PG_INSERT_SEAT_DELTA>; PG_SET_STATUS; COMMIT``. *settle, 3 calls* is the old way of
    ending a hand (``settle_hand``, ``totals``, ``set_room_status``, through SQLAlchemy)
    against the same reference.
* **SQLite**: the same store calls on a temporary file against Python's ``sqlite3`` module
  running the same statements synchronously, same pragmas (WAL, ``synchronous=NORMAL``,
  ``BEGIN IMMEDIATE``), in this process.

Target (issue 9): each PostgreSQL ratio <= 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text  # noqa: E402
from sqlalchemy.engine import URL, make_url  # noqa: E402

from server.store import Store  # noqa: E402
from server.store import store as store_module  # noqa: E402

PAYLOAD = {"action": {"kind": "discard", "tile": "5m"}, "source": "player"}
PAYMENTS: list[dict[str, Any]] = [
    {"from": 1, "to": 0, "points": 6, "reason": "dian_pao", "detail": {"fan": 3}},
    {"from": 2, "to": 0, "points": 2, "reason": "chicken", "detail": {"tile": "1s"}},
    {"from": 3, "to": 0, "points": 2, "reason": "chicken", "detail": {"tile": "1s"}},
    {"from": 3, "to": 2, "points": 1, "reason": "chicken", "detail": {"tile": "8p"}},
    {"from": 0, "to": 2, "points": 1, "reason": "chicken", "detail": {"tile": "8p"}},
    {"from": 1, "to": 2, "points": 1, "reason": "chicken", "detail": {"tile": "8p"}},
]
DELTAS = [9, -7, 1, -3]
SETTLEMENT: dict[str, Any] = {
    "result": "win",
    "winners": [0],
    "discarder": 1,
    "hand_type": "qing_yi_se",
    "payments": PAYMENTS,
    "deltas": DELTAS,
    "next_dealer": 0,
    "chickens": [{"tile": "1s", "owner": 0, "kind": "yao_ji"}, {"tile": "8p", "owner": 2}],
    "hands": [
        {"seat": s, "concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s"], "melds": []}
        for s in range(4)
    ],
}
ACTION_COLS = "hand_id, idx, seat, payload, created_at"
LEDGER_COLS = "hand_id, from_seat, to_seat, points, reason, detail, created_at"


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _medians(
    samples: dict[str, tuple[list[float], list[float]]],
) -> dict[str, tuple[float, float, float]]:
    """Per measure: median store time, median reference time, median of the per-run ratios
    (each run's store and reference ran back to back, so its ratio is the steadiest figure
    on a busy machine)."""
    return {
        k: (_median(a), _median(b), _median([x / y for x, y in zip(a, b, strict=True)]))
        for k, (a, b) in samples.items()
    }


# ---------------------------------------------------------------------- PostgreSQL


def _libpq_args(url: URL) -> list[str]:
    args = ["-h", url.host or "127.0.0.1", "-p", str(url.port or 5432)]
    if url.username:
        args += ["-U", url.username]
    return args


def _pgbench(url: URL, script: str, transactions: int, variables: dict[str, int | str]) -> float:
    """Run ``script`` with pgbench; return seconds per transaction."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        cmd = ["pgbench", *_libpq_args(url), "-n", "-c1", "-M", "prepared"]
        cmd += ["-t", str(transactions), "-f", path]
        for name, value in variables.items():
            cmd += ["-D", f"{name}={value}"]
        cmd.append(url.database or "postgres")
        env = dict(os.environ)
        if url.password:
            env["PGPASSWORD"] = url.password
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    finally:
        os.unlink(path)
    processed = re.search(r"actually processed: (\d+)/(\d+)", out.stdout)
    tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out.stdout)
    if out.returncode != 0 or not tps or not processed or processed[1] != processed[2]:
        raise RuntimeError(f"pgbench failed:\n{out.stdout}\n{out.stderr}")
    return 1.0 / float(tps[1])


def _bind(sql: str, *names: str) -> str:
    """The store's statement ``sql`` (parameters ``$1``..``$n``) with ``$k`` as the pgbench
    variable ``:names[k-1]``: under ``-M prepared`` pgbench sends it as the store does, one
    prepared statement with its values as parameters."""
    return re.sub(r"\$(\d+)", lambda m: f":{names[int(m[1]) - 1]}", sql) + ";"


def _json(value: Any) -> str:
    """A JSON document as the store binds it (`json.dumps`, SQLAlchemy's default)."""
    return json.dumps(value)


#: The timestamp every reference row is written with (the store binds ``utcnow()``).
TS = "2026-01-01 12:00:00.123456+00"


def _append_script(batch: int) -> tuple[str, dict[str, int | str]]:
    """``batch`` action INSERTs (`PG_INSERT_ACTION`) as the store sends them: one alone
    (autocommit), or pipelined up to one Sync (one implicit transaction, as asyncpg's
    executemany). The variable ``b`` counts transactions so every ``idx`` is new."""
    lines = ["\\set b :b + 1"]
    for j in range(batch):
        lines += [f"\\set i{j} :b * {batch} + {j}", f"\\set s{j} {j % 4}"]
    inserts = [
        _bind(store_module.PG_INSERT_ACTION, "hid", f"i{j}", f"s{j}", "payload", "ts")
        for j in range(batch)
    ]
    if batch > 1:
        inserts = ["\\startpipeline", *inserts, "\\endpipeline"]
    return "\n".join(lines + inserts) + "\n", {"payload": _json(PAYLOAD), "ts": TS}


def _settle_script() -> tuple[str, dict[str, int | str]]:
    """The statements of ``Store.finish_hand`` on PostgreSQL (`PG_SETTLE_HAND`,
    `PG_INSERT_LEDGER`, `PG_INSERT_SEAT_DELTA`, `PG_SET_STATUS`) for hand ``:base + :n``."""
    variables: dict[str, int | str] = {
        "ts": TS,
        "result": "win",
        "settlement": _json(SETTLEMENT),
        "status": "between",
        "last": 2**31 - 1,  # no later hand: the status is written, as at a real hand's end
    }
    ledger = []
    for k, pay in enumerate(PAYMENTS):
        variables.update(
            {
                f"f{k}": pay["from"],
                f"t{k}": pay["to"],
                f"p{k}": pay["points"],
                f"r{k}": pay["reason"],
                f"d{k}": _json(pay["detail"]),
            }
        )
        ledger.append(
            _bind(
                store_module.PG_INSERT_LEDGER,
                "hid",
                f"f{k}",
                f"t{k}",
                f"p{k}",
                f"r{k}",
                f"d{k}",
                "ts",
            )
        )
    deltas = []
    for seat, delta in enumerate(DELTAS):
        variables.update({f"seat{seat}": seat, f"delta{seat}": delta})
        deltas.append(
            _bind(store_module.PG_INSERT_SEAT_DELTA, "hid", f"seat{seat}", "rid", f"delta{seat}")
        )
    script = [
        "\\set n :n + 1",
        "\\set hid :base + :n",
        "BEGIN;",
        _bind(store_module.PG_SETTLE_HAND, "hid", "ts", "result", "settlement"),
        "\\startpipeline",
        *ledger,
        "\\endpipeline",
        "\\startpipeline",
        *deltas,
        "\\endpipeline",
        _bind(store_module.PG_SET_STATUS, "rid", "status", "last"),
        "COMMIT;",
    ]
    return "\n".join(script) + "\n", variables


class Rooms:
    """Rooms with four seats and a supply of fresh hands, named ``<prefix><n>``."""

    def __init__(self, store: Store, prefix: str) -> None:
        self.store = store
        self.prefix = prefix
        self.next_hand: dict[str, int] = {}

    async def room(self, n: int) -> str:
        code = f"{self.prefix}{n}"
        if code not in self.next_hand:
            await self.store.create_room(code, "guiyang", {"players": 4})
            for seat in range(4):
                await self.store.add_player(code, seat, f"{code}-{seat}", "h", seat > 0)
            self.next_hand[code] = 1
        return code

    async def new_hands(self, code: str, count: int) -> list[int]:
        first = self.next_hand[code]
        for hand_no in range(first, first + count):
            await self.store.start_hand(code, hand_no, "bench", 0, 1)
        self.next_hand[code] = first + count
        return list(range(first, first + count))

    async def hand_ids(self, code: str, hand_nos: list[int]) -> list[int]:
        async with self.store.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT h.hand_no, h.id FROM hands h JOIN rooms r ON r.id = h.room_id"
                    " WHERE r.code = :code"
                ),
                {"code": code},
            )
            ids = {h: i for h, i in rows.all()}
        return [ids[h] for h in hand_nos]

    async def room_id(self, code: str) -> int:
        async with self.store.engine.connect() as conn:
            return int(
                (
                    await conn.execute(text("SELECT id FROM rooms WHERE code = :c"), {"c": code})
                ).scalar_one()
            )


async def _time(fn: Callable[[], Coroutine[Any, Any, None]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


async def ours_append_serial(rooms: Rooms, n: int) -> float:
    code = await rooms.room(0)
    [hand_no] = await rooms.new_hands(code, 1)

    async def run() -> None:
        for i in range(n):
            await rooms.store.append_action(code, hand_no, i, i % 4, PAYLOAD)

    return await _time(run) / n


async def ours_append_batched(rooms: Rooms, n_rooms: int, per_room: int) -> float:
    hands = []
    for r in range(n_rooms):
        code = await rooms.room(r)
        hands.append((code, (await rooms.new_hands(code, 1))[0]))

    async def one(code: str, hand_no: int) -> None:
        for i in range(per_room):
            await rooms.store.append_action(code, hand_no, i, i % 4, PAYLOAD)

    async def run() -> None:
        await asyncio.gather(*(one(c, h) for c, h in hands))

    return await _time(run) / (n_rooms * per_room)


async def ours_settle(rooms: Rooms, n: int, old_way: bool = False) -> float:
    code = await rooms.room(0)
    hand_nos = await rooms.new_hands(code, n)
    store = rooms.store

    async def run() -> None:
        totals = [0, 0, 0, 0]
        for hand_no in hand_nos:
            if old_way:
                await store.settle_hand(code, hand_no, "win", SETTLEMENT, PAYMENTS, DELTAS)
                totals = await store.totals(code)
                await store.set_room_status(code, "between")
            else:
                done = await store.finish_hand(
                    code,
                    hand_no,
                    "win",
                    SETTLEMENT,
                    PAYMENTS,
                    DELTAS,
                    status="between",
                    totals=totals,
                )
                totals = done.totals

    return await _time(run) / n


async def pgbench_append(rooms: Rooms, url: URL, batch: int, transactions: int) -> float:
    code = await rooms.room(0)
    [hand_id] = await rooms.hand_ids(code, await rooms.new_hands(code, 1))
    script, variables = _append_script(batch)
    variables.update({"hid": hand_id, "b": -1})
    return _pgbench(url, script, transactions, variables) / batch


async def pgbench_settle(rooms: Rooms, url: URL, n: int) -> float:
    code = await rooms.room(0)
    ids = await rooms.hand_ids(code, await rooms.new_hands(code, n))
    if ids != list(range(ids[0], ids[0] + n)):
        raise RuntimeError("hand ids are not consecutive")
    script, variables = _settle_script()
    variables.update({"base": ids[0] - 1, "n": 0, "rid": await rooms.room_id(code)})
    return _pgbench(url, script, n, variables)


def _admin_url(arg: str | None) -> URL:
    raw = arg or os.environ.get("TEST_DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/test"
    return make_url(raw)


async def _pg_exec(admin: URL, sql: str) -> None:
    import asyncpg

    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def bench_postgres(args: argparse.Namespace) -> dict[str, tuple[float, float, float]]:
    admin = _admin_url(args.database_url)
    name = f"zj_bench_store_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    await _pg_exec(admin, f'CREATE DATABASE "{name}"')
    url = admin.set(database=name)
    store = Store(url.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False))
    samples: dict[str, tuple[list[float], list[float]]] = {
        k: ([], []) for k in ("append1", "appendN", "settle", "settle3")
    }
    try:
        await store.migrate()
        rooms = Rooms(store, "PG")
        # warm up: connections, prepared statements, pgbench's first connection
        await ours_append_serial(rooms, 20)
        await ours_append_batched(rooms, args.rooms, 2)
        await ours_settle(rooms, 5)
        await pgbench_append(rooms, url, 1, 20)
        for _ in range(args.repeats):
            n, per = args.actions, max(1, args.actions // args.rooms)
            samples["append1"][0].append(await ours_append_serial(rooms, n))
            samples["append1"][1].append(await pgbench_append(rooms, url, 1, n))
            samples["appendN"][0].append(await ours_append_batched(rooms, args.rooms, per))
            samples["appendN"][1].append(await pgbench_append(rooms, url, args.rooms, per))
            samples["settle"][0].append(await ours_settle(rooms, args.hands))
            samples["settle"][1].append(await pgbench_settle(rooms, url, args.hands))
            samples["settle3"][0].append(await ours_settle(rooms, args.hands, old_way=True))
            samples["settle3"][1].append(samples["settle"][1][-1])
    finally:
        await store.close()
        await _pg_exec(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return _medians(samples)


# ---------------------------------------------------------------------- SQLite


class SqliteReference:
    """The store's statements through the ``sqlite3`` module, synchronously."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        for pragma in ("foreign_keys=ON", "journal_mode=WAL", "synchronous=NORMAL"):
            self.db.execute(f"PRAGMA {pragma}")
        self.payload = json.dumps(PAYLOAD)

    def hand_ids(self, code: str, hand_nos: list[int]) -> list[int]:
        rows = self.db.execute(
            "SELECT h.hand_no, h.id FROM hands h JOIN rooms r ON r.id = h.room_id WHERE r.code = ?",
            (code,),
        ).fetchall()
        ids = dict(rows)
        return [ids[h] for h in hand_nos]

    def append(self, rows: list[tuple[int, int, int]]) -> None:
        now = time.strftime("%Y-%m-%d %H:%M:%S.000000")
        self.db.execute("BEGIN IMMEDIATE")
        self.db.executemany(
            f"INSERT INTO actions ({ACTION_COLS}) VALUES (?, ?, ?, ?, ?)",
            [(h, i, s, self.payload, now) for h, i, s in rows],
        )
        self.db.execute("COMMIT")

    def settle(self, hand_id: int, room_id: int) -> None:
        now = time.strftime("%Y-%m-%d %H:%M:%S.000000")
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        db.execute(
            "UPDATE hands SET ended_at=?, result=?, settlement=? WHERE hands.id = ?"
            " AND hands.ended_at IS NULL",
            (now, "win", json.dumps(SETTLEMENT), hand_id),
        )
        db.executemany(
            f"INSERT INTO ledger_entries ({LEDGER_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    hand_id,
                    p["from"],
                    p["to"],
                    p["points"],
                    p["reason"],
                    json.dumps(p["detail"]),
                    now,
                )
                for p in PAYMENTS
            ],
        )
        db.executemany(
            "INSERT INTO seat_deltas (hand_id, seat, player_id, delta, profile_id) VALUES (?, ?,"
            " (SELECT players.id FROM players WHERE players.room_id = ? AND players.seat = ?), ?,"
            " (SELECT players.profile_id FROM players WHERE players.room_id = ?"
            " AND players.seat = ?))",
            [(hand_id, seat, room_id, seat, d, room_id, seat) for seat, d in enumerate(DELTAS)],
        )
        db.execute(
            "UPDATE rooms SET status=? WHERE rooms.id = ? AND NOT EXISTS (SELECT * FROM hands"
            " WHERE hands.room_id = ? AND hands.hand_no > ?)",
            ("between", room_id, room_id, 2**31 - 1),
        )
        db.execute("COMMIT")


async def bench_sqlite(args: argparse.Namespace) -> dict[str, tuple[float, float, float]]:
    samples: dict[str, tuple[list[float], list[float]]] = {
        k: ([], []) for k in ("append1", "appendN", "settle", "settle3")
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/bench.db"
        store = Store(f"sqlite+aiosqlite:///{path}")
        try:
            await store.migrate()
            rooms = Rooms(store, "SQ")
            ref = SqliteReference(path)
            await ours_append_serial(rooms, 20)
            for _ in range(args.repeats):
                n, per = args.actions, max(1, args.actions // args.rooms)
                samples["append1"][0].append(await ours_append_serial(rooms, n))
                code = await rooms.room(0)
                [hid] = ref.hand_ids(code, await rooms.new_hands(code, 1))
                start = time.perf_counter()
                for i in range(n):
                    ref.append([(hid, i, i % 4)])
                samples["append1"][1].append((time.perf_counter() - start) / n)

                samples["appendN"][0].append(await ours_append_batched(rooms, args.rooms, per))
                [hid] = ref.hand_ids(code, await rooms.new_hands(code, 1))
                start = time.perf_counter()
                for b in range(per):
                    ref.append([(hid, b * args.rooms + j, j % 4) for j in range(args.rooms)])
                samples["appendN"][1].append((time.perf_counter() - start) / (per * args.rooms))

                samples["settle"][0].append(await ours_settle(rooms, args.hands))
                ids = ref.hand_ids(code, await rooms.new_hands(code, args.hands))
                room_id = await rooms.room_id(code)
                start = time.perf_counter()
                for hid in ids:
                    ref.settle(hid, room_id)
                samples["settle"][1].append((time.perf_counter() - start) / args.hands)
                samples["settle3"][0].append(await ours_settle(rooms, args.hands, old_way=True))
                samples["settle3"][1].append(samples["settle"][1][-1])
            ref.db.close()
        finally:
            await store.close()
    return _medians(samples)


# ---------------------------------------------------------------------- report

LABELS = {
    "append1": "append, 1 per commit (µs/action)",
    "appendN": "append, {rooms} rooms batched (µs/action)",
    "settle": "settle: finish_hand (µs/hand)",
    "settle3": "settle: old 3 calls (µs/hand)",
}


def _table(
    title: str, ref_name: str, rows: dict[str, tuple[float, float, float]], rooms: int
) -> str:
    out = [f"{title}  (reference: {ref_name})"]
    out.append(f"  {'':44} {'store':>10} {'reference':>10} {'ratio':>7}")
    for key, (ours, ref, ratio) in rows.items():
        label = LABELS[key].format(rooms=rooms)
        out.append(f"  {label:44} {ours * 1e6:10.0f} {ref * 1e6:10.0f} {ratio:6.2f}x")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--actions", type=int, default=400, help="actions per append run")
    parser.add_argument("--rooms", type=int, default=50, help="concurrent rooms when batched")
    parser.add_argument("--hands", type=int, default=100, help="hands per settle run")
    parser.add_argument("--database-url", help="PostgreSQL server (an existing database)")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    print(f"store benchmark: median of {args.repeats} runs")
    if not args.no_postgres:
        pg = asyncio.run(bench_postgres(args))
        print(_table("PostgreSQL", "pgbench -n -c1 -M prepared, same statements", pg, args.rooms))
    lite = asyncio.run(bench_sqlite(args))
    print(_table("SQLite", "sqlite3 module, same statements and pragmas", lite, args.rooms))


if __name__ == "__main__":
    main()
