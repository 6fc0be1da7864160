"""Small holes (issue 16) on a live server: lone surrogates and out-of-range dates are 422s,
the seat token is taken only under its exact query name and never logged under any
spelling, security headers on every answer, client protocol errors logged as warnings."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from live_helpers import ADMIN_TOKEN, Live, create_room, recv
from test_security import _Capture
from test_ws_refusals import four_humans
from uvicorn.logging import AccessFormatter, DefaultFormatter
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.api.headers import CSP
from server.logs import ContextFilter, redact

JSON = {"Content-Type": "application/json"}
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def test_lone_surrogates_are_422_naming_the_field(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client)
        cases = [
            ("/api/rooms", b'{"game": "\\ud800", "options": {}}', ["body", "game"]),
            ("/api/rooms", b'{"game": "guiyang", "options": {"time_zone": "\\udfff"}}', None),
            ("/api/rooms", b'{"game": "guiyang", "options": {"\\ud800": 1}}', None),
            (f"/api/rooms/{code}/join", b'{"name": "\\ud800"}', ["body", "name"]),
            (f"/api/rooms/{code}/join", b'{"name": "ann\\udc00x"}', ["body", "name"]),
            (f"/api/rooms/{code}/join", b'{"name": "ann", "\\ud800": 1}', None),
        ]
        for path, body, loc in cases:
            r = await client.post(path, content=body, headers=JSON)
            assert r.status_code == 422, (body, r.text)
            detail = r.json()["detail"]
            assert isinstance(detail, list) and detail, r.text
            if loc is not None:
                assert detail[0]["loc"] == loc
            else:
                assert detail[0]["loc"][0] == "body"
        info = (await client.get(f"/api/rooms/{code}")).json()
        assert info["seats"] == []  # nothing was seated
    ws = await live.connect(code)
    await recv(ws)
    for raw in (
        '{"type": "ping", "seq": 1, "\\ud800": 1}',
        '{"type": "action", "seq": 2, "action": {"kind": "discard", "tile": "\\ud800"}}',
        '{"type": "\\udbff", "seq": 3}',
    ):
        await ws.send(raw)
        msg = await recv(ws)
        assert msg["type"] == "error" and msg["code"] == "bad_message", msg
    for raw in ("[1, 2]", '"ping"', "7"):  # not an object: no field to name before the words
        await ws.send(raw)
        msg = await recv(ws)
        assert msg["code"] == "bad_message" and msg["message"].startswith("Input should be"), msg
    await ws.send('{"type": "ping", "seq": 9}')
    assert (await recv(ws)) == {"type": "pong", "seq": 9}


@pytest.mark.parametrize(
    "since",
    ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "10000-01-01T00:00:00Z", "x"],
)
async def test_out_of_range_dates_are_422(live: Live, since: str) -> None:
    async with live.client() as client:
        r = await client.get("/api/admin/ledger", params={"since": since}, headers=ADMIN)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["query", "since"]
        ok = await client.get(
            "/api/admin/ledger", params={"since": "9999-12-31T23:59:59+23:59"}, headers=ADMIN
        )
        assert ok.status_code == 200 and ok.json()["rows"] == []


def test_redaction_matches_every_spelling() -> None:
    secret = "s3cr3t-T0ken_value"
    for text in (
        f"WebSocket /ws/rooms/ABCDEF?token={secret}",
        f"GET /ws/rooms/ABCDEF?%74oken={secret} HTTP/1.1",
        f"GET /x?a=1&%2574%256F%256B%2565n={secret}&b=2",
        f"GET /x?TOKEN={secret}",
        f"GET /x?tok%65n={secret}",
        f"GET /x?token%3D{secret}",
        f"GET /x?a=1;token={secret}",
    ):
        out = redact(text)
        assert secret not in out, out
        assert "=***" in out
    assert redact("GET /x?room=ABCDEF&n=2") == "GET /x?room=ABCDEF&n=2"


async def test_token_only_under_its_exact_name_and_never_logged(live: Live) -> None:
    code, tokens = await four_humans(live)
    capture = _Capture()
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "uvicorn.access")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(capture)
        lg.setLevel(logging.DEBUG)
    spellings = ["%74oken", "%74%6F%6B%65%6E", "TOKEN", "Token", "tok%65n", "%2574oken"]
    try:
        for i, name in enumerate(spellings):
            ws = await connect(f"{live.ws}/ws/rooms/{code}?{name}={tokens[i % 4]}")
            msg = await recv(ws)
            if name == "%2574oken":  # decodes to "%74oken", not "token": no token at all
                assert msg["type"] == "snapshot" and msg["seat"] is None, (name, msg)
                await ws.close()
                continue
            assert msg["type"] == "error" and msg["code"] == "bad_token", (name, msg)
            with pytest.raises(ConnectionClosed):
                await recv(ws)
            assert ws.close_code == 4401
        ws = await live.connect(code, tokens[0])  # the exact name still works
        snap = await recv(ws)
        assert snap["type"] == "snapshot" and snap["seat"] == 0
        await ws.close()
        await asyncio.sleep(0.2)
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(capture)
            lg.setLevel(level)
    texts = []
    for r in capture.records:
        fmt = AccessFormatter() if r.name == "uvicorn.access" else DefaultFormatter()
        texts.append(fmt.format(r))
    joined = "\n".join(texts)
    assert "%74oken=***" in joined, joined
    for token in tokens:
        assert token not in joined


async def test_security_headers_on_every_answer(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client)
        answers = [
            await client.get("/"),
            await client.get("/app.js"),
            await client.get("/style.css"),
            await client.get("/nope.html"),
            await client.get("/api/health"),
            await client.get(f"/api/rooms/{code}"),
            await client.get("/api/rooms/ZZZZZZ"),
            await client.post("/api/rooms", json={"game": "chess"}),
            await client.get("/api/admin/rooms"),
            await client.get("/healthz"),
            await client.get("/metrics"),
        ]
        for r in answers:
            h = r.headers
            assert h["content-security-policy"] == CSP, r.url
            assert h["x-content-type-options"] == "nosniff"
            assert h["x-frame-options"] == "DENY"
            assert h["referrer-policy"] == "no-referrer"
            assert "server" not in h  # the software and its version are nobody's business
        assert [r.status_code for r in answers[:5]] == [200, 200, 200, 404, 200]
        # /metrics is off without METRICS_TOKEN: read freely, its counters would tell who
        # could claim a discard (tests/deploy/test_ops.py reads it with its token)
        assert answers[-1].status_code == 404, answers[-1].text
        policy = dict(p.strip().split(" ", 1) for p in CSP.split(";"))
        assert policy["frame-ancestors"] == "'none'"
        assert "unsafe-inline" not in CSP and "unsafe-eval" not in CSP
        docs = await client.get("/docs")
        assert docs.status_code == 200
        assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]
        assert docs.headers["x-content-type-options"] == "nosniff"


async def test_client_protocol_errors_are_warnings(live: Live) -> None:
    async with live.client() as client:
        code = await create_room(client)
    capture = _Capture()
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "server.api.ws")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(capture)
        lg.setLevel(logging.DEBUG)
    try:
        ws = await live.connect(code)
        await recv(ws)
        for frame in ("{not json", "[]", '{"type": "nope"}'):
            await ws.send(frame)
            assert (await recv(ws))["code"] == "bad_message"
        await ws.send(b"\xff\xfe{", text=True)  # a text frame that is not UTF-8
        with pytest.raises(ConnectionClosed):
            await recv(ws)
        assert ws.close_code == 1007
        await asyncio.sleep(0.2)
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(capture)
            lg.setLevel(level)
    utf8 = [r for r in capture.records if "UTF-8" in r.getMessage()]
    assert utf8 and all(r.levelno == logging.WARNING and not r.exc_info for r in utf8)
    bad = [r for r in capture.records if "client protocol error" in r.getMessage()]
    assert [r.levelno for r in bad] == [logging.WARNING, logging.DEBUG, logging.DEBUG]
    assert not [r for r in capture.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_a_protocol_error_is_logged_with_the_hand_in_play(live: Live) -> None:
    """A seat connected before the deal: its bad frame during hand 1 is logged with
    ``hand`` 1 (the reader's log context kept the hand it connected in, 0)."""
    async with live.client() as client:
        code = await create_room(client)
        r = await client.post(f"/api/rooms/{code}/join", json={"name": "ann"})
        token = r.json()["token"]
        ws = await live.connect(code, token)
        assert (await recv(ws))["hand_no"] == 0
        seat = {"Authorization": f"Bearer {token}"}
        r = await client.post(f"/api/rooms/{code}/bots", json={"count": 3}, headers=seat)
        assert r.status_code == 200, r.text
    while (await recv(ws)).get("hand_no") != 1:
        pass
    capture = _Capture()
    capture.addFilter(ContextFilter())  # as the server's log handler has it
    ws_log = logging.getLogger("server.api.ws")
    ws_log.addHandler(capture)
    try:
        await ws.send('{"type": "nope"}')
        while (await recv(ws)).get("type") != "error":
            pass
    finally:
        ws_log.removeHandler(capture)
        await ws.close()
    bad = [r for r in capture.records if "client protocol error" in r.getMessage()]
    assert [(r.room, r.hand, r.seat) for r in bad] == [(code, 1, 0)]  # type: ignore[attr-defined]


async def test_bodies_the_server_cannot_read_get_typed_errors(live: Live) -> None:
    """Bad UTF-8, JSON nested beyond the parser and a body over 64 KiB: each a typed error
    (``{"detail": {"code", "message"}}``), nothing made; the API answers on as before."""
    async with live.client() as client:
        json_type = {"content-type": "application/json"}
        bad_utf8 = await client.post(
            "/api/profiles",
            content=b'{"name": "\\xff"}'.replace(b"\\xff", b"\xff"),
            headers=json_type,
        )
        deep = await client.post(
            "/api/profiles", content=b"[" * 5000 + b"]" * 5000, headers=json_type
        )
        large = await client.post(
            "/api/profiles", content=b'{"name": "ann"' + b" " * 70_000 + b"}", headers=json_type
        )

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
            yield b'{"name": "ann"'
            for _ in range(20):
                yield b" " * 4096
            yield b"}"

        chunked = await client.post("/api/profiles", content=chunks(), headers=json_type)
        assert "content-length" not in chunked.request.headers
        unknown = await client.get("/api/nothing-here")
        # an unknown /api path is a 404 whatever the method (the static files mounted at /
        # would answer a POST with their 405)
        unknown_post = await client.post("/api/nothing-here", json={})
        wrong_method = await client.delete("/api/profiles")
        answers = (bad_utf8, deep, large, chunked, unknown, unknown_post, wrong_method)
        got = [(r.status_code, r.json()["detail"]["code"]) for r in answers]
        assert got == [
            (400, "bad_request"),
            (400, "bad_request"),
            (413, "too_large"),
            (413, "too_large"),
            (404, "not_found"),
            (404, "not_found"),
            (405, "method_not_allowed"),
        ], [r.text for r in answers]
        assert wrong_method.headers["allow"] == "POST"
        put = await client.put("/api/rooms/ABCDEF/join", json={"name": "ann"})
        assert (put.status_code, put.headers["allow"]) == (405, "POST")
        head = await client.head("/api/health")
        assert (head.status_code, head.headers["allow"]) == (405, "GET")
        made = await client.post("/api/profiles", json={"name": "ann"})
        assert made.status_code == 201 and made.json()["id"] == 1  # the refused made none


async def test_a_bug_is_a_typed_500_with_the_headers(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception nothing handles (a bug, injected here into the room lookup) answers 500
    ``internal`` as JSON, with the security headers, and logs its traceback; the same
    connection then serves the next request."""
    manager = live.app.state.manager

    async def broken(code: str) -> None:
        raise RuntimeError("a bug")

    async with live.client() as client:
        code = await create_room(client)
        manager.info, real = broken, manager.info
        try:
            with caplog.at_level(logging.ERROR, logger="server.api.http"):
                r = await client.get(f"/api/rooms/{code}")
        finally:
            manager.info = real
        assert r.status_code == 500, r.text
        assert r.json() == {
            "detail": {"code": "internal", "message": "the server failed; it is logged"}
        }
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-frame-options"] == "DENY"
        assert any(rec.exc_info and "a bug" in str(rec.exc_info[1]) for rec in caplog.records)
        again = await client.get(f"/api/rooms/{code}")
        assert again.status_code == 200 and again.json()["code"] == code
