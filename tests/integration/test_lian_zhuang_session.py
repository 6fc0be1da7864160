"""A whole 连庄 session of 8 hands over the real server, three bots and one scripted player
(spec §10.2, §10.3, §12): the dealer and its streak carry from hand to hand, every dealer
payment has its +N, and the running totals are the ledger's sums."""

from __future__ import annotations

import json

from live_helpers import ADMIN_TOKEN, STALE, Live, choose, create_room, recv

from server.room.actor import replay_hand
from server.rules.guiyang import GuiyangOptions, settle
from server.store import Store


async def test_eight_hands_of_lian_zhuang_keep_streak_and_totals(live: Live) -> None:
    live.app.state.rate_limit = (100_000, 100_000.0)  # this client answers at machine speed
    seeds = iter(f"lian-zhuang-{n}" for n in range(100))
    live.app.state.manager.new_seed = lambda: next(seeds)  # the same eight deals every run
    async with live.client() as client:
        code = await create_room(client, {"scoring": "lian_zhuang", "hands": 8})
        token = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
        ws = await live.connect(code, token["token"])
        r = await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": 3},
            headers={"Authorization": f"Bearer {token['token']}"},
        )
        assert r.status_code == 200, r.text
        acted, seq, hand_ends = None, 0, 0
        while True:
            msg = await recv(ws, timeout=30)
            # An answer can arrive after the window it answered was closed.
            assert msg["type"] != "error" or msg["code"] in STALE, msg
            if msg["type"] in ("snapshot", "event") and msg.get("legal"):
                if (msg["hand_no"], msg["prompt"]) != acted:
                    acted = (msg["hand_no"], msg["prompt"])
                    seq += 1
                    action = choose(msg["legal"], msg["view"])
                    await ws.send(json.dumps({"type": "action", "seq": seq, "action": action}))
            elif msg["type"] == "hand_end":
                hand_ends += 1
                await ws.send(json.dumps({"type": "ready"}))
            elif msg["type"] == "session_end":
                break
        await ws.close()
        assert hand_ends == 8
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert info["status"] == "finished"
        ledger = await client.get(
            "/api/admin/ledger",
            params={"room": code, "limit": 1000},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )
        assert ledger.status_code == 200, ledger.text

    store = Store(live.database_url)
    try:
        hands = await store.hands(code)
        room = await store.get_room(code)
        assert room is not None
        options = GuiyangOptions(**room.options)
        assert [h.hand_no for h in hands] == list(range(1, 9))
        dealer, streak = 0, 1
        totals = [0, 0, 0, 0]
        bonus_lines = 0
        for hand in hands:
            assert (hand.dealer, hand.dealer_streak) == (dealer, streak), hand.hand_no
            state, _ = replay_hand(
                options,
                hand.seed,
                hand.dealer,
                hand.dealer_streak,
                await store.hand_actions(code, hand.hand_no),
                hand.weekday,
            )
            settlement = settle(state)
            assert settlement is not None
            assert settlement["deltas"] == hand.deltas == hand.settlement["deltas"]
            for line in settlement["payments"]:
                if line["reason"] in ("hu", "cha_jiao"):
                    involved = hand.dealer in (line["from"], line["to"])
                    assert line["detail"]["streak"] == (hand.dealer_streak if involved else 0)
                    bonus_lines += involved
            totals = [t + d for t, d in zip(totals, hand.deltas, strict=True)]
            nxt = settlement["next_dealer"]
            streak = streak + 1 if nxt == dealer else 1
            dealer = nxt
        assert totals == await store.totals(code) == info["totals"]
        assert sum(totals) == 0
        rows = ledger.json()
        rows = rows["rows"]
        per_seat = [0, 0, 0, 0]
        for row in rows:
            per_seat[row["from"]] -= row["points"]
            per_seat[row["to"]] += row["points"]
        assert per_seat == totals
        assert bonus_lines > 0, "no payment involved the dealer in 8 hands"
    finally:
        await store.close()
