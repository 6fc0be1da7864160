"""One message per change per audience through the live server and its sockets (issue 9): a
seat on auto-play and a spectator watch a whole hand; each change reaches each socket once
(versions only grow), the hand's end is one ``hand_end`` and the settlement travels once
per socket, with the seat's replay link and none for the spectator."""

from __future__ import annotations

import json
from typing import Any

from live_helpers import Live
from test_room_reliability import barrier, connect, humans_room, send


async def test_a_hand_reaches_each_socket_once_per_change(live_clock: Live) -> None:
    code, tokens = await humans_room(live_clock, "once-live", humans=1)
    ws0, snap0 = await connect(live_clock, code, tokens[0])
    spec, snapspec = await connect(live_clock, code, None)
    got: dict[str, list[dict[str, Any]]] = {"seat": [snap0], "spectator": [snapspec]}
    await send(ws0, {"type": "auto", "on": True})
    for n in range(600):
        await live_clock.advance(1.5)
        got["seat"] += await barrier(ws0, 1000 + n)
        got["spectator"] += await barrier(spec, 5000 + n)
        if any(m["type"] == "hand_end" for m in got["seat"]):
            break
    for name, msgs in got.items():
        versioned = [m for m in msgs if m["type"] in ("event", "hand_end")]
        versions = [m["version"] for m in versioned]
        assert versions == sorted(set(versions)), (name, versions)  # each change once
        assert all(m["events"] for m in versioned if m["type"] == "event")
        ends = [m for m in msgs if m["type"] == "hand_end"]
        assert len(ends) == 1, name
        assert json.dumps(msgs).count('"next_dealer"') == 1, name  # the settlement once
        assert "settlement" not in ends[0]["view"]
        assert [e["type"] for e in ends[0]["events"]][-1] == "hand_end"
    replay = got["seat"][-1]["replay"] if got["seat"][-1]["type"] == "hand_end" else None
    seat_end = next(m for m in got["seat"] if m["type"] == "hand_end")
    spec_end = next(m for m in got["spectator"] if m["type"] == "hand_end")
    assert seat_end["replay"] is not None and seat_end["replay"]["url"].startswith("/replay?")
    assert replay in (None, seat_end["replay"])
    assert spec_end["replay"] is None
    assert seat_end["settlement"] == spec_end["settlement"]
    await ws0.close()
    await spec.close()
