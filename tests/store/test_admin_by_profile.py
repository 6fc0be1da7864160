"""The admin's per-player aggregates group by the profile id (issue 14: "names may repeat, ids
never"), on the real databases: two profiles of one name are two leaderboard rows with their
own totals, one profile under two seat names is one row, seats from before profiles (and
bots) count by their exact name marked ``profile: None``; the CSV parses back to the same
numbers; pages over this grouping return each row once while hands are settled."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from typing import Any

import pytest

from server.api.admin import to_csv
from server.store import NotFound, Store
from server.store import admin as q
from server.store import profiles as pr
from server.store.models import Player
from tests.store.admin_data import bot_hand

#: a leaderboard key as the rows show it: (profile id or None, player name, bot)
Key = tuple[int | None, str, bool]


async def seat_room(
    store: Store, code: str, seats: list[tuple[str, int | None, bool]], hands: int
) -> list[dict[str, Any]]:
    """A Guiyang room seating ``(name, profile_id, bot)``, ``hands`` bot-played hands
    settled; returns the settlements. A human seat with ``profile_id=None`` is one taken
    before profiles existed (stored as migration 0006 leaves such seats)."""
    from server.rules import guiyang

    await store.create_room(code, "guiyang", guiyang.GuiyangOptions().model_dump())
    for seat, (name, profile, bot) in enumerate(seats):
        await store.add_player(code, seat, name, f"t-{code}-{seat}", bot, profile_id=profile)
    out = []
    for hand_no in range(1, hands + 1):
        seed = f"{code}-{hand_no}"
        await store.start_hand(code, hand_no, seed, 0, 1)
        actions, settlement = bot_hand(seed, hand_no * 1000)
        for idx, (seat, action) in enumerate(actions):
            await store.append_action(code, hand_no, idx, seat, {"action": action.to_dict()})
        assert await store.settle_hand(
            code,
            hand_no,
            settlement["result"],
            settlement,
            settlement["payments"],
            settlement["deltas"],
        )
        out.append(settlement)
    return out


def _expected(
    played: list[tuple[list[Key], list[dict[str, Any]]]],
) -> dict[Key, dict[str, int]]:
    """Per key: points, hands, wins summed from the settlements."""
    out: dict[Key, dict[str, int]] = defaultdict(lambda: {"points": 0, "hands": 0, "wins": 0})
    for keys, settlements in played:
        for seat, key in enumerate(keys):
            for s in settlements:
                row = out[key]
                row["points"] += s["deltas"][seat]
                row["hands"] += 1
                row["wins"] += any(p["to"] == seat and p["reason"] == "hu" for p in s["payments"])
    return dict(out)


async def test_the_leaderboard_and_a_players_totals_are_by_profile(store: Store) -> None:
    ann1, _ = await pr.create_profile(store, "ann")
    ann2, _ = await pr.create_profile(store, "ann")  # the same name, another person
    bob, _ = await pr.create_profile(store, "bob")
    r1 = await seat_room(
        store,
        "R1",
        [("ann", ann1.id, False), ("bob", bob.id, False), ("b1", None, True), ("b2", None, True)],
        3,
    )
    # ann1 sits as "Annie" here: still one player; ann2 sits as "ann"
    r2 = await seat_room(
        store,
        "R2",
        [
            ("ann", ann2.id, False),
            ("Annie", ann1.id, False),
            ("b1", None, True),
            ("eve", None, False),
        ],
        2,
    )
    # a room from before profiles: humans by name only (one of them "ann", a third person)
    r3 = await seat_room(
        store,
        "OLD",
        [("ann", None, False), ("bob", None, False), ("b1", None, True), ("eve", None, False)],
        2,
    )
    await pr.rename_profile(store, ann1.id, "Ann B")  # the board shows the current name
    a1: Key = (ann1.id, "Ann B", False)
    a2: Key = (ann2.id, "ann", False)
    b: Key = (bob.id, "bob", False)
    old_ann: Key = (None, "ann", False)
    old_bob: Key = (None, "bob", False)
    eve: Key = (None, "eve", False)
    b1: Key = (None, "b1", True)
    b2: Key = (None, "b2", True)
    played = [([a1, b, b1, b2], r1), ([a2, a1, b1, eve], r2), ([old_ann, old_bob, b1, eve], r3)]
    want = _expected(played)
    assert want[a1]["hands"] == 5 and want[a2]["hands"] == 2 and want[old_ann]["hands"] == 2

    board, nxt = await q.leaderboard(store)
    assert nxt is None
    got = {(r["profile"], r["player"], r["bot"]): r for r in board}
    assert len(got) == len(board) == 6  # a1, a2, b, old ann, old bob, eve; bots left out
    assert set(got) == {a1, a2, b, old_ann, old_bob, eve}
    for key, row in got.items():
        assert {k: row[k] for k in ("points", "hands", "wins")} == want[key], key
    # three rows named "ann" / "Ann B": two profiles and the name from before profiles
    assert sorted((r["profile"] or 0, r["hands"]) for r in board if "nn" in r["player"]) == [
        (0, 2),
        (ann1.id, 5),
        (ann2.id, 2),
    ]
    assert [r["rank"] for r in board] == list(range(1, 7))
    order = [(-r["points"], r["profile"] or 0, "" if r["profile"] else r["player"]) for r in board]
    assert order == sorted(order)
    assert sum(r["points"] for r in board) == -sum(want[k]["points"] for k in (b1, b2))

    with_bots = {
        (r["profile"], r["player"], r["bot"]): r for r in (await q.leaderboard(store, bots=True))[0]
    }
    assert set(with_bots) == set(want)
    assert with_bots[b1]["hands"] == 7 and with_bots[b1]["points"] == want[b1]["points"]

    # a player's totals and history: by profile id, or by name for seats without a profile
    t1 = await q.player_totals(store, None, profile=ann1.id)
    assert (t1["player"], t1["profile"]) == ("Ann B", ann1.id)
    assert {k: t1[k] for k in ("points", "hands", "wins")} == want[a1]
    assert sum(t1["by_reason"].values()) == t1["points"]
    t2 = await q.player_totals(store, None, profile=ann2.id)
    assert {k: t2[k] for k in ("points", "hands", "wins")} == want[a2]
    by_name = await q.player_totals(store, "ann")
    assert (by_name["player"], by_name["profile"]) == ("ann", None)
    assert {k: by_name[k] for k in ("points", "hands", "wins")} == want[old_ann]
    assert (await q.player_totals(store, "Annie"))["hands"] == 0  # a profile's seat name
    with pytest.raises(NotFound):
        await q.player_totals(store, None, profile=10**9)

    history, _ = await q.player_history(store, None, profile=ann1.id)
    assert [(h["room"], h["hand_no"], h["name"], h["seat"]) for h in history] == [
        ("R2", 2, "Annie", 1),
        ("R2", 1, "Annie", 1),
        ("R1", 3, "ann", 0),
        ("R1", 2, "ann", 0),
        ("R1", 1, "ann", 0),
    ]
    assert {h["profile"] for h in history} == {ann1.id} and not any(h["bot"] for h in history)
    assert sum(h["points"] for h in history) == want[a1]["points"]
    assert sum(h["won"] for h in history) == want[a1]["wins"]
    old, _ = await q.player_history(store, "ann")
    assert [(h["room"], h["profile"], h["bot"]) for h in old] == [("OLD", None, False)] * 2
    assert [h["points"] for h in old] == [s["deltas"][0] for s in reversed(r3)]
    bots_hist, _ = await q.player_history(store, "b1")
    assert len(bots_hist) == 7 and all(h["bot"] and h["profile"] is None for h in bots_hist)

    # a void and an adjustment follow the profile, not the name
    await q.correct(store, "R2", 1, kind="void", reason="misdeal", actor="lee")
    await q.correct(
        store, "R1", 1, kind="adjust", reason="x", actor="lee", from_seat=1, to_seat=0, points=7
    )
    board = {(r["profile"], r["player"], r["bot"]): r for r in (await q.leaderboard(store))[0]}
    assert board[a1]["points"] == want[a1]["points"] - r2[0]["deltas"][1] + 7
    assert board[a1]["hands"] == 4
    assert board[a2]["points"] == want[a2]["points"] - r2[0]["deltas"][0]
    assert board[a2]["hands"] == 1
    assert board[b]["points"] == want[b]["points"] - 7
    assert board[old_ann] == {**got[old_ann], "rank": board[old_ann]["rank"]}
    t1 = await q.player_totals(store, None, profile=ann1.id)
    assert (t1["points"], t1["hands"]) == (board[a1]["points"], 4)

    # CSV: parses back to the same keys and numbers
    rows, _ = await q.leaderboard(store)
    parsed = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert [
        (
            int(r["rank"]),
            int(r["profile"]) if r["profile"] else None,
            r["player"],
            r["bot"] == "true",
            int(r["points"]),
            int(r["hands"]),
            int(r["wins"]),
        )
        for r in parsed
    ] == [
        (r["rank"], r["profile"], r["player"], r["bot"], r["points"], r["hands"], r["wins"])
        for r in rows
    ]
    hist_csv = list(csv.DictReader(io.StringIO(to_csv(history))))
    assert [(int(r["profile"]), r["name"], int(r["points"])) for r in hist_csv] == [
        (h["profile"], h["name"], h["points"]) for h in history
    ]

    with pytest.raises(q.BadCursor):  # a cursor of the name-only board is refused
        await q.leaderboard(store, cursor=q.encode_cursor("leaderboard", [3, "ann", 1], {}))


async def _settle(store: Store, code: str, hand_no: int, deltas: list[int]) -> None:
    await store.start_hand(code, hand_no, f"{code}-{hand_no}", 0, 1)
    pays = [
        {"from": 1, "to": 0, "points": deltas[0], "reason": "hu"},
        {"from": 3, "to": 2, "points": deltas[2], "reason": "ji"},
    ]
    assert await store.settle_hand(code, hand_no, "win", {}, pays, deltas)


async def test_pages_of_the_board_by_profile_return_each_row_once(store: Store) -> None:
    # 12 profiles over 6 display names (each name twice), 6 names without profile; small
    # deltas so that many rows tie on points
    profiles = [(await pr.create_profile(store, f"p{i % 6}"))[0] for i in range(12)]
    seats: list[tuple[str, int | None]] = [(f"seat{p.id}", p.id) for p in profiles]
    seats += [(f"old{i}", None) for i in range(6)]
    for r in range(9):
        code = f"G{r}"
        await store.create_room(code, "guiyang", {"players": 4})
        for s in range(4):
            name, pid = seats[(r * 4 + s * 5) % len(seats)]
            await store.add_player(code, s, name, "h", False, profile_id=pid)
        await _settle(store, code, 1, [2, -2, 1, -1])
        if r % 2:
            await _settle(store, code, 2, [1, -1, 2, -2])
    full, none = await q.leaderboard(store, limit=1000)
    assert none is None
    keys = [(r["profile"], r["player"]) for r in full]
    assert len(keys) == len(set(keys)) == len({s for s in seats})  # each seated key once
    assert len({r["player"] for r in full}) < len(full)  # display names repeat
    ties = defaultdict(int)
    for r in full:
        ties[r["points"]] += 1
    assert max(ties.values()) >= 3

    # a live room of two profiles and two old names, settled between pages
    await store.create_room("LIVE", "guiyang", {"players": 4})
    for s, (name, pid) in enumerate([seats[0], seats[1], seats[12], seats[13]]):
        await store.add_player("LIVE", s, name, "h", False, profile_id=pid)
    got, nxt = await q.leaderboard(store, limit=2)
    hand_no = 0
    while nxt is not None:
        hand_no += 1
        await _settle(store, "LIVE", hand_no, [5, -5, 3, -3])
        page, nxt = await q.leaderboard(store, limit=2, cursor=nxt)
        got += page
    assert got == full and hand_no >= 8  # the first page's snapshot, each row once
    now, _ = await q.leaderboard(store, limit=1000)
    assert now != full  # the settled hands count from a fresh first page
    live = {(r["profile"], r["player"]): r for r in now}
    before = {(r["profile"], r["player"]): r for r in full}
    pid0 = seats[0][1]
    assert live[(pid0, profiles[0].name)]["points"] == (
        before[(pid0, profiles[0].name)]["points"] + 5 * hand_no
    )
    assert live[(None, "old0")]["points"] == before[(None, "old0")]["points"] + 3 * hand_no

    # profiles renamed between pages keep their places: the rows are keyed by ids
    got, nxt = await q.leaderboard(store, limit=3)
    renamed = 0
    while nxt is not None:
        for r in now[len(got) :][:2]:
            if r["profile"] is not None:
                await pr.rename_profile(store, r["profile"], f"new{r['profile']}")
                renamed += 1
        page, nxt = await q.leaderboard(store, limit=3, cursor=nxt)
        got += page
    assert renamed >= 5
    assert [(r["rank"], r["profile"], r["points"]) for r in got] == [
        (r["rank"], r["profile"], r["points"]) for r in now
    ]
    assert any(r["player"].startswith("new") for r in got)


async def test_a_claimed_seat_moves_to_its_profiles_row(store: Store) -> None:
    await seat_room(
        store,
        "OLD",
        [("ann", None, False), ("bob", None, False), ("x", None, True), ("y", None, True)],
        1,
    )
    names = {(r["profile"], r["player"]) for r in (await q.leaderboard(store))[0]}
    assert names == {(None, "ann"), (None, "bob")}
    ann, _ = await pr.create_profile(store, "Ann")
    assert await pr.claim_seat(store, ann.id, "OLD", "t-OLD-0") == 0
    board = (await q.leaderboard(store))[0]
    assert {(r["profile"], r["player"]) for r in board} == {(ann.id, "Ann"), (None, "bob")}
    async with store.engine.connect() as conn:
        from sqlalchemy import select

        assert (
            await conn.execute(select(Player.profile_id).where(Player.seat == 0))
        ).scalar_one() == ann.id


async def test_the_cli_shows_and_takes_profile_ids(store: Store, database_url: str) -> None:
    import json

    from tests.store.test_admin_cli import _cli

    ann1, _ = await pr.create_profile(store, "ann")
    ann2, _ = await pr.create_profile(store, "ann")
    await seat_room(
        store,
        "C1",
        [("ann", ann1.id, False), ("ann", ann2.id, False), ("ann", None, False), ("x", None, True)],
        2,
    )
    want = (await q.leaderboard(store))[0]
    assert sorted(r["profile"] or 0 for r in want) == [0, ann1.id, ann2.id]
    out = _cli(database_url, "leaderboard", "--csv")
    assert out.returncode == 0, out.stderr
    board = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [
        (int(r["profile"]) if r["profile"] else None, r["player"], int(r["points"]), r["bot"])
        for r in board
    ] == [(r["profile"], r["player"], r["points"], "false") for r in want]

    out = _cli(database_url, "player", f"#{ann2.id}")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0] == await q.player_totals(store, None, profile=ann2.id)
    assert (lines[0]["profile"], lines[0]["hands"]) == (ann2.id, 2)
    assert [h["seat"] for h in lines[1:]] == [1, 1]
    out = _cli(database_url, "player", "ann")  # the seat without profile only
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert (lines[0]["profile"], lines[0]["hands"]) == (None, 2)
    assert [h["seat"] for h in lines[1:]] == [2, 2]
    out = _cli(database_url, "player", "--profile", str(10**9))
    assert out.returncode == 1 and "unknown profile" in out.stderr
