"""Player profiles and 战绩 over a live server (issue 14): a join brings or makes a profile,
the player code is the only key, and a player reads only their own rooms."""

from __future__ import annotations

import hashlib
from typing import Any

from live_helpers import ADMIN_TOKEN, Live
from sqlalchemy import text

from server.store import Store
from tests.store.test_profiles import seat_room


def bearer(code: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {code}"}


async def test_join_brings_or_makes_a_profile(live: Live) -> None:
    async with live.client() as client:
        r = await client.post("/api/profiles", json={"name": " ann "})
        assert r.status_code == 201
        ann = r.json()
        assert ann["name"] == "ann" and len(ann["code"]) == 23
        me = (await client.get("/api/me", headers=bearer(ann["code"]))).json()
        assert me == {"id": ann["id"], "name": "ann", "created_at": ann["created_at"]}
        # the code as typed on another device: any case, without dashes
        typed = ann["code"].lower().replace("-", "")
        assert (await client.get("/api/me", headers=bearer(typed))).json()["id"] == ann["id"]

        code = (await client.post("/api/rooms", json={"options": {}})).json()["code"]
        # a code of no profile is refused and seats nobody
        r = await client.post(
            f"/api/rooms/{code}/join", json={"name": "x"}, headers=bearer("B" * 20)
        )
        assert r.status_code == 403 and r.json()["detail"]["code"] == "bad_player_code"
        assert (await client.get(f"/api/rooms/{code}")).json()["seats"] == []

        r = await client.post(
            f"/api/rooms/{code}/join", json={"name": "Annie"}, headers=bearer(ann["code"])
        )
        assert r.status_code == 200
        joined = r.json()
        assert joined["seat"] == 0 and joined["player"]["id"] == ann["id"]
        assert joined["player"]["name"] == "Annie" and joined["player"]["code"] is None
        assert (await client.get("/api/me", headers=bearer(ann["code"]))).json()["name"] == "Annie"
        r = await client.post(
            f"/api/rooms/{code}/join", json={"name": "Annie"}, headers=bearer(ann["code"])
        )
        assert r.status_code == 409 and r.json()["detail"]["code"] == "already_seated"

        # no profile: one is made, its code given once
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "Annie"})
        other = r.json()["player"]
        assert r.status_code == 200 and r.json()["seat"] == 1
        assert other["id"] != ann["id"] and other["name"] == "Annie" and len(other["code"]) == 23
        assert (await client.get("/api/me", headers=bearer(other["code"]))).json()["id"] == other[
            "id"
        ]
        # an unknown room makes no profile
        r = await client.post("/api/rooms/ZZZZZZ/join", json={"name": "lost"})
        assert r.status_code == 404

        seats = (await client.get(f"/api/rooms/{code}")).json()["seats"]
        assert [(s["name"], s["bot"]) for s in seats] == [("Annie", False), ("Annie", False)]
        rooms = (
            await client.get(
                "/api/admin/rooms",
                params={"profile": ann["id"]},
                headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            )
        ).json()["rooms"]
        assert [r["code"] for r in rooms] == [code]

        r = await client.patch("/api/me", json={"name": "ann"}, headers=bearer(ann["code"]))
        assert r.status_code == 200 and r.json()["name"] == "ann"
        r = await client.patch("/api/me", json={"name": ""}, headers=bearer(ann["code"]))
        assert r.status_code == 422


async def test_a_player_reads_only_their_own_records(live: Live) -> None:
    async with live.client() as client:
        ann = (await client.post("/api/profiles", json={"name": "ann"})).json()
        bob = (await client.post("/api/profiles", json={"name": "bob"})).json()
    store = Store(live.database_url)
    try:
        mine = await seat_room(
            store, "ANN1", [("ann", ann["id"]), ("b1", None), ("b2", None), ("b3", None)], 3
        )
        await seat_room(
            store, "BOB1", [("bob", bob["id"]), ("b1", None), ("b2", None), ("b3", None)], 1
        )
    finally:
        await store.close()
    routes = [
        "/api/me",
        "/api/me/rooms",
        "/api/me/history",
        "/api/me/rooms/ANN1/hands",
        "/api/me/rooms/ANN1/hands/1",
    ]
    # Another valid-looking code: its last letter changed (never to itself).
    wrong = ann["code"][:-1] + ("3" if ann["code"].endswith("2") else "2")
    async with live.client() as client:
        for path in routes:
            r = await client.get(path)
            assert r.status_code == 401 and r.json()["detail"]["code"] == "player_code_required"
            r = await client.get(path, headers=bearer(wrong))
            assert r.status_code == 403 and r.json()["detail"]["code"] == "bad_player_code"
        a = bearer(ann["code"])
        rooms = (await client.get("/api/me/rooms", headers=a)).json()
        assert rooms["next"] is None and [r["code"] for r in rooms["rows"]] == ["ANN1"]
        want = [sum(s["deltas"][i] for s in mine) for i in range(4)]
        assert rooms["rows"][0]["standings"] == want
        hands = (await client.get("/api/me/rooms/ANN1/hands", headers=a)).json()
        assert [h["deltas"] for h in hands["rows"]] == [s["deltas"] for s in mine]
        assert hands["room"]["seat"] == 0
        hand: dict[str, Any] = (await client.get("/api/me/rooms/ANN1/hands/2", headers=a)).json()
        assert hand["settlement"] == mine[1] and hand["id"] == hands["rows"][1]["id"]
        # the hash the deal published, for the page's 验证 (SHA-256 of the seed, §13)
        assert hand["seed_hash"] == hashlib.sha256(hand["seed"].encode()).hexdigest()
        assert all("profile" not in s for s in hand["seats"])  # nobody else's profile id
        page = (await client.get("/api/me/history", params={"limit": 2}, headers=a)).json()
        rest = (
            await client.get("/api/me/history", params={"cursor": page["next"]}, headers=a)
        ).json()
        assert [h["hand_no"] for h in page["rows"] + rest["rows"]] == [3, 2, 1]
        assert page["rows"][0]["total"] == want[0]
        bad = await client.get("/api/me/history", params={"cursor": "nope"}, headers=a)
        assert bad.status_code == 400 and bad.json()["detail"]["code"] == "bad_cursor"
        # a number beyond the database's integers, or a page size outside 1..1000: a 422
        # naming the parameter (it was a 500 from the database, or a silently clamped page)
        for path, params in (
            (f"/api/me/rooms/ANN1/hands/{2**31}", {}),
            ("/api/me/rooms/ANN1/hands/0", {}),
            ("/api/me/history", {"limit": 0}),
            ("/api/me/history", {"limit": 1001}),
            ("/api/me/rooms", {"limit": -1}),
        ):
            r = await client.get(path, params=params, headers=a)
            assert r.status_code == 422, (path, params, r.text)
            assert r.json()["detail"][0]["loc"][-1] in ("hand_no", "limit"), r.text
        r = await client.get(f"/api/me/rooms/ANN1/hands/{2**31 - 1}", headers=a)
        assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"

        # bob cannot read ann's room, its hands, or a room that does not exist
        b = bearer(bob["code"])
        for path in (
            "/api/me/rooms/ANN1/hands",
            "/api/me/rooms/ANN1/hands/1",
            "/api/me/rooms/NOPE/hands",
            "/api/me/rooms/NOPE/hands/1",
        ):
            r = await client.get(path, headers=b)
            assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found", path
        assert [
            r["code"] for r in (await client.get("/api/me/rooms", headers=b)).json()["rows"]
        ] == ["BOB1"]
        history = (await client.get("/api/me/history", headers=b)).json()["rows"]
        assert [h["room"] for h in history] == ["BOB1"]


async def test_a_seat_from_before_profiles_is_claimed_with_its_token(live: Live) -> None:
    from server.room.manager import hash_token

    store = Store(live.database_url)
    try:
        await store.create_room("OLD234", "guiyang", {"players": 4})
        await store.add_player("OLD234", 0, "ann", hash_token("ann-seat-token"), False)
        await store.add_player("OLD234", 1, "bob", hash_token("bob-seat-token"), False)
    finally:
        await store.close()
    async with live.client() as client:
        ann = (await client.post("/api/profiles", json={"name": "ann"})).json()
        eve = (await client.post("/api/profiles", json={"name": "eve"})).json()
        a, e = bearer(ann["code"]), bearer(eve["code"])
        assert (await client.get("/api/me/rooms", headers=a)).json()["rows"] == []
        body = {"room": "old234", "token": "ann-seat-token"}
        r = await client.post("/api/me/claim", json=body)
        assert r.status_code == 401
        r = await client.post("/api/me/claim", json=body, headers=a)
        assert r.status_code == 200 and r.json() == {"room": "OLD234", "seat": 0}
        r = await client.post("/api/me/claim", json=body, headers=e)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "conflict"
        r = await client.post("/api/me/claim", json={**body, "token": "wrong"}, headers=e)
        assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"
        # ann's other seat of the room: one seat per profile and room
        r = await client.post("/api/me/claim", json={**body, "token": "bob-seat-token"}, headers=a)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "already_seated"
        rooms = (await client.get("/api/me/rooms", headers=a)).json()["rows"]
        assert [(r["code"], r["seat"]) for r in rooms] == [("OLD234", 0)]
        assert (await client.get("/api/me/rooms", headers=e)).json()["rows"] == []


async def test_one_player_code_takes_one_seat_even_joining_at_once(live: Live) -> None:
    """Concurrent joins with one player code: one seat, the others 409 ``already_seated``
    (the store's unique key decides; the check before it cannot), in each of 5 rooms."""
    import asyncio

    async with live.client() as client:
        ann = (await client.post("/api/profiles", json={"name": "ann"})).json()
        codes = [
            (await client.post("/api/rooms", json={"options": {}})).json()["code"] for _ in range(5)
        ]
        answers = await asyncio.gather(
            *(
                client.post(
                    f"/api/rooms/{code}/join", json={"name": f"ann{i}"}, headers=bearer(ann["code"])
                )
                for code in codes
                for i in range(4)
            )
        )
        for n, code in enumerate(codes):
            mine = answers[4 * n : 4 * n + 4]
            assert sorted(r.status_code for r in mine) == [200, 409, 409, 409], [
                r.text for r in mine
            ]
            assert {r.json()["detail"]["code"] for r in mine if r.status_code == 409} == {
                "already_seated"
            }
            assert len((await client.get(f"/api/rooms/{code}")).json()["seats"]) == 1


async def test_a_refused_join_changes_no_profile(live: Live) -> None:
    async with live.client() as client:
        ann = (await client.post("/api/profiles", json={"name": "ann"})).json()
        code = (await client.post("/api/rooms", json={"options": {"players": 2}})).json()["code"]
        for name in ("p1", "p2"):
            assert (await client.post(f"/api/rooms/{code}/join", json={"name": name})).is_success
        r = await client.post(
            f"/api/rooms/{code}/join", json={"name": "renamed"}, headers=bearer(ann["code"])
        )
        assert r.status_code == 409 and r.json()["detail"]["code"] == "room_full"
        assert (await client.get("/api/me", headers=bearer(ann["code"]))).json()["name"] == "ann"
        # without a player code: the refused join makes no profile
        store = Store(live.database_url)
        try:
            async with store.engine.connect() as conn:
                before = await conn.scalar(text("SELECT count(*) FROM profiles"))
            r = await client.post(f"/api/rooms/{code}/join", json={"name": "late"})
            assert r.status_code == 409 and r.json()["detail"]["code"] == "room_full"
            async with store.engine.connect() as conn:
                assert await conn.scalar(text("SELECT count(*) FROM profiles")) == before
        finally:
            await store.close()
