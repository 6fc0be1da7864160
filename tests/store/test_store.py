"""The store on SQLite and PostgreSQL (``database_url`` is parametrized by conftest)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import inspect, text

from server.store import Conflict, NotFound, PlayerRecord, Store

TABLES = {"rooms", "players", "hands", "actions", "ledger_entries", "seat_deltas"}
HEAD = "0009"


async def _seat_room(store: Store, code: str = "ROOM1", seats: int = 4) -> None:
    await store.create_room(code, "guiyang", {"players": seats, "chicken": True})
    for seat in range(seats):
        await store.add_player(code, seat, f"{code}-p{seat}", f"hash{seat}", seat >= 2)


def _payments() -> list[dict[str, Any]]:
    return [
        {"from": 1, "to": 0, "points": 6, "reason": "dian_pao", "detail": {"fan": 3}},
        {"from": 2, "to": 0, "points": 2, "reason": "chicken", "detail": {"tile": "1s"}},
        {"from": 3, "to": 2, "points": 1, "reason": "chicken", "detail": None},
    ]


DELTAS = [8, -6, -1, -1]


async def _count(store: Store, table: str) -> int:
    async with store.engine.connect() as conn:
        return int((await conn.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one())


async def test_migrate_creates_schema_and_is_idempotent(database_url: str) -> None:
    store = Store(database_url)
    try:
        await store.migrate()
        await store.migrate()
        async with store.engine.connect() as conn:
            names = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert TABLES | {"alembic_version"} <= names
        assert version == [(HEAD,)]
    finally:
        await store.close()


async def test_schema_types_and_indexes(store: Store) -> None:
    """Timestamps with time zone, integer points, JSONB on PostgreSQL, and the indexes the
    admin's queries use (by player, by room, by time): all made by the migrations."""

    def describe(conn: Any) -> dict[str, Any]:
        insp = inspect(conn)
        out: dict[str, Any] = {}
        for table in TABLES:
            out[table] = {
                "columns": {c["name"]: c["type"] for c in insp.get_columns(table)},
                "indexes": {tuple(i["column_names"]) for i in insp.get_indexes(table)}
                | {tuple(u["column_names"]) for u in insp.get_unique_constraints(table)},
            }
        return out

    async with store.engine.connect() as conn:
        schema = await conn.run_sync(describe)
    cols = {t: schema[t]["columns"] for t in TABLES}
    for table, column in [
        ("rooms", "created_at"),
        ("hands", "started_at"),
        ("hands", "ended_at"),
        ("actions", "created_at"),
        ("ledger_entries", "created_at"),
    ]:
        if store.engine.dialect.name == "postgresql":
            assert getattr(cols[table][column], "timezone", False), (table, column)
    for table, column in [("ledger_entries", "points"), ("seat_deltas", "delta")]:
        assert cols[table][column].python_type is int
    if store.engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        for table, column in [
            ("rooms", "options"),
            ("actions", "payload"),
            ("hands", "settlement"),
            ("ledger_entries", "detail"),
        ]:
            assert isinstance(cols[table][column], JSONB), (table, column)
    assert ("name",) in schema["players"]["indexes"]  # by player
    assert ("room_id", "seat") in schema["players"]["indexes"]
    assert ("code",) in schema["rooms"]["indexes"]  # by room
    assert ("room_id", "hand_no") in schema["hands"]["indexes"]
    assert ("created_at",) in schema["ledger_entries"]["indexes"]  # by time
    assert ("hand_id",) in schema["ledger_entries"]["indexes"]


async def test_rooms_and_players(store: Store) -> None:
    await store.create_room("ABCD", "guiyang", {"players": 3})
    with pytest.raises(Conflict):
        await store.create_room("ABCD", "guiyang", {})
    await store.add_player("ABCD", 2, "carol", "h2", False)
    await store.add_player("ABCD", 0, "alice", "h0", True)
    with pytest.raises(Conflict):
        await store.add_player("ABCD", 0, "mallory", "hx", False)
    with pytest.raises(NotFound):
        await store.add_player("NOPE", 0, "x", "h", False)

    room = await store.get_room("ABCD")
    assert room is not None
    assert (room.code, room.game, room.options, room.status) == (
        "ABCD",
        "guiyang",
        {"players": 3},
        "open",
    )
    assert room.players == [
        PlayerRecord(0, "alice", "h0", True),
        PlayerRecord(2, "carol", "h2", False),
    ]
    assert await store.get_room("NOPE") is None

    await store.set_room_status("ABCD", "playing")
    assert (await store.get_room("ABCD")).status == "playing"  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        await store.set_room_status("NOPE", "closed")
    assert [r.code for r in await store.rooms()] == ["ABCD"]
    assert await store.rooms(status="open") == []


async def test_the_next_room_is_recorded_once(store: Store) -> None:
    """再来一场: the first next room recorded stays (concurrent callers all get it)."""
    await _seat_room(store, "OLD1")
    assert await store.next_room("OLD1") is None
    assert (await store.get_room("OLD1")).next_code is None  # type: ignore[union-attr]
    got = await asyncio.gather(*(store.set_next_room("OLD1", f"NEW{i}") for i in range(4)))
    assert len(set(got)) == 1 and got[0] in {f"NEW{i}" for i in range(4)}
    assert await store.set_next_room("OLD1", "LATE") == got[0]
    assert await store.next_room("OLD1") == got[0]
    assert (await store.get_room("OLD1")).next_code == got[0]  # type: ignore[union-attr]
    assert await store.next_room("NOPE") is None
    with pytest.raises(NotFound):
        await store.set_next_room("NOPE", "NEW9")


async def test_a_hand_starts_with_the_room_status_in_one_write(store: Store) -> None:
    """``start_hand(..., status=)`` sets the room's status with the new hand (the room's
    between-hands -> playing), and a hand that exists writes neither."""
    await _seat_room(store)
    await store.set_room_status("ROOM1", "between")
    started = await store.start_hand("ROOM1", 1, "seed-1", 2, 3, 5, status="playing")
    hand = (await store.hands("ROOM1"))[0]
    assert (hand.id, hand.hand_no, hand.seed, hand.dealer, hand.dealer_streak) == (
        started.id,
        1,
        "seed-1",
        2,
        3,
    )
    assert (hand.weekday, hand.replay_key) == (5, started.replay_key)
    assert hand.started_at.tzinfo is not None and hand.ended_at is None
    assert (await store.get_room("ROOM1")).status == "playing"  # type: ignore[union-attr]
    await store.set_room_status("ROOM1", "between")
    with pytest.raises(Conflict):
        await store.start_hand("ROOM1", 1, "seed-x", 0, 1, status="playing")
    assert (await store.get_room("ROOM1")).status == "between"  # type: ignore[union-attr]
    assert [h.seed for h in await store.hands("ROOM1")] == ["seed-1"]
    await store.start_hand("ROOM1", 2, "seed-2", 0, 1)  # no status: left as it is
    assert (await store.get_room("ROOM1")).status == "between"  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        await store.start_hand("NOPE", 1, "seed", 0, 1, status="playing")


async def test_unfinished_rooms_in_one_list(store: Store) -> None:
    for code, status, bots in [
        ("HUMN", "playing", [False, True]),
        ("BOTS", "between", [True, True]),
        ("EMPT", "playing", []),
        ("OPEN", "open", [False]),
        ("DONE", "finished", [True]),
    ]:
        await store.create_room(code, "guiyang", {})
        for seat, is_bot in enumerate(bots):
            await store.add_player(code, seat, f"p{seat}", f"h{seat}", is_bot)
        await store.set_room_status(code, status)
    assert await store.unfinished_rooms(["playing", "between"]) == [
        ("HUMN", False),
        ("BOTS", True),
        ("EMPT", False),
    ]
    assert await store.unfinished_rooms(["open"]) == [("OPEN", False)]
    assert await store.unfinished_rooms([]) == []


async def test_foreign_keys_are_enforced(store: Store) -> None:
    with pytest.raises(Exception, match="(?i)foreign key"):
        async with store.engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO players (room_id, seat, name, token_hash, is_bot, created_at)"
                    " VALUES (424242, 0, 'x', 'h', false, CURRENT_TIMESTAMP)"
                )
            )


async def test_actions_come_back_in_idx_order(store: Store) -> None:
    await _seat_room(store)
    await store.start_hand("ROOM1", 1, "seed-1", dealer=0, dealer_streak=1)
    with pytest.raises(Conflict):
        await store.start_hand("ROOM1", 1, "seed-x", dealer=0, dealer_streak=1)
    for idx in (2, 0, 3, 1):
        await store.append_action(
            "ROOM1", 1, idx, idx % 4, {"kind": "discard", "tile": f"{idx + 1}m"}
        )
    with pytest.raises(Conflict):
        await store.append_action("ROOM1", 1, 2, 0, {"kind": "pass"})
    with pytest.raises(NotFound):
        await store.append_action("ROOM1", 9, 0, 0, {"kind": "pass"})
    with pytest.raises(NotFound):
        await store.start_hand("NOPE", 1, "s", 0, 1)

    assert await store.hand_actions("ROOM1", 1) == [
        (0, {"kind": "discard", "tile": "1m"}),
        (1, {"kind": "discard", "tile": "2m"}),
        (2, {"kind": "discard", "tile": "3m"}),
        (3, {"kind": "discard", "tile": "4m"}),
    ]
    # A fresh store (another process) sees the same log.
    other = Store(store.url)
    try:
        assert len(await other.hand_actions("ROOM1", 1)) == 4
    finally:
        await other.close()


async def test_a_logged_payload_reads_back_as_json_reads_it(store: Store) -> None:
    """The log's JSON text (orjson, `_json_text`) keeps what the stdlib encoder kept: a
    seat-number key comes back as a string, text outside ASCII as is, a tuple as a list."""
    await _seat_room(store)
    await store.start_hand("ROOM1", 1, "seed-1", dealer=0, dealer_streak=1)
    payload = {"action": {"kind": "pass"}, "by_seat": {2: "东"}, "tiles": ("1m", "2m")}
    await store.append_action("ROOM1", 1, 0, 2, payload)
    assert await store.hand_actions("ROOM1", 1) == [
        (2, {"action": {"kind": "pass"}, "by_seat": {"2": "东"}, "tiles": ["1m", "2m"]})
    ]


async def test_settle_hand_writes_payments_and_zero_sum_deltas(store: Store) -> None:
    await _seat_room(store)
    await store.start_hand("ROOM1", 1, "seed-1", 0, 1)
    settlement = {"winners": [0], "payments": _payments()}
    assert await store.settle_hand("ROOM1", 1, "win", settlement, _payments(), DELTAS) is True

    [hand] = await store.hands("ROOM1")
    assert (hand.code, hand.hand_no, hand.seed, hand.dealer, hand.dealer_streak) == (
        "ROOM1",
        1,
        "seed-1",
        0,
        1,
    )
    assert hand.result == "win" and hand.settlement == settlement
    assert hand.deltas == DELTAS and sum(hand.deltas) == 0
    assert hand.ended_at is not None and hand.ended_at.tzinfo is not None
    assert hand.ended_at >= hand.started_at

    rows = await store.ledger_by_hand("ROOM1", 1)
    assert rows == _payments()
    assert await _count(store, "ledger_entries") == 3
    assert await _count(store, "seat_deltas") == 4
    async with store.engine.connect() as conn:
        linked = (
            await conn.execute(text("SELECT count(*) FROM seat_deltas WHERE player_id IS NOT NULL"))
        ).scalar_one()
    assert linked == 4
    assert await store.totals("ROOM1") == DELTAS


async def test_settling_twice_returns_false_and_writes_nothing(store: Store) -> None:
    await _seat_room(store)
    await store.start_hand("ROOM1", 1, "seed-1", 0, 1)
    assert await store.settle_hand("ROOM1", 1, "win", {"v": 1}, _payments(), DELTAS)
    other = [{"from": 0, "to": 1, "points": 5, "reason": "x", "detail": None}]
    assert await store.settle_hand("ROOM1", 1, "draw", {"v": 2}, other, [-5, 5, 0, 0]) is False
    [hand] = await store.hands("ROOM1")
    assert (hand.result, hand.settlement, hand.deltas) == ("win", {"v": 1}, DELTAS)
    assert await _count(store, "ledger_entries") == 3
    assert await _count(store, "seat_deltas") == 4


async def test_concurrent_settlement_from_two_processes_settles_once(store: Store) -> None:
    await _seat_room(store)
    await store.start_hand("ROOM1", 1, "seed-1", 0, 1)
    stores = [Store(store.url) for _ in range(4)]
    try:
        results = await asyncio.gather(
            *(
                s.settle_hand("ROOM1", 1, "win", {"by": i}, _payments(), DELTAS)
                for i, s in enumerate(stores)
            )
        )
    finally:
        for s in stores:
            await s.close()
    assert sorted(results) == [False, False, False, True]
    assert await _count(store, "ledger_entries") == 3
    assert await _count(store, "seat_deltas") == 4
    assert await store.totals("ROOM1") == DELTAS


@pytest.mark.parametrize(
    ("payments", "deltas"),
    [
        ([], [1, -1, 0, 1]),  # does not sum to zero
        ([{"from": 1, "to": 0, "points": 3, "reason": "x"}], [2, -2, 0, 0]),  # payments != deltas
        ([{"from": 1, "to": 0, "points": 1.5, "reason": "x"}], [1, -1, 0, 0]),  # not an int
        ([{"from": 1, "to": 7, "points": 1, "reason": "x"}], [1, -1, 0, 0]),  # no such seat
    ],
)
async def test_invalid_settlement_is_refused_and_writes_nothing(
    store: Store, payments: list[dict[str, Any]], deltas: list[int]
) -> None:
    await _seat_room(store)
    await store.start_hand("ROOM1", 1, "seed-1", 0, 1)
    with pytest.raises(ValueError):
        await store.settle_hand("ROOM1", 1, "win", {}, payments, deltas)
    [hand] = await store.hands("ROOM1")
    assert hand.ended_at is None and hand.deltas == []
    assert await _count(store, "ledger_entries") == 0
    with pytest.raises(NotFound):
        await store.settle_hand("ROOM1", 2, "win", {}, [], [0, 0, 0, 0])


async def test_totals_sum_over_hands(store: Store) -> None:
    await _seat_room(store)
    assert await store.totals("ROOM1") == [0, 0, 0, 0]
    await store.start_hand("ROOM1", 1, "s1", 0, 1)
    await store.start_hand("ROOM1", 2, "s2", 0, 2)
    await store.start_hand("ROOM1", 3, "s3", 1, 1)
    await store.settle_hand("ROOM1", 1, "win", {}, _payments(), DELTAS)
    pay2 = [{"from": 0, "to": 3, "points": 4, "reason": "zi_mo", "detail": {}}]
    await store.settle_hand("ROOM1", 2, "win", {}, pay2, [-4, 0, 0, 4])
    assert await store.totals("ROOM1") == [4, -6, -1, 3]
    assert sum(await store.totals("ROOM1")) == 0
    hands = await store.hands("ROOM1")
    assert [h.hand_no for h in hands] == [1, 2, 3]
    assert [h.deltas for h in hands] == [DELTAS, [-4, 0, 0, 4], []]
    with pytest.raises(NotFound):
        await store.totals("NOPE")


async def test_ledger_filters(store: Store) -> None:
    await _seat_room(store, "AAAA")
    await _seat_room(store, "BBBB")
    await store.start_hand("AAAA", 1, "s", 0, 1)
    await store.start_hand("BBBB", 1, "s", 0, 1)
    await store.settle_hand("AAAA", 1, "win", {}, _payments(), DELTAS)
    before_b = datetime.now(UTC)
    await asyncio.sleep(0.01)
    pay_b = [{"from": 3, "to": 1, "points": 2, "reason": "zi_mo", "detail": None}]
    await store.settle_hand("BBBB", 1, "win", {}, pay_b, [0, 2, 0, -2])

    everything = await store.ledger()
    assert len(everything) == 4
    assert everything[0]["room"] == "BBBB"  # newest first
    assert {r["room"] for r in await store.ledger(code="AAAA")} == {"AAAA"}
    assert len(await store.ledger(code="AAAA")) == 3

    row = (await store.ledger(code="BBBB"))[0]
    assert {k: row[k] for k in ("room", "hand_no", "from", "to", "points", "reason")} == {
        "room": "BBBB",
        "hand_no": 1,
        "from": 3,
        "to": 1,
        "points": 2,
        "reason": "zi_mo",
    }
    assert (row["from_name"], row["to_name"]) == ("BBBB-p3", "BBBB-p1")
    assert datetime.fromisoformat(row["created_at"]).tzinfo is not None

    by_player = await store.ledger(player="AAAA-p2")
    assert sorted((r["from"], r["to"]) for r in by_player) == [(2, 0), (3, 2)]
    assert await store.ledger(player="nobody") == []

    since = await store.ledger(since=before_b)
    assert [r["room"] for r in since] == ["BBBB"]
    naive = before_b.replace(tzinfo=None)  # naive = UTC
    assert [r["room"] for r in await store.ledger(since=naive)] == ["BBBB"]
    assert await store.ledger(since=datetime.now(UTC) + timedelta(hours=1)) == []
    assert len(await store.ledger(limit=2)) == 2


async def test_all_hands_lists_every_room(store: Store) -> None:
    await _seat_room(store, "AAAA")
    await _seat_room(store, "BBBB")
    await store.start_hand("BBBB", 1, "b1", 0, 1)
    await store.start_hand("AAAA", 1, "a1", 0, 1)
    await store.start_hand("AAAA", 2, "a2", 1, 1)
    await store.settle_hand("AAAA", 1, "win", {}, _payments(), DELTAS)
    listed = [(h.code, h.hand_no, h.seed, h.deltas) for h in await store.all_hands()]
    assert listed == [("AAAA", 1, "a1", DELTAS), ("AAAA", 2, "a2", []), ("BBBB", 1, "b1", [])]
