"""The admin API over a live server (issue 14): the token on every route, cursor pages, CSV
that parses back to the same numbers, corrections with who made them, a hand's replay."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from typing import Any

import httpx
from live_helpers import ADMIN_TOKEN, Live
from sqlalchemy import text

from bench.admin import fill
from server.api.admin import router, token_id
from server.store import Store
from tests.store.admin_data import store_room

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def _seeded(live: Live, hands: int = 300) -> list[dict[str, Any]]:
    store = Store(live.database_url)
    try:
        await fill(store, hands, names=40, profiles=20)  # player0..19 with a profile each
        return await store_room(store, "BOTS", ["ann", "bob", "cat", "robot"], 2, bots=(3,))
    finally:
        await store.close()


def _admin_routes() -> list[tuple[str, str]]:
    out = []
    for route in router.routes:
        path = getattr(route, "path", "")
        if path.startswith("/api/admin"):
            concrete = path.replace("{code}", "BOTS").replace("{hand_no}", "1")
            for method in sorted(getattr(route, "methods", ()) or ()):
                out.append((method, concrete))
    return out


async def test_every_admin_route_refuses_a_wrong_or_missing_token(live: Live) -> None:
    await _seeded(live, 8)
    routes = _admin_routes()
    assert len(routes) >= 11
    body = {"reason": "x", "from": 0, "to": 1, "points": 1}
    async with live.client() as client:
        for method, path in routes:
            for headers in (
                {},
                {"Authorization": "Bearer wrong"},
                {"Authorization": ADMIN_TOKEN},
                {"Authorization": f"Basic {ADMIN_TOKEN}"},
            ):
                params = {"name": "ann"}
                r = await client.request(method, path, headers=headers, params=params, json=body)
                assert r.status_code == 403, (method, path, headers, r.text)
                assert r.json()["detail"]["code"] == "forbidden"
        # nothing was corrected by the refused calls
        r = await client.get("/api/admin/corrections", headers=AUTH)
        assert r.status_code == 200 and r.json()["rows"] == []


async def test_without_admin_token_every_admin_route_says_the_api_is_off(
    live_with: Callable[..., Live],
) -> None:
    """A host that set no ADMIN_TOKEN is told so (a 403 "admin token required" read as a
    wrong token), and trying counts no failure towards the address's limit."""
    live = live_with(admin_token=None, admin_failures_per_minute=2)
    async with live.client() as client:
        for _ in range(4):  # past the limit of 2: still no 429
            for method, path in _admin_routes():
                r = await client.request(method, path, headers=AUTH, json={})
                assert r.status_code == 404, (method, path, r.text)
                detail = r.json()["detail"]
                assert detail["code"] == "admin_off" and "ADMIN_TOKEN" in detail["message"]


def _parse(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _same(json_row: dict[str, Any], csv_row: dict[str, str]) -> None:
    for key, value in json_row.items():
        if isinstance(value, list):
            for i, v in enumerate(value):
                if isinstance(v, int):
                    assert int(csv_row[f"{key}.{i}"]) == v, (key, i)
        elif isinstance(value, bool):
            assert csv_row[key] == ("true" if value else "false"), key
        elif isinstance(value, int):
            assert int(csv_row[key]) == value, key
        elif isinstance(value, str):
            assert csv_row[key] == value, key
        elif value is None:
            assert csv_row[key] == "", key


async def _pages(client: httpx.AsyncClient, path: str, params: dict[str, Any], key: str) -> list:
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        r = await client.get(path, params={**params, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        rows += r.json()[key]
        cursor = r.json()["next"]
        if cursor is None:
            return rows


async def _csv_pages(client: httpx.AsyncClient, path: str, params: dict[str, Any]) -> list:
    rows: list[dict[str, str]] = []
    cursor = None
    while True:
        r = await client.get(
            path,
            params={**params, **({"cursor": cursor} if cursor else {})},
            headers={"Accept": "text/csv"},
        )
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        rows += _parse(r.text)
        cursor = r.headers.get("X-Next-Cursor")
        if cursor is None:
            assert "Link" not in r.headers
            return rows
        assert re.search(r'rel="next"', r.headers["Link"])


async def test_lists_page_and_their_csv_parses_back_to_the_same_numbers(live: Live) -> None:
    await _seeded(live)
    async with httpx.AsyncClient(base_url=live.http, headers=AUTH, timeout=30) as client:
        top = (await client.get("/api/admin/leaderboard", params={"limit": 1000})).json()["rows"]
        pid = next(r["profile"] for r in top if r["profile"] is not None)
        lists = [
            ("/api/admin/rooms", {"limit": 7}, "rooms"),
            ("/api/admin/rooms/B3/hands", {"limit": 3}, "rows"),
            ("/api/admin/player/hands", {"name": "player30", "limit": 4}, "rows"),
            ("/api/admin/player/hands", {"profile": pid, "limit": 4}, "rows"),
            ("/api/admin/leaderboard", {"limit": 9}, "rows"),
            ("/api/admin/ledger", {"limit": 111}, "rows"),
        ]
        for path, params, key in lists:
            rows = await _pages(client, path, params, key)
            assert len(rows) > params["limit"], path  # more than one page
            as_csv = await _csv_pages(client, path, params)
            assert len(as_csv) == len(rows), path
            for j, c in zip(rows, as_csv, strict=True):
                if key == "rooms":
                    assert [c[f"seats.{i}"] for i in range(4)] == [s["name"] for s in j["seats"]]
                    j = {k: v for k, v in j.items() if k not in ("seats", "options")}
                _same(j, c)
        ledger = await _pages(client, "/api/admin/ledger", {"limit": 1000}, "rows")
        assert len(ledger) == 300 * 4 + sum(1 for r in ledger if r["room"] == "BOTS")
        assert sum(int(r["points"]) for r in await _csv_pages(client, "/api/admin/ledger", {})) == (
            sum(r["points"] for r in ledger)
        )
        # format=csv does the same as the Accept header
        r = await client.get("/api/admin/leaderboard", params={"format": "csv", "limit": 5})
        assert [int(x["points"]) for x in _parse(r.text)] == [
            x["points"] for x in (await client.get("/api/admin/leaderboard?limit=5")).json()["rows"]
        ]
        # the leaderboard by profile id: up to 20 profiles (display names twice each), names
        # without profile (player20.., the BOTS room's humans); a row's numbers are its totals
        board = await _pages(client, "/api/admin/leaderboard", {"limit": 1000}, "rows")
        by_profile = [r for r in board if r["profile"] is not None]
        ids = [r["profile"] for r in by_profile]
        assert len(ids) == len(set(ids)) >= 18  # each seated profile once
        assert len({r["player"] for r in by_profile}) < len(ids)  # display names repeat
        keys = {(r["profile"], r["player"]) for r in board}
        assert len(keys) == len(board) and not any(r["bot"] for r in board)
        assert {"ann", "bob", "cat"} <= {r["player"] for r in board if r["profile"] is None}
        for row in by_profile[:3] + [r for r in board if r["profile"] is None][:2]:
            who = {"profile": row["profile"]} if row["profile"] else {"name": row["player"]}
            t = (await client.get("/api/admin/player", params=who)).json()
            assert (t["profile"], t["player"]) == (row["profile"], row["player"])
            assert (t["points"], t["hands"], t["wins"]) == (
                row["points"],
                row["hands"],
                row["wins"],
            )
        r = await client.get("/api/admin/player", params={"profile": 10**9})
        assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"
        r = await client.get("/api/admin/ledger", params={"cursor": "garbage"})
        assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_cursor"
        r = await client.get(
            "/api/admin/rooms", params={"since": "2026-05-01T00:00:00Z", "until": "2026-04-01"}
        )
        assert r.status_code == 422
        r = await client.get("/api/admin/rooms", params={"until": "2026-01-01T00:00:00Z"})
        assert r.json()["rooms"] == []  # the filled rooms start then (until is exclusive)
        r = await client.get("/api/admin/rooms/NOPE/hands")
        assert r.status_code == 404


async def test_a_hand_its_replay_and_corrections(live: Live) -> None:
    settlements = await _seeded(live, 8)
    async with httpx.AsyncClient(base_url=live.http, headers=AUTH, timeout=30) as client:
        r = await client.get("/api/admin/rooms/BOTS/hands/1")
        assert r.status_code == 200
        hand = r.json()
        assert hand["deltas"] == settlements[0]["deltas"]
        # each seat with its profile id (null: seated before profiles): two players of one
        # name are told apart
        assert [(s["name"], s["profile"]) for s in hand["seats"]] == [
            (n, None) for n in ("ann", "bob", "cat", "robot")
        ]
        board = (await client.get("/api/admin/leaderboard")).json()["rows"]
        pid = next(r["profile"] for r in board if r["profile"])
        rooms = (await client.get("/api/admin/rooms", params={"profile": pid})).json()["rooms"]
        assert rooms and all(pid in [s["profile"] for s in r["seats"]] for r in rooms)
        replay = hand["replay"]
        assert replay["replay_ok"] is True and replay["seed"] == "BOTS-1"
        assert replay["expect"]["deltas"] == hand["deltas"]
        assert sorted(map(tuple, replay["expect"]["payments"])) == sorted(
            (p["from"], p["to"], p["points"], p["reason"]) for p in hand["payments"]
        )
        assert all(isinstance(a[0], int) and isinstance(a[1], str) for a in replay["actions"])
        assert (await client.get("/api/admin/rooms/BOTS/hands/1/replay")).json() == replay
        r = await client.get("/api/admin/rooms/BOTS/hands/1", params={"format": "csv"})
        rows = _parse(r.text)
        assert [int(p["points"]) for p in rows] == [p["points"] for p in hand["payments"]]
        assert {(p["room"], p["hand_no"]) for p in rows} == {("BOTS", "1")}
        assert (await client.get("/api/admin/rooms/BOTS/hands/9")).status_code == 404
        # numbers beyond the database's integers, page sizes outside 1..1000: 422, not 500
        for path, params in (
            (f"/api/admin/rooms/BOTS/hands/{2**31}", {}),
            (f"/api/admin/rooms/BOTS/hands/{2**31}/replay", {}),
            ("/api/admin/rooms", {"profile": 2**63}),
            ("/api/admin/ledger", {"profile": 2**63}),
            ("/api/admin/player", {"profile": 2**63}),
            ("/api/admin/player/hands", {"profile": 2**63}),
            ("/api/admin/rooms", {"limit": 0}),
            ("/api/admin/ledger", {"limit": 1001}),
        ):
            r = await client.get(path, params=params)
            assert r.status_code == 422, (path, params, r.text)
        # a NUL or a bidi override in a filter, or a game / status nobody has: a 422 naming
        # it (a NUL was a 503 "unavailable" on PostgreSQL, which cannot store one)
        for path, params in (
            ("/api/admin/ledger", {"player": "a\x00b"}),
            ("/api/admin/player", {"name": "\u202eann"}),
            ("/api/admin/rooms", {"game": "mahjong"}),
            ("/api/admin/rooms", {"status": "bogus"}),
            ("/api/admin/leaderboard", {"game": "Guiyang"}),
            ("/api/admin/corrections", {"room": "R\x00"}),
        ):
            r = await client.get(path, params=params)
            assert r.status_code == 422, (path, params, r.text)
            assert r.json()["detail"][0]["loc"][-1] == next(iter(params)), r.text
        # a NUL where nothing checks before the database: the client's error, not an outage
        r = await client.get("/api/admin/rooms/R%00/hands")
        assert r.status_code in (400, 404), r.text

        before = (await client.get("/api/admin/player", params={"name": "ann"})).json()
        actor = await live.actor("BOTS")  # the room loaded on the server, its totals as played
        assert actor.totals == [sum(x["deltas"][i] for x in settlements) for i in range(4)]
        r = await client.post(
            "/api/admin/rooms/BOTS/hands/1/void", json={"reason": "misdeal", "admin": "lee"}
        )
        assert r.status_code == 201, r.text
        assert r.json()["actor"] == f"lee ({token_id(ADMIN_TOKEN)})"
        r = await client.post("/api/admin/rooms/BOTS/hands/1/void", json={"reason": "again"})
        assert r.status_code == 409
        r = await client.post(
            "/api/admin/rooms/BOTS/hands/2/adjustments",
            json={"from": 1, "to": 0, "points": 4, "reason": "miscount"},
        )
        assert r.status_code == 201 and r.json()["actor"] == token_id(ADMIN_TOKEN)
        for bad in (
            {"from": 1, "to": 1, "points": 4},
            {"from": 1, "to": 9, "points": 4},
            {"from": 1, "to": 0, "points": "4"},  # no coercion: "4" is not a number
            {"from": True, "to": 0, "points": 4},
            {"from": 1, "to": 0, "points": 4, "admin": "lee\x00"},
            {"from": 1, "to": 0, "points": 4, "reason": "bidi \u202e"},
        ):
            r = await client.post(
                "/api/admin/rooms/BOTS/hands/2/adjustments", json={"reason": "x", **bad}
            )
            assert r.status_code == 422, bad
        after = (await client.get("/api/admin/player", params={"name": "ann"})).json()
        assert after["hands"] == before["hands"] - 1
        assert after["points"] == before["points"] - settlements[0]["deltas"][0] + 4
        history = (await client.get("/api/admin/corrections")).json()["rows"]
        assert [(c["kind"], c["hand_no"], c["reason"]) for c in history] == [
            ("adjust", 2, "miscount"),
            ("void", 1, "misdeal"),
        ]
        hand = (await client.get("/api/admin/rooms/BOTS/hands/1")).json()
        assert hand["voided"] and hand["deltas"] == settlements[0]["deltas"]
        # the room's own totals (its table, its final standings) count the corrections too
        moved = zip(settlements[1]["deltas"], [4, -4, 0, 0], strict=True)
        assert actor.totals == [d + m for d, m in moved]
        assert hand["replay"]["replay_ok"] is True  # the rows it voided are still there


async def test_a_hand_in_play_shows_no_seed(live: Live) -> None:
    """The seed gives away the wall: the admin API shows it, and the replay, only once the
    hand has ended (an admin may also sit at the table), as /api/replays does."""
    await _seeded(live, 2)
    store = Store(live.database_url)
    try:
        await store.start_hand("BOTS", 3, "BOTS-3", 0, 1)
    finally:
        await store.close()
    async with httpx.AsyncClient(base_url=live.http, headers=AUTH, timeout=30) as client:
        r = await client.get("/api/admin/rooms/BOTS/hands/3")
        assert r.status_code == 200, r.text
        hand = r.json()
        assert hand["ended_at"] is None and hand["seed"] is None and hand["replay"] is None
        assert "BOTS-3" not in r.text
        r = await client.get("/api/admin/rooms/BOTS/hands/3/replay")
        assert r.status_code == 409 and r.json()["detail"]["code"] == "hand_not_finished"
        assert (await client.get("/api/admin/rooms/BOTS/hands/2")).json()["seed"] == "BOTS-2"


async def test_paging_5000_rows_over_http_while_hands_are_settled(live: Live) -> None:
    store = Store(live.database_url)
    try:
        await fill(store, 1300, names=50)  # 5,200 payments
        await store.create_room("LIVE", "guiyang", {"players": 4})
        for seat in range(4):
            await store.add_player("LIVE", seat, f"player{seat}", "h", False)
        async with store.engine.connect() as conn:
            existing = set((await conn.execute(text("SELECT id FROM ledger_entries"))).scalars())
        seen: list[int] = []
        cursor = None
        hand_no = 0
        async with httpx.AsyncClient(base_url=live.http, headers=AUTH, timeout=30) as client:
            while True:
                params = {"limit": 400, **({"cursor": cursor} if cursor else {})}
                r = await client.get("/api/admin/ledger", params=params)
                assert r.status_code == 200
                seen += [row["id"] for row in r.json()["rows"]]
                cursor = r.json()["next"]
                if cursor is None:
                    break
                for _ in range(3):  # new hands settled between the pages
                    hand_no += 1
                    await store.start_hand("LIVE", hand_no, f"s{hand_no}", 0, 1)
                    pays = [{"from": 1, "to": 0, "points": 2, "reason": "hu"}]
                    await store.settle_hand("LIVE", hand_no, "win", {}, pays, [2, -2, 0, 0])
        assert len(seen) == len(set(seen)) == len(existing) >= 5000
        assert set(seen) == existing and hand_no >= 36
    finally:
        await store.close()
