"""Jintan rooms through the real server (HTTP + WebSocket): created with their own options
(a Guiyang option is refused by name), listed by ``GET /api/games``, and played by a human
who chows, pongs and wins over the socket with three bots; the ledger nets to each hand."""

from __future__ import annotations

import json
from typing import Any

import pytest
from live_helpers import STALE, Live, recv
from test_play_e2e import check_private

from server.api.messages import ServerMessageAdapter
from server.store import Store


async def test_games_lists_both_games_with_their_options(live: Live) -> None:
    async with live.client() as client:
        games = {g["name"]: g for g in (await client.get("/api/games")).json()["games"]}
    assert set(games) == {"guiyang", "jintan"}
    jt = {o["name"]: o for o in games["jintan"]["options"]}
    assert (jt["base"]["default"], jt["flower_value"]["default"], jt["chow"]["default"]) == (
        10,
        5,
        True,
    )
    assert jt["base"]["label_zh"] == "底数" and jt["chow"]["label_en"] == "Chow allowed"
    assert jt["flower_value"]["hint_zh"].startswith("每 1 花加的分")
    assert "wu_gu_ji" in {o["name"] for o in games["guiyang"]["options"]}


async def test_a_jintan_room_takes_its_own_options_only(live: Live) -> None:
    async with live.client() as client:
        r = await client.post("/api/rooms", json={"game": "jintan", "options": {}})
        assert r.status_code == 201
        assert r.json()["game"] == "jintan"
        assert r.json()["options"] == {
            "base": 10,
            "flower_value": 5,
            "chow": True,
            "hands": 8,
            "claim_seconds": 10,
            "turn_seconds": 20,
            "bank_seconds": 20,
        }
        chosen = {"base": 20, "flower_value": 2, "chow": False, "hands": 4}
        r = await client.post("/api/rooms", json={"game": "jintan", "options": chosen})
        assert r.status_code == 201 and r.json()["options"].items() >= chosen.items()
        info = (await client.get(f"/api/rooms/{r.json()['code']}")).json()
        assert info["game"] == "jintan" and info["options"] == r.json()["options"]
        for field, value in [
            ("yao_bai_ji", True),
            ("players", 3),
            ("base", 0),
            ("chow", "maybe"),
            ("chow", "off"),  # not coerced (it would be False)
            ("base", "10"),
            ("flower_value", 5.0),
        ]:
            r = await client.post("/api/rooms", json={"game": "jintan", "options": {field: value}})
            assert r.status_code == 422, (field, r.text)
            assert r.json()["detail"][0]["loc"][-1] == field
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {"base": 10}})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "base"
        r = await client.post("/api/rooms", json={"game": "mahjong-soul", "options": {}})
        assert r.status_code == 422


def choose(legal: list[dict[str, Any]], view: dict[str, Any]) -> dict[str, Any]:
    """Win if possible; chow (the first run) or pong when offered; discard the drawn tile
    (else the first discard); pass."""
    kinds = {a["kind"]: a for a in legal}
    for k in ("self_draw", "win", "chow", "pong"):
        if k in kinds:
            return kinds[k]
    discards = [a for a in legal if a["kind"] == "discard"]
    for a in discards:
        if a.get("tile") == view.get("drawn"):
            return a
    return discards[0] if discards else kinds["pass"]


@pytest.mark.parametrize("hands", [4])
async def test_a_human_plays_jintan_over_the_socket(live: Live, hands: int) -> None:
    live.app.state.rate_limit = (100_000, 100_000.0)  # this client answers at machine speed
    kinds: set[str] = set()
    async with live.client() as client:
        r = await client.post("/api/rooms", json={"game": "jintan", "options": {"hands": hands}})
        code = r.json()["code"]
        joined = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
        me, token = joined["seat"], joined["token"]
        ws = await live.connect(code, token)
        assert (await recv(ws))["type"] == "snapshot"
        await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": 3},
            headers={"Authorization": f"Bearer {token}"},
        )
        acted: tuple[int, int] | None = None
        seq = 0
        ended = 0
        while ended < hands:
            msg = await recv(ws, timeout=30)
            ServerMessageAdapter.validate_python(msg)
            check_private(msg, me)
            t = msg["type"]
            assert t != "error" or msg["code"] in STALE, msg
            if t in ("snapshot", "event") and msg["legal"]:
                assert "flowers" in msg["view"]["seats"][me]
                prompt = (msg["hand_no"], msg["prompt"])
                if prompt != acted:
                    acted = prompt
                    seq += 1
                    action = choose(msg["legal"], msg["view"])
                    kinds.add(action["kind"])
                    # with its prompt: a claim window decided without this seat (a pong
                    # beats the chow) may close before the answer lands; the answer is then
                    # stale, never taken as an answer to the next window (illegal_action)
                    answer = {
                        "type": "action",
                        "seq": seq,
                        "action": action,
                        "prompt": msg["prompt"],
                    }
                    await ws.send(json.dumps(answer))
            elif t == "hand_end":
                ended += 1
                assert sum(msg["settlement"]["deltas"]) == 0
                if msg["next_hand"] is not None:
                    await ws.send(json.dumps({"type": "ready"}))
        await ws.close()
    assert "chow" in kinds or "pong" in kinds, kinds
    store = Store(live.database_url)
    try:
        ledger = await store.ledger(code=code, limit=100_000)
        for h in await store.hands(code):
            assert h.settlement is not None and sum(h.deltas) == 0
            net = [0] * 4
            for row in ledger:
                if row["hand_no"] == h.hand_no:
                    net[row["from"]] -= row["points"]
                    net[row["to"]] += row["points"]
                    assert row["reason"] == "hu" and "hua_total" in row["detail"]
            assert net == h.deltas
    finally:
        await store.close()
