"""A join forwarded to the room's owner in a cluster keeps the player's profile (issue 14)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from server.bus.redis import RedisBus
from server.room.actor import Timing
from server.room.cluster import Cluster
from server.room.manager import RoomManager
from server.store import Store
from server.store import profiles as pr

pytestmark = pytest.mark.redis


async def test_a_forwarded_join_seats_the_profile(store: Any, redis_url: str) -> None:
    timing = Timing(claim_seconds=300, turn_seconds=300, claim_min_ms=0, ready_seconds=300)
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    buses = [RedisBus(redis_url, prefix=prefix) for _ in range(2)]
    clusters = [Cluster(redis_url, b, lease_seconds=2.0, prefix=prefix) for b in buses]
    store_b = Store(store.url)
    a = RoomManager(store, buses[0], timing=timing, cluster=clusters[0])
    b = RoomManager(store_b, buses[1], timing=timing, cluster=clusters[1])
    await a.start()
    await b.start()
    try:
        ann, _ = await pr.create_profile(store, "ann")
        code = (await a.create_room({"hands": 4})).code
        assert code in a.rooms and code not in b.rooms
        seat, token = await b.join(code, "ann", profile_id=ann.id)  # forwarded to A
        assert seat == 0 and token
        seat, _ = await b.join(code, "guest")
        assert seat == 1
        record = await store.get_room(code)
        assert record is not None
        assert [(p.name, p.profile_id, p.is_bot) for p in record.players] == [
            ("ann", ann.id, False),
            ("guest", None, False),
        ]
        assert await pr.seat_of(store, ann.id, code) == 0
    finally:
        await a.close()
        await b.close()
        await store_b.close()
        for bus in buses:
            await bus.close()
