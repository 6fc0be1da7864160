"""``server.bus.transient``: a publish that failed because Redis is away may be retried
(issue 16); a closed bus or a message that is not JSON may not."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.bus import BusError, transient
from server.bus.memory import MemoryBus
from server.bus.redis import RedisBus
from tests.integration.live_helpers import free_port


async def test_an_unreachable_redis_is_transient() -> None:
    bus = RedisBus(f"redis://127.0.0.1:{free_port()}/0")  # nobody listens there
    try:
        with pytest.raises(RedisConnectionError) as caught:
            await bus.publish_many([("a", {"x": 1}), ("b", {"x": 2})])
        assert transient(caught.value)
        with pytest.raises(RedisConnectionError) as single:
            await bus.publish("a", {"x": 1})
        assert transient(single.value)
    finally:
        await bus.close()


async def test_refusals_are_not_transient() -> None:
    bus = MemoryBus()
    assert not transient(ValueError("not JSON"))
    with pytest.raises(TypeError) as odd:
        await bus.publish("a", {"x": object()})
    assert not transient(odd.value)
    await bus.close()
    with pytest.raises(BusError) as closed:
        await bus.publish("a", {"x": 1})
    assert not transient(closed.value)
    assert transient(ConnectionResetError(104, "reset")) and transient(TimeoutError())
