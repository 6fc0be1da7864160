"""Security review fixes on a live server: seat tokens kept out of uvicorn's logs, room codes
checked before any lookup, strict client messages, player names, the admin header."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from live_helpers import ADMIN_TOKEN, Live, create_room, recv, recv_until
from test_ws_refusals import expect_error, four_humans, send
from uvicorn.logging import AccessFormatter, DefaultFormatter
from websockets.exceptions import ConnectionClosed

from server.__main__ import build_parser


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_tokens_never_reach_uvicorn_logs(live: Live) -> None:
    code, tokens = await four_humans(live)
    capture = _Capture()
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "uvicorn.access")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(capture)
        lg.setLevel(logging.DEBUG)
    try:
        ws = await live.connect(code, tokens[0])
        assert (await recv(ws))["type"] == "snapshot"
        await ws.close()
        bad = await live.connect(code, "not-a-real-token-xyz")
        assert (await recv(bad))["code"] == "bad_token"
        async with live.client() as client:  # an HTTP request with a token in its query
            await client.get(f"/api/rooms/{code}", params={"token": tokens[1]})
        await asyncio.sleep(0.2)
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(capture)
            lg.setLevel(level)
    assert capture.records
    texts = []
    for r in capture.records:
        fmt = AccessFormatter() if r.name == "uvicorn.access" else DefaultFormatter()
        texts.append(fmt.format(r))
    joined = "\n".join(texts)
    assert "WebSocket /ws/rooms/" in joined and "token=***" in joined, joined
    for secret in (*tokens, "not-a-real-token-xyz"):
        assert secret not in joined
    assert any(r.name == "uvicorn.access" for r in capture.records)


BAD_CODES = ["zzzzzz", "ZZZZZ", "ZZZZZZZ", "AAAAAA", "ZZZZ0Z", "ZZZZZ%C3%A9", "x" * 300]


async def test_malformed_room_codes_are_refused_before_the_manager(live: Live) -> None:
    manager = live.app.state.manager
    before = dict(manager._locks)
    async with live.client() as client:
        code = await create_room(client)
        for i in range(200):
            bad = f"{code[:5]}{i}"  # digits 0/1 are not in the alphabet; others repeat
            bad = bad if i % 2 else f"Q{i:05d}x"
            if bad == code:  # code[:5] + one digit can be the real code itself
                continue
            for path, method, body in (
                (f"/api/rooms/{bad}", "get", None),
                (f"/api/rooms/{bad}/join", "post", {"name": "ann"}),
                (f"/api/rooms/{bad}/bots", "post", {"count": 1}),
            ):
                r = await client.request(method, path, json=body)
                assert r.status_code == 404, (path, r.text)
                assert r.json()["detail"]["code"] == "unknown_room"
        for bad in BAD_CODES:
            r = await client.get(f"/api/rooms/{bad}")
            assert r.status_code == 404 and r.json()["detail"]["code"] == "unknown_room"
        # well-formed codes naming no room leave no lock behind either
        for i in range(50):
            r = await client.get(f"/api/rooms/ZZZZ{'23456789BCDFGHJKMNPQRSTVWXYZ'[i % 28]}Z")
            assert r.status_code == 404
    for bad in ["zzzzzz", "ZZZZZ", "ZZZZZZZ", "ZZZZ0Z", "ZZZZZZ"]:
        ws = await live.connect(bad)
        msg = await recv(ws)
        assert msg["type"] == "error" and msg["code"] == "unknown_room"
        with pytest.raises(ConnectionClosed):
            await recv(ws)
        assert ws.close_code == 4404
    grown = set(manager._locks) - set(before)
    assert grown <= {code}, grown


async def test_wrong_types_in_client_messages_are_refused(live: Live) -> None:
    code, tokens = await four_humans(live)
    ws = await live.connect(code, tokens[0])
    snap = await recv(ws)
    view, version, prompt = snap["view"], snap["version"], snap["prompt"]
    tile = view["drawn"] or view["hand"][-1]
    discard = {"kind": "discard", "tile": tile}
    refused: list[tuple[dict[str, Any], int | None]] = [
        ({"type": "action", "seq": 1, "prompt": True, "action": discard}, 1),
        ({"type": "action", "seq": 2, "prompt": str(prompt), "action": discard}, 2),
        ({"type": "action", "seq": 3, "prompt": 2**53 + 1, "action": discard}, 3),
        ({"type": "action", "seq": 4, "prompt": -1, "action": discard}, 4),
        ({"type": "action", "seq": 5, "action": {**discard, "bao_ting": "yes"}}, 5),
        ({"type": "auto", "seq": 6, "on": "yes"}, 6),
        ({"type": "auto", "seq": 7, "on": 1}, 7),
        ({"type": "dissolve", "seq": 8, "agree": "true"}, 8),
        ({"type": "dissolve", "seq": 9, "agree": 1}, 9),
        ({"type": "ping", "seq": "7"}, None),
        ({"type": "ping", "seq": True}, None),
        ({"type": "ping", "seq": 10**400}, None),
        ({"type": "ping", "seq": -5}, None),
        ({"type": "ping", "seq": 1.5}, None),
        ({"type": "action", "seq": "7", "action": discard}, None),
    ]
    for msg, seq in refused:
        await send(ws, msg)
        err = await expect_error(ws, "bad_message", seq)
        assert len(err["message"]) < 300
    await send(ws, {"type": "ping", "seq": 2**53})
    pong, _ = await recv_until(ws, "pong")
    assert pong["seq"] == 2**53
    # nothing changed: same hand state, no auto, no dissolve vote
    await send(ws, {"type": "sync"})
    again, _ = await recv_until(ws, "snapshot")
    assert again["version"] == version and again["view"] == view
    assert again["auto"] is False and again.get("vote") is None
    assert again["room"]["status"] == "playing"
    # a well-typed action still plays
    await send(ws, {"type": "action", "seq": 10, "prompt": prompt, "action": discard})
    ev, _ = await recv_until(ws, "event")
    # the discard (and the next draw with it when nobody may claim)
    assert ev["events"][0]["type"] == "discard"
    assert ev["version"] == version + len(ev["events"])
    await ws.close()


async def test_player_names(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client)
        bad = ["", "   ", "\t\n", "a\x00b", "ann\u202e", "a\u200bb", "x\x7f", "y" * 33, 7]
        bots = ["机器人2", "Bot 3", " bot4 ", "BOT 1"]  # the client's names for bots
        bots += ["Bot East", "Bot_3", "機器人1", "Ｂｏｔ 3", "B\u043et 3", "\u0412ot 3", "B0T-2"]
        bots += ["Bot 10", "机器人10", "bot 007"]
        # lookalikes in the wind, small capitals, a combining mark, digits for letters,
        # Chinese numerals and winds (an adversarial review found each one seated)
        bots += ["Bot E\u0430st", "Bot W\u0435st", "B\u1d0f\u1d1b East", "B\u0301ot East"]
        bots += ["\u0299\u1d0f\u1d1b 1", "B0t E4st", "机器人一", "机器人东"]
        # letters and Roman numerals that pass for the client's digits (Bot l / Bot I is
        # Bot 1 in most fonts), formal Chinese numerals, digits for letters in a wind, the
        # traditional 東 (each was seated, passing for a bot)
        bots += ["Bot l", "BOT I", "机器人l", "Bot \u2163", "机器人壹", "机器人肆", "Bot Eas7"]
        bots += ["8ot 2", "机器人東"]
        for name in bad + bots:
            r = await client.post(f"/api/rooms/{code}/join", json={"name": name})
            assert r.status_code == 422, (name, r.text)
            assert r.json()["detail"][0]["loc"] == ["body", "name"]
            assert (r.json()["detail"][0]["type"] == "bot_name") == (name in bots)
        # names that only start like a bot's, or hold an accent, stay free
        for name in ("Botanist", "Bob Eastwood", "机器人", "José"):
            r = await client.post(f"/api/rooms/{code}/join", json={"name": name})
            assert r.status_code == 200, (name, r.text)
        code = await create_room(client)
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "  ann  "})
        assert r.status_code == 200 and r.json()["seat"] == 0
        r = await client.post(f"/api/rooms/{code}/join", json={"name": " " + "z" * 32 + " "})
        assert r.status_code == 200 and r.json()["seat"] == 1
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "张三 Zoë"})
        assert r.status_code == 200
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "机器人 Fan"})
        assert r.status_code == 200
        info = (await client.get(f"/api/rooms/{code}")).json()
    assert [s["name"] for s in info["seats"]] == ["ann", "z" * 32, "张三 Zoë", "机器人 Fan"]


async def test_admin_requires_exact_bearer_header(live: Live) -> None:
    async with live.client() as client:
        for header in [
            ADMIN_TOKEN,
            f"bearer {ADMIN_TOKEN}",
            f"Bearer  {ADMIN_TOKEN}",
            f"Basic {ADMIN_TOKEN}",
            f"Bearer{ADMIN_TOKEN}",
            "Bearer é",
            f"Token Bearer {ADMIN_TOKEN}",
        ]:
            r = await client.get(
                "/api/admin/rooms", headers={"Authorization": header.encode("utf-8")}
            )
            assert r.status_code == 403, header
            assert r.json()["detail"]["code"] == "forbidden"
        r = await client.get("/api/admin/rooms")
        assert r.status_code == 403
        r = await client.get("/api/admin/rooms", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert r.status_code == 200


def test_serve_forwarded_allow_ips_option() -> None:
    args = build_parser().parse_args(["serve", "--forwarded-allow-ips", "10.0.0.5"])
    assert args.forwarded_allow_ips == "10.0.0.5"
    assert build_parser().parse_args(["serve"]).forwarded_allow_ips is None
