"""PostgreSQL: the action log and ``finish_hand`` run on the asyncpg connection itself
(``server.store.store.PG_*``, issue 9). What they store is what SQLAlchemy's statements
store, their errors are SQLAlchemy's, and a connection that broke is replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from server.store import Conflict, FinishedHand, Store, transient
from server.store.store import _INSERT_ACTIONS

pytestmark = pytest.mark.postgres

PAYLOAD: dict[str, Any] = {"action": {"kind": "discard", "tile": "5m"}, "n": [1, 2.5, None]}
PAYMENTS: list[dict[str, Any]] = [
    {"from": 1, "to": 0, "points": 6, "reason": "dian_pao", "detail": {"fan": 3}},
    {"from": 2, "to": 0, "points": 2, "reason": "chicken", "detail": None},
]
DELTAS = [8, -6, -2, 0]


@pytest.fixture
async def pg(postgres_url: str) -> AsyncIterator[Store]:
    store = Store(postgres_url)
    await store.migrate()
    await store.create_room("RAW1", "guiyang", {"players": 4})
    for seat in range(4):
        await store.add_player("RAW1", seat, f"p{seat}", f"h{seat}", seat >= 2)
    for hand_no in (1, 2):
        await store.start_hand("RAW1", hand_no, f"seed-{hand_no}", 0, 1)
    try:
        yield store
    finally:
        await store.close()


async def _rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    async with store.engine.connect() as conn:
        return [tuple(r) for r in (await conn.execute(text(sql))).all()]


async def _log_backend(store: Store) -> int:
    state = store._state
    assert state is not None and state.log_raw is not None
    return int(state.log_raw.get_server_pid())


async def test_an_appended_row_is_stored_as_sqlalchemy_stores_it(pg: Store) -> None:
    await pg.append_action("RAW1", 1, 0, 1, PAYLOAD)  # the raw path
    hand_id = pg._hand_ids[("RAW1", 1)]
    async with pg.engine.begin() as conn:  # SQLAlchemy's insert(Action), as before
        await conn.execute(
            _INSERT_ACTIONS,
            [{"hand_id": hand_id, "idx": 1, "seat": 1, "payload": PAYLOAD}],
        )
    rows = await _rows(
        pg,
        "SELECT idx, seat, payload::text, jsonb_typeof(payload),"
        " pg_typeof(created_at)::text, created_at > now() - interval '1 minute'"
        " FROM actions ORDER BY idx",
    )
    stored = '{"n": [1, 2.5, null], "action": {"kind": "discard", "tile": "5m"}}'
    assert rows == [
        (0, 1, stored, "object", "timestamp with time zone", True),
        (1, 1, stored, "object", "timestamp with time zone", True),
    ]
    assert await pg.hand_actions("RAW1", 1) == [(1, PAYLOAD), (1, PAYLOAD)]


async def test_a_duplicate_and_a_stale_lease_in_one_batch_fail_only_their_callers(
    pg: Store,
) -> None:
    gen = await pg.fence("RAW1")
    await pg.append_action("RAW1", 1, 0, 0, {"lease": gen})
    assert await pg.fence("RAW1") == gen + 1
    results = await asyncio.gather(
        pg.append_action("RAW1", 1, 1, 1, {"lease": gen + 1, "k": "a"}),
        pg.append_action("RAW1", 1, 0, 2, {"lease": gen + 1, "k": "already logged"}),
        pg.append_action("RAW1", 1, 2, 3, {"lease": gen, "k": "stale owner"}),
        pg.append_action("RAW1", 2, 0, 0, {"k": "unfenced"}),
        return_exceptions=True,
    )
    assert results[0] is None and results[3] is None
    assert isinstance(results[1], Conflict) and not transient(results[1])
    assert isinstance(results[2], Conflict) and not transient(results[2])
    assert await pg.hand_actions("RAW1", 1) == [
        (0, {"lease": gen}),
        (1, {"lease": gen + 1, "k": "a"}),
    ]
    assert await pg.hand_actions("RAW1", 2) == [(0, {"k": "unfenced"})]
    # the log's connection survived the refusals: the same backend writes the next batch
    pid = await _log_backend(pg)
    await pg.append_action("RAW1", 2, 1, 1, {"k": "next"})
    assert await _log_backend(pg) == pid


async def test_a_dropped_log_connection_is_replaced_on_the_next_append(pg: Store) -> None:
    await pg.append_action("RAW1", 1, 0, 0, {"n": 0})
    pid = await _log_backend(pg)
    async with pg.engine.connect() as admin:
        killed = (
            await admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        ).scalar_one()
    assert killed is True
    await asyncio.sleep(0.2)  # the backend is gone
    with pytest.raises(DBAPIError) as raised:
        await pg.append_action("RAW1", 1, 1, 1, {"n": 1})
    assert transient(raised.value)
    assert not isinstance(raised.value, IntegrityError)
    state = pg._state
    assert state is not None and state.log_conn is None and state.log_insert is None
    # the same call again: a new connection, the row written once
    await pg.append_action("RAW1", 1, 1, 1, {"n": 1})
    assert await _log_backend(pg) != pid
    assert await pg.hand_actions("RAW1", 1) == [(0, {"n": 0}), (1, {"n": 1})]


async def test_finish_hand_stores_what_settle_hand_stores(pg: Store) -> None:
    settlement = {"result": "win", "winners": [0], "note": "é", "x": None}
    assert await pg.settle_hand("RAW1", 1, "win", settlement, PAYMENTS, DELTAS)  # SQLAlchemy
    done = await pg.finish_hand(  # the raw path
        "RAW1", 2, "win", settlement, PAYMENTS, DELTAS, status="between", totals=DELTAS
    )
    assert done == FinishedHand(True, [16, -12, -4, 0])
    hands = await _rows(
        pg,
        "SELECT hand_no, result, settlement::text, ended_at IS NOT NULL FROM hands"
        " ORDER BY hand_no",
    )
    assert [h[1:] for h in hands[:1]] == [h[1:] for h in hands[1:]]
    assert hands[0][3] is True
    ledger = await _rows(
        pg,
        "SELECT h.hand_no, l.from_seat, l.to_seat, l.points, l.reason, l.detail::text,"
        " l.detail IS NULL FROM ledger_entries l JOIN hands h ON h.id = l.hand_id"
        " ORDER BY l.id",
    )
    assert ledger == [
        (1, 1, 0, 6, "dian_pao", '{"fan": 3}', False),
        (1, 2, 0, 2, "chicken", "null", False),
        (2, 1, 0, 6, "dian_pao", '{"fan": 3}', False),
        (2, 2, 0, 2, "chicken", "null", False),
    ]
    deltas = await _rows(
        pg,
        "SELECT h.hand_no, d.seat, d.delta, p.seat FROM seat_deltas d"
        " JOIN hands h ON h.id = d.hand_id JOIN players p ON p.id = d.player_id"
        " ORDER BY h.hand_no, d.seat",
    )
    assert deltas == [(h, s, DELTAS[s], s) for h in (1, 2) for s in range(4)]
    assert await pg.ledger_by_hand("RAW1", 2) == PAYMENTS
    assert await pg.totals("RAW1") == [16, -12, -4, 0]
    # settling again: nothing written, the stored totals (read on the raw connection)
    again = await pg.finish_hand(
        "RAW1", 2, "draw", {}, [], [0, 0, 0, 0], status="finished", totals=[100] * 4
    )
    assert again == FinishedHand(False, [16, -12, -4, 0])
    room = await pg.get_room("RAW1")
    assert room is not None and room.status == "finished"


async def test_finish_hand_on_a_fresh_store_looks_the_ids_up(pg: Store) -> None:
    """Another process's store (no ids cached) ends the hand; the pool gets its connection
    back outside any transaction."""
    other = Store(pg.url)
    try:
        done = await other.finish_hand("RAW1", 1, "win", {}, PAYMENTS, DELTAS, status="between")
        assert done == FinishedHand(True, DELTAS)
        with pytest.raises(Conflict):
            async with other.engine.begin() as conn:  # a stray row for hand 2's seat 0
                await conn.execute(
                    text(
                        "INSERT INTO seat_deltas (hand_id, seat, delta) SELECT id, 0, 0"
                        " FROM hands WHERE hand_no = 2"
                    )
                )
            await other.finish_hand("RAW1", 2, "win", {}, PAYMENTS, DELTAS, status="x")
        async with other.engine.connect() as conn:
            in_tx = (await conn.get_raw_connection()).driver_connection.is_in_transaction()
            assert in_tx is False
    finally:
        await other.close()
    assert [h.deltas for h in await pg.hands("RAW1")] == [DELTAS, [0]]
