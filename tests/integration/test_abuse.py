"""Abuse limits on a live server: room creation per client address, flooding a socket,
oversized frames, and the properties of tokens and room codes."""

from __future__ import annotations

import base64
import json
from collections import Counter

import pytest
from live_helpers import Live, create_room, recv, recv_until
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.api.http import WS_MAX_FRAME_BYTES
from server.api.limits import AddressLimits
from server.room.manager import CODE_ALPHABET, CODE_LENGTH


async def test_room_creation_is_limited_per_address(live: Live) -> None:
    live.app.state.limits = AddressLimits({"rooms": 3, "sockets": 100})
    async with live.client() as client:
        for _ in range(3):
            await create_room(client)
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {}})
        assert r.status_code == 429
        assert r.json() == {"detail": {"code": "rate_limited", "message": "too many rooms created"}}
        assert r.headers["retry-after"] == "60"


async def test_address_limits_separate_addresses_and_kinds() -> None:
    limits = AddressLimits({"rooms": 2, "sockets": 1})
    assert [await limits.allow("rooms", "a") for _ in range(3)] == [True, True, False]
    assert await limits.allow("rooms", "b"), "another address has its own window"
    assert await limits.allow("sockets", "a") and not await limits.allow("sockets", "a")
    await limits.clear("rooms", "a")
    assert await limits.allow("rooms", "a")


async def test_socket_connections_are_limited_per_address(live: Live) -> None:
    live.app.state.limits = AddressLimits({"rooms": 100, "sockets": 2})
    async with live.client() as client:
        code = await create_room(client)
    for _ in range(2):  # within the limit: refused only for the bad token
        async with connect(f"{live.ws}/ws/rooms/{code}?token=nope") as ws:
            assert json.loads(await ws.recv())["code"] == "bad_token"
    async with connect(f"{live.ws}/ws/rooms/{code}?token=nope") as ws:
        assert json.loads(await ws.recv())["code"] == "rate_limited"
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429


async def test_tokens_and_room_codes(live: Live) -> None:
    codes = []
    async with live.client() as client:
        for _ in range(40):
            codes.append(await create_room(client))
        tokens = []
        for code in codes[:4]:
            r = await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})
            tokens.append(r.json()["token"])
    for token in tokens:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(raw) * 8 >= 128
    assert len(set(tokens)) == len(tokens)
    assert len(set(codes)) == len(codes)
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    # codes are drawn independently: creation order shows in no position or ordering
    assert codes != sorted(codes)
    for i in range(CODE_LENGTH):
        assert len(Counter(c[i] for c in codes)) >= 10, f"position {i} barely varies"
    same_prefix = sum(1 for a, b in zip(codes, codes[1:], strict=False) if a[:3] == b[:3])
    assert same_prefix <= 2


async def test_flooding_socket_is_closed(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client)
    live.app.state.rate_limit = (3, 0.001)
    ws = await live.connect(code)
    await recv(ws)
    for i in range(40):
        try:
            await ws.send(json.dumps({"type": "ping", "seq": i}))
        except ConnectionClosed:
            break
    errors = 0
    with pytest.raises(ConnectionClosed):
        while True:
            msg = await recv(ws)
            errors += msg.get("code") == "rate_limited"
    assert ws.close_code == 1008
    assert errors == 20


async def test_oversized_and_binary_frames_get_errors(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client)
    ws = await live.connect(code)
    await recv(ws)
    await ws.send(b"\xff\xfe" * 10)
    err, _ = await recv_until(ws, "error")
    assert err["code"] == "bad_message"
    await ws.send(b"x" * 5000)
    err, _ = await recv_until(ws, "error")
    assert err["code"] == "too_large"
    await ws.send("[" * 3000 + "]" * 3000)
    err, _ = await recv_until(ws, "error")
    assert err["code"] in ("too_large", "bad_message")
    await ws.send("[" * 2000 + "]" * 2000)
    err, _ = await recv_until(ws, "error")
    assert err["code"] == "bad_message"
    await ws.send(json.dumps({"type": "ping", "seq": 9}))
    pong, _ = await recv_until(ws, "pong")
    assert pong["seq"] == 9
    # a frame over 64 KiB is not read: the socket is closed with 1009 (docs/protocol.md)
    await ws.send("x" * (WS_MAX_FRAME_BYTES + 1))
    with pytest.raises(ConnectionClosed) as closed:
        await recv_until(ws, "never")
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
