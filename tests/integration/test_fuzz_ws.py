"""Hypothesis fuzzes a live room over a real WebSocket: random and malformed messages (raw
text, bytes, random JSON, near-valid messages with wrong fields) sent by the seat whose turn
it is and by a spectator. Checked after every message: the server answered (an ``error`` for
every bad message, with its ``seq``), the socket still works, and the game is unchanged
(hand, version, prompt, view and legal actions of every seat)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live_helpers import Live, create_room, recv, recv_until
from pydantic import ValidationError

from server.api.messages import MAX_SEQ, ClientMessageAdapter

KINDS = ["discard", "kong", "pong", "win", "pass", "self_draw", "ding_que"]
TILES = [f"{n}{s}" for s in "mps" for n in range(1, 10)]
SEED = "fuzz-0"

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
anything = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=6), json_values)
action_bodies = st.fixed_dictionaries(
    {"kind": st.sampled_from([*KINDS, "bogus", ""]) | anything},
    optional={
        "tile": st.sampled_from([*TILES, "0z", "10m", "", "5M"]) | anything,
        "suit": st.sampled_from(["m", "p", "s", "z"]) | anything,
        "bao_ting": st.booleans() | anything,
        "extra": anything,
    },
)
near_valid = st.fixed_dictionaries(
    {"type": st.sampled_from(["action", "ready", "sync", "auto", "ping", "dissolve", "x", ""])},
    optional={
        "seq": st.integers(-(2**70), 2**70) | anything,
        "prompt": st.integers(-5, 50) | anything,
        "action": action_bodies | anything,
        "on": st.booleans() | anything,
        "agree": st.booleans() | anything,
        "junk": anything,
    },
)
frames = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=200),
    json_values.map(json.dumps),
    near_valid.map(json.dumps),
    near_valid,  # sent as JSON, kept as a dict to know its seq
    st.just("x" * 5000),
    st.just("[" * 2000 + "]" * 2000),
)


def classify(frame: Any, legal: list[dict[str, Any]], prompt: int) -> tuple[str, Any, Any]:
    """``(kind, seq, parsed)``: kind ``bad`` (must get an error), ``legal`` (a legal action:
    skipped, it would change the game) or ``ok`` (a valid message: ping, sync, ...)."""
    data: Any = frame
    if isinstance(frame, bytes):
        try:
            data = frame.decode()
        except UnicodeDecodeError:
            return "bad", None, None
    if isinstance(data, str):
        if len(data.encode()) > 4096:
            return "bad", None, None
        try:
            data = json.loads(data)
        except (ValueError, RecursionError):
            return "bad", None, None
    seq = data.get("seq") if isinstance(data, dict) else None
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        seq = None  # only a valid seq is echoed
    try:
        msg = ClientMessageAdapter.validate_python(data)
    except ValidationError:
        return "bad", seq, None
    if msg.type == "dissolve" and msg.agree:
        return "legal", seq, msg  # a yes may dissolve the room: a real change
    if msg.type == "action":
        body = msg.action.model_dump(exclude_none=True)
        if not body.get("bao_ting"):
            body.pop("bao_ting", None)
        if body in legal and msg.prompt in (None, prompt):
            return "legal", seq, msg
        return "bad", seq, msg
    return "ok", seq, msg


def game_state(snap: dict[str, Any]) -> tuple[Any, ...]:
    return snap["hand_no"], snap["version"], snap["prompt"], snap["view"], snap["legal"]


async def setup(live: Live) -> tuple[str, list[str]]:
    live.app.state.manager.new_seed = lambda: SEED
    live.app.state.rate_limit = (1_000_000, 1_000_000.0)
    async with live.client() as client:
        code = await create_room(client, {"bank_seconds": 0})
        tokens = []
        for i in range(2):
            r = await client.post(f"/api/rooms/{code}/join", json={"name": f"p{i}"})
            tokens.append(r.json()["token"])
        await client.post(
            f"/api/rooms/{code}/bots",
            json={"count": 2},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
    return code, tokens


async def snapshots(live: Live, code: str, tokens: list[str]) -> list[tuple[Any, ...]]:
    out = []
    for token in [*tokens, None]:
        ws = await live.connect(code, token)
        out.append(game_state(await recv(ws)))
        await ws.close()
    return out


async def run_example(
    live: Live, code: str, token: str | None, batch: list[Any], counts: dict[str, int]
) -> None:
    ws = await live.connect(code, token)
    snap = await recv(ws)
    assert snap["type"] == "snapshot"
    for n, frame in enumerate(batch):
        kind, seq, _ = classify(frame, snap["legal"], snap["prompt"])
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "legal":
            continue
        if isinstance(frame, dict):
            await ws.send(json.dumps(frame))
        else:
            await ws.send(frame)
        marker = 10**9 + n
        await ws.send(json.dumps({"type": "ping", "seq": marker}))
        while True:
            pong, seen = await recv_until(ws, "pong")
            if pong["seq"] == marker:
                break
        replies = [m for m in seen if m["type"] != "room"]
        if kind == "bad":
            errors = [m for m in replies if m["type"] == "error"]
            assert errors, f"no error for {frame!r}: {seen}"
            assert errors[0]["seq"] == seq, (frame, errors[0])
        elif isinstance(frame, dict) and frame.get("type") == "ping":
            pass  # its own pong was read as a non-marker pong
    await ws.close()


def test_fuzz_live_room(live_clock: Live) -> None:
    live = live_clock  # timers never fire: only the fuzzed messages could change anything
    code, tokens = asyncio.run(setup(live))
    before = asyncio.run(snapshots(live, code, tokens))
    assert before[0][4], "seat 0 is to play"
    counts: dict[str, int] = {}

    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(batch=st.lists(frames, min_size=1, max_size=6), who=st.sampled_from([0, 1, None]))
    def fuzz(batch: list[Any], who: int | None) -> None:
        token = tokens[who] if who is not None else None
        asyncio.run(run_example(live, code, token, batch, counts))
        after = asyncio.run(snapshots(live, code, tokens))
        assert after == before, "a refused message changed the game"

    fuzz()
    assert counts.get("bad", 0) >= 100, counts
