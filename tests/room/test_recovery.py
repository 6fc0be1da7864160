"""Crash recovery of a room (real store, in-memory bus, manual clock).

The owner may die after the winning action is in the action log but before the settlement is
written: a rebuilt room settles the hand exactly once, with the settlement a replay of the
seed and actions gives, and a second rebuild writes nothing more.
"""

from __future__ import annotations

from typing import Any

from server.room.actor import Timing, replay_hand
from server.room.bots import choose_action
from server.room.clock import ManualClock
from server.room.manager import RoomManager
from server.rules.guiyang import (
    GuiyangOptions,
    acting_seats,
    apply,
    claims_decided,
    deal,
    resolve_claims,
    settle,
)

TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=30)
CODE = "CRASH1"


async def _log_whole_hand(store: Any, opts: GuiyangOptions, seed: str) -> None:
    """Store a room of four bots and a whole hand's action log, but no settlement (the
    owner died right after logging the last action)."""
    await store.create_room(CODE, "guiyang", opts.model_dump())
    for seat in range(4):
        await store.add_player(CODE, seat, f"bot{seat}", f"hash{seat}", True)
    await store.set_room_status(CODE, "playing")
    await store.start_hand(CODE, 1, seed, 0, 1)
    state = deal(opts, seed, 0, 1)
    idx = 0
    while not state.ended:
        if claims_decided(state):  # the room closes a decided window; nothing to log
            state, _ = resolve_claims(state)
            continue
        seat = min(acting_seats(state))
        action = choose_action(state, seat)
        state, _ = apply(state, seat, action)
        payload = {"action": action.to_dict(), "source": "bot"}
        await store.append_action(CODE, 1, idx, seat, payload)
        idx += 1


async def test_settlement_written_once_after_crash_before_ledger(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    opts = GuiyangOptions(hands=4)
    await _log_whole_hand(store, opts, "crash-seed-1")
    hand = (await store.hands(CODE))[0]
    assert hand.settlement is None and await store.ledger(code=CODE) == []

    manager = RoomManager(store, bus, clock, TIMING)
    actor = await manager.get(CODE)
    await actor.wait_started()
    await actor.idle()
    actions = await store.hand_actions(CODE, 1)
    hand = (await store.hands(CODE))[0]
    state, _ = replay_hand(opts, "crash-seed-1", 0, 1, actions, hand.weekday)
    expected = settle(state)
    assert expected is not None
    assert hand.settlement == expected
    assert hand.deltas == expected["deltas"]
    rows = await store.ledger_by_hand(CODE, 1)
    assert len(rows) == len(expected["payments"])
    await manager.close()

    # a second crash and rebuild: nothing is written twice
    again = RoomManager(store, bus, clock, TIMING)
    rebuilt = await again.get(CODE)
    await rebuilt.idle()
    assert await store.ledger_by_hand(CODE, 1) == rows
    assert (await store.hands(CODE))[0].settlement == expected
    assert await store.settle_hand(CODE, 1, "x", {}, [], [0, 0, 0, 0]) is False
    await again.close()


async def test_rebuilt_room_restores_versions_and_prompt_numbers(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """After every change of a live room of four humans (claim windows answered one seat at
    a time, hands ending, the pause between hands), a room rebuilt from the store alone (as
    another process does on a takeover) has the same hand, version and prompt number, so an
    answer in flight carrying the old owner's prompt number is not refused as stale."""
    from server.bus.memory import MemoryBus

    manager = RoomManager(store, bus, clock, TIMING)
    manager.new_seed = iter(f"prompt-seed-{i}" for i in range(100)).__next__
    actor = await manager.create_room({"hands": 4})
    code = actor.code
    for name in ("ann", "bob", "cy", "dee"):
        await manager.join(code, name)
    await actor.idle()
    checked = set()
    for _ in range(3000):
        other = RoomManager(store, MemoryBus(), ManualClock(), TIMING)
        # Loaded but not started yet: a process taking the room over answers its calls
        # from the moment it holds the lease, before the actor's task has run.
        loaded = await other._load(code)
        assert not loaded.running
        live, early = actor._snapshot(0), await loaded.snapshot(0)
        for key in ("hand_no", "version", "prompt", "legal", "view"):
            assert early[key] == live[key], (key, live["hand_no"], live["version"], "unstarted")
        rebuilt = await other.get(code)
        await rebuilt.wait_started()
        await rebuilt.idle()
        live, again = actor._snapshot(0), rebuilt._snapshot(0)
        for key in ("hand_no", "version", "prompt", "legal", "view"):
            assert again[key] == live[key], (key, live["hand_no"], live["version"])
        checked.add((actor.status, live["hand_no"]))
        await other.close()
        if actor.hand_no == 3:
            break
        if actor.status == "between":
            for seat in range(4):
                await actor.mark_ready(seat)
        else:
            seat = min(acting_seats(actor.state))
            snap = await actor.snapshot(seat)
            await actor.act(seat, choose_action(actor.state, seat), snap["prompt"])
        await actor.idle()
    assert {("playing", 1), ("between", 1), ("playing", 2), ("between", 2)} <= checked
    assert actor.hand_no == 3
    await manager.close()
