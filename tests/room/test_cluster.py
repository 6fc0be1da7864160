"""Leases and forwarded calls on a real Redis (``TEST_REDIS_URL``), and gap detection.

Each test uses its own key/channel prefix, so runs sharing one Redis do not meet.
"""

from __future__ import annotations

import asyncio
import contextlib
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


@contextlib.asynccontextmanager
async def _two_processes(
    store_a: Any, store_b: Any, redis_url: str, **cluster: Any
) -> AsyncIterator[tuple[Any, Any]]:
    """Two started room managers ("processes" A and B, on ``store_a`` / ``store_b``), each on
    its own Redis bus and cluster member (lease ``LEASE``; ``cluster``: more arguments),
    with game timers that never fire; closed afterwards."""
    from server.room.actor import Timing
    from server.room.manager import RoomManager

    timing = Timing(claim_seconds=300, turn_seconds=300, claim_min_ms=0, ready_seconds=300)
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    buses = [RedisBus(redis_url, prefix=prefix) for _ in range(2)]
    members = [Cluster(redis_url, b, lease_seconds=LEASE, prefix=prefix, **cluster) for b in buses]
    a = RoomManager(store_a, buses[0], timing=timing, cluster=members[0])
    b = RoomManager(store_b, buses[1], timing=timing, cluster=members[1])
    await a.start()
    await b.start()
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()
        for bus in buses:
            await bus.close()


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


async def test_renewals_of_all_leases_are_one_call(redis_url: str) -> None:
    """A process's leases are renewed together: 40 leases, one round trip (counted on the
    wire by a real relay in front of the real Redis), every key's time to live restored;
    the renewal task keeps them all well past one time to live."""
    from sqlalchemy.engine import make_url

    from tests.redis_proxy import CountingProxy

    url = make_url(redis_url)
    proxy = CountingProxy((url.host or "127.0.0.1", url.port or 6379))
    port = await proxy.start()
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    bus = RedisBus(redis_url, prefix=prefix)
    member = Cluster(
        f"redis://127.0.0.1:{port}/{url.database or 0}", bus, lease_seconds=LEASE, prefix=prefix
    )
    try:

        async def nothing() -> None:
            return None

        leases = [member.lease(f"B{i}", nothing) for i in range(40)]
        for lease in leases:
            assert await lease.acquire()
        assert set(member.leases) == {f"B{i}" for i in range(40)}
        await asyncio.sleep(LEASE / 2)
        before = proxy.round_trips
        await member.renew_all()
        assert proxy.round_trips - before == 1
        ttls = [await member.redis.pttl(lease.key) for lease in leases]
        assert all(LEASE * 1000 * 0.8 < t <= LEASE * 1000 for t in ttls), ttls
        started = time.monotonic()
        while time.monotonic() - started < 2.5 * LEASE:
            owners = await member.owners([f"B{i}" for i in range(40)])
            assert set(owners.values()) == {member.process_id}
            await asyncio.sleep(0.1)
        assert member.lost_leases == 0
        assert all(lease.held for lease in leases)
        await leases[0].release()
        assert "B0" not in member.leases
        assert await member.redis.get(leases[0].key) is None
    finally:
        await member.close()
        await bus.close()
        await proxy.close()


async def test_a_stalled_loop_past_the_margin_checks_redis(redis_url: str) -> None:
    """A CPU hog in the loop: late by more than the margin but less than the time to live,
    the lease is no longer trusted locally, one check in Redis proves it; late by more than
    the time to live and taken by another process meanwhile, the check fails and the
    lease is reported lost (once), with the lag measured."""
    lease_seconds = 3.0
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    buses = [RedisBus(redis_url, prefix=prefix) for _ in range(2)]
    one, two = (Cluster(redis_url, b, lease_seconds=lease_seconds, prefix=prefix) for b in buses)
    lost: list[str] = []

    async def on_lost() -> None:
        lost.append("lost")

    try:
        lease = one.lease("S1", on_lost)
        assert await lease.acquire()
        await one.renew_all()
        time.sleep(lease_seconds - one.margin + 0.2)  # noqa: ASYNC251 - the hog
        assert not lease.held  # renewals are late beyond the margin: not trusted
        assert await lease.ensure()  # but still ours in Redis: renewed
        assert lease.held and lost == []
        time.sleep(lease_seconds + 0.3)  # noqa: ASYNC251 - a hog beyond the time to live
        assert await two.lease("S1", on_lost).acquire()  # the other process took it
        assert not await lease.ensure()
        assert not await lease.ensure()  # reported once
        await _until(lambda: lost == ["lost"])
        assert one.lost_leases == 1 and "S1" not in one.leases
        await _until(lambda: one.max_lag > lease_seconds / 3)  # the renewer saw the stall
    finally:
        for m in (one, two):
            await m.close()
        for b in buses:
            await b.close()


async def test_a_stale_owner_is_fenced_and_an_answer_in_flight_survives(
    store: Any, redis_url: str
) -> None:
    """Process A lost its lease without noticing yet (stalled), B took the room over. A's
    next write is refused by the store (its lease generation is stale), A stops running
    the room at its next renewal, and the answer A's player had in flight, carrying A's
    prompt number, is accepted by B: the log holds A's actions, then B's, never mixed."""
    from server.room.bots import choose_action
    from server.rules.guiyang import acting_seats
    from server.store import Store

    store_b = Store(store.url)
    try:
        async with _two_processes(store, store_b, redis_url) as (a, b):
            a.new_seed = b.new_seed = lambda: "fence-seed"
            clusters = [a.cluster, b.cluster]
            actor_a = await a.create_room({"hands": 4})
            code = actor_a.code
            for name in ("ann", "bob", "cy", "dee"):
                await a.join(code, name)
            for _ in range(3):  # a few actions by A
                seat = min(acting_seats(actor_a.state))
                snap = await actor_a.snapshot(seat)
                await actor_a.act(seat, choose_action(actor_a.state, seat), snap["prompt"])
                await actor_a.idle()
            logged = len(await store.hand_actions(code, 1))
            seat = min(acting_seats(actor_a.state))
            snap = await actor_a.snapshot(seat)
            prompt, version = snap["prompt"], snap["version"]
            action = choose_action(actor_a.state, seat)

            # A stalls past its lease: the key lapses, B takes the room over
            await clusters[0].redis.delete(clusters[0].lease_key(code))
            actor_b = await b.get(code)
            assert actor_b is b.rooms[code] and actor_b.lease_gen == actor_a.lease_gen + 1
            assert actor_b._snapshot(seat)["prompt"] == prompt
            assert actor_b.version == version

            # A does not know yet (its lease looks valid locally): its write is refused
            assert actor_a.lease_check is not None and await actor_a.lease_check()
            with pytest.raises(RoomError) as refused:
                await actor_a.act(seat, action, prompt)
            assert refused.value.code == "unavailable"  # the store refused, A then checked
            assert len(await store.hand_actions(code, 1)) == logged
            assert actor_a.version == version  # nothing applied, nothing published
            await _until(lambda: code not in a.rooms and not actor_a.running)

            # the answer in flight (A's prompt number) reaches B through A's forwarding
            await a.call(code, "act", {"seat": seat, "action": action, "prompt": prompt})
            actions = await store.hand_actions(code, 1)
            assert len(actions) == logged + 1
            gens = [payload["lease"] for _, payload in actions]
            assert gens == [actor_a.lease_gen] * logged + [actor_b.lease_gen]
            assert actor_b.version > version
    finally:
        await store_b.close()


async def _drop_subscribers(url: str) -> None:
    """Redis at ``url`` closes every subscriber's connection (``CLIENT KILL TYPE pubsub``;
    only on a redis-server of the test's own): the buses reconnect and report a gap."""
    import redis.asyncio as aioredis

    admin = aioredis.from_url(url)
    try:
        await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
    finally:
        await admin.aclose()


async def _answer_held_by_the_owners_database(
    a: Any, b: Any, flaky: Any, store: Any
) -> tuple[str, int, int, int, asyncio.Event, asyncio.Future[Any]]:
    """A room run by ``a`` (whose store is ``flaky``) with four players, whose acting seat's
    bot answer is forwarded from ``b`` while ``a``'s database holds every ``append_action``
    until the returned gate opens. Returns (code, seat, actions logged before, the room's
    version before, gate, the forwarded call)."""
    from server.room.bots import choose_action
    from server.rules.guiyang import acting_seats

    actor = await a.create_room({"hands": 4})
    code = actor.code
    for name in ("ann", "bob", "cy", "dee"):
        await a.join(code, name)
    await actor.idle()
    seat = min(acting_seats(actor.state))
    snap = await actor.snapshot(seat)
    action = choose_action(actor.state, seat)
    logged = len(await store.hand_actions(code, 1))
    gate = asyncio.Event()
    flaky.fail("append_action", 0)
    flaky.faults["append_action"].gate = gate
    kwargs = {"seat": seat, "action": action, "prompt": snap["prompt"]}
    answer = asyncio.ensure_future(b.call(code, "act", kwargs))
    return code, seat, logged, snap["version"], gate, answer


async def test_a_forwarded_answer_waits_for_the_owners_database(store: Any, redis_url: str) -> None:
    """The owner's database does not answer for four times the cluster's call timeout
    while a player on another process answers: the forwarded answer is not sent again (the
    copy would be refused as a stale prompt once the first is applied) nor given up as
    ``unavailable``; it returns once the owner logged and applied it, once."""
    from test_store_outage import FlakyStore

    call_timeout = 0.4
    flaky = FlakyStore(store)
    async with _two_processes(flaky, store, redis_url, call_timeout=call_timeout) as (a, b):
        code, seat, logged, version, gate, answer = await _answer_held_by_the_owners_database(
            a, b, flaky, store
        )
        await asyncio.sleep(4 * call_timeout)
        assert not answer.done()
        assert code in a.rooms and code not in b.rooms  # the owner kept its lease
        gate.set()
        await asyncio.wait_for(answer, 10)  # no stale_prompt, no unavailable
        actions = await store.hand_actions(code, 1)
        assert len(actions) == logged + 1 and actions[logged][0] == seat
        assert a.rooms[code].version > version


async def test_a_call_waiting_when_the_bus_reconnects_is_sent_again(tmp_path: Any) -> None:
    """Redis drops every subscriber's connection (``CLIENT KILL TYPE pubsub`` on a
    redis-server of the test's own) while a call waits for its owner: a reply published
    before the caller's bus subscribed again would reach nobody, so the waiting call
    raises `ReplyLost` (a ``TimeoutError``: the room manager sends it again) instead of
    waiting for it as long as the owner holds the lease (a player's socket that never
    heard back)."""
    from server.room.cluster import ReplyLost
    from tests.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis.log")
    server.start()
    buses = [RedisBus(server.url) for _ in range(2)]
    owner, caller = (Cluster(server.url, bus, lease_seconds=LEASE) for bus in buses)
    release = asyncio.Event()

    async def handler(call: str, kwargs: dict[str, Any]) -> Any:
        await release.wait()
        return "done"

    try:
        for member in (owner, caller):
            await member.start()
        await owner.serve("R9", handler)
        waiting = asyncio.ensure_future(caller.request("R9", "act", {}, timeout=None))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await _drop_subscribers(server.url)
        with pytest.raises(ReplyLost):
            await asyncio.wait_for(waiting, 10)
        release.set()
        assert await asyncio.wait_for(caller.request("R9", "act", {}), 10) == "done"
    finally:
        for member in (owner, caller):
            await member.close()
        for bus in buses:
            await bus.close()
        server.stop()


async def test_a_forwarded_answer_sent_again_after_a_lost_reply_is_taken_once(
    store: Any, tmp_path: Any
) -> None:
    """A forwarded answer waits for the owner's database when Redis drops every
    subscriber's connection; the owner then takes it at once and replies while the
    caller's bus may still be away (it reconnects 0.5 s after a drop), so that reply can
    reach nobody. The caller sends the answer again, marked ``again``, and the owner takes
    the copy as done: the call returns (no ``stale_prompt``, no ``unavailable``) and the
    log holds the answer once."""
    from test_store_outage import FlakyStore

    from tests.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis.log")
    server.start()
    flaky = FlakyStore(store)
    try:
        async with _two_processes(flaky, store, server.url) as (a, b):
            code, seat, logged, _, gate, answer = await _answer_held_by_the_owners_database(
                a, b, flaky, store
            )
            await asyncio.sleep(0.5)  # the owner waits for its database
            assert not answer.done()
            await _drop_subscribers(server.url)
            gate.set()
            await asyncio.wait_for(answer, 10)
            actions = await store.hand_actions(code, 1)
            assert len(actions) == logged + 1 and actions[logged][0] == seat
            assert code in a.rooms and code not in b.rooms  # the owner kept its lease
    finally:
        server.stop()


async def test_a_lapsed_lease_nobody_took_is_taken_back(store: Any, redis_url: str) -> None:
    """A lease that lapsed during a stall without anyone taking it: the owner stops the
    room, then takes it back from the store under a new generation, at the same version
    and prompt number, and the room plays on."""
    from server.room.actor import Timing
    from server.room.bots import choose_action
    from server.room.manager import RoomManager
    from server.rules.guiyang import acting_seats

    timing = Timing(claim_seconds=300, turn_seconds=300, claim_min_ms=0, ready_seconds=300)
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    bus = RedisBus(redis_url, prefix=prefix)
    cluster = Cluster(redis_url, bus, lease_seconds=LEASE, prefix=prefix)
    manager = RoomManager(store, bus, timing=timing, cluster=cluster)
    manager.new_seed = lambda: "lapse-seed"
    await manager.start()
    try:
        old = await manager.create_room({"hands": 4})
        code = old.code
        for name in ("ann", "bob", "cy", "dee"):
            await manager.join(code, name)
        await old.idle()
        snap = old._snapshot(0)
        await cluster.redis.delete(cluster.lease_key(code))  # lapsed while stalled
        await _until(lambda: manager.rooms.get(code) not in (None, old), timeout=20)
        new = manager.rooms[code]
        await new.wait_started()
        assert not old.running and new.running
        assert new.lease_gen is not None and old.lease_gen is not None
        assert new.lease_gen > old.lease_gen  # (more than one more if a loaded loop lost it again)
        again = new._snapshot(0)
        assert (again["version"], again["prompt"], again["view"]) == (
            snap["version"],
            snap["prompt"],
            snap["view"],
        )
        seat = min(acting_seats(new.state))
        await new.act(seat, choose_action(new.state, seat), new._snapshot(seat)["prompt"])
        gens = [p["lease"] for _, p in await store.hand_actions(code, 1)]
        assert gens[-1] == new.lease_gen
    finally:
        await manager.close()
        await bus.close()


@pytest.mark.parametrize(
    ("msg", "last", "missed"),
    [
        ({"type": "event", "hand_no": 1, "version": 5, "prev_version": 4}, (1, 4, True), False),
        # after a snapshot prev_version may be lower (private events count in its version)
        ({"type": "event", "hand_no": 1, "version": 6, "prev_version": 4}, (1, 5, False), False),
        # ... but after an event the next one must follow it exactly
        ({"type": "event", "hand_no": 1, "version": 6, "prev_version": 4}, (1, 5, True), True),
        ({"type": "event", "hand_no": 1, "version": 7, "prev_version": 6}, (1, 4, False), True),
        ({"type": "hand_end", "hand_no": 1, "version": 9, "prev_version": 8}, (1, 7, True), True),
        # no usable prev_version (e.g. the room was just rebuilt): resync
        ({"type": "event", "hand_no": 1, "version": 7, "prev_version": None}, (1, 2, True), True),
        ({"type": "event", "hand_no": 1, "version": 3, "prev_version": None}, (1, 2, False), True),
        ({"type": "event", "hand_no": 1, "version": 3}, (1, 2, False), True),
        # already covered by what was sent: not a gap (the relay drops it)
        ({"type": "event", "hand_no": 1, "version": 5, "prev_version": 4}, (1, 5, True), False),
        ({"type": "event", "hand_no": 2, "version": 1, "prev_version": 0}, (1, 30, True), True),
        ({"type": "event", "hand_no": 1, "version": 3, "prev_version": 2}, None, False),
        ({"type": "room", "room": {}}, (1, 2, True), False),
    ],
)
def test_missed_message_detection(
    msg: dict[str, Any], last: tuple[int, int, bool] | None, missed: bool
) -> None:
    assert _missed(msg, last) is missed


async def test_an_unloaded_room_frees_its_lease_for_any_process(store: Any, redis_url: str) -> None:
    """Process A unloads an idle open room (issue 16): it releases the room's lease and stops
    answering for it; process B then rebuilds it from the store, takes the lease and the
    room goes on there (a join fills it and deals)."""
    from server.room.actor import Timing
    from server.room.clock import ManualClock
    from server.room.manager import RoomManager
    from server.store import Store

    timing = Timing(claim_seconds=300, turn_seconds=300, claim_min_ms=0, ready_seconds=300)
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    buses = [RedisBus(redis_url, prefix=prefix) for _ in range(2)]
    clusters = [Cluster(redis_url, bus, lease_seconds=LEASE, prefix=prefix) for bus in buses]
    clock = ManualClock()
    store_b = Store(store.url)
    a = RoomManager(store, buses[0], clock, timing, cluster=clusters[0], idle_seconds=60)
    b = RoomManager(store_b, buses[1], clock, timing, cluster=clusters[1], idle_seconds=60)
    await a.start()
    await b.start()
    try:
        actor = await a.create_room({"hands": 4})
        code = actor.code
        await a.join(code, "ann")
        # a join asked through B (forwarded to A, the owner) keeps the seat it wants
        assert (await b.join(code, "cy", seat=2))[0] == 2
        assert (await a.join(code, "bob"))[0] == 1
        assert (await clusters[0].owners([code]))[code] == clusters[0].process_id
        clock.advance(60)
        assert await a.unload_idle() == [code]
        assert code not in a.rooms and code not in a._leases
        assert (await clusters[1].owners([code]))[code] is None
        seat, _ = await b.join(code, "dee")  # B rebuilds it, takes the lease, fills it
        assert seat == 3 and code in b.rooms and b.rooms[code].status == "playing"
        assert (await clusters[1].owners([code]))[code] == clusters[1].process_id
        assert [s.name for s in b.rooms[code].seats] == ["ann", "bob", "cy", "dee"]
        assert (await a.info(code))["status"] == "playing"  # asked through A: a handle
        assert code in a._handles
        assert await a.unload_idle() == [] and code not in a._handles  # no socket on A
    finally:
        await a.close()
        await b.close()
        await store_b.close()
        for bus in buses:
            await bus.close()


async def test_a_closing_manager_releases_its_rooms_and_another_takes_them_at_once(
    store: Any, redis_url: str
) -> None:
    """``RoomManager.close`` stops renewing, stops the actor, releases the lease and
    announces it: the other process takes the room at once (its lease time is 30 s, so a
    lapse would take far longer), at the version and prompt the closed owner had reached,
    and nothing is written under the old lease after the close began."""
    from server.room.actor import Timing
    from server.room.manager import RoomManager
    from server.store import Store

    timing = Timing(claim_seconds=300, turn_seconds=300, claim_min_ms=0, ready_seconds=300)
    prefix = f"zjtest:{secrets.token_hex(4)}:"
    buses = [RedisBus(redis_url, prefix=prefix) for _ in range(2)]
    clusters = [Cluster(redis_url, b, lease_seconds=30, prefix=prefix) for b in buses]
    store_b = Store(store.url)
    a = RoomManager(store, buses[0], timing=timing, cluster=clusters[0])
    b = RoomManager(store_b, buses[1], timing=timing, cluster=clusters[1])
    a.new_seed = b.new_seed = lambda: "close-seed"
    await a.start()
    await b.start()
    try:
        actor_a = await a.create_room({"hands": 4})
        code = actor_a.code
        for name in ("ann", "bob", "cy", "dee"):
            await a.join(code, name)
        snap = await actor_a.snapshot(0)
        logged = len(await store.hand_actions(code, 1))
        key = clusters[0].lease_key(code)
        assert await clusters[1].redis.get(key) == clusters[0].process_id

        started = time.monotonic()
        await a.close(timeout=2.0)
        assert time.monotonic() - started < 2.5
        assert clusters[0].stopping and clusters[0].leases == {}
        assert not actor_a.running and a.rooms == {}
        await _until(lambda: code in b.rooms, timeout=2.0)  # announced: no lapse needed
        assert await clusters[1].redis.get(key) == clusters[1].process_id
        actor_b = b.rooms[code]
        await actor_b.wait_started()
        again = await actor_b.snapshot(0)
        assert (again["version"], again["prompt"], again["view"]) == (
            snap["version"],
            snap["prompt"],
            snap["view"],
        )
        assert len(await store.hand_actions(code, 1)) == logged
        with pytest.raises(RoomError) as late:  # the stopped actor takes no command
            await actor_a.mark_ready(0)
        assert late.value.code == "unavailable"
    finally:
        await a.close()
        await b.close()
        await store_b.close()
        for bus in buses:
            await bus.close()


async def test_a_room_heard_only_here_stays_off_redis_until_another_process_asks(
    store: Any, redis_url: str
) -> None:
    """The owner's first publish goes through Redis; Redis counting no other process on the
    room, the next ones reach the owner's sockets directly (``Publisher.local``), and a
    subscription elsewhere gets nothing. Once that process asks the room for a snapshot (as
    a socket does right after subscribing), messages go through Redis again and reach it,
    each following the one before (``prev_version``) from that snapshot on."""
    from server.room.bots import choose_action
    from server.room.publisher import seat_channel
    from server.rules.guiyang import acting_seats
    from server.store import Store

    async def step(actor: Any) -> None:
        seat = min(acting_seats(actor.state))
        snap = actor._snapshot(seat)
        await actor.act(seat, choose_action(actor.state, seat), snap["prompt"])
        await actor.idle()

    store_b = Store(store.url)
    try:
        async with _two_processes(store, store_b, redis_url) as (a, b):
            a.new_seed = lambda: "local-seed"
            actor = await a.create_room({"hands": 4})
            code = actor.code
            here = await a.bus.subscribe(seat_channel(code, 0))
            for name in ("ann", "bob", "cy", "dee"):
                await a.join(code, name)
            await actor.idle()
            # the deal went through Redis, which counted this process alone (once it sent the
            # message back)
            await _until(actor.publisher.local)
            elsewhere = await b.bus.subscribe(seat_channel(code, 1))
            while actor.state is not None and actor.version < 3:
                await step(actor)
            assert actor.publisher.local()
            with pytest.raises(TimeoutError):
                await elsewhere.get(timeout=0.2)
            got = []  # the owner's socket had every change
            with contextlib.suppress(TimeoutError):
                while True:
                    got.append(await here.get(timeout=0.2))
            versions = [m["version"] for m in got if m["type"] in ("snapshot", "event")]
            assert versions == sorted(versions) and versions[-1] == actor.version >= 3

            snap = await b.call(code, "snapshot", {"seat": 1})  # B's socket asks
            assert not actor.publisher.local()
            await step(actor)
            event = await elsewhere.get(timeout=2)
            assert event["type"] in ("event", "hand_end")
            assert event["prev_version"] == snap["version"] < event["version"]
            assert actor.publisher.bus.others(seat_channel(code, 1))  # Redis counted B
    finally:
        await store_b.close()


async def test_a_local_room_counts_its_listeners_again_every_few_seconds(redis_url: str) -> None:
    """While a room publishes to this process only, one publish in `RECHECK_SECONDS` still
    goes through Redis, whose count then decides again (a missed listener elsewhere would
    be silent that long at most)."""
    from server.room.clock import ManualClock
    from server.room.publisher import RECHECK_SECONDS, Publisher, seat_channel
    from server.rules.registry import find_game

    bus = RedisBus(redis_url, prefix=f"zjtest:{secrets.token_hex(4)}:")
    other = RedisBus(redis_url, prefix=bus.prefix)
    clock = ManualClock()

    async def once(attempt: Any) -> None:
        await attempt()

    publisher = Publisher("RECHK", bus, clock, find_game("guiyang"), 4, lambda s: False, once)
    try:
        here = await bus.subscribe(seat_channel("RECHK", 0))
        await publisher.publish_all({"type": "room", "n": 1})  # the first: through Redis
        await _until(publisher.local)  # counted alone (once Redis sent it back)
        elsewhere = await other.subscribe(seat_channel("RECHK", 1))  # unannounced
        clock.advance(RECHECK_SECONDS - 0.1)
        await publisher.publish_all({"type": "room", "n": 2})  # local: not seen elsewhere
        clock.advance(0.1)
        assert not publisher.local()
        await publisher.publish_all({"type": "room", "n": 3})  # through Redis: counted
        assert [(await here.get(timeout=2))["n"] for _ in range(3)] == [1, 2, 3]
        assert (await elsewhere.get(timeout=2))["n"] == 3
        await asyncio.sleep(0.2)
        assert not publisher.local()  # another process listens now
    finally:
        await bus.close()
        await other.close()


async def test_an_unknown_room_is_unknown_in_a_cluster_too(store: Any, redis_url: str) -> None:
    """A code of no room: ``unknown_room`` (404), as with one process, not the store's
    NotFound (a 500); no lease of it is left behind."""
    from server.room.actor import RoomError

    async with _two_processes(store, store, redis_url) as (a, b):
        for manager in (a, b):
            with pytest.raises(RoomError) as err:
                await manager.get("BCDFGK")
            assert err.value.code == "unknown_room"
        assert await a.cluster.owners(["BCDFGK"]) == {"BCDFGK": None}


async def test_a_correction_asked_on_another_process_reaches_the_owner(
    store: Any, redis_url: str
) -> None:
    """The admin API's process is not the room's owner: `RoomManager.corrected` there is
    forwarded to the owner, whose actor reads the corrected totals (a voided hand counts
    for nothing); a room nobody owns is left to its next load."""
    from server.store import Store
    from server.store import admin as queries

    store_b = Store(store.url)
    try:
        async with _two_processes(store, store_b, redis_url) as (a, b):
            actor = await a.create_room({"hands": 4})
            code = actor.code
            await a.add_bots(code, 4)  # bots only: the session plays out at once
            await _until(lambda: actor.status == "finished", timeout=30)
            played = list(actor.totals)
            hand = next(h for h in await store.hands(code) if any(h.deltas))
            first = hand.deltas
            await queries.correct(
                store, code, hand.hand_no, kind="void", reason="misdeal", actor="lee"
            )
            assert code not in b.rooms
            await b.corrected(code)
            assert actor.totals == [t - d for t, d in zip(played, first, strict=True)]
            assert actor.totals == await store.totals(code) and code not in b.rooms
            await b.corrected("NOSUCH")  # nobody runs it: nothing to tell
    finally:
        await store_b.close()
