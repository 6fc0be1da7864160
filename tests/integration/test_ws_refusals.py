"""Every refused input over a real WebSocket: the client gets an ``error`` (with its ``seq``),
nothing changes, and the socket stays open; bad tokens / unknown rooms are closed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from live_helpers import Live, create_room, recv, recv_until
from websockets.exceptions import ConnectionClosed

from server.rules.guiyang import GuiyangOptions, deal, legal_actions, prompt_kind


def quiet_seed() -> str:
    """A seed whose dealer (seat 0) holds no winning hand and may not kong at the start."""
    for n in range(1000):
        seed = f"refusals-{n}"
        state = deal(GuiyangOptions(), seed, 0, 1)
        kinds = {a.kind for a in legal_actions(state, 0)}
        if prompt_kind(state) == "turn" and not kinds & {"self_draw", "kong"}:
            return seed
    raise AssertionError("no quiet seed")


async def four_humans(live: Live) -> tuple[str, list[str]]:
    """A room with four human seats (hand 1 dealt from a fixed seed); returns code, tokens."""
    seed = quiet_seed()
    live.app.state.manager.new_seed = lambda: seed
    async with live.client() as client:
        code = await create_room(client)
        tokens = []
        for i in range(4):
            r = await client.post(f"/api/rooms/{code}/join", json={"name": f"p{i}"})
            assert r.json()["seat"] == i
            tokens.append(r.json()["token"])
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "late"})
        assert r.status_code == 409 and r.json()["detail"]["code"] == "room_full"
    return code, tokens


async def send(ws: Any, msg: Any) -> None:
    await ws.send(msg if isinstance(msg, str) else json.dumps(msg))


async def expect_error(ws: Any, code: str, seq: int | None = None) -> dict[str, Any]:
    msg, _ = await recv_until(ws, "error")
    assert msg["code"] == code, msg
    assert msg["seq"] == seq
    return msg


async def test_refused_inputs(live: Live) -> None:
    code, tokens = await four_humans(live)
    ws0 = await live.connect(code, tokens[0])
    ws1 = await live.connect(code, tokens[1])
    snap0 = await recv(ws0)
    snap1 = await recv(ws1)
    assert snap0["type"] == snap1["type"] == "snapshot"
    view0, view1 = snap0["view"], snap1["view"]
    assert view0["phase"] == "turn" and view0["turn"] == 0
    version = snap0["version"]

    # wrong turn: seat 1 discards while seat 0 is to play
    await send(
        ws1, {"type": "action", "seq": 1, "action": {"kind": "discard", "tile": view1["hand"][0]}}
    )
    await expect_error(ws1, "not_your_turn", 1)

    # a tile not held
    held = set(view0["hand"]) | {view0.get("drawn")}
    missing = next(f"{n}{s}" for s in "mps" for n in range(1, 10) if f"{n}{s}" not in held)
    await send(ws0, {"type": "action", "seq": 2, "action": {"kind": "discard", "tile": missing}})
    await expect_error(ws0, "illegal_action", 2)

    # pong without two of the tile (and without a discard to claim)
    await send(ws0, {"type": "action", "seq": 3, "action": {"kind": "pong"}})
    await expect_error(ws0, "illegal_action", 3)

    # win without a complete hand
    await send(ws0, {"type": "action", "seq": 4, "action": {"kind": "self_draw"}})
    await expect_error(ws0, "illegal_action", 4)
    await send(ws0, {"type": "action", "seq": 5, "action": {"kind": "win"}})
    await expect_error(ws0, "illegal_action", 5)

    # malformed messages
    await send(ws0, "{not json")
    await expect_error(ws0, "bad_message")
    await send(ws0, {"type": "teleport", "seq": 6})
    await expect_error(ws0, "bad_message", 6)
    await send(ws0, {"type": "action", "seq": 7, "action": {"kind": "discard", "tile": "0z"}})
    await expect_error(ws0, "bad_message", 7)
    await send(ws0, {"type": "action", "seq": 8, "action": {"tile": "1m"}})
    await expect_error(ws0, "bad_message", 8)
    await send(ws0, {"type": "action", "seq": 9, "action": {"kind": "discard"}, "extra": 1})
    await expect_error(ws0, "bad_message", 9)
    await send(ws0, "[]")
    await expect_error(ws0, "bad_message")
    await send(ws0, "x" * 5000)
    await expect_error(ws0, "too_large")

    # ready while a hand is being played
    await send(ws0, {"type": "ready", "seq": 12})
    await expect_error(ws0, "not_between_hands", 12)

    # nothing changed, and the socket is still open
    await send(ws0, {"type": "sync"})
    snap, _ = await recv_until(ws0, "snapshot")
    assert snap["version"] == version and snap["view"] == view0

    # a legal action is accepted
    await send(
        ws0,
        {
            "type": "action",
            "seq": 10,
            "action": {"kind": "discard", "tile": view0["drawn"] or view0["hand"][-1]},
        },
    )
    ev, _ = await recv_until(ws0, "event")
    # the discard (and the next draw with it when nobody may claim)
    assert ev["events"][0]["type"] == "discard"
    assert ev["version"] == version + len(ev["events"])

    # spectators cannot play
    spec = await live.connect(code)
    ssnap = await recv(spec)
    assert ssnap["seat"] is None and "hand" not in ssnap["view"]
    await send(spec, {"type": "action", "seq": 11, "action": {"kind": "pass"}})
    await expect_error(spec, "spectator", 11)
    for ws in (ws0, ws1, spec):
        await ws.close()


async def test_bad_token_and_unknown_room_are_closed(live: Live) -> None:
    code, _tokens = await four_humans(live)
    ws = await live.connect(code, "not-a-token")
    msg = await recv(ws)
    assert msg["type"] == "error" and msg["code"] == "bad_token"
    with pytest.raises(ConnectionClosed):
        await recv(ws)
    assert ws.close_code == 4401

    ws = await live.connect("ZZZZZZ")
    msg = await recv(ws)
    assert msg["type"] == "error" and msg["code"] == "unknown_room"
    with pytest.raises(ConnectionClosed):
        await recv(ws)
    assert ws.close_code == 4404


async def test_new_socket_replaces_old(live: Live) -> None:
    code, tokens = await four_humans(live)
    old = await live.connect(code, tokens[2])
    assert (await recv(old))["type"] == "snapshot"
    new = await live.connect(code, tokens[2])
    assert (await recv(new))["type"] == "snapshot"
    msg, _ = await recv_until(old, "error")
    assert msg["code"] == "replaced"
    with pytest.raises(ConnectionClosed):
        while True:
            await recv(old)
    assert old.close_code == 4409
    await send(new, {"type": "ping", "seq": 1})
    pong, _ = await recv_until(new, "pong")
    assert pong["seq"] == 1
    async with live.client() as client:
        info = (await client.get(f"/api/rooms/{code}")).json()
    assert info["seats"][2]["connected"] is True
    assert info["seats"][3]["connected"] is False
    await new.close()


async def test_rate_limit(live: Live) -> None:
    code, tokens = await four_humans(live)
    live.app.state.rate_limit = (3, 0.001)
    ws = await live.connect(code, tokens[0])
    await recv(ws)
    for i in range(4):
        await send(ws, {"type": "ping", "seq": i})
    for i in range(3):
        pong, _ = await recv_until(ws, "pong")
        assert pong == {"type": "pong", "seq": i}
    await expect_error(ws, "rate_limited", 3)  # the refused message's seq, echoed
    await ws.close()
