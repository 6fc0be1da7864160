"""Rooms of this process: create, join, add bots, find (or rebuild from the store) actors.

``RoomManager`` is the only thing the API talks to. Seats are taken in order (0, 1, ...);
when the last seat is filled the room's actor starts and deals hand 1.

Errors: :class:`RoomError` with ``code`` ``unknown_room`` (404), ``room_full`` (409),
``session_over`` (409), ``bad_request`` (400), ``unavailable`` (503: the room's owner does
not answer).

With a :class:`server.room.cluster.Cluster` (``REDIS_URL`` set) the manager runs a room's
actor only while it holds the room's lease; for a room owned by another process it hands out
a :class:`RoomHandle` that forwards calls to the owner over the bus. A background watcher
takes over rooms whose lease lapsed (their owner died) if this process has sockets on them.

Memory: finished (or dissolved) rooms and rooms idle for ``idle_seconds`` that nobody watches
are unloaded (:meth:`RoomManager.unload_idle`, every ``unload_every`` seconds when set); the
next lookup, join or socket rebuilds them from the store (:meth:`RoomManager.get`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import Any

from server.loops import running_loop
from server.room.actor import (
    Hold,
    RoomActor,
    RoomError,
    Seat,
    Timing,
    previous_hand,
    prompt_of_log,
    replay_hand,
    replay_link,
)
from server.room.bounded import settle
from server.room.clock import Clock, RealClock
from server.room.cluster import Cluster, Lease, NoOwner, unreachable
from server.rules.registry import DEFAULT_GAME, UnknownGame, find_game
from server.rules.types import Action
from server.store import transient as store_transient
from server.store.store import AlreadySeated, NotFound, RoomRecord

log = logging.getLogger(__name__)

#: Room-code alphabet: no 0/O, 1/I/L, no vowels that spell words by accident.
CODE_ALPHABET = "23456789BCDFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 6
#: A bot's stored name by seat, as the pages show it in English (``botName``: Bot 1..4 by
#: seat, never a wind: the winds turn with the dealer), so the API, CSV and CLI agree.
BOT_NAMES = ["Bot 1", "Bot 2", "Bot 3", "Bot 4"]
#: 再来一场: how long (s) the next room keeps each player's seat of the session before for
#: them (`Hold`): the friend still reading the standings is not shut out by a bot.
HOLD_SECONDS = 120.0


def new_room_code() -> str:
    """A random, unguessable room code: 6 characters of :data:`CODE_ALPHABET` (28^6 ≈ 4.8e8)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def hash_token(token: str) -> str:
    """The sha256 hex digest of a seat token (only this is stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


#: Actor methods that never travel to another process.
_LOCAL_ONLY = {"start", "stop", "idle", "wait_started", "submit", "publish_room"}


#: Forwarded calls that may be sent again to a room's next owner if its owner lost the
#: room while they waited: answers are guarded by prompt numbers, the rest is idempotent
#: or refused the second time (``join`` and ``bots`` are not: they would seat twice).
_REPEATABLE = {"act", "snapshot", "info", "presence", "mark_ready", "set_auto", "vote_dissolve"}


def _encode(kwargs: dict[str, Any]) -> dict[str, Any]:
    """JSON-able call arguments (an :class:`Action` becomes ``{"__action__": dict}``)."""
    return {
        k: {"__action__": v.to_dict()} if isinstance(v, Action) else v for k, v in kwargs.items()
    }


def _decode(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`_encode`."""
    return {
        k: Action.from_dict(v["__action__"]) if isinstance(v, dict) and "__action__" in v else v
        for k, v in kwargs.items()
    }


class RoomHandle:
    """A room as a socket of this process sees it in a cluster: every call goes to the room's
    owner (this process's actor if it holds the lease, otherwise over the bus), so a socket
    survives its room moving from one process to another.

    Offers the actor's coroutine methods (``snapshot``, ``act``, ``mark_ready``, ``set_auto``,
    and any other public coroutine method of :class:`RoomActor`) with the same signatures.
    ``connected`` counts this process's sockets per seat; :meth:`publish_room` reports them
    to the owner, which merges every process's counts into the room info.
    """

    def __init__(self, manager: RoomManager, code: str) -> None:
        self.manager = manager
        self.code = code
        self.connected: dict[int, int] = {}
        #: The lease holder last seen by the watcher (a change re-sends ``connected``).
        self.owner: str | None = None

    async def publish_room(self, quiet: bool = False) -> None:
        """Report this process's socket counts to the owner (which publishes the room;
        ``quiet``: only spectators changed, nothing shown changed)."""
        assert self.manager.cluster is not None
        counts = {str(k): v for k, v in self.connected.items()}
        await self.manager.call(
            self.code,
            "presence",
            {"process": self.manager.cluster.process_id, "connected": counts, "quiet": quiet},
        )

    def __getattr__(self, name: str) -> Any:
        method = getattr(RoomActor, name, None)
        if name.startswith("_") or name in _LOCAL_ONLY or not inspect.iscoroutinefunction(method):
            raise AttributeError(name)
        signature = inspect.signature(method)
        params = list(signature.parameters.values())[1:]  # (after self)
        positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        required = sum(1 for p in params if p.default is p.empty and p.kind is not p.VAR_KEYWORD)

        async def forward(*args: Any, **kwargs: Any) -> Any:
            if not kwargs and required <= len(args) <= len(positional):  # (a socket's calls)
                call_kwargs = dict(zip(positional, args, strict=False))
            else:
                bound = signature.bind(None, *args, **kwargs)
                call_kwargs = dict(bound.arguments)
                call_kwargs.pop("self", None)
            return await self.manager.call(self.code, name, call_kwargs)

        setattr(self, name, forward)  # made once per handle (a socket calls it per message)
        return forward


class RoomManager:
    """Owns this process's room actors.

    ``timing`` gives the claim/turn timers; ``claim_min_ms`` applies only to rooms with a
    human seat (the actor checks). Per-room ``options["claim_seconds"]`` /
    ``options["turn_seconds"]`` override the process defaults. ``start_wait`` (seconds)
    is how long filling the last seat (or taking a room over) waits for the room's actor to
    deal or resume its hand (``TimeoutError`` beyond it).

    ``idle_seconds``: a room that handled no command for this long (manager clock seconds)
    and has no socket is unloaded by :meth:`unload_idle` (None: only finished rooms are);
    ``unload_every``: seconds between the background passes of :meth:`unload_idle` (None:
    none; tests call it).
    """

    def __init__(
        self,
        store: Any,
        bus: Any,
        clock: Clock | None = None,
        timing: Timing | None = None,
        cluster: Cluster | None = None,
        start_wait: float = 10.0,
        idle_seconds: float | None = None,
        unload_every: float | None = None,
    ) -> None:
        self.store = store
        self.idle_seconds = idle_seconds
        self.unload_every = unload_every
        self._unloader: asyncio.Task[None] | None = None
        self.start_wait = start_wait
        self.bus = bus
        self.clock = clock or RealClock()
        self.timing = timing or Timing()
        #: The actors this process runs (in a cluster: the rooms whose lease it holds).
        self.rooms: dict[str, RoomActor] = {}
        #: Seed source for new hands; None = ``secrets.token_hex(16)`` (tests may fix seeds).
        self.new_seed: Callable[[], str] | None = None
        self.cluster = cluster
        self._locks: dict[str, asyncio.Lock] = {}
        self._leases: dict[str, Lease] = {}
        self._handles: dict[str, RoomHandle] = {}
        self._watcher: asyncio.Task[None] | None = None
        #: The watcher's takeover / presence task of each room, while it runs.
        self._busy: dict[str, asyncio.Task[None]] = {}
        #: Set by :meth:`close`: no room is taken any more.
        self._closing = False

    async def start(self) -> None:
        """In a cluster: join it and start watching the leases of rooms with sockets here.
        With ``unload_every``: start unloading finished and idle rooms."""
        if self.unload_every and self._unloader is None:
            self._unloader = asyncio.create_task(self._unload_loop(), name="room-unloader")
        if self.cluster is not None and self._watcher is None:
            self.cluster.on_released = self._adopt
            await self.cluster.start()
            self._watcher = asyncio.create_task(self._watch(), name="lease-watcher")

    def _lock(self, code: str) -> asyncio.Lock:
        return self._locks.setdefault(code, asyncio.Lock())

    def _timing_for(self, options: dict[str, Any]) -> Timing:
        t = self.timing
        return Timing(
            claim_seconds=float(options.get("claim_seconds", t.claim_seconds)),
            turn_seconds=float(options.get("turn_seconds", t.turn_seconds)),
            claim_min_ms=t.claim_min_ms,
            auto_seconds=t.auto_seconds,
            ready_seconds=t.ready_seconds,
            bank_seconds=float(options.get("bank_seconds", t.bank_seconds)),
            vote_seconds=t.vote_seconds,
            claim_hold=t.claim_hold,
            pause_unwatched=t.pause_unwatched,
        )

    async def create_room(self, options: dict[str, Any], game: str = DEFAULT_GAME) -> RoomActor:
        """Validate ``options`` for ``game`` (``pydantic.ValidationError``), store a new room,
        return its actor (not started: seats are empty). Raises ``RoomError`` ``bad_request``
        for an unknown game, ``unavailable`` in a cluster when the room's lease cannot be
        taken (Redis unreachable, or this process is stopping)."""
        try:
            rules = find_game(game)
        except UnknownGame as err:
            raise RoomError("bad_request", str(err))
        opts = rules.options(options).model_dump()
        for _ in range(10):
            code = new_room_code()
            if code in self.rooms or await self.store.get_room(code) is not None:
                continue
            await self.store.create_room(code, rules.name, opts)
            actor = RoomActor(
                code, opts, self.store, self.bus, self.clock, self._timing_for(opts), game=rules
            )
            if self.new_seed is not None:
                actor.new_seed = self.new_seed
            if self.cluster is not None and not await self._hold(code, actor):
                # Redis away or this process stopping: the room stays in the store, run
                # by whoever is asked for it next (no actor runs here without the lease)
                raise RoomError("unavailable", "no server can take the room right now")
            self.rooms[code] = actor
            return actor
        raise RoomError("internal", "could not find a free room code")

    def _forget_lock(self, code: str) -> None:
        """Drop the lock of a code that turned out unknown (unless someone holds or awaits
        it), so codes that name no room leave nothing behind."""
        lock = self._locks.get(code)
        if lock is not None and not lock.locked() and not getattr(lock, "_waiters", None):
            del self._locks[code]

    async def get(self, code: str) -> RoomActor | RoomHandle:
        """The room's actor, rebuilt from the store if this process does not hold it.

        In a cluster: the actor if this process holds (or can take) the room's lease, else a
        :class:`RoomHandle` on the owner. Raises ``RoomError("unknown_room")``, and
        ``RoomError("unavailable")`` while the store cannot be reached to load the room."""
        try:
            return await self._get(code)
        except RoomError as err:
            if err.code == "unknown_room" and code not in self.rooms:
                self._forget_lock(code)
            raise
        except Exception as exc:
            if store_transient(exc):
                raise _database_away(code, exc) from exc
            raise

    async def _get(self, code: str) -> RoomActor | RoomHandle:
        actor = self.rooms.get(code)
        if actor is not None:
            return actor
        async with self._lock(code):
            actor = self.rooms.get(code)
            if actor is not None:
                return actor
            if self.cluster is None:
                actor = await self._load(code)
                self.rooms[code] = actor
                if actor.full and actor.status not in ("finished", "dissolved"):
                    actor.start()
                return actor
            taken = await self._take(code)
            if taken is not None:
                return taken
        if await self.store.get_room(code) is None:
            raise RoomError("unknown_room", f"no room {code}")
        return self.handle(code)

    def handle(self, code: str) -> RoomHandle:
        """This process's :class:`RoomHandle` of room ``code`` (cluster mode)."""
        h = self._handles.get(code)
        if h is None:
            h = self._handles[code] = RoomHandle(self, code)
        return h

    async def _hold(self, code: str, actor: RoomActor | None) -> bool:
        """Take room ``code``'s lease (if free) and answer its forwarded calls. With
        ``actor`` None the room is first rebuilt from the store.

        Fencing: the store starts a new lease generation *before* the log is read, so a
        former owner still writing (it lost the lease while stalled) is refused from then
        on, and what it logged before is in what we replay; the actor logs the generation
        with each action and proves the lease is held before each durable write."""
        assert self.cluster is not None
        if self._closing:  # a stopping process takes no room
            return False
        lease = self.cluster.lease(code, lambda: self._lost(code, lease))
        if not await lease.acquire():
            return False
        try:
            lease.generation = await self.store.fence(code)
            if actor is None:
                actor = await self._load(code)
        except BaseException as exc:
            await lease.release()
            if isinstance(exc, NotFound):  # no such room: the lease of a code nobody uses
                raise RoomError("unknown_room", f"no room {code}") from None
            raise
        if lease.lost:  # lost while the room was being rebuilt (a long stall): not ours
            return False
        actor.lease_gen = lease.generation
        actor.lease_check = lease.ensure
        self._leases[code] = lease
        self.rooms[code] = actor
        h = self._handles.get(code)
        if h is not None:
            h.owner = self.cluster.process_id
            actor.presence[self.cluster.process_id] = dict(h.connected)
        await self.cluster.serve(code, lambda call, kw: self._serve_remote(code, call, kw))
        return True

    async def _serve_remote(self, code: str, call: str, kwargs: dict[str, Any]) -> Any:
        """A call on room ``code`` from another process: it may have sockets of the room,
        so the room publishes through the shared bus again (`Publisher.heard_from_others`)."""
        actor = self.rooms.get(code)
        if actor is not None:
            actor.publisher.heard_from_others()
        return await self._serve_call(code, call, kwargs)

    async def _take(self, code: str) -> RoomActor | None:
        """Take room ``code``'s lease if it is free, rebuild the room from the store and run
        it here; ``None`` if another process holds the lease. Caller holds the room lock."""
        assert self.cluster is not None
        if not await self._hold(code, None):
            return None
        actor = self.rooms[code]
        if actor.full and actor.status not in ("finished", "dissolved"):
            actor.start()
            await actor.wait_started(self.start_wait)
            # Sockets relayed here or elsewhere may have missed events the previous owner
            # logged but never published: give every audience a fresh snapshot (stamped by
            # the actor, so the next event's prev_version follows it). If the bus fails now,
            # the relays resync when it is back (a bus gap) and no timer runs out on a
            # prompt nobody saw (the actor's timers wait for the bus, `_timer_trusted`).
            try:
                await actor.publish_snapshots()
            except RoomError:
                raise
            except Exception as err:
                log.warning("room %s: takeover snapshots not sent (%r)", code, err)
        log.info("room %s: now run by %s", code, self.cluster.process_id)
        return actor

    async def _lost(self, code: str, lease: Lease) -> None:
        """The lease of ``code`` was lost (e.g. a long pause): stop running the room here at
        once. If nobody else took it (its key merely lapsed), take it back: rebuilt from the
        store under a new generation, as any other process would."""
        if self._leases.get(code) is not lease:
            return  # an older tenure's lease; the room was released or taken again since
        actor = self.rooms.pop(code, None)
        self._leases.pop(code, None)
        if self.cluster is not None:
            await self.cluster.stop_serving(code)
        if actor is not None:
            await actor.stop(timeout=0.5)  # it can write nothing more (its lease is gone)
            if actor.status in ("open", "playing", "between"):
                try:
                    await self.get(code)  # a handle if another process holds it now
                except RoomError as err:  # the database is away: the sweep or watcher retries
                    log.warning("room %s: not taken back now: %s", code, err.message)
                except Exception:
                    log.exception("room %s: taking the room back failed", code)

    async def call(self, code: str, call: str, kwargs: dict[str, Any]) -> Any:
        """Run ``call(**kwargs)`` on room ``code``'s owner: here if this process holds the
        lease, otherwise over the bus. While the room has no live owner (the owner died and
        its lease has not lapsed yet) keep trying, taking the room over once the lease is free.
        Raises :class:`RoomError` (``unavailable`` if no owner answers in time)."""
        assert self.cluster is not None
        if code in self.rooms:  # (the usual case: no deadline, no copy of the arguments)
            return await self._serve_call(code, call, kwargs)
        loop = running_loop()
        deadline = loop.time() + 2 * self.cluster.lease_seconds + 5
        encoded = _encode(kwargs)
        while True:
            if code in self.rooms:
                return await self._serve_call(code, call, encoded)
            try:
                return await self._request(code, call, encoded)
            except (NoOwner, TimeoutError):
                if loop.time() > deadline:
                    raise RoomError("unavailable", f"room {code} has no live server") from None
            except RoomError as err:
                # the owner lost the room (its lease lapsed) before serving the call: the
                # call did nothing there, so it goes to the room's next owner
                if err.code != "unavailable" or loop.time() > deadline:
                    raise
            if call == "act":  # the next copy: the owner may have taken this one (ReplyLost)
                encoded = {**encoded, "again": True}
            try:
                here = isinstance(await self.get(code), RoomActor)
            except RoomError as err:  # the database is away: keep trying until the deadline
                if err.code != "unavailable" or loop.time() > deadline:
                    raise
                here = False
            if not here:
                await asyncio.sleep(min(0.2, self.cluster.lease_seconds / 5))

    async def _request(self, code: str, call: str, kwargs: dict[str, Any]) -> Any:
        """One forwarded call. A call that is safe to send again (:data:`_REPEATABLE`) waits
        for its answer as long as the room's owner holds the lease (an answer waiting for
        the owner's database, which may be away for a while, is not sent again: the copy
        would be refused as a stale prompt once the first is applied), and is given up
        (``TimeoutError``) as soon as the lease lapses or changes hands: its owner lost the
        room (e.g. stalled), so it will not answer, and whatever it did is fenced or in the
        log the next owner replays. Checked only once a call waited a third of the lease
        time, so a prompt answer costs nothing more. Other calls wait
        :attr:`Cluster.call_timeout`."""
        assert self.cluster is not None
        if call not in _REPEATABLE:
            return await self.cluster.request(code, call, kwargs)
        task = asyncio.ensure_future(self.cluster.request(code, call, kwargs, timeout=None))
        try:
            seen: str | None = None
            step = self.cluster.lease_seconds / 3
            while True:
                done, _ = await asyncio.wait({task}, timeout=step)
                if done:
                    return task.result()
                owner = (await self.cluster.owners([code]))[code]
                moved = owner is None or owner == self.cluster.process_id
                if moved or (seen is not None and owner != seen):
                    # The new owner may have subscribed just before the call went out and be
                    # serving it now: give its answer a moment before sending it again.
                    done, _ = await asyncio.wait({task}, timeout=step)
                    if done:
                        return task.result()
                    raise TimeoutError
                seen = owner
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _serve_call(self, code: str, call: str, kwargs: dict[str, Any]) -> Any:
        """Answer a call for room ``code`` (forwarded from any process, or local)."""
        actor = self.rooms.get(code)
        if actor is None:
            raise RoomError("unavailable", f"room {code} moved to another server")
        lease = self._leases.get(code)
        if lease is not None and not lease.held and not await lease.ensure():
            # renewals were late (e.g. Redis was away): prove the room is still ours before
            # answering, so a room rebuilt elsewhere meanwhile is never contradicted by
            # this stale copy (e.g. an older snapshot); the caller asks the next owner
            raise RoomError("unavailable", f"room {code} moved to another server")
        if call == "join":
            profile, want = kwargs.get("profile_id"), kwargs.get("seat")
            seated = await self.join(
                code,
                str(kwargs["name"]),
                profile_id=int(profile) if profile is not None else None,
                seat=int(want) if want is not None else None,
            )
            return list(seated)
        if call == "bots":
            seat = kwargs.get("seat")
            chosen = None if seat is None else int(seat)
            return await self.add_bots(code, int(kwargs["count"]), chosen)
        if call == "remove_bot":
            return await self.remove_bot(code, int(kwargs["seat"]))
        if call == "info":
            return actor.info()
        if call == "presence":
            counts = {int(k): int(v) for k, v in dict(kwargs["connected"]).items()}
            actor.presence[str(kwargs["process"])] = counts
            await actor.publish_room(quiet=bool(kwargs.get("quiet", False)))
            return None
        method = getattr(RoomActor, call, None)
        if call.startswith("_") or call in _LOCAL_ONLY or not inspect.iscoroutinefunction(method):
            raise RoomError("bad_request", f"no remote call {call}")
        return await getattr(actor, call)(**_decode(kwargs))

    async def info(self, code: str) -> dict[str, Any]:
        """The room's public info (``GET /api/rooms/{code}``), from its owner."""
        target = await self.get(code)
        if isinstance(target, RoomActor):
            return target.info()
        return await self.call(code, "info", {})

    async def _watch(self) -> None:
        """Every third of the lease time: take over rooms with sockets here whose lease
        lapsed; re-send socket counts to a room's new owner."""
        assert self.cluster is not None
        while True:
            await asyncio.sleep(self.cluster.lease_seconds / 3)
            try:
                codes = [
                    c
                    for c, h in self._handles.items()
                    if c not in self.rooms and any(h.connected.values())
                ]
                owners = await self.cluster.owners(codes)
                for code, owner in owners.items():
                    h = self._handles[code]
                    # each room on its own: one slow takeover (its store busy) or an owner
                    # slow to answer must not hold up the others
                    if owner is None:
                        self._background(code, self.get(code))
                    elif owner != h.owner:
                        h.owner = owner
                        self._background(code, h.publish_room())
            except asyncio.CancelledError:
                raise
            except Exception as err:
                if unreachable(err):
                    log.warning("lease watcher: Redis unreachable (%s)", err)
                else:
                    log.exception("lease watcher")

    def _background(self, code: str, coro: Coroutine[Any, Any, Any]) -> None:
        """Run the watcher's work on room ``code`` in its own task, one at a time per room
        (``coro`` is dropped if that room's previous one still runs)."""
        if code in self._busy:
            coro.close()
            return

        async def run() -> None:
            try:
                await coro
            except RoomError as err:  # e.g. the database is away: the next round retries
                log.warning("room %s: lease watcher: %s (%s)", code, err.code, err.message)
            except Exception as err:
                if unreachable(err):
                    log.warning("room %s: lease watcher: Redis unreachable (%s)", code, err)
                else:
                    log.exception("room %s: lease watcher", code)
            finally:
                self._busy.pop(code, None)

        self._busy[code] = asyncio.create_task(run(), name=f"watch-{code}")

    async def _load(self, code: str) -> RoomActor:
        rec = await self.store.get_room(code)
        if rec is None:
            raise RoomError("unknown_room", f"no room {code}")
        try:
            rules = find_game(rec.game or DEFAULT_GAME)
        except UnknownGame as err:  # a room of a game this server does not have
            raise RoomError("unavailable", str(err))
        actor = RoomActor(
            code,
            dict(rec.options),
            self.store,
            self.bus,
            self.clock,
            self._timing_for(rec.options),
            seats=[Seat(p.seat, p.name, p.is_bot, p.token_hash) for p in rec.players],
            status=rec.status,
            game=rules,
        )
        if self.new_seed is not None:
            actor.new_seed = self.new_seed
        if rec.status == "open" and rec.created_at is not None:
            # 再来一场's room, loaded again (a restart, another process): its players' seats
            # stay kept for them until the time they were kept for
            prev = await self.store.previous_room(code)
            prev_rec = await self.store.get_room(prev) if prev is not None else None
            if prev_rec is not None:
                actor.holds = _holds_of(prev_rec, rec.created_at.timestamp() + HOLD_SECONDS)
        await rebuild(actor)
        return actor

    async def join(
        self, code: str, name: str, *, profile_id: int | None = None, seat: int | None = None
    ) -> tuple[int, str]:
        """Seat a human called ``name`` with their profile (``profile_id``, stored with the
        seat; :mod:`server.store.profiles`) in ``seat`` if it is free (再来一场: the seat
        held before), else the lowest free seat; returns ``(seat, token)``. The token is
        returned once and only its sha256 is stored. Raises ``unknown_room`` / ``session_over``
        (the room's session finished or was dissolved) / ``room_full`` / ``already_seated``
        (the profile holds a seat of the room: the store's unique key decides, so concurrent
        joins with one profile seat it once)."""
        actor = await self.get(code)
        if isinstance(actor, RoomHandle):
            asked = {"name": name, "profile_id": profile_id, "seat": seat}
            taken, token = await self.call(code, "join", asked)
            return int(taken), str(token)
        async with self._lock(code):
            if actor.status in ("finished", "dissolved"):
                raise RoomError("session_over", f"this room's session is over ({actor.status})")
            if actor.full:
                raise RoomError("room_full", "every seat is taken")
            held = actor.held()
            mine = [s for s, h in held.items() if h.profile_id == profile_id and profile_id]
            open_seats = [s for s in _free_seats(actor) if s not in held]
            if mine:  # back from the session before: the seat kept for them
                seat = mine[0]
            elif seat not in open_seats:
                if not open_seats:
                    raise _seats_held(held)
                seat = open_seats[0]
            token = secrets.token_urlsafe(24)
            try:
                await self.store.add_player(
                    code, seat, name, hash_token(token), False, profile_id=profile_id
                )
            except AlreadySeated:
                raise RoomError("already_seated", "you already hold a seat here") from None
            _seat(actor, Seat(seat, name, False, hash_token(token)))
            if actor.full:
                actor.start()
        await actor.publish_room()
        if actor.full:
            await actor.wait_started(self.start_wait)
        return seat, token

    async def again(self, code: str) -> str:
        """再来一场: the code of the room ``code``'s players go on in once its session is over.
        The first call makes it (same game and options, the bots in their seats) and the
        store keeps the first one recorded, so every caller, on any process, gets the same
        room. Calls on one process wait for each other; a room made on another process that
        lost that race is dissolved at once (never dealt, it held only bots). Raises
        ``unknown_room``, ``session_not_over`` (still playing or not started)."""
        try:
            async with self._lock(f"again:{code}"):
                return await self._again(code)
        finally:
            self._forget_lock(f"again:{code}")

    async def _again(self, code: str) -> str:
        info = await self.info(code)
        if info["status"] not in ("finished", "dissolved"):
            raise RoomError("session_not_over", "the session is still on: finish or dissolve it")
        found = await self.store.next_room(code)
        if found is not None:
            return found
        made = await self.create_room(info["options"], info["game"])
        # the bots sit down before the room is shown, so a player never takes a bot's seat,
        # and each player's seat is kept for them a while (the first back cannot give it away)
        for s in info["seats"]:
            if s["bot"]:
                await self.add_bots(made.code, 1, seat=s["seat"])
        old = await self.store.get_room(code)
        if old is not None:
            made.holds = _holds_of(old, self.clock.now() + HOLD_SECONDS)
        kept = await self.store.set_next_room(code, made.code)
        if kept != made.code:  # another process recorded its room first
            made.status = "dissolved"  # (unloaded by `unload_idle`, as any ended room)
            await self.store.set_room_status(made.code, "dissolved")
        return kept

    async def corrected(self, code: str) -> None:
        """An admin voided or adjusted a hand of room ``code``: the room, if it runs here or
        on another process, reads its totals again and tells its audiences
        (`RoomActor.refresh_totals`); a room nobody runs reads them when it is next loaded.
        Raises :class:`RoomError` (``unavailable``) if its owner does not answer."""
        actor = self.rooms.get(code)
        if actor is not None:
            await actor.refresh_totals()
        elif self.cluster is not None and (await self.cluster.owners([code]))[code] is not None:
            await self.call(code, "refresh_totals", {})

    async def add_bots(self, code: str, count: int, seat: int | None = None) -> list[int]:
        """Fill up to ``count`` free seats with bots, lowest seats first, or (``seat`` given,
        ``count`` 1) exactly seat ``seat``; a seat kept for a player of the session before
        (`RoomActor.held`) is left to them. Returns the seats filled. Raises
        ``unknown_room`` / ``room_full`` (no free seat at all) / ``seat_held`` (the free
        seats, or ``seat``, are kept) / ``seat_taken`` (``seat`` is not free) /
        ``bad_request`` (``seat`` outside the room's seats)."""
        actor = await self.get(code)
        if isinstance(actor, RoomHandle):
            return list(await self.call(code, "bots", {"count": count, "seat": seat}))
        async with self._lock(code):
            held = actor.held()
            free = [s for s in _free_seats(actor) if s not in held]
            if seat is not None:
                if not 0 <= seat < actor.players:
                    raise RoomError("bad_request", f"seats are 0..{actor.players - 1}")
                if seat in held:
                    raise _seats_held({seat: held[seat]})
                if seat not in free:
                    raise RoomError("seat_taken", f"seat {seat} is taken")
                free = [seat]
            if not free:
                if held:
                    raise _seats_held(held)
                raise RoomError("room_full", "every seat is taken")
            filled = []
            for s in free[:count]:
                name = BOT_NAMES[s % len(BOT_NAMES)]
                token_hash = hash_token(secrets.token_urlsafe(24))  # nobody holds it
                await self.store.add_player(code, s, name, token_hash, True)
                _seat(actor, Seat(s, name, True, token_hash))
                filled.append(s)
            if actor.full:
                actor.start()
        await actor.publish_room()
        if actor.full:
            await actor.wait_started(self.start_wait)
        return filled

    async def remove_bot(self, code: str, seat: int) -> None:
        """Take the bot out of ``seat`` before the deal (the seat is free again). Raises
        ``unknown_room``, ``room_started`` (the room is no longer open: its hands are being
        dealt), ``seat_empty`` (nobody sits there), ``not_a_bot`` (a human sits there)."""
        actor = await self.get(code)
        if isinstance(actor, RoomHandle):
            await self.call(code, "remove_bot", {"seat": seat})
            return
        async with self._lock(code):
            if actor.status != "open" or actor.full or actor.hand_no:
                raise RoomError("room_started", "bots can only be removed before the deal")
            found = next((s for s in actor.seats if s.seat == seat), None)
            if found is None:
                raise RoomError("seat_empty", f"nobody sits in seat {seat}")
            if not found.bot:
                raise RoomError("not_a_bot", f"seat {seat} is a player, not a bot")
            await self.store.remove_bot(code, seat)
            actor.seats.remove(found)
        await actor.publish_room()

    async def authenticate(
        self, code: str, token: str | None
    ) -> tuple[RoomActor | RoomHandle, int | None]:
        """``(actor, seat)`` for a token (``seat`` None without a token: a spectator).
        In a cluster the first item is always the room's :class:`RoomHandle` and the token is
        checked against the store (any process can authenticate any seat).
        Raises ``unknown_room``, or ``bad_token`` for a token that holds no human seat."""
        actor = await self.get(code)
        if self.cluster is not None:
            try:
                rec = await self.store.get_room(code)
            except Exception as exc:
                if store_transient(exc):
                    raise _database_away(code, exc) from exc
                raise
            if rec is None:
                raise RoomError("unknown_room", f"no room {code}")
            seats = [Seat(p.seat, p.name, p.is_bot, p.token_hash) for p in rec.players]
            actor = self.handle(code)
        else:
            assert isinstance(actor, RoomActor)
            seats = actor.seats
        if token is None:
            return actor, None
        digest = hash_token(token)
        for s in seats:
            if not s.bot and secrets.compare_digest(s.token_hash, digest):
                return actor, s.seat
        raise RoomError("bad_token", "this token holds no seat in this room")

    async def unload_idle(self) -> list[str]:
        """Unload every room nobody watches (no socket here or, in a cluster, on any
        process) that is finished or dissolved, or (with ``idle_seconds``) handled no
        command for ``idle_seconds``: stop its actor, release its lease, forget it. The
        room stays in the store; :meth:`get` rebuilds it on demand with the same versions
        and prompt numbers. In a cluster the handles of rooms owned elsewhere that have no
        socket here are dropped too. Returns the codes unloaded (this process's rooms)."""
        now = self.clock.now()
        unloaded: list[str] = []
        for code, actor in list(self.rooms.items()):
            handle = self._handles.get(code)
            if actor.watched or (handle is not None and any(handle.connected.values())):
                continue
            ended = actor.status in ("finished", "dissolved")
            idle = self.idle_seconds is not None and now - actor.last_active >= self.idle_seconds
            if not (ended or idle) or actor._busy or not actor.inbox.empty():
                continue
            async with self._lock(code):  # not while a join or a load of it is under way
                if self.rooms.get(code) is not actor:
                    continue
                del self.rooms[code]
                lease = self._leases.pop(code, None)
                if self.cluster is not None and lease is not None:
                    await self.cluster.stop_serving(code)
                await actor.stop()
                if lease is not None:
                    await lease.release()
            self._handles.pop(code, None)
            self._forget_lock(code)
            forget = getattr(self.store, "forget", None)
            if forget is not None:  # the store's cached row ids of the room
                forget(code)
            unloaded.append(code)
            log.info("room %s: unloaded (%s)", code, actor.status if ended else "idle")
        for code, handle in list(self._handles.items()):
            if (
                code not in self.rooms
                and code not in self._busy
                and not any(handle.connected.values())
            ):
                del self._handles[code]
                self._forget_lock(code)
        return unloaded

    async def _unload_loop(self) -> None:
        assert self.unload_every
        while True:
            await asyncio.sleep(self.unload_every)
            try:
                await self.unload_idle()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("unloading rooms")

    async def close(self, timeout: float = 3.0) -> None:
        """Stop every actor (their rooms stay in the store) and release their leases so
        other processes take the rooms over at once, within about ``timeout`` seconds
        whatever Redis or the store do (every wait is bounded, :mod:`server.room.bounded`).

        In order: stop watching and renewing (a stopping process keeps no lease alive), stop
        answering forwarded calls, stop the actors by a command and a deadline (half the
        time; a queued call is refused with ``unavailable`` and goes to the next owner),
        release the leases (one round trip each, at once), tell the other processes which
        rooms were released (they take them at once, :meth:`_adopt`), close the cluster."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        self._closing = True
        background = [
            t for t in [self._watcher, self._unloader, *self._busy.values()] if t is not None
        ]
        self._watcher = self._unloader = None
        for task in background:
            task.cancel()
        await settle(background, 0.1, grace=0.1, what="lease watcher")
        if self.cluster is not None:
            self.cluster.stop_renewing()
            codes = list(self._leases)
            await settle(
                [self.cluster.stop_serving(c) for c in codes], 0.2, grace=0.05, what="server"
            )
        actors = list(self.rooms.values())
        budget = max(0.2, (end - loop.time()) / 2)
        await settle([a.stop(budget) for a in actors], budget + 0.3, grace=0.05, what="actor")
        self.rooms.clear()
        leases = list(self._leases.items())
        self._leases.clear()
        if self.cluster is not None:
            left = max(0.2, end - loop.time())
            await settle([lease.release() for _, lease in leases], left / 2, what="lease release")
            released = [code for code, lease in leases if lease.released]
            if released:
                await settle([self.cluster.announce_released(released)], 0.2, what="announce")
            await settle([self.cluster.close()], max(0.1, end - loop.time()), what="cluster")

    async def _adopt(self, codes: list[str]) -> None:
        """Another process released rooms ``codes`` (it is stopping): take the unfinished
        ones at once rather than when their leases would have lapsed (every process that
        heard it tries; the lease's ``SET NX`` picks one)."""
        if self._closing:
            return
        for code in codes:
            if code not in self.rooms:
                self._background(code, self.get(code))


def _holds_of(previous: RoomRecord, until: float) -> dict[int, Hold]:
    """再来一场: the seats of ``previous``'s players, kept for them until clock time
    ``until`` (`RoomActor.held`)."""
    return {p.seat: Hold(p.name, p.profile_id, until) for p in previous.players if not p.is_bot}


def _seats_held(held: dict[int, Hold]) -> RoomError:
    """The refusal of a seat kept for the session before's players (`RoomActor.held`)."""
    names = ", ".join(h.name for _, h in sorted(held.items()))
    return RoomError("seat_held", f"the free seats are kept a while for {names}")


def _free_seats(actor: RoomActor) -> list[int]:
    """The room's free seats, lowest first (a removed bot leaves a gap to fill)."""
    taken = {s.seat for s in actor.seats}
    return [s for s in range(actor.players) if s not in taken]


def _seat(actor: RoomActor, seat: Seat) -> None:
    """Add ``seat`` to ``actor.seats``, kept in seat order (a full room has seat i at i)."""
    actor.seats.append(seat)
    actor.seats.sort(key=lambda s: s.seat)


def _database_away(code: str, exc: BaseException) -> RoomError:
    """The ``unavailable`` refusal of a call that needed the store while it is away."""
    log.warning("room %s: database unavailable (%s)", code, type(exc).__name__)
    return RoomError("unavailable", f"room {code}: its database is unavailable; try again")


async def rebuild(actor: RoomActor) -> None:
    """Load the session's progress into ``actor`` from its store: totals, the current hand
    (replaying its stored actions through the engine), dealer and streak, the version and
    the prompt number (both follow from the log, so they are the ones the old owner used).

    After this, ``actor.start()`` carries on where the stored log ends.
    """
    hands = await actor.store.hands(actor.code)
    if not hands:
        return
    dissolved = actor.status == "dissolved"
    actor.totals = await actor.store.totals(actor.code)
    last = hands[-1]
    actor.hand_no = last.hand_no
    actor.dealer = last.dealer
    actor.dealer_streak = last.dealer_streak
    actions = await actor.store.hand_actions(actor.code, last.hand_no)
    states: list[Any] = []
    actor.state, actor.version = replay_hand(
        actor.opts,
        last.seed,
        last.dealer,
        last.dealer_streak,
        actions,
        last.weekday,
        actor.game,
        on_state=states.append,
    )
    actor.action_idx = len(actions)
    actor.last_replay = replay_link(last.id, last.replay_key)
    window = prompt_of_log(actor.game, actor.players, last.hand_no, states)
    if last.settlement is not None:  # settled: next dealer from the settlement
        actor.last_settlement = last.settlement
        nd = last.settlement["next_dealer"]
        actor.dealer_streak = last.dealer_streak + 1 if nd == last.dealer else 1
        actor.dealer = nd
        actor.version += 1
        actor.status = "finished" if last.hand_no >= actor.opts.hands else "between"
    else:
        actor.status = "playing"
        before = hands[-2] if len(hands) > 1 else None
        if before is not None and before.settlement is not None:
            actor.previous = previous_hand(
                before.hand_no, before.settlement, replay_link(before.id, before.replay_key)
            )
    if dissolved:  # ended early by a vote: stays ended, the open hand is not settled
        actor.status = "dissolved"
        if last.settlement is None:
            actor.last_settlement = None
    # The prompt number the old owner had reached (an answer in flight carries it), shown
    # by this actor's snapshots from now on, started or not (its start opens the same
    # number again, `Prompts.reopen`): the log's count in a hand (ended or not), one more
    # once settled (the pause between hands or the session's end), one more for a vote's end.
    actor.prompts.window = window + (last.settlement is not None) + dissolved
