"""Quick phrases (快捷语) over the room socket and bots seated one at a time (issue 13).

A phrase is an id of the fixed list, broadcast to every seat and the spectators; an unknown
id or a second phrase within 3 s is a typed error and nothing is broadcast; phrases change no
game state and log nothing. Bots: a chosen seat, removal before the deal (token needed),
refused after it."""

from __future__ import annotations

import json
from typing import Any

from live_helpers import Live, create_room, recv_until

from server.api.messages import ServerMessageAdapter
from server.room.phrases import PHRASE_SECONDS, PHRASES


async def send(ws: Any, msg: dict[str, Any]) -> None:
    await ws.send(json.dumps(msg))


async def phrases_until_pong(ws: Any, seq: int) -> list[dict[str, Any]]:
    """Ping ``ws`` and return the phrase messages it got before the pong (what a phrase
    broadcast before the ping would have put there)."""
    await send(ws, {"type": "ping", "seq": seq})
    pong, seen = await recv_until(ws, "pong")
    assert pong["seq"] == seq
    return [m for m in seen if m["type"] == "phrase"]


async def test_quick_phrases_broadcast_refusals_and_rate_limit(live_clock: Live) -> None:
    live = live_clock
    async with live.client() as client:
        code = await create_room(client, {"players": 4})
        tokens = []
        for name in ("ann", "bob"):
            r = await client.post(f"/api/rooms/{code}/join", json={"name": name})
            tokens.append(r.json()["token"])
        r = await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": 2},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        assert r.json() == {"seats": [2, 3]}
    ws0 = await live.connect(code, tokens[0])
    ws1 = await live.connect(code, tokens[1])
    spec = await live.connect(code)
    snaps = [await recv_until(ws, "snapshot") for ws in (ws0, ws1, spec)]
    version = snaps[0][0]["version"]
    actor = await live.actor(code)
    logged = len(await live.on_server(actor.store.hand_actions(code, 1)))

    await send(ws0, {"type": "phrase", "seq": 1, "phrase": "hurry"})
    said = {"type": "phrase", "seat": 0, "phrase": "hurry"}
    for ws in (ws0, ws1, spec):
        msg, _ = await recv_until(ws, "phrase")
        assert msg == said
        assert ServerMessageAdapter.validate_python(msg).seat == 0

    # a second phrase of seat 0 within 3 s: refused, nothing broadcast
    await send(ws0, {"type": "phrase", "seq": 2, "phrase": "hurry_up"})
    err, _ = await recv_until(ws0, "error")
    assert (err["code"], err["seq"]) == ("phrase_rate_limited", 2)
    assert err["message"] == "one quick phrase every 3 seconds"
    # an id not on the list, free text, an over-long string: refused, nothing broadcast
    await send(ws1, {"type": "phrase", "seq": 3, "phrase": "you are slow"})
    err, _ = await recv_until(ws1, "error")
    assert (err["code"], err["seq"]) == ("unknown_phrase", 3)
    await send(ws1, {"type": "phrase", "seq": 4, "phrase": "x" * 33})
    err, _ = await recv_until(ws1, "error")
    assert (err["code"], err["seq"]) == ("bad_message", 4)
    await send(spec, {"type": "phrase", "seq": 5, "phrase": "hurry"})
    err, _ = await recv_until(spec, "error")
    assert (err["code"], err["seq"]) == ("spectator", 5)
    assert await phrases_until_pong(ws0, 10) == []
    assert await phrases_until_pong(spec, 11) == []

    # seat 1 has its own budget: its first phrase goes out at once
    await send(ws1, {"type": "phrase", "seq": 6, "phrase": "emote_wow"})
    for ws in (ws0, ws1, spec):
        msg, _ = await recv_until(ws, "phrase")
        assert msg == {"type": "phrase", "seat": 1, "phrase": "emote_wow"}
    # seat 0 again once 3 s passed on the room's clock
    await live.advance(PHRASE_SECONDS - 0.5)
    await send(ws0, {"type": "phrase", "seq": 7, "phrase": "again"})
    err, _ = await recv_until(ws0, "error")
    assert (err["code"], err["seq"]) == ("phrase_rate_limited", 7)
    await live.advance(0.5)
    await send(ws0, {"type": "phrase", "seq": 8, "phrase": "again"})
    msg, _ = await recv_until(spec, "phrase")
    assert msg == {"type": "phrase", "seat": 0, "phrase": "again"}

    # no game state changed, nothing was logged
    await send(ws0, {"type": "sync"})
    snap, _ = await recv_until(ws0, "snapshot")
    assert snap["version"] == version and snap["view"] == snaps[0][0]["view"]
    assert len(await live.on_server(actor.store.hand_actions(code, 1))) == logged
    assert len(PHRASES) == 13 and PHRASES[:2] == ("hurry", "hurry_up")
    for ws in (ws0, ws1, spec):
        await ws.close()


async def test_bots_one_seat_at_a_time_and_removed_before_the_deal(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client, {"players": 4})
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})
        ann = {"Authorization": f"Bearer {r.json()['token']}"}
        bots = f"/api/rooms/{code}/bots"

        r = await client.post(bots, json={"seat": 2}, headers=ann)
        assert r.status_code == 200 and r.json() == {"seats": [2]}
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert [(s["seat"], s["name"], s["bot"]) for s in info["seats"]] == [
            (0, "ann", False),
            (2, "Bot 3", True),  # named by seat as the pages name it
        ]
        assert info["status"] == "open"
        r = await client.post(bots, json={"seat": 2}, headers=ann)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "seat_taken"
        r = await client.post(bots, json={"seat": 1, "count": 2}, headers=ann)
        assert r.status_code == 422
        r = await client.post(bots, json={"seat": 4}, headers=ann)
        assert r.status_code == 422

        # removal: a seated player's token, a bot's seat, before the deal
        r = await client.delete(f"{bots}/2")
        assert r.status_code == 401 and r.json()["detail"]["code"] == "token_required"
        r = await client.delete(f"{bots}/2", headers={"Authorization": "Bearer nope"})
        assert r.status_code == 403 and r.json()["detail"]["code"] == "bad_token"
        r = await client.delete(f"{bots}/0", headers=ann)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "not_a_bot"
        r = await client.delete(f"{bots}/1", headers=ann)
        assert r.status_code == 404 and r.json()["detail"]["code"] == "seat_empty"
        r = await client.delete("/api/rooms/ZZZZZZ/bots/1", headers=ann)
        assert r.status_code == 404 and r.json()["detail"]["code"] == "unknown_room"
        r = await client.delete(f"{bots}/2", headers=ann)
        assert r.status_code == 204 and r.content == b""
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert [s["seat"] for s in info["seats"]] == [0]

        # seats fill lowest first around a bot kept for later
        r = await client.post(bots, json={"seat": 3}, headers=ann)
        assert r.json() == {"seats": [3]}
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "bob"})
        assert r.json()["seat"] == 1
        r = await client.post(bots, json={"count": 3}, headers=ann)
        assert r.json() == {"seats": [2]}
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert [(s["seat"], s["bot"]) for s in info["seats"]] == [
            (0, False),
            (1, False),
            (2, True),
            (3, True),
        ]
        assert info["status"] == "playing" and info["hand_no"] == 1
        r = await client.delete(f"{bots}/3", headers=ann)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "room_started"

    # a rebuilt room (another process, a restart) reads the same seats from the store
    rec = await live.on_server(live.app.state.manager.store.get_room(code))
    assert [(p.seat, p.is_bot) for p in rec.players] == [
        (0, False),
        (1, False),
        (2, True),
        (3, True),
    ]


async def test_quick_phrases_over_the_redis_bus(live_redis: Live) -> None:
    """With Redis (a cluster of processes) a phrase goes through the room's owner: the same
    broadcast, the same typed refusals."""
    live = live_redis
    async with live.client() as client:
        code = await create_room(client, {"players": 2})
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})
        token = r.json()["token"]
        r = await client.post(
            f"/api/rooms/{code}/bots",
            json={"seat": 1},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.json() == {"seats": [1]}
    ws = await live.connect(code, token)
    spec = await live.connect(code)
    for s in (ws, spec):
        await recv_until(s, "snapshot")
    await send(ws, {"type": "phrase", "seq": 1, "phrase": "good_hand"})
    for s in (ws, spec):
        msg, _ = await recv_until(s, "phrase")
        assert msg == {"type": "phrase", "seat": 0, "phrase": "good_hand"}
    await send(ws, {"type": "phrase", "seq": 2, "phrase": "good_hand"})
    err, _ = await recv_until(ws, "error")
    assert (err["code"], err["seq"]) == ("phrase_rate_limited", 2)
    await send(ws, {"type": "phrase", "seq": 3, "phrase": "GOOD_HAND"})
    err, _ = await recv_until(ws, "error")
    assert (err["code"], err["seq"]) == ("unknown_phrase", 3)
    assert await phrases_until_pong(spec, 4) == []
    for s in (ws, spec):
        await s.close()
