"""A store that fails loses no command (issue 16): the actor retries a failed write with
backoff, applies the action once it is logged and only then, tells the seats it waits for
its database, and re-arms the room from its state after any other failure.

Real store (SQLite, and PostgreSQL with TEST_DATABASE_URL) and the in-memory bus; the faults
are injected by :class:`FlakyStore` around the real store: a call fails *before* reaching
the database (nothing written) or *after* its transaction committed (the answer lost: the
ambiguous commit). The outage of the real PostgreSQL, cut by a TCP proxy, is in
``tests/integration/test_store_outage.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from redis.backoff import ConstantBackoff

import server.room.outage as outage_module
from server.api.messages import ServerMessageAdapter
from server.bus.memory import MemoryBus
from server.room.actor import RoomActor, RoomError, Seat, Timing, replay_hand, seat_channel
from server.room.clock import ManualClock
from server.room.commands import Rearm
from server.rules.guiyang import GuiyangOptions, settle
from server.rules.types import Action
from tests.room.test_leaks import no_gaps

TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=30)
CODE = "FLAKY1"


@dataclass
class Fault:
    left: int
    after: bool
    exc: Callable[[], Exception]
    when: Callable[..., bool] | None
    gate: asyncio.Event | None = None


class FlakyStore:
    """The real ``store`` with faults: :meth:`fail` makes the next ``times`` calls of
    ``method`` (those ``when(*args)`` accepts) raise ``exc()``, before the call reaches the
    database or, with ``after``, once the real call returned (committed, answer lost).
    ``failed[method]`` counts the faults raised."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.faults: dict[str, Fault] = {}
        self.failed: dict[str, int] = {}

    def fail(
        self,
        method: str,
        times: int = 1,
        *,
        after: bool = False,
        exc: Callable[[], Exception] = lambda: ConnectionResetError(104, "reset by peer"),
        when: Callable[..., bool] | None = None,
    ) -> None:
        self.faults[method] = Fault(times, after, exc, when)

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.store, name)
        if name not in self.faults:
            return real

        async def call(*args: Any, **kwargs: Any) -> Any:
            fault = self.faults[name]
            if fault.gate is not None:  # no answer (a partition) until the gate opens
                await fault.gate.wait()
            if fault.left > 0 and (fault.when is None or fault.when(*args, **kwargs)):
                fault.left -= 1
                self.failed[name] = self.failed.get(name, 0) + 1
                if fault.after:
                    await real(*args, **kwargs)
                raise fault.exc()
            return await real(*args, **kwargs)

        return call


async def make_room(
    store: Any, bus: MemoryBus, bots: list[bool], hands: int = 4, timing: Timing = TIMING
) -> RoomActor:
    """A room of ``bots`` (True: a bot seat) on ``store``, not started, retrying every 1 ms."""
    opts = GuiyangOptions(hands=hands).model_dump()
    await store.create_room(CODE, "guiyang", opts)
    for i, is_bot in enumerate(bots):
        await store.add_player(CODE, i, f"p{i}", f"hash{i}", is_bot)
    actor = RoomActor(
        CODE,
        opts,
        store,
        bus,
        ManualClock(),
        timing,
        seats=[Seat(i, f"p{i}", b, f"hash{i}") for i, b in enumerate(bots)],
    )
    seeds = iter(f"flaky-seed-{n}" for n in range(100))
    actor.new_seed = lambda: next(seeds)
    actor.backoff = ConstantBackoff(0.001)
    return actor


async def drain(sub: Any) -> list[dict[str, Any]]:
    """Every message already delivered to ``sub``."""
    out = []
    while True:
        try:
            out.append(await sub.get(timeout=0.01))
        except TimeoutError:
            return out


async def check_session(store: Any, actor: RoomActor) -> None:
    """Every hand of the finished session as :func:`check_hand` checks it, and the totals
    (the actor's and the store's) are the sums of the hands' deltas, each counted once."""
    assert actor.status == "finished"
    hands = await store.hands(CODE)
    assert [h.hand_no for h in hands] == list(range(1, actor.opts.hands + 1))
    totals = [0] * actor.players
    for hand in hands:
        deltas = (await check_hand(store, actor, hand.hand_no))["deltas"]
        totals = [t + d for t, d in zip(totals, deltas, strict=True)]
    assert actor.totals == totals == await store.totals(CODE)
    settled = 0
    for hand in hands:
        settled += len(await store.ledger_by_hand(CODE, hand.hand_no))
    assert len(await store.ledger(code=CODE, limit=10_000)) == settled


async def check_hand(store: Any, actor: RoomActor, hand_no: int = 1) -> dict[str, Any]:
    """The hand's log has each action once (indices 0..n-1, as the actor counted them), it
    replays to the stored settlement, and the ledger holds each payment exactly once."""
    hand = [h for h in await store.hands(CODE) if h.hand_no == hand_no][0]
    actions = await store.hand_actions(CODE, hand_no)
    state, _ = replay_hand(
        actor.opts, hand.seed, hand.dealer, hand.dealer_streak, actions, hand.weekday
    )
    expected = settle(state)
    assert expected is not None, "the logged actions do not end the hand"
    assert hand.settlement == expected
    assert hand.deltas == expected["deltas"] and sum(hand.deltas) == 0
    rows = await store.ledger_by_hand(CODE, hand_no)
    assert rows == [
        {k: p.get(k) for k in ("from", "to", "points", "reason", "detail")}
        for p in expected["payments"]
    ]
    return expected


async def test_failed_append_is_retried_and_applied_once(store: Any, bus: MemoryBus) -> None:
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [True, True, True, True])
    spectator = await bus.subscribe(seat_channel(CODE, None))
    flaky.fail("append_action", 3, when=lambda code, hand_no, idx, *_: idx == 5)
    actor.start()
    await actor.idle()
    assert flaky.failed == {"append_action": 3}
    await check_session(flaky, actor)
    assert actor.action_idx == len(await store.hand_actions(CODE, actor.hand_no))
    kinds = [m["type"] for m in await drain(spectator)]
    # the second failure in a row tells the seats; the success after it, again
    assert kinds.count("degraded") == 1 and kinds.count("recovered") == 1
    assert kinds.index("degraded") < kinds.index("recovered")
    assert actor.outages.degraded == set()
    await actor.stop()


async def test_append_committed_but_answer_lost_is_applied_once(store: Any, bus: MemoryBus) -> None:
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [True, True, True, True])
    # action 4 is written, then the connection "breaks" before the answer: the retry meets
    # its own row (Conflict) and takes it as done
    flaky.fail("append_action", 1, after=True, when=lambda code, hand_no, idx, *_: idx == 4)
    actor.start()
    await actor.idle()
    assert flaky.failed == {"append_action": 1}
    await check_session(flaky, actor)
    await actor.stop()


async def test_settlement_committed_but_answer_lost_settles_once(
    store: Any, bus: MemoryBus
) -> None:
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [True, True, True, True])
    # hand 1's settlement commits, its answer is lost, and the next attempt fails too; hand
    # 2's start commits and its answer is lost
    flaky.fail("finish_hand", 2, after=True)
    flaky.fail("start_hand", 1, after=True, when=lambda code, hand_no, *_, **__: hand_no == 2)
    actor.start()
    await actor.idle()
    assert flaky.failed == {"finish_hand": 2, "start_hand": 1}
    # each hand started once, settled once; the totals are the committed ones, counted once
    await check_session(flaky, actor)
    await actor.stop()


async def test_human_action_waits_for_the_store_and_is_applied_once(
    store: Any, bus: MemoryBus
) -> None:
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [False, True, True, True])
    seat0 = await bus.subscribe(seat_channel(CODE, 0))
    actor.start()
    await actor.wait_started()
    await actor.idle()
    snap = await actor.snapshot(0)
    assert snap["degraded"] == []
    legal = snap["legal"]
    assert legal, "the dealer (seat 0, human) must act first"
    action = Action.from_dict(legal[-1])
    idx = actor.action_idx
    flaky.fail("append_action", 5)
    await actor.act(0, action, snap["prompt"])  # returns once logged and applied
    assert flaky.failed == {"append_action": 5}
    actions = await store.hand_actions(CODE, 1)
    assert actions[idx] == (0, {"action": action.to_dict(), "source": "player"})
    assert len([a for a in actions if a[0] == 0]) == 1
    assert actor.action_idx > idx
    messages = await drain(seat0)
    for m in messages:  # every message as the protocol documents it
        ServerMessageAdapter.validate_python(m)
    kinds = [m["type"] for m in messages]
    assert kinds[:2] == ["snapshot", "degraded"] and "recovered" in kinds
    assert messages[1] == {"type": "degraded", "service": "database"}
    assert messages[kinds.index("recovered")] == {"type": "recovered", "service": "database"}
    assert kinds.index("recovered") < kinds.index("event")  # recovered, then the change
    await actor.stop()


async def test_snapshot_is_answered_while_the_store_is_down(store: Any, bus: MemoryBus) -> None:
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [False, True, True, True])
    actor.start()
    await actor.wait_started()
    await actor.idle()
    snap = await actor.snapshot(0)
    flaky.fail("append_action", 10**9)  # down until the test says otherwise
    actor.backoff = ConstantBackoff(0.01)
    act = asyncio.ensure_future(actor.act(0, Action.from_dict(snap["legal"][-1]), snap["prompt"]))
    while actor.outages.degraded != {"database"}:
        await asyncio.sleep(0.005)
    during = await actor.snapshot(1)  # not stuck behind the waiting command
    assert during["degraded"] == ["database"] and during["version"] == snap["version"]
    assert not act.done()
    flaky.faults["append_action"].left = 0  # the database is back
    await act
    assert (await actor.snapshot(1))["degraded"] == []
    await actor.stop()


async def test_a_failed_bot_move_is_rearmed(store: Any, bus: MemoryBus) -> None:
    """A failure that is no outage (here a bug-like RuntimeError) fails the command; the
    room re-arms its bots from the state and the hand still ends, settled once."""
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [True, True, True, True])
    flaky.fail("append_action", 2, exc=lambda: RuntimeError("boom"), when=lambda *a: a[2] == 3)
    actor.start()
    for _ in range(2000):
        if actor.status == "finished":
            break
        await asyncio.sleep(0.005)
    assert flaky.failed == {"append_action": 2}
    await check_session(flaky, actor)
    await actor.stop()


async def test_a_lost_lease_stops_the_retries(store: Any, bus: MemoryBus) -> None:
    """Fencing holds through an outage: once the lease is not ours the waiting write gives
    up (``unavailable``) instead of writing for a room another process runs."""
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [False, True, True, True])
    held = {"ok": True}

    async def lease_check(verify: bool) -> bool:
        return held["ok"]

    actor.lease_check = lease_check
    actor.start()
    await actor.wait_started()
    await actor.idle()
    snap = await actor.snapshot(0)
    flaky.fail("append_action", 10**9)
    act = asyncio.ensure_future(actor.act(0, Action.from_dict(snap["legal"][-1]), snap["prompt"]))
    while not flaky.failed.get("append_action", 0) >= 3:
        await asyncio.sleep(0.002)
    held["ok"] = False  # the lease lapsed during the outage
    try:
        await act
    except RoomError as err:
        assert err.code == "unavailable"
    else:
        raise AssertionError("the write went on without the lease")
    writes = flaky.failed["append_action"]
    flaky.faults["append_action"].left = 0
    await asyncio.sleep(0.05)
    assert flaky.failed["append_action"] == writes  # no further attempt
    assert await store.hand_actions(CODE, 1) == []
    await actor.stop()


class FlakyBus(MemoryBus):
    """The in-memory bus whose ``publish_many`` calls number ``fail_from`` to
    ``fail_from + times - 1`` raise Redis's ``ConnectionError`` (nothing delivered), as
    when Redis is unreachable; ``seen`` records ``probe()`` at each failure."""

    def __init__(self, fail_from: int, times: int, probe: Callable[[], Any]) -> None:
        super().__init__()
        self.calls = 0
        self.fail_from, self.times = fail_from, times
        self.probe = probe
        self.seen: list[Any] = []

    async def publish_many(self, messages: Any) -> list[int]:
        self.calls += 1
        if self.fail_from <= self.calls < self.fail_from + self.times:
            from redis.exceptions import ConnectionError as RedisConnectionError

            self.seen.append(self.probe())
            raise RedisConnectionError("Connection refused")
        return await super().publish_many(messages)


async def test_failed_publish_is_retried_before_anything_else(store: Any) -> None:
    """A publish that fails is retried before the room does anything more: the action
    after it is not even logged meanwhile, and every audience gets every event, in order,
    without a gap."""
    holder: dict[str, RoomActor] = {}
    bus = FlakyBus(30, 6, lambda: (holder["a"].action_idx, holder["a"].version))
    actor = holder["a"] = await make_room(store, bus, [True, True, True, True])
    spectator = await bus.subscribe(seat_channel(CODE, None))
    actor.start()
    await actor.idle()
    assert len(bus.seen) == 6
    assert len(set(bus.seen)) == 1  # nothing logged, nothing counted while it failed
    await check_session(store, actor)
    messages = await drain(spectator)
    last: dict[int, int] = {}
    for m in messages:
        if m["type"] == "snapshot":
            last[m["hand_no"]] = m["version"]
        elif m["type"] in ("event", "hand_end"):
            assert m["prev_version"] == last[m["hand_no"]], m  # nothing missing
            # one message per change: its events, and a hand_end itself, count one each
            step = len(m["events"]) + (m["type"] == "hand_end")
            assert m["version"] == last[m["hand_no"]] + step
            last[m["hand_no"]] = m["version"]
    assert sorted(last) == [1, 2, 3, 4]
    # the events of the failed publish reached the spectator once (one retry succeeded)
    versions = [(m["hand_no"], m["version"]) for m in messages if m["type"] == "event"]
    assert len(versions) == len(set(versions))
    await actor.stop()
    await bus.close()


async def test_a_snapshot_while_a_publish_waits_shows_numbers_of_its_state(store: Any) -> None:
    """A seat on auto takes its seat back with an action while the bus is away. A snapshot
    served meanwhile (at once: the room waits for its bus) shows the state of a published
    message with that message's version, prompt number and legal actions, never the new
    state under the numbers of the old one (an answer to it would be refused as stale)."""
    bus = FlakyBus(10**9, 0, lambda: None)
    actor = await make_room(store, bus, [False, True, True, True])
    seat0 = await bus.subscribe(seat_channel(CODE, 0))
    actor.start()
    await actor.wait_started()
    await actor.idle()
    assert actor._acting() == [0]
    await actor.set_auto(0, True)  # (the auto delay runs on the manual clock: never)
    await actor.idle()
    snap = await actor.snapshot(0)
    bus.fail_from, bus.times = bus.calls + 1, 50  # the publishes after the action fail
    act = asyncio.ensure_future(actor.act(0, Action.from_dict(snap["legal"][-1]), snap["prompt"]))
    async with asyncio.timeout(5):
        while not actor.outages.waiting:
            await asyncio.sleep(0)
    during = await actor.snapshot(0)
    await act
    await actor.idle()
    assert 0 not in actor.auto and len(bus.seen) == 50
    shown = {m["version"]: m for m in [snap, *await drain(seat0)] if "view" in m}
    assert during["version"] in shown, (during["version"], sorted(shown))
    same = shown[during["version"]]
    for key in ("hand_no", "prompt", "legal", "view"):
        assert during[key] == same[key], key
    await actor.stop()


async def test_a_snapshot_while_the_settlement_waits_leaves_no_gap(
    store: Any, bus: MemoryBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hand ends while the database does not answer: a snapshot served meanwhile shows
    the ended hand with its last change counted (its actions are logged; only the settlement
    waits), and the ``hand_end`` that follows carries that change's events again with
    ``prev_version`` at the snapshot's version: an overlap, never a gap (`no_gaps`, the
    client's ``missedBefore``). CI met this under load (a settlement slower than 2 s)."""
    monkeypatch.setattr(outage_module, "SLOW_SECONDS", 0.05)
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [True, True, True, True])
    gate = asyncio.Event()
    flaky.fail("finish_hand", 0)
    flaky.faults["finish_hand"].gate = gate
    seat0 = await bus.subscribe(seat_channel(CODE, 0))
    actor.start()
    async with asyncio.timeout(10):
        while not actor.outages.waiting:  # (the snapshot is then served beside the command)
            await asyncio.sleep(0.005)
    assert actor.state is not None and actor.game.ended(actor.state)
    before = await drain(seat0)
    snap = await actor.snapshot(0)
    assert snap["hand_no"] == 1 and snap["settlement"] is None and snap["legal"] == []
    assert snap["version"] > max(m["version"] for m in before if m["type"] == "event")
    gate.set()
    await actor.idle()
    after = await drain(seat0)
    end = next(m for m in after if m["type"] == "hand_end" and m["hand_no"] == 1)
    assert end["version"] == snap["version"] + 1 and end["prev_version"] == snap["version"]
    assert end["events"], "the change that ended the hand comes with its hand_end"
    no_gaps([*before, snap, *after])
    await check_session(store, actor)
    await actor.stop()


async def test_a_write_without_answer_tells_the_seats(
    store: Any, bus: MemoryBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A partition: the write neither fails nor answers. After ``SLOW_SECONDS`` the seats
    are told the room waits for its database; the write goes on waiting (it is not given
    up: it may have committed) and the action is applied once when the answer comes."""
    monkeypatch.setattr(outage_module, "SLOW_SECONDS", 0.05)
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [False, True, True, True])
    seat1 = await bus.subscribe(seat_channel(CODE, 1))
    actor.start()
    await actor.wait_started()
    await actor.idle()
    snap = await actor.snapshot(0)
    gate = asyncio.Event()
    flaky.fail("append_action", 0)
    flaky.faults["append_action"].gate = gate
    idx = actor.action_idx
    act = asyncio.ensure_future(actor.act(0, Action.from_dict(snap["legal"][-1]), snap["prompt"]))
    await asyncio.sleep(0.2)
    assert not act.done() and actor.outages.degraded == {"database"}
    assert (await actor.snapshot(1))["degraded"] == ["database"]
    gate.set()
    await act
    actions = await store.hand_actions(CODE, 1)
    assert actions[idx][0] == 0 and actor.action_idx > idx
    kinds = [m["type"] for m in await drain(seat1)]
    assert kinds[:3] == ["snapshot", "degraded", "recovered"], kinds
    assert actor.outages.degraded == set()
    await actor.stop()


async def test_a_timeout_during_the_outage_is_played_once(store: Any, bus: MemoryBus) -> None:
    """The default action of a human seat whose timer fired while the store is down is
    retried like any other command: logged once (``source: timeout``), the seat on auto."""
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [False, True, True, True])
    actor.start()
    await actor.wait_started()
    await actor.idle()
    assert actor._acting() == [0]
    idx = actor.action_idx
    flaky.fail("append_action", 4)
    actor.clock.advance(TIMING.turn_seconds + TIMING.bank_seconds)  # type: ignore[attr-defined]
    await actor.idle()
    assert flaky.failed == {"append_action": 4}
    actions = await store.hand_actions(CODE, 1)
    assert actions[idx][0] == 0 and actions[idx][1]["source"] == "timeout"
    assert [a for a in actions if a[1]["source"] == "timeout"] == [actions[idx]]
    assert 0 in actor.auto and actor.action_idx > idx
    await actor.stop()


async def test_a_deal_that_fails_is_rearmed(store: Any, bus: MemoryBus) -> None:
    """The first deal fails with an error that is no outage: the room is not dead, it is
    re-armed and deals (once), and the session is played to its end."""
    flaky = FlakyStore(store)
    actor = await make_room(flaky, bus, [True, True, True, True])
    flaky.fail("start_hand", 1, exc=lambda: RuntimeError("boom"))
    actor.start()
    await actor.wait_started()
    for _ in range(2000):
        if actor.status == "finished":
            break
        await asyncio.sleep(0.005)
    assert flaky.failed == {"start_hand": 1}
    await check_session(flaky, actor)
    await actor.stop()


async def _claim_prompt_of_seat_0(actor: RoomActor) -> dict[str, Any]:
    """Play seat 0's turns at once (the bots play theirs) until seat 0 is offered a claim;
    returns its snapshot then. Claim windows are not held meanwhile: seat 0 has no claim
    decision time yet, so ``mimic`` holds them ``claim_min_ms`` (0)."""
    while True:
        await actor.idle()
        snap = await actor.snapshot(0)
        assert actor.status == "playing", "the hand ended before seat 0 could claim"
        if snap["legal"] and actor.prompts.kind == "claim":
            return snap
        assert snap["legal"], "the room waits for nobody"
        await actor.act(0, Action.from_dict(snap["legal"][0]), snap["prompt"])


async def test_a_claim_answer_waiting_for_the_store_keeps_its_own_decision_time(
    store: Any, bus: MemoryBus
) -> None:
    """``claim_hold="mimic"`` takes a human seat to think as long as its past claim
    decisions: one whose answer reached the room after 1.5 s, then waited 8 s for the
    database, took 1.5 s. The next claim window it is not offered is held 1.5 s, not 9.5 s
    (which, after a real outage, held every later window ~11 s: the hand crawled)."""
    flaky = FlakyStore(store)
    timing = dataclasses.replace(TIMING, claim_hold="mimic")
    actor = await make_room(flaky, bus, [False, True, True, True], timing=timing)
    clock: ManualClock = actor.clock  # type: ignore[assignment]
    actor.start()
    await actor.wait_started()
    snap = await _claim_prompt_of_seat_0(actor)
    claim_window = snap["prompt"]
    clock.advance(1.5)  # seat 0 thinks 1.5 s, then passes: the database is down
    flaky.fail("append_action", 10**9)
    act = asyncio.ensure_future(actor.act(0, Action("pass"), claim_window))
    while actor.outages.degraded != {"database"}:
        await asyncio.sleep(0.001)
    clock.advance(8.0)  # the room waits 8 s for its database (within claim_seconds)
    flaky.faults["append_action"].left = 0  # back
    await act
    await actor.idle()
    assert {s: list(t) for s, t in actor.claims.think.items()} == {0: [1.5]}
    # play on to the next claim window held for seat 0 (offered to a bot or nobody)
    while not (actor.prompts.kind == "claim" and actor.game.claims_decided(actor.state)):
        snap = await actor.snapshot(0)
        assert snap["legal"] and actor.status == "playing"
        await actor.act(0, Action.from_dict(snap["legal"][0]), snap["prompt"])
        await actor.idle()
    held = actor.prompts.window
    clock.advance(1.4)
    await actor.idle()
    assert actor.prompts.window == held  # still held: seat 0 "thinks" 1.5 s
    clock.advance(0.1)
    await actor.idle()
    assert actor.prompts.window > held  # closed after 1.5 s
    await actor.stop()


async def test_a_rearm_keeps_a_decided_claim_window_held(store: Any, bus: MemoryBus) -> None:
    """A re-arm after a failure (`RoomActor._rearm`) closes a decided claim window no sooner
    than the room would have (`claim_min_ms`, spec §3): closed at once, its length would
    tell the seats that nobody could claim."""
    timing = dataclasses.replace(TIMING, claim_min_ms=2000)
    actor = await make_room(store, bus, [False, True, True, True], timing=timing)
    clock: ManualClock = actor.clock  # type: ignore[assignment]
    actor.start()
    await actor.wait_started()
    while True:  # seat 0 plays on until a decided claim window is held (2 s)
        await actor.idle()
        if actor.prompts.kind == "claim" and actor.game.claims_decided(actor.state):
            break
        snap = await actor.snapshot(0)
        assert snap["legal"] and actor.status == "playing"
        await actor.act(0, Action.from_dict(snap["legal"][0]), snap["prompt"])
    held = actor.prompts.window
    clock.advance(0.5)
    actor.inbox.put_nowait(Rearm())  # as `_schedule_rearm` does after a failed command
    await actor.idle()
    assert actor.prompts.window == held  # still held
    clock.advance(1.5)
    await actor.idle()
    assert actor.prompts.window > held  # closed 2 s after it opened
    await actor.stop()
