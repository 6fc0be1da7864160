"""星期鸡 in a live room (spec/guiyang.md §9.6): the weekday is taken from the room's clock at
the deal in the room's time zone, published with the deal, stored with the hand, and every
replay (rebuild, audit) uses the stored weekday, not the day it runs on."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from server.audit import audit
from server.room.actor import replay_hand
from server.room.clock import ManualClock
from server.room.manager import RoomManager
from server.rules.guiyang import GuiyangOptions, settle, view
from tests.room.test_actor import TIMING, make_room, run_until

# Wednesday 2026-12-02 23:30 in Shanghai is already Thursday 00:30 in Tokyo.
WEDNESDAY_NIGHT = datetime(2026, 12, 2, 23, 30, tzinfo=ZoneInfo("Asia/Shanghai")).timestamp()


async def test_weekday_is_taken_in_the_rooms_zone_and_stored(store: Any, bus: Any) -> None:
    clock = ManualClock(start=WEDNESDAY_NIGHT)
    shanghai = await make_room(
        store, bus, clock, bots=[True] * 4, options={"xing_qi_ji": True, "hands": 4}
    )
    tokyo = await make_room(
        store,
        bus,
        clock,
        bots=[True] * 4,
        options={"xing_qi_ji": True, "hands": 4, "time_zone": "Asia/Tokyo"},
        code="TEST02",
    )
    assert shanghai.state is not None and tokyo.state is not None
    assert view(shanghai.state, 0)["weekday"] == 3
    assert view(tokyo.state, None)["weekday"] == 4
    assert {h.weekday for h in await store.hands("TEST01")} == {3}
    assert {h.weekday for h in await store.hands("TEST02")} == {4}
    await shanghai.stop()
    await tokyo.stop()


async def test_a_stored_hand_replays_with_its_own_weekday(store: Any, bus: Any) -> None:
    clock = ManualClock(start=WEDNESDAY_NIGHT)
    seeds = [f"xing-qi-{n}" for n in range(40)]
    actor = await make_room(
        store, bus, clock, bots=[True] * 4, seeds=seeds, options={"xing_qi_ji": True, "hands": 4}
    )
    await run_until(actor, clock, lambda: actor.status == "finished", step=5.0)
    await actor.stop()
    opts = GuiyangOptions(**actor.options)
    hands = await store.hands("TEST01")
    assert len(hands) == 4 and hands[-1].weekday is not None
    changed = 0
    for hand in hands:
        actions = await store.hand_actions("TEST01", hand.hand_no)
        state, _ = replay_hand(
            opts, hand.seed, hand.dealer, hand.dealer_streak, actions, hand.weekday
        )
        assert settle(state) == hand.settlement
        other, _ = replay_hand(
            opts, hand.seed, hand.dealer, hand.dealer_streak, actions, hand.weekday % 7 + 1
        )
        changed += settle(other)["deltas"] != hand.settlement["deltas"]  # type: ignore[index]
    assert changed, "no hand of this session depended on its weekday: pick other seeds"
    # Days later the audit still replays every hand with the weekday it was dealt on.
    clock.advance(3 * 86400)
    assert await audit(store) == []
    manager = RoomManager(store, bus, clock, TIMING)
    rebuilt = await manager.get("TEST01")
    assert rebuilt.last_settlement == hands[-1].settlement
    await manager.close()
