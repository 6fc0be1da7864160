"""Strangers on a live server (issue 16): bots need a seated player's token; room lookups,
joins, socket connects (bad tokens too) and admin authentication are limited per client
address, and failed admin attempts are logged without the token."""

from __future__ import annotations

import json
import logging

import pytest
from live_helpers import ADMIN_TOKEN, Live, create_room
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.api.limits import AddressLimits


async def test_bots_need_a_seated_players_token(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client, {"players": 2})
        other = await create_room(client, {"players": 2})
        r = await client.post(f"/api/rooms/{code}/bots", json={"count": 1})
        assert r.status_code == 401, r.text
        assert r.json()["detail"]["code"] == "token_required"
        assert r.headers["www-authenticate"] == "Bearer"
        ann = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
        bob = (await client.post(f"/api/rooms/{other}/join", json={"name": "bob"})).json()
        for header in (
            "Bearer not-a-token",
            f"Bearer {bob['token']}",  # a seat of another room
            f"bearer {ann['token']}",  # the scheme exactly
            ann["token"],
        ):
            r = await client.post(
                f"/api/rooms/{code}/bots", json={"count": 1}, headers={"Authorization": header}
            )
            assert r.status_code in (401, 403), (header, r.text)
            want = "bad_token" if r.status_code == 403 else "token_required"
            assert r.json()["detail"]["code"] == want
        r = await client.post("/api/rooms/ZZZZZZ/bots", json={"count": 1})
        assert r.status_code == 404
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert [s["name"] for s in info["seats"]] == ["ann"] and info["status"] == "open"
        r = await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": 1},
            headers={"Authorization": f"Bearer {ann['token']}"},
        )
        assert r.status_code == 200 and r.json() == {"seats": [1]}


async def test_lookups_and_joins_are_limited_per_address(live: Live) -> None:
    live.app.state.limits = AddressLimits({"lookups": 3, "joins": 2})
    async with live.client() as client:
        code = await create_room(client)
        for _ in range(3):
            assert (await client.get(f"/api/rooms/{code}")).status_code == 200
        for path in (f"/api/rooms/{code}", "/api/rooms/ZZZZZZ"):  # unknown codes count too
            r = await client.get(path)
            assert r.status_code == 429, r.text
            assert r.json()["detail"]["code"] == "rate_limited"
            assert r.headers["retry-after"] == "60"
        for _ in range(2):
            r = await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})
            assert r.status_code == 200
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "cat"})
        assert r.status_code == 429 and r.json()["detail"]["code"] == "rate_limited"
        r = await client.post(f"/api/rooms/{code}/bots", json={"count": 1})
        assert r.status_code == 429
        info = (await live.actor(code)).info()
    assert len(info["seats"]) == 2  # the refused join seated nobody


async def test_bad_token_connects_count_against_the_socket_limit(live: Live) -> None:
    live.app.state.limits = AddressLimits({"sockets": 3})
    async with live.client() as client:
        code = await create_room(client)
    for token in ("nope", "nope2", None):
        url = f"{live.ws}/ws/rooms/{code}" + (f"?token={token}" if token else "")
        async with connect(url) as ws:
            first = json.loads(await ws.recv())
            assert first["type"] == ("error" if token else "snapshot")
    async with connect(f"{live.ws}/ws/rooms/{code}") as ws:  # even a spectator, now
        assert json.loads(await ws.recv())["code"] == "rate_limited"
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 4429


async def test_admin_failures_are_limited_and_logged(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    live.app.state.limits = AddressLimits({"admin": 3})
    good = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with live.client() as client:
        assert (await client.get("/api/admin/rooms", headers=good)).status_code == 200
        with caplog.at_level(logging.WARNING, logger="server.api.app"):
            for header in ("Bearer wrong-1", "Bearer wrong-2", "nothing"):
                r = await client.get("/api/admin/rooms", headers={"Authorization": header})
                assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden"
            # over the limit: refused even with the right token
            r = await client.get("/api/admin/rooms", headers=good)
            assert r.status_code == 429 and r.json()["detail"]["code"] == "rate_limited"
            r = await client.get("/api/admin/ledger", headers={"Authorization": "Bearer x"})
            assert r.status_code == 429
    failed = [r.getMessage() for r in caplog.records if "admin authentication" in r.getMessage()]
    assert sum("failed from 127.0.0.1" in m for m in failed) == 3, failed
    assert sum("over its failure limit" in m for m in failed) == 2, failed
    assert all(r.levelno == logging.WARNING for r in caplog.records if "admin" in r.getMessage())
    text = "\n".join(failed)
    assert "wrong-1" not in text and ADMIN_TOKEN not in text


@pytest.mark.redis
async def test_limits_are_shared_through_redis(redis_url: str) -> None:
    """Two limiters on the same Redis (two processes) share one budget per address."""
    a = AddressLimits({"joins": 4}, redis_url)
    b = AddressLimits({"joins": 4}, redis_url)
    try:
        await a.clear("joins", "198.51.100.7")
        hits = [await (a if i % 2 else b).allow("joins", "198.51.100.7") for i in range(6)]
        assert hits == [True] * 4 + [False] * 2
        assert await a.under("joins", "198.51.100.8")
    finally:
        await a.clear("joins", "198.51.100.7")
        await a.close()
        await b.close()
