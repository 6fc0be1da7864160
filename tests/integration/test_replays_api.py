"""Hand replays over a live server (issue 14 回放): ``GET /api/replays/{hand_id}?key=``.

A human and three bots play the first hand of a room. While it is played the replay is refused even
with the right key; at the end the seat (not the spectator) gets the link with its
``hand_end``; the replay is the engine's (the dealt hands and wall of the seed, one step per
logged action plus each closed claim window, the final settlement equal to the ledger);
a wrong, missing or other hand's key is refused; the admin token needs no key.
"""

from __future__ import annotations

import json
from typing import Any

from live_helpers import ADMIN_TOKEN, STALE, Live, choose, create_room, recv
from sqlalchemy import text

from server.api.messages import ServerMessageAdapter
from server.rules.dealing import seed_hash, shuffle_and_deal
from server.rules.registry import find_game
from server.store import Store

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def _hand_row(live: Live, code: str, hand_no: int) -> dict[str, Any]:
    store = Store(live.database_url)
    try:
        async with store.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        "SELECT h.id, h.replay_key, h.seed FROM hands h JOIN rooms r"
                        " ON r.id = h.room_id WHERE r.code = :c AND h.hand_no = :n"
                    ),
                    {"c": code, "n": hand_no},
                )
            ).one()
        return {"id": row[0], "key": row[1], "seed": row[2]}
    finally:
        await store.close()


async def _play_to_end(ws: Any, first: dict[str, Any]) -> dict[str, Any]:
    """Answer every prompt of the seat (from ``first``, a message already read) until the
    hand's ``hand_end``, which is returned."""
    acted = None
    seq = 0
    msg = first
    while True:
        ServerMessageAdapter.validate_python(msg)
        assert msg["type"] != "error" or msg["code"] in STALE, msg
        if msg["type"] in ("snapshot", "event"):
            assert msg.get("replay") is None, "a replay link before the hand ended"
            if msg["legal"] and (msg["hand_no"], msg["prompt"]) != acted:
                acted = (msg["hand_no"], msg["prompt"])
                seq += 1
                action = choose(msg["legal"], msg["view"])
                await ws.send(json.dumps({"type": "action", "seq": seq, "action": action}))
        elif msg["type"] == "hand_end":
            return msg
        msg = await recv(ws)


async def test_replay_of_a_played_hand_is_for_its_seats_and_the_admin(live: Live) -> None:
    live.app.state.rate_limit = (100_000, 100_000.0)
    live.app.state.manager.new_seed = lambda: "replay-api"  # a deal whose hand has passes
    async with live.client() as client:
        code = await create_room(client, {"hands": 4, "players": 4})
        joined = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
        assert joined["seat"] == 0
        token = joined["token"]
        ws = await live.connect(code, token)
        spectator = await live.connect(code)
        await recv(ws)
        r = await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": 3},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 200
        deal = await recv(ws)
        while deal["type"] != "snapshot":  # "room" messages as the bots sit down
            deal = await recv(ws)
        assert deal["version"] == 0 and deal["view"] is not None and deal["replay"] is None

        row = await _hand_row(live, code, 1)
        assert len(row["key"]) == 32 and int(row["key"], 16) >= 0
        hid, key = row["id"], row["key"]
        # not finished: refused with the right key, and for the admin too
        for params, headers in (({"key": key}, {}), ({}, ADMIN)):
            r = await client.get(f"/api/replays/{hid}", params=params, headers=headers)
            assert r.status_code == 409, r.text
            assert r.json()["detail"]["code"] == "hand_not_finished"
            assert key not in r.text and row["seed"] not in r.text

        end = await _play_to_end(ws, deal)
        assert end["replay"] == {
            "hand_id": hid,
            "key": key,
            "url": f"/replay?hand={hid}&key={key}",
        }
        # the spectator's hand_end carries no link
        while True:
            smsg = await recv(spectator)
            if smsg["type"] == "hand_end":
                break
            assert smsg.get("replay") is None
        assert smsg["replay"] is None and smsg["settlement"] == end["settlement"]
        # a reconnecting seat's snapshot has the link; a spectator's does not
        ws2 = await live.connect(code, token)
        snap = await recv(ws2)
        assert snap["type"] == "snapshot" and snap["replay"] == end["replay"]
        spectator2 = await live.connect(code)
        snap = await recv(spectator2)
        assert snap["type"] == "snapshot" and snap["replay"] is None

        # refused: no key, a wrong key, a key of the right length but wrong, an unknown hand
        for params in ({}, {"key": "x"}, {"key": "0" * 32}, {"key": key.upper()}):
            r = await client.get(f"/api/replays/{hid}", params=params)
            assert r.status_code == 403, (params, r.text)
            assert r.json()["detail"]["code"] == "bad_key"
            assert row["seed"] not in r.text
        r = await client.get(f"/api/replays/{hid + 1000}", params={"key": key})
        assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"
        for bad in ("0", "abc", str(2**63)):
            r = await client.get(f"/api/replays/{bad}", params={"key": key})
            assert r.status_code == 422, bad
        for auth in ("Bearer wrong", f"Basic {ADMIN_TOKEN}"):
            r = await client.get(
                f"/api/replays/{hid}", params={"key": key}, headers={"Authorization": auth}
            )
            assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden"

        r = await client.get(f"/api/replays/{hid}", params={"key": key})
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "private, no-store"
        body = r.json()
        r = await client.get(f"/api/replays/{hid}", headers=ADMIN)
        assert r.status_code == 200 and r.json() == body

    store = Store(live.database_url)
    try:
        (hand,) = await store.hands(code)
        payments = await store.ledger_by_hand(code, 1)
        actions = await store.hand_actions(code, 1)
    finally:
        await store.close()
    game = find_game("guiyang")
    hands, wall = shuffle_and_deal(list(game.tile_set), hand.seed, 4, hand.dealer)
    assert body["hand_id"] == hid and body["room"] == code and body["hand_no"] == 1
    assert body["game"] == "guiyang" and body["players"] == 4 and body["dealer"] == hand.dealer
    assert body["seed"] == hand.seed
    assert body["seed_hash"] == body["initial"]["seed_hash"] == seed_hash(hand.seed)
    assert body["seed_hash"] == deal["view"]["seed_hash"]  # the one published at the deal
    assert body["deal"] == {"hands": hands, "wall": wall}
    assert [s["name"] for s in body["seats"]] == ["ann", *(s["name"] for s in body["seats"][1:])]
    assert [s["bot"] for s in body["seats"]] == [False, True, True, True]
    # every hand open from the start: the dealt tiles of each seat
    for seat, dealt in enumerate(hands):
        sv = body["initial"]["seats"][seat]
        assert sorted(sv["hand"] + ([sv["drawn"]] if sv["drawn"] else [])) == sorted(dealt)
    # one step per logged action (claims and passes included) in order, plus closed windows
    logged = [s for s in body["steps"] if s["seat"] is not None]
    assert [(s["seat"], s["action"]) for s in logged] == [(s, p["action"]) for s, p in actions]
    assert [s["n"] for s in body["steps"]] == list(range(1, len(body["steps"]) + 1))
    assert any(s["action"]["kind"] == "pass" for s in logged)
    closes = [s for s in body["steps"] if s["seat"] is None]
    assert all(s["action"] is None and s["events"] for s in closes)
    last = body["steps"][-1]["state"]
    assert last["phase"] == "ended" and last["acting"] == [] and last["seed"] == hand.seed
    # the replayed settlement is the ledger's
    assert body["settlement"] == end["settlement"] == hand.settlement
    assert body["settlement"]["deltas"] == hand.deltas == body["ledger"]["deltas"]
    assert body["ledger"]["payments"] == payments
    assert body["replay_ok"] is True
    assert sum(hand.deltas) == 0


async def test_a_hand_created_before_the_replay_key_is_replayable_by_the_admin(live: Live) -> None:
    """Hands stored by `store_room` (the admin tests' bot hands) get a key at creation; the
    key of one hand does not open another."""
    from tests.store.admin_data import store_room

    store = Store(live.database_url)
    try:
        settlements = await store_room(store, "OLD1", ["ann", "bob", "cat", "dan"], 2)
        first, second = await store.hands("OLD1")
    finally:
        await store.close()
    assert first.id is not None and second.id is not None
    assert first.replay_key != second.replay_key
    async with live.client() as client:
        r = await client.get(f"/api/replays/{second.id}", params={"key": first.replay_key})
        assert r.status_code == 403 and r.json()["detail"]["code"] == "bad_key"
        for hand, settlement in ((first, settlements[0]), (second, settlements[1])):
            r = await client.get(f"/api/replays/{hand.id}", headers=ADMIN)
            assert r.status_code == 200, r.text
            assert r.json()["settlement"]["deltas"] == settlement["deltas"] == hand.deltas
            assert r.json()["replay_ok"] is True
            r2 = await client.get(f"/api/replays/{hand.id}", params={"key": hand.replay_key})
            assert r2.json() == r.json()
