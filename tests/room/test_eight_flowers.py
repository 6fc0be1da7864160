"""An eight-flower deal in a Jintan room (spec/jintan.md §J2): the seat holding all eight
flowers wins at the deal, the hand is settled once, the session goes on to its next hand, and
a room rebuilt from the store holds the same state (also after dying between the deal and the
settlement).

No seed of the real shuffle is known to deal eight flowers to one seat, so the room plays
`FixedFirstDeal`: the real Jintan engine, whose deal for one seed is the shared fixture's
hands and wall (``../shared/fixtures/jintan/eight-flowers-win-at-once.json``, the
repository's copy) and for any other seed the real shuffle. It is registered as ``jintan``
for the test, so the manager, the rebuild and the audit find it by the room's stored game
name, as they find the real one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.audit import audit
from server.room.actor import RoomActor, Timing, seat_channel
from server.room.clock import ManualClock
from server.room.manager import RoomManager, rebuild
from server.rules import registry
from server.rules.jintan import engine
from server.rules.jintan.game import JintanGame
from server.rules.jintan.options import JintanOptions
from server.rules.jintan.state import State

# the repository's copy of the shared fixture (tests/rules/test_fixtures.py keeps them equal)
FIXTURE = Path(__file__).parents[1] / "fixtures" / "jintan" / "eight-flowers-win-at-once.json"
EIGHT = "eight-flowers"  # the seed whose deal is the fixture's
TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=30)
LAID = ["1f", "8f", "2f", "3f", "4f", "5f", "6f", "7f"]  # seat 2's flowers, as laid
AUDIENCES: list[int | None] = [0, 1, 2, 3, None]


class FixedFirstDeal(JintanGame):
    """Jintan whose deal for the seed `EIGHT` is the eight-flower fixture (dealer 0); every
    other seed, and everything else, is the real engine's."""

    def __init__(self) -> None:
        self.fixture = json.loads(FIXTURE.read_text())

    def deal(
        self,
        options: JintanOptions,
        seed: str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> State:
        if seed != EIGHT:
            return super().deal(options, seed, dealer, dealer_streak, weekday)
        assert dealer == self.fixture["dealer"]
        # the seed goes with the hand (its commitment in the view, revealed at the end)
        f = self.fixture
        return engine.new_hand(options, f["hands"], f["wall"], dealer, dealer_streak, seed)


@pytest.fixture
def game(monkeypatch: pytest.MonkeyPatch) -> Iterator[FixedFirstDeal]:
    fixed = FixedFirstDeal()
    monkeypatch.setitem(registry._FACTORIES, "jintan", lambda: fixed)
    monkeypatch.setattr(registry, "_GAMES", {})
    yield fixed


async def drain(sub: Any) -> list[dict[str, Any]]:
    """Every message queued on ``sub`` now."""
    out = []
    while True:
        try:
            out.append(await sub.get(timeout=0.05))
        except TimeoutError:
            return out


def views(actor: RoomActor) -> dict[int | None, dict[str, Any]]:
    return {a: actor.game.view(actor.state, a).to_dict() for a in AUDIENCES}


async def test_eight_flowers_at_the_deal_win_at_once_and_the_session_goes_on(
    store: Any, bus: Any, clock: ManualClock, game: FixedFirstDeal
) -> None:
    seeds = iter([EIGHT, "after-eight-2", "after-eight-3", "after-eight-4"])
    manager = RoomManager(store, bus, clock, TIMING)
    manager.new_seed = lambda: next(seeds)
    actor = await manager.create_room({"hands": 4}, "jintan")
    assert actor.game is game
    code = actor.code
    _seat, _token = await manager.join(code, "ann")  # seat 0 is a person: the pause waits
    subs = {a: await bus.subscribe(seat_channel(code, a)) for a in AUDIENCES}
    await manager.add_bots(code, 3)
    await actor.idle()

    # hand 1 ended at the deal: seat 2 laid its seven flowers in order, and 1f's replacement
    # from the back of the wall was the eighth (§J2)
    assert actor.hand_no == 1 and actor.status == "between"
    assert game.ended(actor.state)
    s = actor.last_settlement
    assert s is not None
    assert (s["result"], s["winners"], s["win_kind"]) == ("win", [2], "ba_hua")
    assert s["deltas"] == [-200, -200, 600, -200] and s["next_dealer"] == 1
    assert actor.totals == [-200, -200, 600, -200]
    assert (actor.dealer, actor.dealer_streak) == (1, 1)

    # everybody was sent the deal (seven flower replacements in the view), then hand_end
    for a, sub in subs.items():
        got = [m for m in await drain(sub) if m["type"] in ("snapshot", "event", "hand_end")]
        assert [m["type"] for m in got] == ["snapshot", "hand_end"], (a, got)
        deal, end = got
        assert (deal["hand_no"], deal["version"], end["version"]) == (1, 0, 1)
        assert deal["view"]["deal_flowers"] == [{"seat": 2, "tile": t} for t in LAID]
        assert deal["view"]["seats"][2]["flowers"] == LAID
        assert deal["view"]["phase"] == "ended" and deal["view"]["seed"] == EIGHT
        assert end["settlement"]["win_kind"] == "ba_hua" and end["next_hand"] == 2
        assert end["totals"] == [-200, -200, 600, -200]

    # stored once: the hand with its settlement, three payments of 200 to seat 2
    (hand,) = await store.hands(code)
    assert hand.seed == EIGHT and hand.result == "win" and hand.deltas == [-200, -200, 600, -200]
    assert hand.settlement is not None and hand.settlement["win_kind"] == "ba_hua"
    assert await store.hand_actions(code, 1) == []
    rows = await store.ledger_by_hand(code, 1)
    assert [(r["from"], r["to"], r["points"], r["reason"]) for r in rows] == [
        (0, 2, 200, "hu"),
        (1, 2, 200, "hu"),
        (3, 2, 200, "hu"),
    ]
    assert len(await store.ledger(code=code)) == 3
    assert await store.totals(code) == [-200, -200, 600, -200]

    # a room rebuilt from the store (between hands) holds the same state
    before = views(actor)
    version, action_idx = actor.version, actor.action_idx
    copy = RoomActor(
        code, actor.options, store, bus, clock, TIMING, seats=list(actor.seats), game=game
    )
    await rebuild(copy)
    assert (copy.hand_no, copy.status, copy.version, copy.action_idx) == (
        1,
        "between",
        version,
        action_idx,
    )
    assert (copy.dealer, copy.dealer_streak, copy.totals) == (1, 1, actor.totals)
    assert copy.last_settlement == actor.last_settlement
    assert views(copy) == before

    # the session goes on: seat 0 is ready (the bots are), hand 2 is dealt by seat 1
    await actor.mark_ready(0)
    await actor.idle()
    assert actor.hand_no == 2 and actor.status == "playing"
    assert actor.state.dealer == 1 and not game.ended(actor.state)
    hands = await store.hands(code)
    assert [h.hand_no for h in hands] == [1, 2] and hands[1].dealer == 1
    assert len(await store.ledger_by_hand(code, 1)) == 3  # hand 1 is not settled again
    for sub in subs.values():
        await sub.close()
    await manager.close()

    # a new manager rebuilds the room by its stored game name and plays on; the audit agrees
    again = RoomManager(store, bus, clock, TIMING)
    again.new_seed = lambda: next(seeds)
    rebuilt = await again.get(code)
    assert isinstance(rebuilt, RoomActor) and rebuilt.game is game
    await rebuilt.idle()
    assert rebuilt.hand_no == 2 and rebuilt.status == "playing"
    assert rebuilt.totals == [-200, -200, 600, -200]
    await again.close()
    assert await audit(store) == []


async def test_an_eight_flower_deal_stored_but_not_settled_is_settled_once_on_rebuild(
    store: Any, bus: Any, clock: ManualClock, game: FixedFirstDeal
) -> None:
    """The owner died after storing the deal (no action follows an eight-flower deal) and
    before the settlement: the rebuilt room settles the hand once, and a second rebuild
    writes nothing more."""
    code = "EIGHT1"
    await store.create_room(code, "jintan", JintanOptions(hands=4).model_dump())
    await store.add_player(code, 0, "ann", "hash0", False)
    for seat in (1, 2, 3):
        await store.add_player(code, seat, f"bot{seat}", f"hash{seat}", True)
    await store.set_room_status(code, "playing")
    await store.start_hand(code, 1, EIGHT, 0, 1)
    assert (await store.hands(code))[0].settlement is None

    manager = RoomManager(store, bus, clock, TIMING)
    actor = await manager.get(code)
    assert isinstance(actor, RoomActor)
    await actor.wait_started()
    await actor.idle()
    assert (actor.hand_no, actor.status, actor.totals) == (1, "between", [-200, -200, 600, -200])
    (hand,) = await store.hands(code)
    assert hand.settlement is not None and hand.settlement["win_kind"] == "ba_hua"
    assert hand.deltas == [-200, -200, 600, -200]
    rows = await store.ledger_by_hand(code, 1)
    assert [(r["from"], r["to"], r["points"]) for r in rows] == [
        (0, 2, 200),
        (1, 2, 200),
        (3, 2, 200),
    ]
    assert (await store.get_room(code)).status == "between"
    await manager.close()

    again = RoomManager(store, bus, clock, TIMING)
    rebuilt = await again.get(code)
    assert isinstance(rebuilt, RoomActor)
    await rebuilt.idle()
    assert (rebuilt.status, rebuilt.dealer, rebuilt.totals) == ("between", 1, actor.totals)
    assert await store.ledger_by_hand(code, 1) == rows
    await again.close()
    assert await audit(store) == []
