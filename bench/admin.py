"""Benchmark of the admin's queries (issue 14) over a large score history.

    .venv/bin/python bench/admin.py [--hands 100000] [--database-url URL] [--sqlite]
                                    [--repeats 5] [--keep]

Fills a private database (PostgreSQL: a database this script creates and drops on the
server of ``--database-url``, default ``TEST_DATABASE_URL`` or the local ``test`` database;
``--sqlite``: a temporary file) with ``--hands`` settled hands by bulk inserts (PostgreSQL
``COPY``; SQLite ``executemany``), 8 hands a room, 4 seats from 400 player names, payments
of reasons ``hu`` and ``ji``, 300 of the names with a player profile (display names
repeating), a few voids and adjustments; then times each admin query
(:mod:`server.store.admin`, first page of 100 and a page deep in the list via its cursor) and
prints its time (median of ``--repeats``), its ratio to the reference query ``SELECT 1`` run
the same way in the same run, and the ``EXPLAIN`` of its main SQL statement, which shows
the index it walks.

:func:`fill` is also what the tests use to make thousands of rows quickly.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, insert, select, text  # noqa: E402
from sqlalchemy.engine import Connection, make_url  # noqa: E402

from server.store import Store  # noqa: E402
from server.store import admin as queries  # noqa: E402
from server.store.models import (  # noqa: E402
    Hand,
    LedgerEntry,
    Player,
    Profile,
    Room,
    SeatDelta,
)

START = datetime(2026, 1, 1, tzinfo=UTC)


def _rows(
    hands: int,
    *,
    per_room: int,
    names: int,
    start: datetime,
    step: timedelta,
    first: dict[str, int],
    rng: random.Random,
    game: str,
    prefix: str,
    profiles: int = 0,
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {
        "profiles": [],
        "rooms": [],
        "players": [],
        "hands": [],
        "seat_deltas": [],
        "ledger_entries": [],
    }
    ids = dict(first)
    room_id = player_id = 0
    seats: list[int] = []
    seat_profiles: list[int | None] = []
    # names k < profiles sit as profile first + k; display names repeat (two per name)
    profile_of = {k: ids["profiles"] + k for k in range(min(profiles, names))}
    for k, pid in profile_of.items():
        out["profiles"].append(
            {
                "id": pid,
                "name": f"player{k // 2}",
                "secret_hash": f"bench-{pid}-{uuid.uuid4().hex}",
                "created_at": start,
            }
        )
    for i in range(hands):
        when = start + step * i
        if i % per_room == 0:
            room_id = ids["rooms"]
            ids["rooms"] += 1
            out["rooms"].append(
                {
                    "id": room_id,
                    "code": f"{prefix}{room_id}",
                    "game": game,
                    "options": {"players": 4},
                    "status": "finished",
                    "created_at": when,
                }
            )
            seats = []
            seat_profiles = []
            for seat, who in enumerate(rng.sample(range(names), 4)):
                player_id = ids["players"]
                ids["players"] += 1
                seats.append(player_id)
                seat_profiles.append(profile_of.get(who))
                out["players"].append(
                    {
                        "id": player_id,
                        "room_id": room_id,
                        "seat": seat,
                        "name": f"player{who}",
                        "token_hash": "x",
                        "is_bot": False,
                        "created_at": when,
                        "profile_id": profile_of.get(who),
                    }
                )
        hand_id = ids["hands"]
        ids["hands"] += 1
        winner = rng.randrange(4)
        deltas = [0, 0, 0, 0]
        pays = []
        for seat in range(4):
            if seat != winner:
                pays.append((seat, winner, rng.choice((1, 2, 3, 5)), "hu"))
        chicken = rng.randrange(4)
        pays.append(((chicken + 1) % 4, chicken, 1, "ji"))
        ended = when + timedelta(seconds=30)
        for frm, to, pts, reason in pays:
            deltas[frm] -= pts
            deltas[to] += pts
            out["ledger_entries"].append(
                {
                    "id": ids["ledger_entries"],
                    "hand_id": hand_id,
                    "from_seat": frm,
                    "to_seat": to,
                    "points": pts,
                    "reason": reason,
                    "detail": None,
                    "created_at": ended,
                }
            )
            ids["ledger_entries"] += 1
        out["hands"].append(
            {
                "id": hand_id,
                "room_id": room_id,
                "hand_no": i % per_room + 1,
                "seed": f"seed-{hand_id}",
                "dealer": 0,
                "dealer_streak": 1,
                "weekday": None,
                "started_at": when,
                "ended_at": ended,
                "result": "win",
                "settlement": {"result": "win", "deltas": deltas},
            }
        )
        for seat in range(4):
            out["seat_deltas"].append(
                {
                    "id": ids["seat_deltas"],
                    "hand_id": hand_id,
                    "seat": seat,
                    "player_id": seats[seat],
                    "profile_id": seat_profiles[seat],
                    "delta": deltas[seat],
                }
            )
            ids["seat_deltas"] += 1
    return out


_TABLES = {
    "profiles": Profile,
    "rooms": Room,
    "players": Player,
    "hands": Hand,
    "seat_deltas": SeatDelta,
    "ledger_entries": LedgerEntry,
}


async def fill(
    store: Store,
    hands: int,
    *,
    per_room: int = 8,
    names: int = 400,
    start: datetime = START,
    step: timedelta = timedelta(minutes=5),
    seed: int = 14,
    game: str = "guiyang",
    prefix: str = "B",
    profiles: int = 0,
) -> dict[str, int]:
    """Insert ``hands`` settled hands (``per_room`` per room, 4 seats named ``player<k>``,
    k < ``names``, one hand every ``step`` from ``start``), in bulk. Every hand's payments
    net to its deltas (sum zero). With ``profiles``: names k < ``profiles`` sit as a
    player profile each (display name ``player<k // 2>``: every display name twice), the
    others without one (as seats taken before profiles existed). Returns the number of rows
    per table. Not for a database a server is writing to at the same moment (the ids are
    taken before the insert)."""

    def next_ids(conn: Connection) -> dict[str, int]:
        return {
            name: int(conn.scalar(select(func.max(model.id))) or 0) + 1
            for name, model in _TABLES.items()
        }

    async with store.engine.connect() as conn:
        first = await conn.run_sync(next_ids)
    rows = _rows(
        hands,
        per_room=per_room,
        names=names,
        start=start,
        step=step,
        first=first,
        rng=random.Random(seed),
        game=game,
        prefix=prefix,
        profiles=profiles,
    )
    if store.engine.dialect.name == "postgresql":
        await _copy_postgres(store, rows)
    else:

        def work(conn: Connection) -> None:
            for name, model in _TABLES.items():
                for i in range(0, len(rows[name]), 5000):
                    conn.execute(insert(model), rows[name][i : i + 5000])

        await store._write(work)
    return {name: len(r) for name, r in rows.items()}


async def _copy_postgres(store: Store, rows: dict[str, list[dict[str, Any]]]) -> None:
    import json

    import asyncpg

    url = make_url(store.url).set(drivername="postgresql")
    conn = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        async with conn.transaction():
            for name, model in _TABLES.items():
                if not rows[name]:
                    continue
                # the columns the generated rows fill (others, e.g. rooms.lease_gen, take
                # their server defaults)
                columns = [c.name for c in model.__table__.columns if c.name in rows[name][0]]
                records = [
                    tuple(json.dumps(r[c]) if isinstance(r[c], dict) else r[c] for c in columns)
                    for r in rows[name]
                ]
                await conn.copy_records_to_table(name, records=records, columns=columns)
            for name in _TABLES:
                # explicit ids: move each sequence past them, so later inserts do not collide
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                    f"(SELECT max(id) FROM {name}))"
                )
    finally:
        await conn.close()


# ------------------------------------------------------------------------------- bench


async def _explain(store: Store, fn: Callable[[], Awaitable[Any]]) -> str:
    """The EXPLAIN of the slowest statement ``fn`` runs (its main one), with its time."""
    from sqlalchemy import event

    timed: list[tuple[float, str, Any]] = []

    def before(
        _conn: Any, _cursor: Any, statement: str, params: Any, ctx: Any, _many: bool
    ) -> None:
        ctx._bench_t0 = time.perf_counter()

    def after(_conn: Any, _cursor: Any, statement: str, params: Any, ctx: Any, _many: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            timed.append((time.perf_counter() - ctx._bench_t0, statement, params))

    engine = store.engine.sync_engine
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        await fn()
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
    if not timed:
        return "(no statement)"
    took, statement, params = max(timed, key=lambda t: t[0])
    head = f"({len(timed)} statements; this one {took * 1000:.2f} ms)\n"
    async with store.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        driver = raw.driver_connection
        if store.engine.dialect.name == "postgresql":
            plan = await driver.fetch("EXPLAIN " + statement, *(params or ()))
            return head + "\n".join(r[0] for r in plan)
        cursor = await driver.execute("EXPLAIN QUERY PLAN " + statement, params or ())
        return head + "\n".join(str(r[-1]) for r in await cursor.fetchall())


async def _time(fn: Callable[[], Awaitable[Any]], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


async def bench(url: str, hands: int, repeats: int) -> None:
    store = Store(url)
    try:
        await store.migrate()
        t0 = time.perf_counter()
        counts = await fill(store, hands, profiles=300)
        print(f"filled {counts} in {time.perf_counter() - t0:.1f} s ({store.engine.dialect.name})")
        # a few corrections, as an admin would make them
        for hand_no, room in ((1, "B1"), (2, "B2"), (3, "B3")):
            await queries.correct(store, room, hand_no, kind="void", reason="bench", actor="bench")
        await queries.correct(
            store, "B4", 1, kind="adjust", reason="bench", actor="bench", from_seat=0, to_seat=1,
            points=2,
        )  # fmt: skip
        async with store.engine.begin() as conn:
            await conn.execute(text("ANALYZE"))
        last = counts["rooms"]
        mid = START + timedelta(minutes=5) * (hands // 2)
        month = queries.Range(mid, mid + timedelta(days=30))
        _, deep_ledger = await queries.payments(store, limit=1000)
        _, deep_rooms = await queries.rooms(store, limit=1000)
        async with store.engine.connect() as conn:
            pid = int(await conn.scalar(select(func.min(Profile.id))) or 0) + 7  # player7's
        old = "player350"  # a name without profile (seats from before profiles)
        _, deep_player = await queries.player_history(store, None, profile=pid, limit=100)
        _, deep_old = await queries.player_history(store, old, limit=100)
        _, deep_board = await queries.leaderboard(store, limit=100)
        cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("rooms, newest page", lambda: queries.rooms(store)),
            ("rooms, page after 1000", lambda: queries.rooms(store, cursor=deep_rooms)),
            ("rooms, a month", lambda: queries.rooms(store, month)),
            ("rooms of a player", lambda: queries.rooms(store, player="player7")),
            ("room hands", lambda: queries.room_hands(store, f"B{last // 2}")),
            ("hand detail", lambda: queries.hand_detail(store, f"B{last // 2}", 3)),
            ("player history", lambda: queries.player_history(store, None, profile=pid)),
            (
                "player history, page 2",
                lambda: queries.player_history(store, None, profile=pid, cursor=deep_player),
            ),
            ("player history by name", lambda: queries.player_history(store, old)),
            (
                "player history by name, p2",
                lambda: queries.player_history(store, old, cursor=deep_old),
            ),
            ("player totals, all", lambda: queries.player_totals(store, None, profile=pid)),
            (
                "player totals, a month",
                lambda: queries.player_totals(store, None, month, profile=pid),
            ),
            ("player totals by name", lambda: queries.player_totals(store, old)),
            ("leaderboard, a month", lambda: queries.leaderboard(store, month)),
            ("leaderboard, all", lambda: queries.leaderboard(store)),
            ("leaderboard, page 2", lambda: queries.leaderboard(store, cursor=deep_board)),
            ("ledger, newest page", lambda: queries.payments(store)),
            ("ledger, page after 1000", lambda: queries.payments(store, cursor=deep_ledger)),
            ("ledger of a player", lambda: queries.payments(store, player="player7")),
            ("corrections", lambda: queries.corrections(store)),
        ]

        async def reference() -> None:
            async with store.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))

        ref = await _time(reference, repeats)
        print(f"\nreference SELECT 1: {ref * 1000:.2f} ms\n")
        print(f"{'query':28} {'ms':>9} {'x SELECT 1':>11}")
        plans = []
        for name, fn in cases:
            await fn()  # warm
            t = await _time(fn, repeats)
            print(f"{name:28} {t * 1000:9.2f} {t / ref:11.1f}")
            plans.append((name, await _explain(store, fn)))
        for name, plan in plans:
            print(f"\n--- {name}: EXPLAIN of its main statement\n{plan}")
    finally:
        await store.close()


async def _pg_database(base: str) -> tuple[str, Callable[[], Awaitable[None]]]:
    import asyncpg

    parsed = make_url(base).set(drivername="postgresql")
    name = f"bench_admin_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(parsed.render_as_string(hide_password=False))
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()

    async def drop() -> None:
        c = await asyncpg.connect(parsed.render_as_string(hide_password=False))
        await c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await c.close()

    url = make_url(base).set(drivername="postgresql+asyncpg", database=name)
    return url.render_as_string(hide_password=False), drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
        ),
    )
    parser.add_argument("--sqlite", action="store_true", help="a temporary SQLite file instead")
    args = parser.parse_args()

    async def run() -> None:
        if args.sqlite:
            with tempfile.TemporaryDirectory() as tmp:
                await bench(f"sqlite+aiosqlite:///{tmp}/bench.db", args.hands, args.repeats)
            return
        url, drop = await _pg_database(args.database_url)
        try:
            await bench(url, args.hands, args.repeats)
        finally:
            await drop()

    asyncio.run(run())


if __name__ == "__main__":
    main()
