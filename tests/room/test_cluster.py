"""Leases and forwarded calls on a real Redis (``TEST_REDIS_URL``), and gap detection.

Each test uses its own key/channel prefix, so runs sharing one Redis do not meet.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.api.ws import _missed
from server.bus.redis import RedisBus
from server.room.actor import RoomError
from server.room.cluster import Cluster, NoOwner

pytestmark = pytest.mark.redis
LEASE = 1.2  # seconds: short for fast tests, long enough for renewals on a loaded machine


@pytest.fixture
async def pair(redis_url: str) -> AsyncIterator[tuple[Cluster, Cluster]]:
    """Two cluster members ("processes") with a short lease, on their own Redis buses."""
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    buses = [RedisBus(redis_url, prefix=prefix) for _ in range(2)]
    members = [Cluster(redis_url, b, lease_seconds=LEASE, prefix=prefix) for b in buses]
    for m in members:
        await m.start()
    yield members[0], members[1]
    for m in members:
        await m.close()
    for b in buses:
        await b.close()


async def _until(predicate: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.02)


async def test_lease_is_exclusive_renewed_and_released(pair: tuple[Cluster, Cluster]) -> None:
    one, two = pair
    lost: list[str] = []

    async def on_lost() -> None:
        lost.append("lost")

    first = one.lease("R1", on_lost)
    assert await first.acquire()
    assert not await two.lease("R1", on_lost).acquire()
    assert await two.owners(["R1", "R2"]) == {"R1": one.process_id, "R2": None}
    # renewed while held: still ours well past one time to live (renewed every LEASE / 3)
    started = time.monotonic()
    while time.monotonic() - started < 2.5 * LEASE:
        assert await one.owners(["R1"]) == {"R1": one.process_id}
        await asyncio.sleep(0.1)
    await first.release()
    second = two.lease("R1", on_lost)
    assert await second.acquire()
    assert lost == []
    # somebody else's key in its place: the holder notices at its next renewal
    await two.redis.set(two.lease_key("R1"), "intruder")
    await _until(lambda: lost == ["lost"])
    await second.release()  # not ours any more: left alone
    assert await two.redis.get(two.lease_key("R1")) == "intruder"


async def test_lease_of_a_dead_holder_lapses(pair: tuple[Cluster, Cluster]) -> None:
    one, two = pair

    async def nothing() -> None:
        return None

    lease = one.lease("R3", nothing)
    assert await lease.acquire()
    assert one._renewer is not None
    one._renewer.cancel()  # the holder stops renewing (as if it died)
    deadline = time.monotonic() + 5
    while not await two.lease("R3", nothing).acquire():
        assert time.monotonic() < deadline, "lease never lapsed"
        await asyncio.sleep(0.05)


async def test_forwarded_calls(pair: tuple[Cluster, Cluster]) -> None:
    owner, other = pair

    async def handler(call: str, kwargs: dict[str, Any]) -> Any:
        if call == "refuse":
            raise RoomError("not_your_turn", "wait")
        return {"call": call, **kwargs}

    with pytest.raises(NoOwner):
        await other.request("R4", "echo", {"x": 1})
    await owner.serve("R4", handler)
    assert await other.request("R4", "echo", {"x": 1}) == {"call": "echo", "x": 1}
    with pytest.raises(RoomError) as err:
        await other.request("R4", "refuse", {})
    assert err.value.code == "not_your_turn"
    results = await asyncio.gather(*(other.request("R4", "n", {"i": i}) for i in range(20)))
    assert [r["i"] for r in results] == list(range(20))
    await owner.stop_serving("R4")
    with pytest.raises(NoOwner):
        await other.request("R4", "echo", {})


@pytest.mark.parametrize(
    ("msg", "last", "missed"),
    [
        ({"type": "event", "hand_no": 1, "version": 5, "prev_version": 4}, (1, 4), False),
        ({"type": "event", "hand_no": 1, "version": 6, "prev_version": 4}, (1, 5), False),
        ({"type": "event", "hand_no": 1, "version": 7, "prev_version": 6}, (1, 4), True),
        ({"type": "hand_end", "hand_no": 1, "version": 9, "prev_version": 8}, (1, 7), True),
        ({"type": "event", "hand_no": 1, "version": 7, "prev_version": None}, (1, 2), False),
        ({"type": "event", "hand_no": 2, "version": 1, "prev_version": 0}, (1, 30), True),
        ({"type": "event", "hand_no": 1, "version": 3, "prev_version": 2}, None, False),
        ({"type": "room", "room": {}}, (1, 2), False),
    ],
)
def test_missed_message_detection(
    msg: dict[str, Any], last: tuple[int, int] | None, missed: bool
) -> None:
    assert _missed(msg, last) is missed
