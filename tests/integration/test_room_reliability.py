"""Rooms friends can rely on, over real WebSockets to a real uvicorn with a test clock.

Claim races (a pong answer before a win answer; two seats at once), stale and duplicate
answers (``stale_prompt``), turn timeouts, the time bank and auto-play driven by the server's
:class:`ManualClock`, reconnecting during a claim window and during the settlement, the
ready timeout, the dissolve vote, and the final standing. Hands reach the wanted claim
window by replaying a scenario script (``scenarios.py``) through the room actor.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from live_helpers import Live, create_room, recv, recv_until
from scenarios import Scenario, find_claim, pong_and_win

from server.api.messages import ServerMessageAdapter
from server.room.actor import replay_hand
from server.rules.guiyang import settle


async def send(ws: Any, msg: dict[str, Any]) -> None:
    await ws.send(json.dumps(msg))


async def barrier(ws: Any, seq: int) -> list[dict[str, Any]]:
    """Ping and read until its pong: everything the socket got before it (but ``room``
    messages, which come and go with connections)."""
    await send(ws, {"type": "ping", "seq": seq})
    pong, seen = await recv_until(ws, "pong")
    assert pong["seq"] == seq
    for msg in seen:
        ServerMessageAdapter.validate_python(msg)
    return [m for m in seen if m["type"] != "room"]


async def vote_until(ws: Any, result: str) -> dict[str, Any]:
    """Read ``dissolve_vote`` messages until one with ``result``."""
    while True:
        vote, _ = await recv_until(ws, "dissolve_vote")
        if vote["result"] == result:
            return vote


async def humans_room(
    live: Live,
    seed: str,
    *,
    humans: int = 4,
    options: dict[str, Any] | None = None,
) -> tuple[str, list[str]]:
    """A room (hand 1 dealt from ``seed``) whose first ``humans`` seats are humans and the
    rest bots; returns its code and the humans' tokens."""
    live.app.state.manager.new_seed = lambda: seed
    opts = {"bank_seconds": 0, **(options or {})}
    async with live.client() as client:
        code = await create_room(client, opts)
        tokens = []
        for i in range(humans):
            r = await client.post(f"/api/rooms/{code}/join", json={"name": f"p{i}"})
            tokens.append(r.json()["token"])
        players = opts.get("players", 4)
        if humans < players:
            r = await client.post(
                f"/api/rooms/{code}/bots",
                json={"count": players - humans},
                headers={"Authorization": f"Bearer {tokens[0]}"},
            )
            assert r.status_code == 200, r.text
    await live.idle()
    return code, tokens


async def reach(live: Live, code: str, scenario: Scenario) -> None:
    """Play ``scenario.script`` through the room actor (on the server's loop)."""
    actor = await live.actor(code)

    async def play() -> None:
        for seat, action in scenario.script:
            await actor.act(seat, action)

    await live.on_server(play())
    await live.idle()
    assert actor.state.phase == "claim" and actor.state.claim_options == scenario.options


async def connect(live: Live, code: str, token: str | None) -> tuple[Any, dict[str, Any]]:
    ws = await live.connect(code, token)
    snap = await recv(ws)
    assert snap["type"] == "snapshot"
    return ws, snap


def action_msg(kind: str, prompt: int | None, seq: int, **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "action", "seq": seq, "action": {"kind": kind, **extra}}
    if prompt is not None:
        msg["prompt"] = prompt
    return msg


def seats_of(scenario: Scenario) -> tuple[int, int, int]:
    """(ponger, winner, a seat with no claim) of a pong-and-win scenario."""
    ponger = next(s for s, o in scenario.options.items() if "pong" in o and "win" not in o)
    winner = next(s for s, o in scenario.options.items() if "win" in o)
    other = next(s for s in range(4) if s not in scenario.options)
    return ponger, winner, other


async def at_pong_and_win(live: Live) -> tuple[str, list[str], tuple[int, int, int]]:
    """A four-human room played up to a discard that one seat may pong and another may win
    on; returns the room code, the tokens and (ponger, winner, a seat with no claim)."""
    scenario = find_claim(pong_and_win)
    code, tokens = await humans_room(live, scenario.seed)
    await reach(live, code, scenario)
    return code, tokens, seats_of(scenario)


@pytest.mark.parametrize("answer", ["win", "pass"])
async def test_pong_answer_waits_for_the_win_answer(live_clock: Live, answer: str) -> None:
    live = live_clock
    code, tokens, (ponger, winner, other) = await at_pong_and_win(live)
    wp, sp = await connect(live, code, tokens[ponger])
    ww, sw = await connect(live, code, tokens[winner])
    wo, so = await connect(live, code, tokens[other])
    prompt = sp["prompt"]
    assert sw["prompt"] == so["prompt"] == prompt
    assert {"kind": "pong"} in sp["legal"] and {"kind": "win"} in sw["legal"]
    assert so["legal"] == [] and sp["deadline"] == sw["deadline"] is not None

    # the pong arrives first: accepted, but nothing resolves while the win is undecided
    await send(wp, action_msg("pong", prompt, 1))
    ack, _ = await recv_until(wp, "snapshot")  # the answer is acknowledged to its seat only
    assert ack["legal"] == [] and ack["version"] == sp["version"] and ack["prompt"] == prompt
    await live.idle()
    assert await barrier(wo, 3) == [], "a seat learns nothing of another's claim answer"
    actor = await live.actor(code)
    assert actor.state.phase == "claim"

    await send(ww, action_msg(answer, prompt, 4))
    if answer == "win":
        end, seen = await recv_until(wo, "hand_end")
        kinds = [e["type"] for m in [*seen, end] if m["type"] in ("event", "hand_end")
                 for e in m["events"]]  # fmt: skip
        assert "pong" not in kinds and "win" in kinds
        assert [e["type"] for e in end["events"]][-2:] == ["win", "hand_end"]
        assert end["settlement"]["winners"] == [winner]
    else:
        ev, _ = await recv_until(wo, "event")
        pong = ev["events"][0]
        assert pong["type"] == "pong" and pong["seat"] == ponger
        assert pong["from"] == sp["view"]["last_discard"]["seat"]


async def test_two_seats_answer_at_once(live_clock: Live) -> None:
    live = live_clock
    code, tokens, (ponger, winner, other) = await at_pong_and_win(live)
    wp, sp = await connect(live, code, tokens[ponger])
    ww, sw = await connect(live, code, tokens[winner])
    wo, _ = await connect(live, code, tokens[other])
    await asyncio.gather(
        send(wp, action_msg("pong", sp["prompt"], 1)),
        send(ww, action_msg("win", sw["prompt"], 1)),
    )
    for ws in (wp, ww, wo):
        end, seen = await recv_until(ws, "hand_end")
        assert not [m for m in seen if m["type"] == "error"], seen
        assert end["settlement"]["winners"] == [winner]


async def test_stale_and_duplicate_answers(live_clock: Live) -> None:
    live = live_clock
    code, tokens, (ponger, winner, other) = await at_pong_and_win(live)
    wp, sp = await connect(live, code, tokens[ponger])
    ww, sw = await connect(live, code, tokens[winner])
    wo, so = await connect(live, code, tokens[other])
    prompt, version = sp["prompt"], sp["version"]

    # an old prompt number is refused, and changes nothing
    await send(wp, action_msg("pass", prompt - 1, 1))
    err, _ = await recv_until(wp, "error")
    assert (err["code"], err["seq"]) == ("stale_prompt", 1)
    # a seat with nothing to answer
    await send(wo, action_msg("pass", prompt, 2))
    err, _ = await recv_until(wo, "error")
    assert (err["code"], err["seq"]) == ("not_your_turn", 2)
    # the first answer counts; a second one (with or without the number) is stale
    await send(wp, action_msg("pass", prompt, 3))
    await send(wp, action_msg("pong", prompt, 4))
    err, seen = await recv_until(wp, "error")
    assert (err["code"], err["seq"]) == ("stale_prompt", 4)
    assert [m["type"] for m in seen] == ["snapshot"]  # the acknowledgement of the pass
    assert seen[0]["legal"] == [] and seen[0]["version"] == version
    await send(wp, action_msg("pong", None, 5))
    err, _ = await recv_until(wp, "error")
    assert (err["code"], err["seq"]) == ("stale_prompt", 5)
    await send(wo, {"type": "sync"})
    snap, _ = await recv_until(wo, "snapshot")
    assert snap["version"] == version  # a claim answer is no event: nothing to count
    assert snap["view"] == so["view"] and snap["prompt"] == prompt

    # the window resolves with the winner's pass; then its prompt number is stale
    await send(ww, action_msg("pass", prompt, 6))
    ev, _ = await recv_until(wo, "event")
    assert ev["events"][0]["type"] in ("draw", "pong", "kong") and ev["prompt"] > prompt
    await send(ww, action_msg("win", prompt, 7))
    err, _ = await recv_until(ww, "error")
    assert (err["code"], err["seq"]) == ("stale_prompt", 7)


async def test_turn_timeout_bank_and_auto_play(live_clock: Live) -> None:
    live = live_clock
    code, tokens = await humans_room(
        live, "timers-1", humans=2, options={"turn_seconds": 20, "bank_seconds": 10}
    )
    w0, s0 = await connect(live, code, tokens[0])
    w1, _ = await connect(live, code, tokens[1])
    assert s0["legal"] and s0["deadline"] == int((live.clock.now() + 30) * 1000)
    version = s0["version"]

    # nothing happens before turn_seconds + the bank
    await live.advance(29.9)
    assert [m for m in await barrier(w0, 1) if m["type"] == "event"] == []
    await live.advance(0.2)
    auto, _ = await recv_until(w0, "auto")
    assert auto == {"type": "auto", "auto": [0]}
    discard, _ = await recv_until(w0, "event")
    # the discard, and the next draw when nobody may claim it (the window closes at once)
    kinds = [e["type"] for e in discard["events"]]
    assert kinds in (["discard"], ["discard", "draw"])
    assert discard["version"] == version + len(kinds)
    # the default: the drawn tile (the dealer's first turn has none: the last tile)
    assert discard["events"][0]["tile"] == (s0["view"]["drawn"] or s0["view"]["hand"][-1])
    actor = await live.actor(code)
    assert actor.prompts.bank[0] == 0 and 0 in actor.auto

    # seat 1 thinks 25 s: 5 s come from its bank
    for _ in range(100):
        if actor.state.turn == 1 and actor.state.phase == "turn":
            break
        await live.advance(1)
    assert actor.state.turn == 1 and actor.state.phase == "turn", "seat 1's turn"
    _ = await barrier(w1, 3)
    await send(w1, {"type": "sync"})
    snap1, _ = await recv_until(w1, "snapshot")
    assert snap1["deadline"] == int((live.clock.now() + 30) * 1000)
    await live.advance(25)
    tile = snap1["view"]["drawn"] or snap1["view"]["hand"][-1]
    await send(w1, action_msg("discard", snap1["prompt"], 4, tile=tile))
    ev, _ = await recv_until(w1, "event")
    assert ev["events"][0] == {"type": "discard", "seat": 1, "tile": tile, "bao_ting": False}
    assert actor.prompts.bank[1] == pytest.approx(5.0)

    # seat 0 is on auto-play: its turns take auto_seconds (1 s) until it acts itself
    for _ in range(200):
        if actor.state.turn == 0 and actor.state.phase == "turn":
            break
        await live.advance(1)
    assert actor.state.turn == 0
    before = len(await live.on_server(actor.store.hand_actions(code, 1)))
    await live.advance(1.01)
    log = await live.on_server(actor.store.hand_actions(code, 1))
    assert log[before][0] == 0 and log[before][1]["source"] == "auto"
    for _ in range(200):
        if actor.state.turn == 0 and actor.state.phase == "turn":
            break
        await live.advance(0.5)
    _ = await barrier(w0, 5)
    await send(w0, {"type": "sync"})
    snap0, _ = await recv_until(w0, "snapshot")
    assert snap0["auto"] is True and snap0["legal"]
    tile = snap0["view"]["drawn"] or snap0["view"]["hand"][-1]
    await send(w0, action_msg("discard", snap0["prompt"], 6, tile=tile))
    auto, _ = await recv_until(w0, "auto")
    assert 0 not in auto["auto"]  # seat 1 may be on auto-play too by now


async def test_reconnect_mid_claim(live_clock: Live) -> None:
    live = live_clock
    code, tokens, (ponger, winner, _other) = await at_pong_and_win(live)
    wp, sp = await connect(live, code, tokens[ponger])
    ww, sw = await connect(live, code, tokens[winner])
    await ww.close()
    await live.idle()
    async with live.client() as client:
        info = (await client.get(f"/api/rooms/{code}")).json()
    assert info["seats"][winner]["connected"] is False
    # the game goes on while the winner is away; its seat is kept
    await send(wp, action_msg("pass", sp["prompt"], 1))
    ack, _ = await recv_until(wp, "snapshot")
    assert ack["legal"] == []
    await live.advance(3)
    ww2, snap = await connect(live, code, tokens[winner])
    assert snap["seat"] == winner and snap["prompt"] == sw["prompt"]
    assert snap["version"] == sw["version"]  # the ponger's answer is no event
    assert snap["legal"] == sw["legal"] and snap["deadline"] == sw["deadline"]
    assert snap["view"]["hand"] == sw["view"]["hand"]
    await send(ww2, action_msg("win", snap["prompt"], 2))
    end, seen = await recv_until(ww2, "hand_end")
    versions = [m["version"] for m in seen if m["type"] == "event"]
    assert versions == sorted(versions) and all(v > snap["version"] for v in versions)
    assert end["settlement"]["winners"] == [winner]


async def test_reconnect_during_settlement_and_ready_timeout(live_clock: Live) -> None:
    live = live_clock
    code, tokens = await humans_room(live, "settle-1", humans=2, options={"hands": 4})
    w0, _ = await connect(live, code, tokens[0])
    w1, _ = await connect(live, code, tokens[1])
    for ws in (w0, w1):
        await send(ws, {"type": "auto", "on": True})
    await w0.close()  # seat 0 leaves during the hand; auto-play finishes it
    actor = await live.actor(code)
    for _ in range(400):
        if actor.status == "between":
            break
        await live.advance(1)
    assert actor.status == "between" and actor.hand_no == 1
    end, _ = await recv_until(w1, "hand_end")

    w0b, snap = await connect(live, code, tokens[0])
    assert snap["room"]["status"] == "between" and snap["hand_no"] == 1
    assert snap["settlement"] == end["settlement"] and snap["version"] == end["version"]
    assert snap["deadline"] == end["deadline"] is not None
    assert snap["view"]["phase"] == "ended"
    # seat 0 is ready; seat 1 never says so: the ready timeout (30 s) starts hand 2
    await send(w0b, {"type": "ready"})
    ready, _ = await recv_until(w0b, "ready")
    assert 0 in ready["ready"] and 1 not in ready["ready"]
    await live.advance(29)
    assert actor.status == "between"
    await live.advance(1.5)
    snap2, _ = await recv_until(w0b, "snapshot")
    assert snap2["hand_no"] == 2 and snap2["version"] == 0 and snap2["settlement"] is None


async def test_a_lone_player_who_left_finds_the_hand_where_it_was(live_clock: Live) -> None:
    """A player alone with bots who closed the page on 托管 comes back to the hand where it
    stood (``PAUSE_UNWATCHED``'s default ``auto``): the room had played three more hands of
    the session with nobody there. Its socket back, the room plays on."""
    live = live_clock
    code, tokens = await humans_room(live, "lone-1", humans=1, options={"hands": 8})
    ws, _ = await connect(live, code, tokens[0])
    await send(ws, {"type": "auto", "on": True})
    actor = await live.actor(code)
    for _ in range(5):
        await live.advance(1)
    assert actor.action_idx >= 5 and not actor.paused
    await ws.close()
    for _ in range(50):
        if actor.paused:
            break
        await asyncio.sleep(0.02)
    await live.idle()
    left = (actor.hand_no, actor.action_idx)
    for _ in range(120):  # two minutes of the room's time
        await live.advance(1)
    assert actor.paused and (actor.hand_no, actor.action_idx) == left
    ws, snap = await connect(live, code, tokens[0])
    assert (snap["hand_no"], snap["auto"]) == (left[0], True)
    for _ in range(5):
        await live.advance(1)
    assert not actor.paused and (actor.hand_no, actor.action_idx) > left
    await ws.close()


async def test_dissolve_vote(live_clock: Live) -> None:
    live = live_clock
    code, tokens = await humans_room(live, "dissolve-1", humans=2)
    w0, _ = await connect(live, code, tokens[0])
    w1, _ = await connect(live, code, tokens[1])
    spec, _ = await connect(live, code, None)

    # no vote to refuse; a spectator cannot vote
    await send(w1, {"type": "dissolve", "agree": False, "seq": 1})
    err, _ = await recv_until(w1, "error")
    assert (err["code"], err["seq"]) == ("no_vote", 1)
    await send(spec, {"type": "dissolve", "agree": True, "seq": 2})
    err, _ = await recv_until(spec, "error")
    assert err["code"] == "spectator"

    # seat 0 proposes, seat 1 refuses
    await send(w0, {"type": "dissolve", "agree": True})
    vote = await vote_until(w1, "open")
    assert vote["votes"] == [True, None, True, True]
    assert vote["deadline"] == int((live.clock.now() + 60) * 1000)
    await send(w0, {"type": "dissolve", "agree": True, "seq": 3})
    err, _ = await recv_until(w0, "error")
    assert (err["code"], err["seq"]) == ("already_voted", 3)
    await send(w1, {"type": "dissolve", "agree": False})
    vote = await vote_until(w0, "refused")
    assert vote["votes"] == [True, False, True, True]

    # a vote stays open until its deadline (`test_a_silent_seat_agrees_at_the_deadline`)
    await send(w1, {"type": "dissolve", "agree": True})
    await vote_until(w0, "open")
    await live.advance(59.5)
    actor = await live.actor(code)
    assert actor.status == "playing" and actor.vote.is_open

    # unanimity dissolves the room: no settlement of the open hand, a final standing
    await send(w0, {"type": "dissolve", "agree": True})
    for ws in (w0, w1, spec):
        await vote_until(ws, "dissolved")
        end, _ = await recv_until(ws, "session_end")
        ServerMessageAdapter.validate_python(end)
        assert end["dissolved"] is True and end["totals"] == [0, 0, 0, 0]
        assert [s["seat"] for s in end["standings"]] == [0, 1, 2, 3]
        assert all(s["rank"] == 1 for s in end["standings"])
    assert actor.status == "dissolved"
    view = (await live.on_server(actor.snapshot(0)))["view"]
    await send(w0, action_msg("discard", None, 4, tile=view["drawn"] or view["hand"][0]))
    err, _ = await recv_until(w0, "error")
    assert err["code"] == "no_hand"
    async with live.client() as client:
        assert (await client.get(f"/api/rooms/{code}")).json()["status"] == "dissolved"
    hands = await live.on_server(actor.store.hands(code))
    assert [h.settlement for h in hands] == [None]

    # a restarted process keeps the room dissolved
    await live.on_server(live.app.state.manager.close())
    rebuilt = await live.actor(code)
    assert rebuilt is not actor and rebuilt.status == "dissolved" and not rebuilt.running


async def test_a_silent_seat_agrees_at_the_deadline(live_clock: Live) -> None:
    """As the apps count it: seat 1 says nothing to seat 0's vote; when ``VOTE_SECONDS``
    (60) end with nobody refusing, its silence agrees and the room is dissolved."""
    live = live_clock
    code, tokens = await humans_room(live, "dissolve-2", humans=2)
    w0, _ = await connect(live, code, tokens[0])
    w1, _ = await connect(live, code, tokens[1])
    await send(w0, {"type": "dissolve", "agree": True})
    assert (await vote_until(w1, "open"))["votes"] == [True, None, True, True]
    await live.advance(59.5)
    actor = await live.actor(code)
    assert actor.status == "playing"
    await live.advance(1)
    for ws in (w0, w1):
        vote = await vote_until(ws, "dissolved")
        assert vote["votes"] == [True, None, True, True]  # seat 1 said nothing: it agreed
        end, _ = await recv_until(ws, "session_end")
        assert end["dissolved"] is True
    assert actor.status == "dissolved"
    async with live.client() as client:
        assert (await client.get(f"/api/rooms/{code}")).json()["status"] == "dissolved"


async def test_final_standing(live_clock: Live) -> None:
    live = live_clock
    code, tokens = await humans_room(live, "standing-1", humans=1, options={"hands": 4})
    ws, _ = await connect(live, code, tokens[0])
    await send(ws, {"type": "auto", "on": True})
    actor = await live.actor(code)
    totals_seen = []
    for _ in range(2000):
        if actor.status == "finished":
            break
        if actor.status == "between":
            end, _ = await recv_until(ws, "hand_end")
            totals_seen.append(end["totals"])
            await send(ws, {"type": "ready"})
            await send(ws, {"type": "auto", "on": True})
            await live.idle()
            continue
        await live.advance(1)
    assert actor.status == "finished"
    end, seen = await recv_until(ws, "session_end")
    ServerMessageAdapter.validate_python(end)
    totals = end["totals"]
    assert end["dissolved"] is False and sum(totals) == 0
    assert [s["total"] for s in end["standings"]] == sorted(totals, reverse=True)
    for s in end["standings"]:
        assert s["total"] == totals[s["seat"]]
        assert s["rank"] == 1 + sum(1 for t in totals if t > s["total"])
    ends = [m for m in seen if m["type"] == "hand_end"]
    assert ends and ends[-1]["totals"] == totals and ends[-1]["next_hand"] is None


async def test_an_answer_to_a_decided_window_is_accepted_while_it_is_open(
    live_clock: Live,
) -> None:
    """The win is claimed first: the window is decided at once, but it stays open for its
    minimum time, and the ponger's answer in it is accepted (spec §3) and loses to the win.
    The stored log holds it and replays to the same hand."""
    live = live_clock
    code, tokens, (ponger, winner, _other) = await at_pong_and_win(live)
    wp, sp = await connect(live, code, tokens[ponger])
    ww, sw = await connect(live, code, tokens[winner])
    actor = await live.actor(code)
    actor.timing.claim_min_ms = 5000  # keep the decided window open on the test clock
    actor.prompts.opened = live.clock.now()
    await send(ww, action_msg("win", sw["prompt"], 1))
    await recv_until(ww, "snapshot")  # the winner's acknowledgement
    await send(wp, action_msg("pong", sp["prompt"], 2))
    ack, _ = await recv_until(wp, "snapshot")  # accepted: acknowledged, no error
    assert ack["legal"] == [] and ack["prompt"] == sp["prompt"]
    assert ack["version"] == sp["version"]  # an answer is no event
    assert await barrier(wp, 3) == []
    assert actor.state.phase == "claim"  # decided, not closed before its minimum time
    await live.advance(6)
    end, seen = await recv_until(wp, "hand_end")
    assert not [m for m in seen if m["type"] == "error"], seen
    assert "pong" not in [
        e["type"] for m in [*seen, end] if m["type"] in ("event", "hand_end") for e in m["events"]
    ]
    assert end["settlement"]["winners"] == [winner]
    log = await live.on_server(actor.store.hand_actions(code, 1))
    assert log[-2:] == [
        (winner, {"action": {"kind": "win"}, "source": "player"}),
        (ponger, {"action": {"kind": "pong"}, "source": "player"}),
    ]
    state, version = replay_hand(actor.opts, actor.state.seed, 0, 1, log)
    assert state.ended and state.winners == [winner]
    settlement = settle(state)
    assert settlement is not None and settlement["deltas"] == end["settlement"]["deltas"]
    assert version == end["version"] - 1  # the hand_end message comes after the events


async def test_a_decided_window_closes_without_waiting_and_a_later_answer_is_stale(
    live_clock: Live,
) -> None:
    """The win decides the window; it closes after its minimum time although the ponger,
    offered a pong, has not answered (and well before the claim timeout). The ponger's
    answer after that is ``stale_prompt`` and changes nothing."""
    live = live_clock
    code, tokens, (ponger, winner, _other) = await at_pong_and_win(live)
    wp, sp = await connect(live, code, tokens[ponger])
    ww, sw = await connect(live, code, tokens[winner])
    actor = await live.actor(code)
    actor.timing.claim_min_ms = 2000
    actor.prompts.opened = live.clock.now()
    await send(ww, action_msg("win", sw["prompt"], 1))
    await recv_until(ww, "snapshot")
    await live.advance(1)
    assert actor.state.phase == "claim"  # still within the minimum time
    await live.advance(1.5)  # past it, far from the 10 s claim timeout
    end, _ = await recv_until(wp, "hand_end")
    assert end["settlement"]["winners"] == [winner]
    log = await live.on_server(actor.store.hand_actions(code, 1))
    assert log[-1] == (winner, {"action": {"kind": "win"}, "source": "player"})
    await send(wp, action_msg("pong", sp["prompt"], 2))
    err, _ = await recv_until(wp, "error")
    assert (err["code"], err["seq"]) == ("stale_prompt", 2)
    assert await live.on_server(actor.store.hand_actions(code, 1)) == log
