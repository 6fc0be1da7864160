"""Operations on real server processes: the per-address room limit holds across two
processes (Redis-backed), and one process's ``/metrics`` series move when a hand is played
while its JSON logs carry no token and no error for a client that simply goes away."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from processes import Player, ServerProcess  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

ENV = {"CLAIM_MIN_MS": "0", "TURN_SECONDS": "300", "CLAIM_SECONDS": "300", "ADMIN_TOKEN": ""}
ENV["AUTO_SECONDS"] = "0"
ROOM = {"game": "guiyang", "options": {"hands": 4}}


@pytest.mark.postgres
@pytest.mark.redis
async def test_room_limit_holds_across_two_processes(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    r = aioredis.Redis.from_url(redis_url)
    try:
        for key in await r.keys("zhuoji-limits*"):
            await r.delete(key)
    finally:
        await r.aclose()
    env = {**ENV, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url, "ROOMS_PER_MINUTE": "3"}
    a = ServerProcess(env, tmp_path / "a.log")
    b = ServerProcess(env, tmp_path / "b.log")
    try:
        a.wait_ready()
        b.wait_ready()
        async with httpx.AsyncClient(timeout=30) as client:
            statuses = [
                (await client.post(f"{server.http}/api/rooms", json=ROOM)).status_code
                for server in (a, b, a, b, a)
            ]
        assert statuses == [201, 201, 201, 429, 429]
    finally:
        a.stop()
        b.stop()


def _samples(text: str) -> dict[str, float]:
    """``{'name{labels}': value}`` of an exposition text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def _total(samples: dict[str, float], name: str, **labels: str) -> float:
    want = [f'{k}="{v}"' for k, v in labels.items()]
    return sum(
        v
        for k, v in samples.items()
        if re.fullmatch(re.escape(name) + r"(\{.*\})?", k) and all(w in k for w in want)
    )


async def test_metrics_move_when_a_hand_is_played_and_logs_stay_clean(tmp_path: Path) -> None:
    env = {**ENV, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'z.db'}"}
    env["LOG_FORMAT"] = "json"
    env["METRICS_TOKEN"] = "scraper-token"
    app = ServerProcess(env, tmp_path / "app.log", args=["--log-level", "info"])
    try:
        app.wait_ready()
        async with httpx.AsyncClient(base_url=app.http, timeout=30) as client:
            # only the scraper's token reads them (they move with every claim answer)
            assert (await client.get("/metrics")).status_code == 403
            wrong = {"Authorization": "Bearer scraper-tokem"}
            assert (await client.get("/metrics", headers=wrong)).status_code == 403
            scraper = {"Authorization": "Bearer scraper-token"}
            before = _samples((await client.get("/metrics", headers=scraper)).text)
            code = (await client.post("/api/rooms", json=ROOM)).json()["code"]
            joined = (await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})).json()
            player = Player(code, joined["seat"], joined["token"], app.ws)
            await player.connect()
            assert (
                await client.post(
                    f"/api/rooms/{code}/bots",
                    json={"count": 3},
                    headers={"Authorization": f"Bearer {joined['token']}"},
                )
            ).is_success
            during = _samples((await client.get("/metrics", headers=scraper)).text)
            end = await asyncio.wait_for(player.play(), 120)
            assert end["type"] == "hand_end"
            await player.close()
            # a client that sends `ready` and goes away at once: a normal disconnect
            for _ in range(3):
                ws = await connect(f"{app.ws}/ws/rooms/{code}?token={joined['token']}")
                await ws.recv()
                await ws.send(json.dumps({"type": "ready"}))
                await ws.close()
            await asyncio.sleep(1.0)
            after = _samples((await client.get("/metrics", headers=scraper)).text)
    finally:
        app.stop()

    assert _total(during, "zhuoji_sockets", role="seat") == 1
    assert _total(during, "zhuoji_rooms", state="playing") == 1
    assert _total(after, "zhuoji_sockets", role="seat") == 0
    assert (
        _total(after, "zhuoji_settlements_total") == _total(before, "zhuoji_settlements_total") + 1
    )
    assert _total(after, "zhuoji_claim_windows_total") >= 1
    assert _total(after, "zhuoji_actions_total", type="action", outcome="ok") >= player.actions >= 1
    assert _total(after, "zhuoji_action_seconds_count", type="action") >= player.actions
    assert _total(after, "zhuoji_actions_total", type="ready") >= 1
    for name in ("zhuoji_bus_publish_seconds_count", "zhuoji_store_query_seconds_count"):
        assert _total(after, name) > _total(before, name), name
    assert _total(after, "zhuoji_http_requests_total", route="/api/rooms", status="201") == 1

    lines = (tmp_path / "app.log").read_text().splitlines()
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert records and len(records) == len([ln for ln in lines if ln.strip()]), "non-JSON lines"
    for rec in records:
        assert {"timestamp", "level", "logger", "process", "message"} <= rec.keys()
    text = "\n".join(lines)
    assert joined["token"] not in text
    assert "token=***" in text  # uvicorn logged the socket paths, redacted
    assert not [r for r in records if r["level"] in ("ERROR", "CRITICAL")], text[-3000:]
    assert "Exception in ASGI application" not in text
