"""The admin's queries (issue 14) on the real databases: filters and totals against hands
played by bots, corrections as events, keyset pages that return each row once while hands
are being settled."""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, text, update

from bench.admin import fill
from server.audit import audit
from server.store import Conflict, NotFound, Store
from server.store import admin as q
from server.store.models import Hand, Room
from tests.store.admin_data import store_room

MARCH = datetime(2026, 3, 1, tzinfo=UTC)
APRIL = datetime(2026, 4, 1, tzinfo=UTC)


async def _date(store: Store, code: str, when: datetime) -> None:
    """Date a room and its hands (created and settled) at ``when``."""
    async with store.engine.begin() as conn:
        room_id = select(Room.id).where(Room.code == code).scalar_subquery()
        await conn.execute(update(Room).where(Room.code == code).values(created_at=when))
        await conn.execute(
            update(Hand).where(Hand.room_id == room_id).values(started_at=when, ended_at=when)
        )


def _expected(rooms: dict[str, tuple[list[str], list[dict[str, Any]]]], name: str) -> dict:
    hands = wins = points = 0
    by_reason: dict[str, int] = defaultdict(int)
    for names, settlements in rooms.values():
        for seat, who in enumerate(names):
            if who != name:
                continue
            for s in settlements:
                hands += 1
                points += s["deltas"][seat]
                wins += any(p["to"] == seat and p["reason"] == "hu" for p in s["payments"])
                for p in s["payments"]:
                    if p["to"] == seat:
                        by_reason[p["reason"]] += p["points"]
                    if p["from"] == seat:
                        by_reason[p["reason"]] -= p["points"]
    return {
        "player": name,
        "profile": None,
        "hands": hands,
        "wins": wins,
        "points": points,
        "by_reason": {k: v for k, v in sorted(by_reason.items()) if v},
        "games": {"guiyang": {"hands": hands, "points": points}} if hands else {},  # (all R*)
    }


@pytest.fixture
async def played(store: Store) -> dict[str, tuple[list[str], list[dict[str, Any]]]]:
    """Three rooms of hands played by bots: R1 in March, R2 in April, R3 today (one bot)."""
    rooms = {
        "R1": ["ann", "bob", "cat", "dan"],
        "R2": ["ann", "Ann", "eve", "bob"],
        "R3": ["eve", "ann", "fay", "robot"],
    }
    out = {}
    for code, names in rooms.items():
        bots = (3,) if code == "R3" else ()
        out[code] = (names, await store_room(store, code, names, 3, bots=bots))
    await _date(store, "R1", MARCH)
    await _date(store, "R2", APRIL)
    await store.create_room("J1", "jintan", {"players": 4})
    await store.set_room_status("R1", "finished")
    return out


async def test_totals_and_filters_match_the_hands_played(store: Store, played: dict) -> None:
    for name in ("ann", "Ann", "bob", "eve", "robot"):
        assert await q.player_totals(store, name) == _expected(played, name), name
    # names are matched exactly: "Ann" is not "ann"
    assert (await q.player_totals(store, "Ann"))["hands"] == 3
    assert (await q.player_totals(store, "ANN"))["hands"] == 0
    march = q.Range(MARCH, MARCH + timedelta(days=1))
    only_r1 = {"R1": played["R1"]}
    assert await q.player_totals(store, "ann", march) == _expected(only_r1, "ann")
    spring = q.Range(MARCH, APRIL + timedelta(days=1))
    assert (await q.player_totals(store, "bob", spring))["hands"] == 6

    rows, nxt = await q.rooms(store)
    assert nxt is None and [r["code"] for r in rows] == ["J1", "R3", "R2", "R1"]
    assert [r["code"] for r in (await q.rooms(store, game="jintan"))[0]] == ["J1"]
    assert [r["code"] for r in (await q.rooms(store, status="finished"))[0]] == ["R1"]
    assert [r["code"] for r in (await q.rooms(store, player="Ann"))[0]] == ["R2"]
    assert [r["code"] for r in (await q.rooms(store, player="ann"))[0]] == ["R3", "R2", "R1"]
    assert [r["code"] for r in (await q.rooms(store, march))[0]] == ["R1"]
    r1 = [r for r in rows if r["code"] == "R1"][0]
    names, settlements = played["R1"]
    assert r1["hands"] == 3 and [s["name"] for s in r1["seats"]] == names
    assert r1["standings"] == [sum(s["deltas"][i] for s in settlements) for i in range(4)]

    hands, nxt = await q.room_hands(store, "R2", limit=2)
    more, last = await q.room_hands(store, "R2", cursor=nxt)
    assert last is None and [h["hand_no"] for h in hands + more] == [1, 2, 3]
    running = [0, 0, 0, 0]
    for h, s in zip(hands + more, played["R2"][1], strict=True):
        running = [a + b for a, b in zip(running, s["deltas"], strict=True)]
        assert h["deltas"] == s["deltas"] and h["standings"] == running
    with pytest.raises(NotFound):
        await q.room_hands(store, "NOPE")

    board, _ = await q.leaderboard(store)
    players = {"ann", "Ann", "bob", "cat", "dan", "eve", "fay"}
    assert {r["player"] for r in board} == players  # the bot is left out
    # seats from before profiles: one row per exact name, marked as such
    assert len(board) == len(players) and {(r["profile"], r["bot"]) for r in board} == {
        (None, False)
    }
    for r in board:
        want = _expected(played, r["player"])
        assert (r["points"], r["hands"], r["wins"]) == (want["points"], want["hands"], want["wins"])
    assert [r["points"] for r in board] == sorted((r["points"] for r in board), reverse=True)
    with_bots = {r["player"]: r for r in (await q.leaderboard(store, bots=True))[0]}
    assert with_bots["robot"]["bot"] is True and with_bots["robot"]["profile"] is None
    assert with_bots["robot"]["hands"] == 3
    assert {r["player"] for r in (await q.leaderboard(store, march))[0]} == set(played["R1"][0])

    history, _ = await q.player_history(store, "ann")
    assert [(h["room"], h["hand_no"]) for h in history] == [
        (code, n) for code in ("R3", "R2", "R1") for n in (3, 2, 1)
    ]
    assert sum(h["points"] for h in history) == _expected(played, "ann")["points"]
    assert sum(h["won"] for h in history) == _expected(played, "ann")["wins"]

    pays, _ = await q.payments(store, room="R1", limit=1000)
    assert len(pays) == sum(len(s["payments"]) for s in played["R1"][1])
    pays, _ = await q.payments(store, player="Ann", limit=1000)  # seat 1 of R2 only
    want = [p for s in played["R2"][1] for p in s["payments"] if 1 in (p["from"], p["to"])]
    assert len(pays) == len(want) and {p["room"] for p in pays} == {"R2"}
    assert sum(p["points"] for p in pays) == sum(p["points"] for p in want)


async def test_corrections_are_events_that_totals_follow(store: Store, played: dict) -> None:
    names, settlements = played["R1"]
    before = await q.player_totals(store, "ann")
    rows_before = len((await q.payments(store, room="R1", limit=1000))[0])
    hand1 = settlements[0]
    void = await q.correct(store, "R1", 1, kind="void", reason="misdeal", actor="lead")
    assert void["kind"] == "void" and void["actor"] == "lead"
    after = await q.player_totals(store, "ann")
    assert after["hands"] == before["hands"] - 1
    assert after["points"] == before["points"] - hand1["deltas"][0]
    assert sum(after["by_reason"].values()) == after["points"]
    # the original rows stay, marked as voided
    pays, _ = await q.payments(store, room="R1", limit=1000)
    assert len(pays) == rows_before
    assert {p["voided"] for p in pays if p["hand_no"] == 1} == {True}
    hands, _ = await q.room_hands(store, "R1")
    assert hands[0]["voided"] and hands[0]["deltas"] == hand1["deltas"]
    assert hands[0]["effective"] == [0, 0, 0, 0]
    assert hands[-1]["standings"] == [
        sum(s["deltas"][i] for s in settlements[1:]) for i in range(4)
    ]

    adj = await q.correct(
        store, "R1", 2, kind="adjust", reason="miscount", actor="lead", from_seat=1, to_seat=0,
        points=5,
    )  # fmt: skip
    assert (adj["from"], adj["to"], adj["points"]) == (1, 0, 5)
    again = await q.player_totals(store, "ann")
    assert again["points"] == after["points"] + 5 and again["by_reason"].get("adjustment") == 5
    assert (await q.player_totals(store, "bob"))["points"] == (
        _expected(played, "bob")["points"] - hand1["deltas"][1] - 5
    )
    board = {r["player"]: r for r in (await q.leaderboard(store))[0]}
    assert board["ann"]["points"] == again["points"]
    assert board["ann"]["hands"] == again["hands"]
    detail = await q.hand_detail(store, "R1", 2)
    assert detail["effective"] == [
        d + a for d, a in zip(settlements[1]["deltas"], [5, -5, 0, 0], strict=True)
    ]
    history, _ = await q.corrections(store)
    assert [(c["kind"], c["hand_no"], c["actor"], c["reason"]) for c in history] == [
        ("adjust", 2, "lead", "miscount"),
        ("void", 1, "lead", "misdeal"),
    ]
    assert await audit(store) == []

    with pytest.raises(Conflict):
        await q.correct(store, "R1", 1, kind="void", reason="again", actor="lead")
    with pytest.raises(Conflict):  # an adjustment of a voided hand would count for nothing
        await q.correct(
            store, "R1", 1, kind="adjust", reason="x", actor="lead", from_seat=0, to_seat=1,
            points=1,
        )  # fmt: skip
    for bad in (
        {"kind": "adjust", "from_seat": 0, "to_seat": 0, "points": 1},
        {"kind": "adjust", "from_seat": 0, "to_seat": 4, "points": 1},
        {"kind": "adjust", "from_seat": 0, "to_seat": 1, "points": 0},
        {"kind": "undo"},
    ):
        with pytest.raises(ValueError):
            await q.correct(store, "R1", 2, reason="x", actor="lead", **bad)
    with pytest.raises(ValueError):
        await q.correct(store, "R1", 2, kind="void", reason=" ", actor="lead")
    with pytest.raises(NotFound):
        await q.correct(store, "R1", 9, kind="void", reason="x", actor="lead")
    await store.start_hand("R1", 4, "unsettled", 0, 1)
    with pytest.raises(ValueError):
        await q.correct(store, "R1", 4, kind="void", reason="x", actor="lead")
    assert len((await q.corrections(store))[0]) == 2  # nothing written by the refusals

    # two admins voiding one hand at once: one void, the others refused (the hand's row is
    # locked on PostgreSQL; it was voided twice, and the audit failed for good)
    admins = [Store(store.url) for _ in range(6)]  # each its own connections, as two servers
    try:
        tries = await asyncio.gather(
            *(
                q.correct(a, "R1", 3, kind="void", reason=f"race {i}", actor="lead")
                for i, a in enumerate(admins)
            ),
            return_exceptions=True,
        )
    finally:
        for a in admins:
            await a.close()
    assert sum(isinstance(t, dict) for t in tries) == 1, tries
    assert all(isinstance(t, (dict, Conflict)) for t in tries), tries
    assert [c["kind"] for c in (await q.corrections(store))[0]] == ["void", "adjust", "void"]
    assert await audit(store) == []

    # the audit checks corrections too
    async with store.engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO corrections (hand_id, kind, from_seat, to_seat, points, reason, "
                "actor, created_at) SELECT id, 'adjust', 0, 7, 3, 'typo', 'x', CURRENT_TIMESTAMP "
                "FROM hands WHERE hand_no = 3 AND room_id = (SELECT id FROM rooms WHERE code='R2')"
            )
        )
    problems = await audit(store)
    assert len(problems) == 1 and "room R2 hand 3 correction" in problems[0]


async def _settle_one(store: Store, code: str, hand_no: int) -> None:
    await store.start_hand(code, hand_no, f"s{hand_no}", 0, 1)
    payments = [{"from": 1, "to": 0, "points": 3, "reason": "hu"}]
    assert await store.settle_hand(code, hand_no, "win", {}, payments, [3, -3, 0, 0])


async def test_pages_return_each_row_once_while_hands_are_settled(store: Store) -> None:
    await fill(store, 1400, names=300)  # 5,600 payments, 5,600 seat rows, 175 rooms
    await store.create_room("LIVE", "guiyang", {"players": 4})
    for seat, name in enumerate(["player1", "player2", "player3", "player4"]):
        await store.add_player("LIVE", seat, name, "h", False)
    all_rooms = {r.code for r in await store.rooms()}
    board0, none = await q.leaderboard(store, limit=1000)
    assert none is None and len(board0) > 200

    board, nxt = await q.leaderboard(store, limit=37)
    counter = iter(range(1, 100_000))
    stop = asyncio.Event()

    async def settle_meanwhile() -> None:
        new_room = 0
        while not stop.is_set():
            await _settle_one(store, "LIVE", next(counter))
            if next(counter) % 10 == 0:
                new_room += 1
                await store.create_room(f"NEW{new_room}", "guiyang", {"players": 4})
            await asyncio.sleep(0)

    writer = asyncio.create_task(settle_meanwhile())
    try:
        while nxt is not None:
            await _settle_one(store, "LIVE", next(counter))  # at least one between pages
            page, nxt = await q.leaderboard(store, limit=37, cursor=nxt)
            board += page
        assert board == board0  # the snapshot of the first page, whole, once

        async with store.engine.connect() as conn:
            existing = set((await conn.execute(text("SELECT id FROM ledger_entries"))).scalars())
        ledger, nxt = await q.payments(store, limit=400)
        while nxt is not None:
            await _settle_one(store, "LIVE", next(counter))
            page, nxt = await q.payments(store, limit=400, cursor=nxt)
            ledger += page
        ids = [r["id"] for r in ledger]
        assert len(ids) >= 5600 and len(ids) == len(set(ids))
        assert ids == sorted(ids, reverse=True)
        # every row there before the first page, once; nothing newer than the first row
        assert existing <= set(ids) and max(existing) <= ids[0]

        history, nxt = await q.player_history(store, "player7", limit=3)
        while nxt is not None:
            page, nxt = await q.player_history(store, "player7", limit=3, cursor=nxt)
            history += page
        hids = [h["id"] for h in history]
        assert len(hids) == len(set(hids)) == (await q.player_totals(store, "player7"))["hands"]

        rooms, nxt = await q.rooms(store, limit=17)
        while nxt is not None:
            await _settle_one(store, "LIVE", next(counter))
            page, nxt = await q.rooms(store, limit=17, cursor=nxt)
            rooms += page
        codes = [r["code"] for r in rooms]
        assert len(codes) == len(set(codes)) and all_rooms <= set(codes)
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await writer
    settled_live = (await q.room_hands(store, "LIVE", limit=1000))[0]
    assert len(settled_live) > 20  # hands really were settled while paging

    with pytest.raises(q.BadCursor):
        await q.payments(store, cursor="nonsense")
    _, rooms_cursor = await q.rooms(store, limit=1)
    with pytest.raises(q.BadCursor):
        await q.payments(store, cursor=rooms_cursor)  # another list's cursor


async def test_a_players_totals_keep_each_games_points_apart(store: Store, played: dict) -> None:
    """Guiyang's points (底分 1) and Jintan's (底数 10) are of different sizes: ``games``
    gives each game's hands and points apart, and ``game=`` takes one game's only."""
    async with store.engine.begin() as conn:  # R2 (April) as a Jintan room
        await conn.execute(update(Room).where(Room.code == "R2").values(game="jintan"))
    both = await q.player_totals(store, "ann")
    gy = await q.player_totals(store, "ann", game="guiyang")
    jt = await q.player_totals(store, "ann", game="jintan")
    r2 = played["R2"][1]
    assert jt["hands"] == len(r2) and jt["points"] == sum(s["deltas"][0] for s in r2)
    assert both["games"] == {
        "guiyang": {"hands": gy["hands"], "points": gy["points"]},
        "jintan": {"hands": jt["hands"], "points": jt["points"]},
    }
    assert both["points"] == gy["points"] + jt["points"]
    assert both["hands"] == gy["hands"] + jt["hands"] and set(jt["games"]) == {"jintan"}
    rows, _ = await q.player_history(store, "ann", game="jintan", limit=1000)
    assert {r["room"] for r in rows} == {"R2"} and all(r["game"] == "jintan" for r in rows)
