"""The group-committed action log, the one-transaction hand end and concurrency (issue 9),
on SQLite and PostgreSQL (``store`` is parametrized by conftest).

Batch semantics under test (``Store.append_action``): calls queued in one loop turn commit
together, in call order, in one transaction; a duplicate index or an unknown hand fails that
call only and the rest of the batch is committed; any other failure of the batch fails every
caller of that batch and writes nothing of it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from server.store import Conflict, FinishedHand, NotFound, Store
from server.store import store as store_module

PAYMENTS = [
    {"from": 1, "to": 0, "points": 6, "reason": "dian_pao", "detail": {"fan": 3}},
    {"from": 2, "to": 0, "points": 2, "reason": "chicken", "detail": None},
]
DELTAS = [8, -6, -2, 0]


async def _room(store: Store, code: str, hands: int = 1) -> None:
    await store.create_room(code, "guiyang", {"players": 4})
    for seat in range(4):
        await store.add_player(code, seat, f"{code}-p{seat}", f"h{seat}", seat >= 2)
    for hand_no in range(1, hands + 1):
        await store.start_hand(code, hand_no, f"seed-{hand_no}", 0, 1)


async def _scalar(store: Store, sql: str) -> Any:
    async with store.engine.connect() as conn:
        return (await conn.execute(text(sql))).scalar_one()


@contextmanager
def _executions(store: Store, kind: str) -> Iterator[list[str]]:
    """Record the store's writes inside the block: ``kind="commit"`` one entry per COMMIT
    made through SQLAlchemy, ``kind="actions"`` one per execution (an executemany counts
    once) of the action INSERT. On a SQLite file and on PostgreSQL the action log is written
    on the driver's connection, out of SQLAlchemy's sight: there each batch is one call of
    ``_sqlite_insert_actions`` / ``_pg_insert_actions`` (one transaction, one executemany)."""
    seen: list[str] = []
    engine = store.write_engine
    if kind == "actions" and store.engine.dialect.name == "postgresql":
        pg_insert = store_module._pg_insert_actions

        async def pg_counted(stmt: Any, params: list[tuple[Any, ...]]) -> None:
            await pg_insert(stmt, params)
            seen.append("INSERT INTO actions")

        store_module._pg_insert_actions = pg_counted  # type: ignore[assignment]
        try:
            yield seen
        finally:
            store_module._pg_insert_actions = pg_insert
        return

    def on_commit(_conn: Any) -> None:
        seen.append("commit")

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("INSERT INTO actions"):
            seen.append(statement)

    if kind == "actions" and store._sqlite_thread is not None:
        insert = store_module._sqlite_insert_actions

        def counted(raw: Any, params: list[tuple[Any, ...]]) -> None:
            insert(raw, params)
            seen.append("INSERT INTO actions")

        store_module._sqlite_insert_actions = counted  # type: ignore[assignment]
        try:
            yield seen
        finally:
            store_module._sqlite_insert_actions = insert
        return
    name, fn = ("commit", on_commit) if kind == "commit" else ("before_cursor_execute", on_execute)
    event.listen(engine, name, fn)
    try:
        yield seen
    finally:
        event.remove(engine, name, fn)


async def test_one_loop_turn_of_appends_is_one_commit_in_call_order(store: Store) -> None:
    for code in ("AAAA", "BBBB", "CCCC"):
        await _room(store, code)
    calls = [(code, idx) for idx in range(20) for code in ("AAAA", "BBBB", "CCCC")]
    with _executions(store, "actions") as inserts:
        results = await asyncio.gather(
            *(store.append_action(c, 1, i, i % 4, {"n": i, "room": c}) for c, i in calls)
        )
    assert results == [None] * len(calls)
    assert len(inserts) == 1  # one executemany, one transaction
    # Durable: another store (another process) reads them; the row ids follow call order.
    other = Store(store.url)
    try:
        for code in ("AAAA", "BBBB", "CCCC"):
            logged = await other.hand_actions(code, 1)
            assert logged == [(i % 4, {"n": i, "room": code}) for i in range(20)]
    finally:
        await other.close()
    async with store.engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT r.code, a.idx FROM actions a JOIN hands h ON h.id = a.hand_id"
                    " JOIN rooms r ON r.id = h.room_id ORDER BY a.id"
                )
            )
        ).all()
    assert [tuple(r) for r in rows] == calls


async def test_appends_while_a_batch_commits_go_in_the_next_batch(store: Store) -> None:
    """Sequential appenders (each awaits its own action, as a room does) share commits."""
    await _room(store, "AAAA", hands=8)

    async def room(hand_no: int) -> None:
        for idx in range(10):
            await store.append_action("AAAA", hand_no, idx, idx % 4, {"i": idx})

    with _executions(store, "actions") as inserts:
        await asyncio.gather(*(room(h) for h in range(1, 9)))
    assert await _scalar(store, "SELECT count(*) FROM actions") == 80
    # 8 appenders x 10 actions: one batch per round of 8, never one per action.
    assert len(inserts) <= 10 + 1
    for hand_no in range(1, 9):
        assert [p["i"] for _, p in await store.hand_actions("AAAA", hand_no)] == list(range(10))


async def test_a_duplicate_in_a_batch_fails_only_its_caller(store: Store) -> None:
    await _room(store, "AAAA", hands=2)
    await store.append_action("AAAA", 1, 0, 0, {"first": True})
    with _executions(store, "commit") as commits:
        results = await asyncio.gather(
            store.append_action("AAAA", 1, 1, 1, {"k": "a"}),
            store.append_action("AAAA", 1, 0, 2, {"k": "already logged"}),
            store.append_action("AAAA", 2, 0, 0, {"k": "b"}),
            store.append_action("AAAA", 2, 0, 3, {"k": "twice in this batch"}),
            store.append_action("AAAA", 9, 0, 0, {"k": "no such hand"}),
            store.append_action("AAAA", 1, 2, 2, {"k": "c"}),
            return_exceptions=True,
        )
    assert results[0] is None and results[2] is None and results[5] is None
    assert isinstance(results[1], Conflict)
    assert isinstance(results[3], Conflict)
    assert isinstance(results[4], NotFound)
    # the batch failed as a whole, then its rows went in one by one in ONE transaction
    assert len(commits) == 1
    assert await store.hand_actions("AAAA", 1) == [
        (0, {"first": True}),
        (1, {"k": "a"}),
        (2, {"k": "c"}),
    ]
    assert await store.hand_actions("AAAA", 2) == [(0, {"k": "b"})]


async def test_a_failed_batch_fails_every_caller_and_writes_nothing(store: Store) -> None:
    await _room(store, "AAAA")
    results = await asyncio.gather(
        store.append_action("AAAA", 1, 0, 0, {"ok": 1}),
        store.append_action("AAAA", 1, 1, 1, {"bad": object()}),  # cannot be encoded
        store.append_action("AAAA", 1, 2, 2, {"ok": 2}),
        return_exceptions=True,
    )
    assert all(isinstance(r, Exception) for r in results), results
    assert not any(isinstance(r, Conflict | NotFound) for r in results)
    assert await _scalar(store, "SELECT count(*) FROM actions") == 0
    # The writer carries on with the next batch.
    await store.append_action("AAAA", 1, 0, 0, {"ok": 1})
    assert await store.hand_actions("AAAA", 1) == [(0, {"ok": 1})]


async def test_a_caller_cancelled_before_its_batch_is_not_written(store: Store) -> None:
    await _room(store, "AAAA")
    kept = asyncio.ensure_future(store.append_action("AAAA", 1, 0, 0, {"kept": True}))
    dropped = asyncio.ensure_future(store.append_action("AAAA", 1, 1, 0, {"kept": False}))
    await asyncio.sleep(0)  # both queued, the writer not yet run
    dropped.cancel()
    await kept
    with pytest.raises(asyncio.CancelledError):
        await dropped
    assert await store.hand_actions("AAAA", 1) == [(0, {"kept": True})]


# ---------------------------------------------------------------------- finish_hand


async def test_finish_hand_settles_sets_status_and_gives_totals_once(store: Store) -> None:
    await _room(store, "AAAA")
    with _executions(store, "commit") as commits:
        done = await store.finish_hand(
            "AAAA", 1, "win", {"v": 1}, PAYMENTS, DELTAS, status="between", totals=[0, 0, 0, 0]
        )
    assert done == FinishedHand(settled=True, totals=DELTAS)
    if store.engine.dialect.name == "postgresql":
        # written on the driver's connection, out of SQLAlchemy's sight: every row it wrote
        # carries the id of the one transaction that wrote it
        xids = await _scalar(
            store,
            "SELECT array_agg(DISTINCT x::text) FROM ("
            " SELECT xmin AS x FROM hands WHERE hand_no = 1"
            " UNION ALL SELECT xmin FROM ledger_entries"
            " UNION ALL SELECT xmin FROM seat_deltas"
            " UNION ALL SELECT xmin FROM rooms WHERE code = 'AAAA') t",
        )
        assert len(xids) == 1
        assert commits == []
    else:
        assert len(commits) == 1
    room = await store.get_room("AAAA")
    assert room is not None and room.status == "between"
    assert await store.totals("AAAA") == DELTAS
    assert await store.ledger_by_hand("AAAA", 1) == PAYMENTS

    # the caller's totals carry on; the store's sums agree
    pay2 = [{"from": 0, "to": 3, "points": 4, "reason": "zi_mo", "detail": None}]
    await store.start_hand("AAAA", 2, "seed-2", 0, 1)
    done2 = await store.finish_hand(
        "AAAA", 2, "win", {}, pay2, [-4, 0, 0, 4], status="finished", totals=done.totals
    )
    assert done2 == FinishedHand(True, [4, -6, -2, 4])
    assert await store.totals("AAAA") == [4, -6, -2, 4]

    # settling again writes nothing and gives the stored totals (not the caller's + deltas)
    again = await store.finish_hand(
        "AAAA", 1, "draw", {"v": 2}, [], [0, 0, 0, 0], status="finished", totals=[100] * 4
    )
    assert again == FinishedHand(False, [4, -6, -2, 4])
    [hand1, _] = await store.hands("AAAA")
    assert (hand1.result, hand1.settlement, hand1.deltas) == ("win", {"v": 1}, DELTAS)
    assert await _scalar(store, "SELECT count(*) FROM ledger_entries") == 3
    assert await _scalar(store, "SELECT count(*) FROM seat_deltas") == 8
    linked = await _scalar(store, "SELECT count(*) FROM seat_deltas WHERE player_id IS NOT NULL")
    assert linked == 8

    # without totals the store reads them, in the same transaction
    await store.start_hand("AAAA", 3, "seed-3", 0, 1)
    done3 = await store.finish_hand("AAAA", 3, "draw", {}, [], [0, 0, 0, 0], status=None)
    assert done3 == FinishedHand(True, [4, -6, -2, 4])
    room = await store.get_room("AAAA")
    assert room is not None and room.status == "finished"  # status=None left it


async def test_a_late_end_of_a_hand_leaves_the_next_hands_status(store: Store) -> None:
    """A process that lost the lease while stalled ends hand 1 after the new owner settled
    it and dealt hand 2: nothing of it is written, the room stays ``playing`` (it was put
    back to ``between``, so the room looked idle between hands while hand 2 was played)."""
    await _room(store, "LATE")
    first = await store.finish_hand(
        "LATE", 1, "win", {"v": 1}, PAYMENTS, DELTAS, status="between", totals=[0, 0, 0, 0]
    )
    assert first.settled
    await store.start_hand("LATE", 2, "seed-2", 1, 1, status="playing")
    late = await store.finish_hand(
        "LATE", 1, "win", {"v": 1}, PAYMENTS, DELTAS, status="between", totals=[0, 0, 0, 0]
    )
    assert late == FinishedHand(False, DELTAS)
    room = await store.get_room("LATE")
    assert room is not None and room.status == "playing"
    # while hand 1 is the last one, a rebuilt room's repeated end still sets its status
    await _room(store, "AGAIN")
    await store.finish_hand("AGAIN", 1, "win", {}, PAYMENTS, DELTAS, status="between")
    await store.set_room_status("AGAIN", "playing")
    again = await store.finish_hand("AGAIN", 1, "win", {}, PAYMENTS, DELTAS, status="between")
    assert not again.settled
    room = await store.get_room("AGAIN")
    assert room is not None and room.status == "between"


async def test_finish_hand_failing_midway_writes_nothing(store: Store) -> None:
    """The seat_deltas INSERT fails after the hand UPDATE and the ledger INSERT ran: the
    transaction leaves no settled hand, no ledger row and the old room status."""
    await _room(store, "AAAA")
    async with store.engine.begin() as conn:  # a stray row makes uq_seat_deltas_hand_seat fail
        await conn.execute(
            text(
                "INSERT INTO seat_deltas (hand_id, seat, player_id, delta)"
                " SELECT id, 2, NULL, 0 FROM hands"
            )
        )
    with pytest.raises(Conflict):
        await store.finish_hand(
            "AAAA", 1, "win", {}, PAYMENTS, DELTAS, status="between", totals=[0, 0, 0, 0]
        )
    [hand] = await store.hands("AAAA")
    assert hand.ended_at is None and hand.result is None and hand.settlement is None
    assert await _scalar(store, "SELECT count(*) FROM ledger_entries") == 0
    assert await _scalar(store, "SELECT count(*) FROM seat_deltas") == 1
    room = await store.get_room("AAAA")
    assert room is not None and room.status == "open"


async def test_finish_hand_cancelled_midway_is_all_or_nothing(store: Store) -> None:
    """The caller is cancelled after the hand UPDATE ran (e.g. the room actor stopped): the
    transaction is rolled back as a whole, or (SQLite: the writer thread finishes what it
    began) committed as a whole. Never a settled hand without its ledger and status."""
    await _room(store, "AAAA")
    if store.engine.dialect.name == "postgresql":
        await _cancel_finish_hand_behind_a_room_lock(store)
    else:
        loop = asyncio.get_running_loop()
        updated = asyncio.Event()

        def after(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if statement.startswith("UPDATE hands"):
                loop.call_soon_threadsafe(updated.set)

        engine = store.write_engine
        event.listen(engine, "after_cursor_execute", after)
        try:
            task = asyncio.ensure_future(
                store.finish_hand("AAAA", 1, "win", {}, PAYMENTS, DELTAS, status="between")
            )
            await updated.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            event.remove(engine, "after_cursor_execute", after)
    await asyncio.sleep(0.2)  # let a writer thread that was mid-transaction finish
    [hand] = await store.hands("AAAA")
    room = await store.get_room("AAAA")
    assert room is not None
    ledger = await _scalar(store, "SELECT count(*) FROM ledger_entries")
    deltas = await _scalar(store, "SELECT count(*) FROM seat_deltas")
    if hand.ended_at is None:
        assert (ledger, deltas, room.status) == (0, 0, "open")
        done = await store.finish_hand("AAAA", 1, "win", {}, PAYMENTS, DELTAS, status="between")
        assert done == FinishedHand(True, DELTAS)
    else:
        assert (ledger, deltas, room.status) == (2, 4, "between")
        assert hand.deltas == DELTAS
    if store.engine.dialect.name == "postgresql":
        assert hand.ended_at is None  # the async transaction is rolled back


async def _cancel_finish_hand_behind_a_room_lock(store: Store) -> None:
    """PostgreSQL: another transaction holds room AAAA's row, so ``finish_hand`` (on the
    driver's connection, out of SQLAlchemy's events) has run the hand UPDATE and the ledger
    and seat_deltas INSERTs and waits in the room's status UPDATE; it is cancelled there."""
    async with store.engine.connect() as blocker:
        tx = await blocker.begin()
        await blocker.execute(text("SELECT id FROM rooms WHERE code = 'AAAA' FOR UPDATE"))
        task = asyncio.ensure_future(
            store.finish_hand("AAAA", 1, "win", {}, PAYMENTS, DELTAS, status="between")
        )
        waiting = 0
        for _ in range(500):
            await asyncio.sleep(0.01)
            waiting = await _scalar(
                store,
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND query LIKE 'UPDATE rooms SET status%'",
            )
            if waiting:
                break
        assert waiting == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await tx.rollback()


async def test_finish_hand_refuses_bad_input_and_writes_nothing(store: Store) -> None:
    await _room(store, "AAAA")
    with pytest.raises(ValueError):
        await store.finish_hand("AAAA", 1, "win", {}, PAYMENTS, DELTAS, status="x", totals=[0])
    with pytest.raises(ValueError):
        await store.finish_hand("AAAA", 1, "win", {}, [], [1, -1, 0, 1], status="x")
    with pytest.raises(NotFound):
        await store.finish_hand("AAAA", 7, "win", {}, [], [0, 0, 0, 0], status="x")
    with pytest.raises(NotFound):
        await store.finish_hand("NOPE", 1, "win", {}, [], [0, 0, 0, 0], status="x")
    [hand] = await store.hands("AAAA")
    assert hand.ended_at is None
    room = await store.get_room("AAAA")
    assert room is not None and room.status == "open"


# ---------------------------------------------------------------------- concurrency


async def test_many_concurrent_rooms_writers_and_readers(store: Store) -> None:
    """200 rooms appending, ending hands and starting the next, while readers read: every
    write lands, nothing raises (on SQLite: never ``database is locked``)."""
    rooms = [f"R{n:03d}" for n in range(200)]
    await asyncio.gather(*(store.create_room(code, "guiyang", {"players": 4}) for code in rooms))
    await asyncio.gather(
        *(
            store.add_player(code, seat, f"p{seat}", "h", True)
            for code in rooms
            for seat in range(4)
        )
    )

    async def play(code: str) -> list[int]:
        totals = [0, 0, 0, 0]
        for hand_no in (1, 2):
            await store.start_hand(code, hand_no, "s", 0, 1)
            for idx in range(6):
                await store.append_action(code, hand_no, idx, idx % 4, {"i": idx})
            done = await store.finish_hand(
                code, hand_no, "win", {}, PAYMENTS, DELTAS, status="between", totals=totals
            )
            assert done.settled
            totals = done.totals
        return totals

    reads: list[str] = []

    async def reader(n: int) -> None:
        for k in range(10):
            code = rooms[(n * 10 + k) % len(rooms)]
            room = await store.get_room(code)
            assert room is not None and len(room.players) == 4
            await store.hands(code)
            assert len(await store.totals(code)) == 4
            reads.append(code)

    *results, _ = await asyncio.gather(
        *(play(code) for code in rooms), asyncio.gather(*(reader(n) for n in range(20)))
    )
    assert results == [[16, -12, -4, 0]] * len(rooms)
    assert len(reads) == 200
    assert await _scalar(store, "SELECT count(*) FROM actions") == 200 * 2 * 6
    assert await _scalar(store, "SELECT count(*) FROM seat_deltas") == 200 * 2 * 4
    for code in rooms[:5]:
        assert await store.totals(code) == [16, -12, -4, 0]


async def test_two_stores_on_one_database_write_at_once(store: Store) -> None:
    """Two processes' stores (two writers on one SQLite file: busy_timeout, BEGIN IMMEDIATE)
    appending to their own rooms at the same time."""
    await _room(store, "AAAA")
    await _room(store, "BBBB")
    other = Store(store.url)
    try:

        async def play(s: Store, code: str) -> None:
            for idx in range(30):
                await s.append_action(code, 1, idx, idx % 4, {"i": idx})

        await asyncio.gather(play(store, "AAAA"), play(other, "BBBB"))
        assert len(await other.hand_actions("AAAA", 1)) == 30
        assert len(await store.hand_actions("BBBB", 1)) == 30
    finally:
        await other.close()


async def test_sqlite_busy_loop_never_database_is_locked(tmp_path: Path) -> None:
    """200 rooms on SQLite while the event loop is blocked 100 ms of every 110 (a CPU-bound
    process). The old store held SQLite's write lock across awaits on many connections and
    failed here with ``database is locked`` once waiters outlasted busy_timeout; the single
    writer thread commits each transaction whole, so nothing waits on the lock."""
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'busy.db'}")
    await store.migrate()
    rooms = [f"B{n:03d}" for n in range(200)]
    await asyncio.gather(*(store.create_room(code, "guiyang", {"players": 4}) for code in rooms))
    await asyncio.gather(
        *(
            store.add_player(code, seat, f"p{seat}", "h", True)
            for code in rooms
            for seat in range(4)
        )
    )

    async def play(code: str) -> FinishedHand:
        await store.start_hand(code, 1, "s", 0, 1)
        for idx in range(6):
            await store.append_action(code, 1, idx, idx % 4, {"i": idx})
        await store.get_room(code)
        return await store.finish_hand(
            code, 1, "win", {}, PAYMENTS, DELTAS, status="between", totals=[0, 0, 0, 0]
        )

    stop = asyncio.Event()

    async def hog() -> None:
        while not stop.is_set():
            time.sleep(0.1)  # blocks the loop on purpose
            await asyncio.sleep(0.01)

    hogging = asyncio.ensure_future(hog())
    try:
        results = await asyncio.gather(*(play(code) for code in rooms), return_exceptions=True)
    finally:
        stop.set()
        await hogging
        await store.close()
    failures = [r for r in results if not isinstance(r, FinishedHand)]
    assert failures == []
    assert results == [FinishedHand(True, DELTAS)] * len(rooms)


async def test_sqlite_log_waits_for_another_writer_without_blocking_the_loop(
    tmp_path: Path,
) -> None:
    """The action log is written on the event loop's thread (`Store._sqlite_append_here`)
    but never waits there: while another connection holds SQLite's write lock the batch goes
    to the writer thread, which waits for the lock, and the loop runs on meanwhile."""
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'lock.db'}")
    await store.migrate()
    await _room(store, "AAAA")
    await store.append_action("AAAA", 1, 0, 0, {"i": 0})  # here, on the loop's thread
    other = sqlite3.connect(tmp_path / "lock.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process's write transaction
        pending = asyncio.ensure_future(store.append_action("AAAA", 1, 1, 1, {"i": 1}))
        await asyncio.sleep(0.2)  # the loop is free: this sleep ends, the append still waits
        assert not pending.done()
        other.execute("COMMIT")
        await asyncio.wait_for(pending, 10)
        await store.append_action("AAAA", 1, 2, 2, {"i": 2})
        assert [p["i"] for _, p in await store.hand_actions("AAAA", 1)] == [0, 1, 2]
    finally:
        other.close()
        await store.close()


async def test_sqlite_log_checkpoints_in_the_writer_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log's connection never checkpoints (it would fsync on the loop's thread): every
    `LOG_CHECKPOINT_EVERY` of its commits a PASSIVE checkpoint runs in the writer
    thread."""
    monkeypatch.setattr(store_module, "LOG_CHECKPOINT_EVERY", 10)
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'wal.db'}")
    await store.migrate()
    await _room(store, "AAAA")
    threads: list[str] = []
    checkpoint = store._sqlite_checkpoint

    def counted() -> None:
        threads.append(threading.current_thread().name)
        checkpoint()

    store._sqlite_checkpoint = counted  # type: ignore[method-assign]
    try:
        for idx in range(35):
            await store.append_action("AAAA", 1, idx, idx % 4, {"i": idx})
        await asyncio.sleep(0.1)  # let the last one finish
        assert len(threads) == 3
        assert all(name.startswith("store-writer") for name in threads)
    finally:
        await store.close()
