"""End to end: a human over HTTP + WebSocket with three bots, on a real server and database.

The human plays by choosing among the legal actions it is sent (win if it can, otherwise
discard the drawn tile, pass claims). Hands are played until at least one ends with a win and
one in 黄庄. Checked: every message validates against the protocol models; no message shows
another seat's concealed tiles or the wall before the hand ends; the ledger in the database
nets to each hand's deltas, which sum to zero.
"""

from __future__ import annotations

import json
from typing import Any

from live_helpers import ADMIN_TOKEN, STALE, Live, choose, create_room, recv

from server.api.messages import ServerMessageAdapter
from server.store import Store

SECRET_KEYS = {"wall", "wall_tiles", "live_wall"}


def check_private(msg: dict[str, Any], me: int | None) -> None:
    """Assert ``msg`` (received by seat ``me``; None = spectator) leaks nothing hidden."""
    view = msg.get("view")
    ended = msg["type"] in ("hand_end", "session_end") or (
        isinstance(view, dict) and view.get("phase") == "ended"
    )
    if ended:
        return

    def walk(node: Any, top_view: bool = False) -> None:
        if isinstance(node, dict):
            leaked = SECRET_KEYS & node.keys()
            assert not leaked, f"secret keys {leaked} before the end: {msg}"
            assert not isinstance(node.get("hands"), list), f"all hands before the end: {msg}"
            if not top_view:
                assert "hand" not in node and "drawn" not in node, f"concealed tiles: {msg}"
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for key, value in msg.items():
        if key == "view" and isinstance(value, dict):
            if me is None:
                assert "hand" not in value and "drawn" not in value
            assert value.get("seed") is None, "seed revealed before the end"
            walk(value, top_view=True)
        elif key == "settlement":
            assert value is None, "settlement before the end"
        elif key == "previous":  # an earlier hand's settlement, over: all of it is public
            assert value is None or value["hand_no"] < msg["hand_no"], msg
            assert value is None or me is not None or value["replay"] is None, msg
        else:
            walk(value)
    for event in msg.get("events") or []:
        if isinstance(event, dict) and event.get("seat") != me and event.get("type") == "draw":
            assert "tile" not in event, f"another seat's drawn tile: {msg}"


async def play_room(
    live: Live, options: dict[str, Any], results: list[str], max_hands: int = 1000
) -> str:
    """Play one room: join, add bots, answer prompts until a win and a 黄庄 were seen (or the
    session ends). Returns the room code."""
    async with live.client() as client:
        code = await create_room(client, options)
        joined = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
        me, token = joined["seat"], joined["token"]
        ws = await live.connect(code, token)
        spectator = await live.connect(code)
        first = await recv(ws)
        assert first["type"] == "snapshot" and first["view"] is None and first["seat"] == me
        players = options.get("players", 4)
        r = await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": players - 1},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.json() == {"seats": list(range(1, players))}

        acted: tuple[int, int] | None = None
        seq = 0
        while True:
            msg = await recv(ws)
            ServerMessageAdapter.validate_python(msg)
            check_private(msg, me)
            t = msg["type"]
            # an answer can arrive after its window was closed (a win decided it without it)
            assert t != "error" or msg["code"] in STALE, msg
            if t in ("snapshot", "event") and msg["legal"]:
                prompt = (msg["hand_no"], msg["prompt"])
                if prompt != acted:
                    acted = prompt
                    seq += 1
                    action = choose(msg["legal"], msg["view"])
                    await ws.send(json.dumps({"type": "action", "seq": seq, "action": action}))
            elif t == "hand_end":
                settlement = msg["settlement"]
                assert sum(settlement["deltas"]) == 0
                results.append("win" if settlement["winners"] else settlement["result"])
                if "win" in results and "huang_zhuang" in results:
                    break
                if len(results) >= max_hands:
                    break
                if msg["next_hand"] is None:
                    break
                await ws.send(json.dumps({"type": "ready"}))
            elif t == "session_end":
                break
        # the spectator saw only public information, and a hand_end
        while True:
            try:
                smsg = await recv(spectator, timeout=0.5)
            except TimeoutError:
                break
            ServerMessageAdapter.validate_python(smsg)
            check_private(smsg, None)
        await ws.close()
        await spectator.close()
        return code


async def test_play_until_win_and_huang_zhuang(live: Live) -> None:
    live.app.state.rate_limit = (100_000, 100_000.0)  # this client answers at machine speed
    results: list[str] = []
    codes = []
    for n in range(12):
        options = {"hands": 16, "players": 3 if n % 2 else 4}
        codes.append(await play_room(live, options, results))
        if "win" in results and "huang_zhuang" in results:
            break
    assert "win" in results and "huang_zhuang" in results, results

    store = Store(live.database_url)
    try:
        for code in codes:
            ledger = await store.ledger(code=code, limit=100_000)
            hands = [h for h in await store.hands(code) if h.settlement is not None]
            assert hands
            for h in hands:
                assert sum(h.deltas) == 0
                net = [0] * len(h.deltas)
                for row in ledger:
                    if row["hand_no"] == h.hand_no:
                        net[row["from"]] -= row["points"]
                        net[row["to"]] += row["points"]
                assert net == h.deltas, (code, h.hand_no)
                assert h.settlement["deltas"] == h.deltas
    finally:
        await store.close()

    async with live.client() as client:
        assert (await client.get("/api/admin/ledger", params={"room": codes[0]})).status_code == 403
        bad = {"Authorization": "Bearer nope"}
        r = await client.get("/api/admin/ledger", params={"room": codes[0]}, headers=bad)
        assert r.status_code == 403
        auth = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        r = await client.get("/api/admin/ledger", params={"room": codes[0]}, headers=auth)
        assert r.status_code == 200
        assert all(row["room"] == codes[0] for row in r.json()["rows"])


async def test_play_over_redis_bus(live_redis: Live) -> None:
    live_redis.app.state.rate_limit = (100_000, 100_000.0)
    results: list[str] = []
    await play_room(live_redis, {"hands": 4}, results, max_hands=2)
    assert len(results) == 2
