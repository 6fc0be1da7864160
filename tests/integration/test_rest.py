"""The rooms REST API on a live server."""

from __future__ import annotations

import asyncio

from live_helpers import Live, create_room

from server.room.manager import CODE_ALPHABET, CODE_LENGTH


async def test_create_room_fills_defaults_and_validates(live: Live) -> None:
    async with live.client() as client:
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {"players": 3}})
        assert r.status_code == 201
        body = r.json()
        assert body["game"] == "guiyang" and body["options"]["players"] == 3
        assert body["options"]["hands"] == 8 and body["options"]["man_tang_ji"] is True
        code = body["code"]
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)

        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {"players": 5}})
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["body", "options", "players"]
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {"nope": 1}})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "nope"
        r = await client.post("/api/rooms", json={"game": "chess"})
        assert r.status_code == 422


async def test_join_bots_and_room_info(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client, {"players": 2, "hands": 4})
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert info["status"] == "open" and info["seats"] == [] and info["hand_no"] == 0
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})
        assert r.status_code == 200
        assert r.json()["seat"] == 0 and len(r.json()["token"]) >= 24
        seat_token = {"Authorization": f"Bearer {r.json()['token']}"}
        # no coercion: "1" and true are not a count, "1" is not a seat; nothing changes
        for bad in ({"count": "1"}, {"count": True}, {"seat": "1"}, {"count": 1.0}):
            r = await client.post(f"/api/rooms/{code}/bots", json=bad, headers=seat_token)
            assert r.status_code == 422, (bad, r.text)
        r = await client.post(f"/api/rooms/{code}/join", json={"name": 7})
        assert r.status_code == 422
        seats = (await client.get(f"/api/rooms/{code}")).json()["seats"]
        assert [(s["seat"], s["bot"]) for s in seats] == [(0, False)]  # ann alone
        r = await client.post(f"/api/rooms/{code}/bots", json={"count": 3}, headers=seat_token)
        assert r.json() == {"seats": [1]}
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert [s["bot"] for s in info["seats"]] == [False, True]
        assert info["status"] == "playing" and info["hand_no"] == 1
        assert info["totals"] == [0, 0]
        assert "token" not in str(info) and "token_hash" not in str(info)
        r = await client.post(f"/api/rooms/{code}/bots", json={"count": 1}, headers=seat_token)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "room_full"

        assert (await client.get("/api/rooms/NOSUCH")).status_code == 404
        r = await client.post("/api/rooms/NOSUCH/join", json={"name": "x"})
        assert r.status_code == 404 and r.json()["detail"]["code"] == "unknown_room"
        assert (await client.post(f"/api/rooms/{code}/join", json={})).status_code == 422


async def test_health(live: Live) -> None:
    async with live.client() as client:
        r = await client.get("/api/health")
        assert r.status_code == 200 and r.json()["status"] == "ok"


async def test_games_lists_every_registered_game_and_its_options(live: Live) -> None:
    async with live.client() as client:
        r = await client.get("/api/games")
        assert r.status_code == 200
        games = {g["name"]: g["options"] for g in r.json()["games"]}
        assert set(games) == {"guiyang", "jintan"}
        guiyang = {o["name"]: o for o in games["guiyang"]}
        assert guiyang["players"]["default"] == 4 and guiyang["hands"]["default"] == 8
        assert guiyang["man_tang_ji"]["type"] == "bool" and guiyang["man_tang_ji"]["label_zh"]
        jintan = {o["name"]: o for o in games["jintan"]}
        assert jintan["base"]["default"] == 10 and jintan["chow"]["type"] == "bool"
        assert "players" not in jintan, "Jintan's seat count is no option"


async def test_again_makes_one_next_room_for_everyone_with_the_bots_in_their_seats(
    live: Live,
) -> None:
    """再来一场: once the session is over a seated player asks for the next room; the first
    ask makes it (same game and options, the bots where they sat), every later ask gets the
    same code, the old room's info shows it, and the players join it as usual."""
    async with live.client() as client:
        code = await create_room(client, {"hands": 4, "yao_bai_ji": True})
        ann = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
        auth = {"Authorization": f"Bearer {ann['token']}"}
        await client.post(f"/api/rooms/{code}/bots", json={"seat": 1}, headers=auth)
        bob = (await client.post(f"/api/rooms/{code}/join", json={"name": "bob"})).json()
        assert bob["seat"] == 2
        await client.post(f"/api/rooms/{code}/bots", json={"seat": 3}, headers=auth)
        again = f"/api/rooms/{code}/again"
        r = await client.post(again, headers=auth)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "session_not_over"
        assert (await client.post(again)).status_code == 401
        r = await client.post(again, headers={"Authorization": "Bearer nope"})
        assert r.status_code == 403 and r.json()["detail"]["code"] == "bad_token"
        assert (await client.get(f"/api/rooms/{code}")).json()["next"] is None
        actor = await live.actor(code)
        await live.on_server(actor.vote_dissolve(0, True))
        await live.on_server(actor.vote_dissolve(2, True))
        await live.idle()
        old = (await client.get(f"/api/rooms/{code}")).json()
        assert old["status"] == "dissolved" and old["next"] is None

        bob_auth = {"Authorization": f"Bearer {bob['token']}"}
        both = await asyncio.gather(  # at once: one room for both
            client.post(again, headers=auth), client.post(again, headers=bob_auth)
        )
        assert [r.status_code for r in both] == [200, 200]
        nxt = both[0].json()["code"]
        assert both[1].json() == {"code": nxt} != {"code": code}
        assert (await client.post(again, headers=bob_auth)).json() == {"code": nxt}
        assert (await client.get(f"/api/rooms/{code}")).json()["next"] == nxt
        info = (await client.get(f"/api/rooms/{nxt}")).json()
        assert (info["game"], info["options"]) == (old["game"], old["options"])
        assert info["status"] == "open" and info["hand_no"] == 0 and info["next"] is None
        assert [(s["seat"], s["bot"]) for s in info["seats"]] == [(1, True), (3, True)]
        join = f"/api/rooms/{nxt}/join"
        for bad in (7, -1, "2", True):  # a seat is 0..3, no coercion; nothing changes
            r = await client.post(join, json={"name": "bob", "seat": bad})
            assert r.status_code == 422, (bad, r.text)
        # the seats are kept for their players: a newcomer finds none (409 seat_held)
        r = await client.post(join, json={"name": "cat"})
        assert r.status_code == 409 and r.json()["detail"]["code"] == "seat_held"
        assert [h["seat"] for h in info["held"]] == [0, 2]
        # each player (by their player code) in the seat held before, whatever seat asked
        # (bob first: the lowest free would be 0)
        as_bob = {"Authorization": f"Bearer {bob['player']['code']}"}
        as_ann = {"Authorization": f"Bearer {ann['player']['code']}"}
        bob_seat = (await client.post(join, json={"name": "bob"}, headers=as_bob)).json()["seat"]
        r = await client.post(join, json={"name": "ann", "seat": 2}, headers=as_ann)
        assert (bob_seat, r.json()["seat"]) == (2, 0)
        await live.idle()
        assert (await client.get(f"/api/rooms/{nxt}")).json()["status"] == "playing"
