"""A claim timeout tells the other seats nothing, through the live server and its sockets
(issue 16): seat 1, offered a claim on seat 0's first discard, never answers and times out;
seat 2 (a human with nothing to claim) and a spectator see exactly what they see in a window
nobody could claim: the discard, then (``CLAIM_MIN_MS`` or the time out later) the next
draw; no ``auto`` message, no ``room`` message, and seat 1 still off auto-play. Seat 1
itself is not put on auto-play either (its bank is spent)."""

from __future__ import annotations

from typing import Any

from live_helpers import Live, recv_until
from test_room_reliability import barrier, connect, humans_room, send

from server.rules.registry import find_game

GAME = find_game("guiyang")


def claim_seed() -> tuple[str, dict[str, Any]]:
    """A seed whose dealer (seat 0) has a first discard that seat 1 alone may claim."""
    opts = GAME.options({"bank_seconds": 0})
    for n in range(5000):
        seed = f"live-claim-{n}"
        state = GAME.deal(opts, seed, 0, 1)
        if GAME.prompt_kind(state) != "turn":
            continue
        for action in GAME.legal_actions(state, 0):
            if action.kind != "discard" or action.bao_ting:
                continue
            after, _ = GAME.apply(state, 0, action)
            if [s for s in range(4) if GAME.legal_actions(after, s)] == [1]:
                return seed, action.to_dict()
    raise AssertionError("no seed found")


async def test_claim_timeout_reaches_no_other_seat(live_clock: Live) -> None:
    seed, discard = claim_seed()
    code, tokens = await humans_room(live_clock, seed, humans=3)
    ws0, snap0 = await connect(live_clock, code, tokens[0])
    ws1, _ = await connect(live_clock, code, tokens[1])
    ws2, _ = await connect(live_clock, code, tokens[2])
    spec, _ = await connect(live_clock, code, None)
    for n, ws in enumerate((ws0, ws1, ws2, spec)):
        await barrier(ws, 100 + n)
    await send(ws0, {"type": "action", "seq": 1, "prompt": snap0["prompt"], "action": discard})
    await live_clock.idle()
    actor = await live_clock.actor(code)
    assert actor.state.phase == "claim" and actor._acting() == [1]
    seen = {}
    for name, ws in (("seat2", ws2), ("spectator", spec)):
        got = await barrier(ws, 200)
        assert [(m["type"], [e["type"] for e in m["events"]]) for m in got] == [
            ("event", ["discard"])
        ]
        assert got[0]["deadline"] is None and got[0]["legal"] == []
        seen[name] = got
    await live_clock.advance(10.5)  # claim_seconds (no bank): seat 1 times out
    assert actor.state.phase != "claim" and actor.auto == set()
    log = await live_clock.on_server(actor.store.hand_actions(code, 1))
    assert log[1] == (1, {"action": {"kind": "pass"}, "source": "timeout"})
    for name, ws in (("seat2", ws2), ("spectator", spec)):
        got = await barrier(ws, 300)
        kinds = [(m["type"], [e["type"] for e in m.get("events", [])]) for m in got]
        assert kinds == [("event", ["draw"])], (name, kinds)
        # a fresh snapshot shows seat 1 as before: connected, not on auto-play
        await send(ws, {"type": "sync", "seq": 301})
        snap, _ = await recv_until(ws, "snapshot")
        assert snap["room"]["seats"][1]["auto"] is False
        assert snap["room"]["seats"][1]["connected"] is True
