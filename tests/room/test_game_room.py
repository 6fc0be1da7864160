"""The room plays the `Game` it holds, found by the room's stored game name: a probe game (the
Guiyang rules under another name, with its own bot policy) runs a room, is rebuilt from the
store by name, and audited by name; a stored room of an unknown game is refused, typed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from server.audit import audit
from server.room.actor import RoomError, Timing, seat_channel
from server.room.clock import ManualClock
from server.room.manager import RoomManager
from server.rules import registry
from server.rules.guiyang.game import GuiyangGame
from server.rules.types import Action

TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=1)


class Probe(GuiyangGame):
    """Guiyang's rules registered as ``probe``; its bots play the default (timeout) action,
    and it counts the moves it was asked for."""

    name = "probe"

    def __init__(self) -> None:
        super().__init__()
        self.bot_moves = 0

    def bot_action(self, state: Any, seat: int, legal: Sequence[Action] | None = None) -> Action:
        self.bot_moves += 1
        return self.default_action(state, seat)


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> Iterator[Probe]:
    game = Probe()
    monkeypatch.setitem(registry._FACTORIES, "probe", lambda: game)
    monkeypatch.setattr(registry, "_GAMES", {})
    yield game


async def test_a_room_plays_the_game_it_was_made_with(
    store: Any, bus: Any, clock: ManualClock, probe: Probe
) -> None:
    manager = RoomManager(store, bus, clock, TIMING)
    actor = await manager.create_room({"hands": 4}, "probe")
    assert actor.game is probe and actor.info()["game"] == "probe"
    assert (await store.get_room(actor.code)).game == "probe"
    spectator = await bus.subscribe(seat_channel(actor.code, None))
    await manager.add_bots(actor.code, 4)
    for _ in range(400):
        if actor.status == "finished":
            break
        await actor.idle()
        clock.advance(1)
    assert actor.status == "finished" and probe.bot_moves > 0
    snapshot = await spectator.get(timeout=1)
    while snapshot["type"] != "snapshot":
        snapshot = await spectator.get(timeout=1)
    assert snapshot["room"]["game"] == "probe"
    hands = await store.hands(actor.code)
    assert len(hands) == 4 and all(sum(h.deltas) == 0 for h in hands)
    await spectator.close()
    await manager.close()

    # a new manager rebuilds the room by its stored game name; the audit replays it by name
    again = RoomManager(store, bus, clock, TIMING)
    rebuilt = await again.get(actor.code)
    assert rebuilt.game is probe and rebuilt.status == "finished"
    assert rebuilt.totals == actor.totals
    await again.close()
    assert await audit(store) == []


async def test_a_stored_room_of_an_unknown_game_is_refused_typed(
    store: Any, bus: Any, clock: ManualClock, probe: Probe, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = RoomManager(store, bus, clock, TIMING)
    actor = await manager.create_room({"hands": 4}, "probe")
    await manager.add_bots(actor.code, 4)
    for _ in range(100):
        if actor.hand_no >= 1 and actor.status == "between":
            break
        await actor.idle()
    await manager.close()
    with pytest.raises(RoomError) as err:
        await manager.create_room({}, "chess")
    assert err.value.code == "bad_request"

    monkeypatch.delitem(registry._FACTORIES, "probe")
    monkeypatch.setattr(registry, "_GAMES", {})
    with pytest.raises(RoomError) as err:
        await RoomManager(store, bus, clock, TIMING).get(actor.code)
    assert err.value.code == "unavailable" and "probe" in err.value.message
    problems = await audit(store)
    assert problems and all("unknown game 'probe'" in p for p in problems)


async def test_a_hand_is_settled_once_and_legality_computed_once_per_state(
    store: Any, bus: Any, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counts the engine's ``settle`` and the game's ``legal_actions`` while a bot room with
    every audience listening plays a session: one settlement per hand (the engine's, for its
    hand_end event, reused by the room and every view), and each seat's legal actions once
    per state the room holds."""
    from server.rules.guiyang import engine
    from server.rules.guiyang import game as guiyang_game

    settled: list[Any] = []
    real_settle = engine.settle

    def counting_settle(state: Any) -> Any:
        settled.append(state)
        return real_settle(state)

    monkeypatch.setattr(engine, "settle", counting_settle)
    monkeypatch.setattr(guiyang_game, "settle", counting_settle)
    probe = Probe()
    asked: list[tuple[int, int]] = []
    alive: list[Any] = []  # the states asked about, kept so that no id() is reused
    real_legal = probe.legal_actions

    def counting_legal(state: Any, seat: int) -> list[Action]:
        alive.append(state)
        asked.append((id(state), seat))
        return real_legal(state, seat)

    monkeypatch.setattr(probe, "legal_actions", counting_legal)
    monkeypatch.setitem(registry._FACTORIES, "probe", lambda: probe)
    monkeypatch.setattr(registry, "_GAMES", {})

    manager = RoomManager(store, bus, clock, TIMING)
    actor = await manager.create_room({"hands": 4}, "probe")
    subs = [await bus.subscribe(seat_channel(actor.code, a)) for a in [0, 1, 2, 3, None]]
    await manager.add_bots(actor.code, 4)
    for _ in range(400):
        if actor.status == "finished":
            break
        await actor.idle()
    assert actor.status == "finished" and actor.hand_no == 4
    assert len(settled) == 4, "one settlement per hand"
    assert len(asked) == len(set(asked)), "a seat's legal actions computed twice for a state"
    for sub in subs:
        await sub.close()
    await manager.close()


async def test_a_jintan_room_plays_through_the_same_room_core(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """The second game runs in the same actor, manager and audit, found by its name."""
    manager = RoomManager(store, bus, clock, TIMING)
    actor = await manager.create_room({"hands": 4}, "jintan")
    assert actor.game.name == "jintan" and (await store.get_room(actor.code)).game == "jintan"
    await manager.add_bots(actor.code, 4)
    for _ in range(400):
        if actor.status == "finished":
            break
        await actor.idle()
    assert actor.status == "finished"
    hands = await store.hands(actor.code)
    assert len(hands) == 4 and all(sum(h.deltas) == 0 for h in hands)
    assert actor.totals == [sum(h.deltas[i] for h in hands) for i in range(4)]
    await manager.close()
    assert await audit(store) == []


async def test_nothing_is_made_for_an_audience_nobody_can_hear(redis_url: str) -> None:
    """In-process bus: only subscribed audiences get messages made. Shared (Redis) bus: all
    but the bot seats, which no socket of any process can hold."""
    from server.bus.memory import MemoryBus
    from server.bus.redis import RedisBus
    from server.room.actor import RoomActor, Seat

    seats = [Seat(0, "ann", False, "h0"), *(Seat(i, f"bot{i}", True, f"h{i}") for i in (1, 2, 3))]
    memory = MemoryBus()
    actor = RoomActor("HEAR01", {}, None, memory, ManualClock(), TIMING, seats=list(seats))
    assert actor.publisher.listening() == []
    sub = await memory.subscribe(seat_channel("HEAR01", 2))
    assert actor.publisher.listening() == [2]
    await sub.close()
    await memory.close()
    redis = RedisBus(redis_url, prefix="hear-test:")
    try:
        shared = RoomActor("HEAR01", {}, None, redis, ManualClock(), TIMING, seats=list(seats))
        assert shared.publisher.listening() == [0, None]
    finally:
        await redis.close()
