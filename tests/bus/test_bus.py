"""The same tests for the in-memory bus and the Redis bus."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.bus import (
    GAP,
    GAP_TEXT,
    Bus,
    BusError,
    Subscription,
    SubscriptionClosed,
    group_of,
    make_bus,
    transient,
)
from server.bus.memory import MemoryBus
from server.bus.redis import RedisBus, frame, unframe
from tests.redis_proxy import CountingProxy
from tests.redis_server import RedisServer


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        pytest.param("redis", id="redis", marks=pytest.mark.redis),
    ]
)
async def bus_url(request: pytest.FixtureRequest) -> str | None:
    """``None`` (memory bus) or the Redis URL."""
    if request.param == "memory":
        return None
    url: str = request.getfixturevalue("redis_url")
    return url


@pytest.fixture
async def bus(bus_url: str | None) -> AsyncIterator[Bus]:
    # A unique prefix per test keeps parallel runs on one Redis apart.
    b = make_bus(bus_url, prefix=f"test:{uuid.uuid4().hex}:")
    try:
        yield b
    finally:
        await b.close()


async def _counted(redis_url: str, prefix: str) -> tuple[RedisBus, CountingProxy]:
    """A Redis bus (channel prefix ``prefix``) talking to ``redis_url`` through a started
    `CountingProxy`, which counts its round trips."""
    from sqlalchemy.engine import make_url

    url = make_url(redis_url)
    proxy = CountingProxy((url.host or "127.0.0.1", url.port or 6379))
    port = await proxy.start()
    return RedisBus(f"redis://127.0.0.1:{port}/{url.database or 0}", prefix=prefix), proxy


def test_make_bus_picks_the_implementation() -> None:
    assert isinstance(make_bus(None), MemoryBus)
    assert isinstance(make_bus(""), MemoryBus)
    assert isinstance(make_bus("redis://127.0.0.1:6379/0"), RedisBus)  # connects lazily


async def test_publish_subscribe_in_order(bus: Bus) -> None:
    sub = await bus.subscribe("room:A")
    assert isinstance(sub, Subscription)
    for i in range(50):
        await bus.publish("room:A", {"type": "event", "version": i, "tiles": ["1m", "2m"]})
    got = [await sub.get(timeout=2) for _ in range(50)]
    assert got == [{"type": "event", "version": i, "tiles": ["1m", "2m"]} for i in range(50)]


async def test_two_subscribers_each_get_everything(bus: Bus) -> None:
    a = await bus.subscribe("room:A")
    b = await bus.subscribe("room:A")
    other = await bus.subscribe("room:B")
    for i in range(5):
        await bus.publish("room:A", {"n": i})
    await bus.publish("room:B", {"n": "b"})
    assert [(await a.get(timeout=2))["n"] for _ in range(5)] == list(range(5))
    assert [(await b.get(timeout=2))["n"] for _ in range(5)] == list(range(5))
    assert await other.get(timeout=2) == {"n": "b"}
    with pytest.raises(TimeoutError):
        await other.get(timeout=0.05)


async def test_subscribers_get_independent_copies(bus: Bus) -> None:
    a = await bus.subscribe("c")
    b = await bus.subscribe("c")
    message = {"list": [1]}
    await bus.publish("c", message)
    message["list"].append(2)  # the publisher's later change is not seen
    got_a = await a.get(timeout=2)
    got_a["list"].append(3)
    assert await b.get(timeout=2) == {"list": [1]}


async def test_unsubscribe(bus: Bus) -> None:
    a = await bus.subscribe("room:A")
    b = await bus.subscribe("room:A")
    await a.close()
    await a.close()  # idempotent
    await bus.publish("room:A", {"n": 1})
    assert await b.get(timeout=2) == {"n": 1}
    with pytest.raises(SubscriptionClosed):
        await a.get(timeout=0.1)
    await b.close()
    assert bus.subscriber_count("room:A") == 0  # type: ignore[attr-defined]
    await bus.publish("room:A", {"n": 2})  # nobody listens: fine
    c = await bus.subscribe("room:A")  # re-subscribing works
    await bus.publish("room:A", {"n": 3})
    assert await c.get(timeout=2) == {"n": 3}


async def test_close_wakes_a_waiting_reader_and_ends_iteration(bus: Bus) -> None:
    sub = await bus.subscribe("room:A")
    received: list[dict[str, object]] = []

    async def consume() -> None:
        async for message in sub:
            received.append(message)

    task = asyncio.create_task(consume())
    await bus.publish("room:A", {"n": 1})
    for _ in range(200):
        if received:
            break
        await asyncio.sleep(0.01)
    async with sub:  # __aexit__ closes
        pass
    await asyncio.wait_for(task, timeout=2)
    assert received == [{"n": 1}]


async def test_bus_close_closes_subscriptions(bus: Bus) -> None:
    sub = await bus.subscribe("room:A")
    waiter = asyncio.create_task(sub.get())
    await asyncio.sleep(0.01)
    await bus.close()
    with pytest.raises(SubscriptionClosed):
        await asyncio.wait_for(waiter, timeout=2)
    await bus.close()  # idempotent


async def test_non_json_messages_are_refused(bus: Bus) -> None:
    with pytest.raises(TypeError):
        await bus.publish("room:A", {"bad": {1, 2}})
    with pytest.raises(TypeError):
        await bus.publish("room:A", {"bad": object()})


async def test_what_json_cannot_carry_is_sent_as_json_can(bus: Bus) -> None:
    """Seat-number keys become strings (as JSON has them); a non-finite float, which no
    JSON parser (a browser's ``JSON.parse``) accepts, becomes ``null``."""
    sub = await bus.subscribe("room:A")
    await bus.publish("room:A", {"by_seat": {0: "东", 3: "北"}, "x": float("nan")})
    assert await sub.get_text(timeout=2) == '{"by_seat":{"0":"东","3":"北"},"x":null}'


async def test_lagging_subscriber_is_closed_not_unbounded() -> None:
    bus = MemoryBus(maxsize=3)
    slow = await bus.subscribe("c")
    fast = await bus.subscribe("c")
    for i in range(4):
        await bus.publish("c", {"n": i})
        assert (await fast.get(timeout=1))["n"] == i
    assert slow.overflowed
    assert [(await slow.get())["n"] for _ in range(3)] == [0, 1, 2]
    with pytest.raises(SubscriptionClosed):
        await slow.get()
    await asyncio.sleep(0)
    assert bus.subscriber_count("c") == 1
    await bus.close()


async def test_timed_out_reads_leave_nothing_behind_and_lose_nothing() -> None:
    """A read that times out leaves no waiter behind (a thousand of them, no message), and
    the next message still reaches the next read; of two readers, a message wakes one, and
    if that one is cancelled before it runs, the other gets the message."""
    bus = MemoryBus()
    sub = await bus.subscribe("c")
    for _ in range(1000):
        with pytest.raises(TimeoutError):
            await sub.get(timeout=0)
    assert len(sub._waiters) == 0
    await bus.publish("c", {"n": 1})
    assert await sub.get(timeout=1) == {"n": 1}

    first = asyncio.create_task(sub.get())
    second = asyncio.create_task(sub.get())
    await asyncio.sleep(0)  # both wait
    await bus.publish("c", {"n": 2})  # wakes the first...
    first.cancel()  # ...which is cancelled before it runs
    assert await asyncio.wait_for(second, 1) == {"n": 2}
    with pytest.raises(asyncio.CancelledError):
        await first
    await bus.close()


@pytest.mark.redis
async def test_redis_bus_crosses_processes(redis_url: str) -> None:
    """Two buses (two server processes) on one Redis: either one's publish reaches the
    other's subscribers."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, two = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    try:
        sub_one = await one.subscribe("room:X")
        sub_two = await two.subscribe("room:X")
        await one.publish("room:X", {"from": 1})
        await two.publish("room:X", {"from": 2})
        assert await sub_two.get(timeout=2) == {"from": 1}
        assert await sub_two.get(timeout=2) == {"from": 2}
        assert await sub_one.get(timeout=2) == {"from": 1}
        assert await sub_one.get(timeout=2) == {"from": 2}
        other_prefix = RedisBus(redis_url, prefix=prefix + "other:")
        try:
            await other_prefix.publish("room:X", {"leak": True})
            with pytest.raises(TimeoutError):
                await sub_one.get(timeout=0.1)
        finally:
            await other_prefix.close()
    finally:
        await one.close()
        await two.close()


async def test_publish_many_keeps_order_across_channels(bus: Bus) -> None:
    a = await bus.subscribe("room:A")
    b = await bus.subscribe("room:B")
    batch: list[tuple[str, Any]] = []
    for i in range(30):
        batch.append(("room:A" if i % 3 else "room:B", {"n": i, "name": "东风"}))
    counts = await bus.publish_many(batch)
    assert counts == [1] * 30
    want_a = [i for i in range(30) if i % 3]
    want_b = [i for i in range(30) if not i % 3]
    assert [(await a.get(timeout=2))["n"] for _ in want_a] == want_a
    assert [(await b.get(timeout=2))["n"] for _ in want_b] == want_b
    assert await bus.publish_many([]) == []
    assert await bus.publish_many([("nobody", {"n": 1})]) == [0]


async def test_text_payloads_pass_through_as_is(bus: Bus) -> None:
    sub = await bus.subscribe("c")
    text = '{"type":"event","version":7,"name":"东风"}'
    await bus.publish_many([("c", text), ("c", {"type": "event", "version": 8})])
    assert await sub.get_text(timeout=2) == text  # the very text, not a re-encoding
    assert await sub.get(timeout=2) == {"type": "event", "version": 8}
    await bus.publish("c", text)
    assert await sub.get(timeout=2) == {"type": "event", "version": 7, "name": "东风"}


async def test_publish_many_with_a_bad_message_sends_nothing(bus: Bus) -> None:
    sub = await bus.subscribe("c")
    with pytest.raises(TypeError):
        await bus.publish_many([("c", {"n": 1}), ("c", {"bad": {1, 2}})])
    await bus.publish("c", {"n": 2})
    assert await sub.get(timeout=2) == {"n": 2}


@pytest.mark.redis
async def test_redis_publish_many_is_one_round_trip(redis_url: str) -> None:
    """Counted on the wire: a real relay in front of the real Redis sees the ten PUBLISHes
    leave in one request/reply exchange (and three single publishes in three)."""
    prefix = f"test:{uuid.uuid4().hex}:"
    bus, proxy = await _counted(redis_url, prefix)
    listener = RedisBus(redis_url, prefix=prefix)
    try:
        subs = [await listener.subscribe(f"seat:{i}") for i in range(5)]
        await bus.publish("warm-up", {})  # connect (handshake round trips) first
        before = proxy.round_trips
        counts = await bus.publish_many(
            [(f"seat:{i % 5}", {"n": i, "pad": "x" * 200}) for i in range(10)]
        )
        assert proxy.round_trips - before == 1
        assert counts == [1] * 10
        for i in range(10):
            assert (await subs[i % 5].get(timeout=2))["n"] == i
        before = proxy.round_trips
        for i in range(3):
            await bus.publish("seat:0", {"n": i})
        assert proxy.round_trips - before == 3  # the relay does count separate trips
    finally:
        await bus.close()
        await listener.close()
        await proxy.close()


async def test_redis_publishes_wait_for_a_free_connection(redis_url: str) -> None:
    """More publishes in flight than the pool has connections: each waits for one (the
    default pool raised "Too many connections" there) and all arrive."""
    prefix = f"test:{uuid.uuid4().hex}:"
    bus = RedisBus(redis_url, prefix=prefix, pool_size=3)  # one is the subscriber's
    try:
        sub = await bus.subscribe("c")
        counts = await asyncio.gather(
            *(bus.publish_many([("c", {"n": i}), ("c", {"n": -i})]) for i in range(100))
        )
        assert counts == [[1, 1]] * 100
        got = [(await sub.get(timeout=2))["n"] for _ in range(200)]
        assert sorted(got) == sorted([*range(100), *(-i for i in range(100))])
    finally:
        await bus.close()


async def test_redis_bus_says_gap_after_the_connection_came_back(tmp_path: Path) -> None:
    """Redis restarted (empty) under a subscription: the subscription is not closed, it is
    subscribed again and first receives the gap marker, then what is published after."""
    server = RedisServer(tmp_path / "redis.log")
    server.start()
    bus = RedisBus(server.url, prefix="gap:")
    try:
        sub = await bus.subscribe("room:A")
        other = await bus.subscribe("room:B")
        await bus.publish("room:A", {"n": 1})
        assert await sub.get(timeout=2) == {"n": 1}
        server.stop()
        with pytest.raises(RedisConnectionError):  # lost: pub/sub keeps nothing
            await bus.publish("room:A", {"n": 2})
        server.start()
        assert await sub.get(timeout=10) == {"type": GAP}
        assert await other.get_text(timeout=10) == GAP_TEXT
        await bus.publish("room:A", {"n": 3})
        assert await sub.get(timeout=2) == {"n": 3}
        assert not sub.overflowed
    finally:
        await bus.close()
        server.stop()


# ---------------------------------------------------------------------- groups


def test_group_of_splits_at_the_first_bar() -> None:
    assert group_of("room:AB|seat:1") == ("room:AB", "seat:1")
    assert group_of("a|b|c") == ("a", "b|c")
    assert group_of("room:AB:cmd") is None


def test_frames_carry_any_text_unescaped() -> None:
    parts = [("seat:0", '{"a":"x y\\n|"}'), ("", "东风 \n 9 9"), ("spectator", "")]
    data = frame(parts)
    assert data == '6 14 0 8 9 0\nseat:0{"a":"x y\\n|"}东风 \n 9 9spectator'
    assert unframe(data) == parts
    signed = frame(parts, "@b1")  # the publishing bus's origin first
    assert signed == "@b1 " + data and unframe(signed) == parts
    for bad in ("no header", "1 2 3\nabc", "1 5\nab", "1 1\nabcd"):
        with pytest.raises(ValueError):
            unframe(bad)


async def test_group_members_each_get_only_their_own_in_order(bus: Bus) -> None:
    """Members of one group published together: each subscription gets exactly its
    channel's messages, in order; a member nobody subscribes to goes nowhere."""
    seat0 = await bus.subscribe("room:G|seat:0")
    seat0_too = await bus.subscribe("room:G|seat:0")
    seat1 = await bus.subscribe("room:G|seat:1")
    other_room = await bus.subscribe("room:H|seat:0")
    batch: list[tuple[str, Any]] = []
    for i in range(12):
        batch.append((f"room:G|seat:{i % 3}", {"n": i, "name": "东风|\n"}))
    counts = await bus.publish_many(batch)
    # memory: subscriptions of the channel; Redis: processes subscribed to the group
    assert counts == ([2, 1, 0] * 4 if isinstance(bus, MemoryBus) else [1] * 12)
    for sub in (seat0, seat0_too):
        assert [(await sub.get(timeout=2))["n"] for _ in range(4)] == [0, 3, 6, 9]
    assert [(await seat1.get(timeout=2))["n"] for _ in range(4)] == [1, 4, 7, 10]
    await bus.publish("room:G|seat:1", {"n": "alone"})
    assert await seat1.get(timeout=2) == {"n": "alone"}
    for sub in (seat0, seat0_too, seat1, other_room):
        with pytest.raises(TimeoutError):
            await sub.get(timeout=0.05)
    assert bus.subscriber_count("room:G|seat:0") == 2  # type: ignore[attr-defined]
    assert bus.subscriber_count("room:G|seat:1") == 1  # type: ignore[attr-defined]
    assert bus.subscriber_count("room:G|seat:2") == 0  # type: ignore[attr-defined]


async def test_group_and_plain_messages_in_one_call_keep_order(bus: Bus) -> None:
    plain = await bus.subscribe("room:G:cmd")
    seat = await bus.subscribe("room:G|seat:0")
    spectator = await bus.subscribe("room:G|spectator")
    text = '{"type":"event","version":5}'
    batch: list[tuple[str, Any]] = [
        ("room:G:cmd", {"n": 0}),
        ("room:G|seat:0", {"n": 1}),
        ("room:G:cmd", {"n": 2}),
        ("room:G|spectator", text),
        ("room:G|seat:0", {"n": 4}),
        ("room:G:cmd", {"n": 5}),
    ]
    assert await bus.publish_many(batch) == [1] * 6
    assert [(await plain.get(timeout=2))["n"] for _ in range(3)] == [0, 2, 5]
    assert [(await seat.get(timeout=2))["n"] for _ in range(2)] == [1, 4]
    assert await spectator.get_text(timeout=2) == text  # the very text


@pytest.mark.redis
async def test_redis_group_is_one_publish_in_one_round_trip(redis_url: str) -> None:
    """On the wire: the five audiences' messages and two plain ones leave in one round
    trip, the group's as ONE message on the group's Redis channel, framed in order."""
    prefix = f"test:{uuid.uuid4().hex}:"
    bus, proxy = await _counted(redis_url, prefix)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    watch = raw.pubsub()
    try:
        await watch.subscribe(prefix + "room:G|", prefix + "plain")
        for _ in range(2):
            assert (await watch.get_message(timeout=2))["type"] == "subscribe"
        await bus.publish("warm-up", {})  # connect (handshake round trips) first
        before = proxy.round_trips
        batch: list[tuple[str, Any]] = [(f"room:G|seat:{i}", {"n": i}) for i in range(4)]
        batch.insert(2, ("plain", {"n": "p"}))
        batch += [("room:G|spectator", {"n": "s"}), ("plain", {"n": "q"})]
        assert await bus.publish_many(batch) == [1] * 7
        assert proxy.round_trips - before == 1
        got: list[tuple[str, str]] = []
        while len(got) < 3:
            msg = await watch.get_message(timeout=2)
            if msg is not None and msg["type"] == "message":
                got.append((msg["channel"][len(prefix) :], msg["data"]))
        assert got == [
            (
                "room:G|",
                frame(
                    [
                        ("seat:0", '{"n":0}'),
                        ("seat:1", '{"n":1}'),
                        ("seat:2", '{"n":2}'),
                        ("seat:3", '{"n":3}'),
                        ("spectator", '{"n":"s"}'),
                    ],
                    f"{bus._origin}.1",  # (its first group message)
                ),
            ),
            ("plain", '{"n":"p"}'),
            ("plain", '{"n":"q"}'),
        ]
    finally:
        await watch.aclose()
        await raw.aclose()
        await bus.close()
        await proxy.close()


@pytest.mark.redis
async def test_redis_group_across_processes_delivers_only_local_members(
    redis_url: str,
) -> None:
    """Two buses (two processes) with different members of one group subscribed: each
    process hands each part only to its own subscriptions of that member; a grouped
    message's count is the processes on the group."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, two = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    try:
        seat0 = await one.subscribe("room:G|seat:0")
        seat1 = await two.subscribe("room:G|seat:1")
        spectator = await two.subscribe("room:G|spectator")
        counts = await one.publish_many(
            [("room:G|seat:0", {"n": 0}), ("room:G|seat:1", {"n": 1}), ("room:G|seat:2", {})]
            + [("room:G|spectator", {"n": "s"}), ("room:G|seat:0", {"n": 4})]
        )
        assert counts == [2] * 5
        assert [(await seat0.get(timeout=2))["n"] for _ in range(2)] == [0, 4]
        assert await seat1.get(timeout=2) == {"n": 1}
        assert await spectator.get(timeout=2) == {"n": "s"}
        assert await two.publish("room:G|seat:0", {"n": 5}) == 2
        assert await seat0.get(timeout=2) == {"n": 5}
        for sub in (seat0, seat1, spectator):
            with pytest.raises(TimeoutError):
                await sub.get(timeout=0.05)
        assert one.subscriber_count("room:G|seat:1") == 0
        assert two.subscriber_count("room:G|seat:1") == 1
    finally:
        await one.close()
        await two.close()


@pytest.mark.redis
async def test_redis_group_is_subscribed_while_any_member_is(redis_url: str) -> None:
    """The group's Redis channel is SUBSCRIBEd once per process, and UNSUBSCRIBEd when the
    process's last subscription of any of its members closes."""
    prefix = f"test:{uuid.uuid4().hex}:"
    bus = RedisBus(redis_url, prefix=prefix)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)

    async def on_redis() -> int:
        """Connections subscribed to the group's Redis channel, once Redis agrees."""
        for _ in range(200):
            ((_, n),) = await raw.pubsub_numsub(prefix + "room:G|")
            if n == want:
                break
            await asyncio.sleep(0.01)
        return int(n)

    try:
        a = await bus.subscribe("room:G|seat:0")
        b = await bus.subscribe("room:G|seat:1")
        b_too = await bus.subscribe("room:G|seat:1")
        want = 1
        assert await on_redis() == 1
        await a.close()
        await b.close()
        assert await on_redis() == 1  # b_too still listens
        assert await bus.publish("room:G|seat:1", {"n": 1}) == 1
        assert await b_too.get(timeout=2) == {"n": 1}
        await b_too.close()
        want = 0
        assert await on_redis() == 0
        assert bus._subs == {} and bus._groups == set()
        assert await bus.publish("room:G|seat:1", {"n": 2}) == 0
        again = await bus.subscribe("room:G|spectator")
        want = 1
        assert await on_redis() == 1
        await bus.publish("room:G|spectator", {"n": 3})
        assert await again.get(timeout=2) == {"n": 3}
    finally:
        await raw.aclose()
        await bus.close()


@pytest.mark.redis
async def test_redis_group_drops_malformed_and_overflows_per_subscription(
    redis_url: str,
) -> None:
    """A message on a group's channel that is not a frame is dropped (logged); a lagging
    member subscription overflows and closes alone, the others carry on."""
    prefix = f"test:{uuid.uuid4().hex}:"
    bus = RedisBus(redis_url, prefix=prefix, maxsize=3)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        slow = await bus.subscribe("g|slow")
        fast = await bus.subscribe("g|fast")
        assert await raw.publish(prefix + "g|", "garbage") == 1
        for i in range(4):
            await bus.publish_many([("g|slow", {"n": i}), ("g|fast", {"n": i})])
            assert await fast.get(timeout=2) == {"n": i}
        assert slow.overflowed
        assert [(await slow.get())["n"] for _ in range(3)] == [0, 1, 2]
        with pytest.raises(SubscriptionClosed):
            await slow.get()
        await asyncio.sleep(0.05)
        assert bus.subscriber_count("g|slow") == 0
        await bus.publish_many([("g|slow", {"n": 9}), ("g|fast", {"n": 9})])
        assert await fast.get(timeout=2) == {"n": 9}
    finally:
        await raw.aclose()
        await bus.close()


async def test_redis_group_says_gap_after_the_connection_came_back(tmp_path: Path) -> None:
    """Redis restarted under subscriptions of two members of one group (and a plain
    channel): each of them gets the gap marker once the group is subscribed again, then
    what is published after."""
    server = RedisServer(tmp_path / "redis.log")
    server.start()
    bus = RedisBus(server.url, prefix="gap:")
    try:
        seat0 = await bus.subscribe("room:G|seat:0")
        seat1 = await bus.subscribe("room:G|seat:1")
        plain = await bus.subscribe("room:G:cmd")
        await bus.publish_many([("room:G|seat:0", {"n": 1}), ("room:G|seat:1", {"n": 1})])
        assert await seat0.get(timeout=2) == {"n": 1}
        assert await seat1.get(timeout=2) == {"n": 1}
        server.stop()
        with pytest.raises(RedisConnectionError):
            await bus.publish("room:G|seat:0", {"n": 2})
        server.start()
        for sub in (seat0, seat1, plain):
            assert await sub.get_text(timeout=10) == GAP_TEXT
        await bus.publish_many([("room:G|seat:1", {"n": 3}), ("room:G|seat:0", {"n": 3})])
        assert await seat0.get(timeout=2) == {"n": 3}
        assert await seat1.get(timeout=2) == {"n": 3}
        for sub in (seat0, seat1, plain):
            with pytest.raises(TimeoutError):
                await sub.get(timeout=0.05)
    finally:
        await bus.close()
        server.stop()


# ---------------------------------------------------------------------- batching


@pytest.mark.redis
async def test_redis_concurrent_publishes_share_one_round_trip(redis_url: str) -> None:
    """Publishes made while none is sent yet (ten rooms in one loop turn) go out in one
    pipeline: one round trip on the wire, each caller getting its own counts, every
    channel's order kept."""
    prefix = f"test:{uuid.uuid4().hex}:"
    bus, proxy = await _counted(redis_url, prefix)
    listener = RedisBus(redis_url, prefix=prefix)
    try:
        subs = [await listener.subscribe(f"room:{r}|seat:0") for r in range(10)]
        plain = await listener.subscribe("plain")
        await bus.publish("warm-up", {})  # connect (handshake round trips) first
        before = proxy.round_trips
        counts = await asyncio.gather(
            *(
                bus.publish_many(
                    [(f"room:{r}|seat:0", {"n": 0}), ("plain", {"r": r})]
                    + [(f"room:{r}|seat:1", {"n": 1}), (f"room:{r}|seat:0", {"n": 2})]
                )
                for r in range(10)
            ),
            bus.publish("nobody", {}),
        )
        assert proxy.round_trips - before == 1
        assert counts == [[1, 1, 1, 1]] * 10 + [0]
        for sub in subs:
            assert [(await sub.get(timeout=2))["n"] for _ in range(2)] == [0, 2]
        assert [(await plain.get(timeout=2))["r"] for _ in range(10)] == list(range(10))
    finally:
        await bus.close()
        await listener.close()
        await proxy.close()


async def test_redis_a_failed_batch_fails_each_of_its_callers(tmp_path: Path) -> None:
    """Redis is away: every publish of the batch raises the connection error (transient:
    each caller retries its own); a publish still queued when the bus closes raises
    BusError."""
    server = RedisServer(tmp_path / "redis.log")
    server.start()
    bus = RedisBus(server.url, prefix="fail:")
    try:
        await bus.publish("c", {})
        sub = await bus.subscribe("g|b")
        server.stop()
        results = await asyncio.gather(
            *(bus.publish_many([("g|a", {"n": i}), ("c", {})]) for i in range(5)),
            return_exceptions=True,
        )
        assert [type(r) for r in results] == [RedisConnectionError] * 5
        assert all(transient(r) for r in results if isinstance(r, BaseException))
        # a local call in the failed batch (behind a publish of its group) is delivered
        # anyway, even though its caller gave up waiting
        shared = asyncio.create_task(bus.publish_many([("g|b", {"n": "shared"})]))
        local = asyncio.create_task(bus.publish_many([("g|b", {"n": "local"})], local=True))
        await asyncio.sleep(0)  # both queued: one batch
        local.cancel()
        with pytest.raises(RedisConnectionError):
            await shared
        assert await sub.get(timeout=2) == {"n": "local"}
        pending = asyncio.create_task(bus.publish("c", {"n": 1}))
        await asyncio.sleep(0)  # queued, not sent yet
        await bus.close()
        with pytest.raises(BusError):
            await pending
    finally:
        await bus.close()
        server.stop()


@pytest.mark.redis
async def test_redis_own_group_messages_arrive_once_and_are_not_read_back(
    redis_url: str,
) -> None:
    """A process's group messages reach its own subscriptions when Redis has taken them,
    exactly once: the copy Redis sends back carries the bus's origin and is skipped (never
    unframed), while another process's are delivered."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, two = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    unframed: list[str] = []
    deliver = RedisBus._deliver_group

    def spy(key: str, local: Any, data: str) -> None:
        unframed.append(data)
        deliver(key, local, data)

    one._deliver_group = spy  # type: ignore[method-assign]
    try:
        mine = await one.subscribe("room:G|seat:0")
        theirs = await two.subscribe("room:G|seat:0")
        assert await one.publish_many([("room:G|seat:0", {"n": i}) for i in range(3)]) == [2] * 3
        assert [(await mine.get(timeout=2))["n"] for _ in range(3)] == [0, 1, 2]
        assert [(await theirs.get(timeout=2))["n"] for _ in range(3)] == [0, 1, 2]
        await two.publish("room:G|seat:0", {"n": "two"})
        assert await mine.get(timeout=2) == {"n": "two"}
        await asyncio.sleep(0.1)  # the read-back of one's own message has surely come
        with pytest.raises(TimeoutError):
            await mine.get(timeout=0.05)
        assert len(unframed) == 1 and unframed[0].startswith(two._origin + ".")
    finally:
        await one.close()
        await two.close()


@pytest.mark.redis
async def test_redis_local_publish_skips_redis_and_others(redis_url: str) -> None:
    """``local=True``: no round trip to Redis; this process's subscriptions get the
    messages (in order after what was queued before), another process's get nothing."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, proxy = await _counted(redis_url, prefix)
    two = RedisBus(redis_url, prefix=prefix)
    try:
        mine = await one.subscribe("room:G|seat:1")
        plain = await one.subscribe("plain")
        theirs = await two.subscribe("room:G|seat:1")
        await one.publish("warm-up", {})
        before = proxy.round_trips
        batch: list[tuple[str, Any]] = [("room:G|seat:1", {"n": 1}), ("room:G|seat:0", {})]
        assert await one.publish_many(batch + [("plain", {"n": "p"})], local=True) == [1, 0, 1]
        assert proxy.round_trips == before
        assert await mine.get(timeout=2) == {"n": 1} and await plain.get(timeout=2) == {"n": "p"}
        # queued behind a publish in flight, a local one still comes after it
        shared = asyncio.create_task(one.publish_many([("room:G|seat:1", {"n": 2})]))
        await asyncio.sleep(0)
        assert await one.publish_many([("room:G|seat:1", {"n": 3})], local=True) == [1]
        assert await shared == [2]
        assert [(await mine.get(timeout=2))["n"] for _ in range(2)] == [2, 3]
        assert await theirs.get(timeout=2) == {"n": 2}
        with pytest.raises(TimeoutError):
            await theirs.get(timeout=0.1)
    finally:
        await one.close()
        await two.close()
        await proxy.close()


@pytest.mark.redis
async def test_redis_local_publish_does_not_wait_behind_other_groups(redis_url: str) -> None:
    """A ``local=True`` publish on a group with nothing queued is delivered at once, even
    while another group's publish waits on Redis (one room's messages never wait for the
    round trip of another room's); on its own group it still waits (order per group)."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, proxy = await _counted(redis_url, prefix)
    try:
        a = await one.subscribe("room:A|seat:0")
        b = await one.subscribe("room:B|seat:0")
        await one.publish("warm-up", {})
        other = asyncio.create_task(one.publish_many([("room:B|seat:0", {"n": 1})]))
        await asyncio.sleep(0)  # its PUBLISH is on its way
        assert not other.done()
        assert await one.publish_many([("room:A|seat:0", {"n": 2})], local=True) == [1]
        assert not other.done()  # A's came first: it did not wait for B's round trip
        assert await a.get(timeout=0.01) == {"n": 2}
        same = asyncio.create_task(one.publish_many([("room:A|seat:0", {"n": 3})]))
        await asyncio.sleep(0)
        local = asyncio.create_task(one.publish_many([("room:A|seat:0", {"n": 4})], local=True))
        await asyncio.sleep(0)
        assert not local.done()  # behind A's publish in flight
        assert await same == [1] and await local == [1] and await other == [1]
        assert [(await a.get(timeout=2))["n"] for _ in range(2)] == [3, 4]
        assert await b.get(timeout=2) == {"n": 1}
        assert one._pending == {}
    finally:
        await one.close()
        await proxy.close()


async def _settled_others(bus: RedisBus, channel: str) -> bool:
    """`others` once the echo of the bus's last group message had time to come back."""
    for _ in range(200):
        if not bus._echoes:
            break
        await asyncio.sleep(0.01)
    return bus.others(channel)


@pytest.mark.redis
async def test_redis_others_says_whether_another_process_subscribed(redis_url: str) -> None:
    """`others`: True before the group's first PUBLISH and for plain channels; then what
    Redis counted at the last PUBLISH, less this process once Redis sent it back."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, two = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    try:
        assert one.others("room:G|seat:0") and one.others("plain")
        await one.publish("room:G|seat:0", {})  # nobody at all
        assert not one.others("room:G|seat:0") and not one.others("room:G|spectator")
        assert one.others("room:H|seat:0")  # another group: not known yet
        mine = await one.subscribe("room:G|seat:0")
        await one.publish("room:G|seat:0", {})  # only this process
        assert not await _settled_others(one, "room:G|seat:0")
        theirs = await two.subscribe("room:G|spectator")
        assert not one.others("room:G|seat:0")  # not known before the next publish...
        await one.publish("room:G|seat:0", {})
        assert await _settled_others(one, "room:G|seat:0")  # ...which Redis counted it in
        await theirs.close()
        await mine.close()
        for _ in range(200):  # (until Redis has taken two's UNSUBSCRIBE)
            await one.publish("room:G|seat:0", {})
            if not one.others("room:G|seat:0"):
                break
            await asyncio.sleep(0.01)
        assert not one.others("room:G|seat:0")
    finally:
        await one.close()
        await two.close()


@pytest.mark.redis
async def test_redis_others_never_takes_off_a_subscription_redis_dropped(
    redis_url: str,
) -> None:
    """This process's subscription is taken off Redis's count only when Redis sends the
    message back: a subscription Redis no longer has (dropped before the bus noticed; here
    unsubscribed behind its back) leaves the other process counted, so the group stays
    shared (taking one off would say nobody else listens, and a room would stop sending
    that process anything)."""
    prefix = f"test:{uuid.uuid4().hex}:"
    one, two = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    try:
        await one.subscribe("room:G|seat:0")
        theirs = await two.subscribe("room:G|seat:1")
        await one.publish("room:G|seat:1", {"n": 1})
        assert await _settled_others(one, "room:G|seat:1")
        await one._pubsub.unsubscribe(prefix + "room:G|")  # (the bus still counts on it)
        await asyncio.sleep(0.2)
        assert await one.publish("room:G|seat:1", {"n": 2}) == 1  # two only
        await asyncio.sleep(0.2)
        assert one.others("room:G|seat:1")
        assert [(await theirs.get(timeout=2))["n"] for _ in range(2)] == [1, 2]
    finally:
        await one.close()
        await two.close()


async def test_memory_bus_has_no_other_process(bus: Bus) -> None:
    assert bus.others("room:G|seat:0") is (not isinstance(bus, MemoryBus))
