"""Rooms of this process: create, join, add bots, find (or rebuild from the store) actors.

``RoomManager`` is the only thing the API talks to. Seats are taken in order (0, 1, ...);
when the last seat is filled the room's actor starts and deals hand 1.

Errors: :class:`RoomError` with ``code`` ``unknown_room`` (404), ``room_full`` (409),
``bad_request`` (400).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Callable
from typing import Any

from server.room.actor import RoomActor, RoomError, Seat, Timing, replay_hand
from server.room.clock import Clock, RealClock
from server.rules.guiyang import GuiyangOptions

#: Room-code alphabet: no 0/O, 1/I/L, no vowels that spell words by accident.
CODE_ALPHABET = "23456789BCDFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 6
BOT_NAMES = ["Bot East", "Bot South", "Bot West", "Bot North"]


def new_room_code() -> str:
    """A random, unguessable room code: 6 characters of :data:`CODE_ALPHABET` (28^6 ≈ 4.8e8)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def hash_token(token: str) -> str:
    """The sha256 hex digest of a seat token (only this is stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


class RoomManager:
    """Owns this process's room actors.

    ``timing`` gives the claim/turn timers; ``claim_min_ms`` applies only to rooms with a
    human seat (the actor checks). Per-room ``options["claim_seconds"]`` /
    ``options["turn_seconds"]`` override the process defaults.
    """

    def __init__(
        self, store: Any, bus: Any, clock: Clock | None = None, timing: Timing | None = None
    ) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock or RealClock()
        self.timing = timing or Timing()
        self.rooms: dict[str, RoomActor] = {}
        #: Seed source for new hands; None = ``secrets.token_hex(16)`` (tests may fix seeds).
        self.new_seed: Callable[[], str] | None = None
        self._locks: dict[str, asyncio.Lock] = {}

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
        )

    async def create_room(self, options: dict[str, Any]) -> RoomActor:
        """Validate ``options`` (``pydantic.ValidationError``), store a new room, return its
        actor (not started: seats are empty)."""
        opts = GuiyangOptions(**options).model_dump()
        for _ in range(10):
            code = new_room_code()
            if code in self.rooms or await self.store.get_room(code) is not None:
                continue
            await self.store.create_room(code, "guiyang", opts)
            actor = RoomActor(code, opts, self.store, self.bus, self.clock, self._timing_for(opts))
            if self.new_seed is not None:
                actor.new_seed = self.new_seed
            self.rooms[code] = actor
            return actor
        raise RoomError("internal", "could not find a free room code")

    async def get(self, code: str) -> RoomActor:
        """The room's actor, rebuilt from the store if this process does not hold it.
        Raises ``RoomError("unknown_room")``."""
        actor = self.rooms.get(code)
        if actor is not None:
            return actor
        async with self._lock(code):
            actor = self.rooms.get(code)
            if actor is None:
                actor = await self._load(code)
                self.rooms[code] = actor
                if actor.full and actor.status not in ("finished", "dissolved"):
                    actor.start()
        return actor

    async def _load(self, code: str) -> RoomActor:
        rec = await self.store.get_room(code)
        if rec is None:
            raise RoomError("unknown_room", f"no room {code}")
        actor = RoomActor(
            code,
            dict(rec.options),
            self.store,
            self.bus,
            self.clock,
            self._timing_for(rec.options),
            seats=[Seat(p.seat, p.name, p.is_bot, p.token_hash) for p in rec.players],
            status=rec.status,
        )
        if self.new_seed is not None:
            actor.new_seed = self.new_seed
        await rebuild(actor)
        return actor

    async def join(self, code: str, name: str) -> tuple[int, str]:
        """Seat a human called ``name``; returns ``(seat, token)``. The token is returned once
        and only its sha256 is stored. Raises ``unknown_room`` / ``room_full``."""
        actor = await self.get(code)
        async with self._lock(code):
            if actor.full:
                raise RoomError("room_full", "every seat is taken")
            seat = len(actor.seats)
            token = secrets.token_urlsafe(24)
            await self.store.add_player(code, seat, name, hash_token(token), False)
            actor.seats.append(Seat(seat, name, False, hash_token(token)))
            if actor.full:
                actor.start()
        await actor.publish_room()
        if actor.full:
            await actor.wait_started()
        return seat, token

    async def add_bots(self, code: str, count: int) -> list[int]:
        """Fill up to ``count`` free seats with bots; returns the seats filled.
        Raises ``unknown_room`` / ``room_full`` (no free seat at all)."""
        actor = await self.get(code)
        async with self._lock(code):
            free = actor.players - len(actor.seats)
            if free <= 0:
                raise RoomError("room_full", "every seat is taken")
            filled = []
            for _ in range(min(count, free)):
                seat = len(actor.seats)
                name = BOT_NAMES[seat % len(BOT_NAMES)]
                token_hash = hash_token(secrets.token_urlsafe(24))  # nobody holds it
                await self.store.add_player(code, seat, name, token_hash, True)
                actor.seats.append(Seat(seat, name, True, token_hash))
                filled.append(seat)
            if actor.full:
                actor.start()
        await actor.publish_room()
        if actor.full:
            await actor.wait_started()
        return filled

    async def authenticate(self, code: str, token: str | None) -> tuple[RoomActor, int | None]:
        """``(actor, seat)`` for a token (``seat`` None without a token: a spectator).
        Raises ``unknown_room``, or ``bad_token`` for a token that holds no human seat."""
        actor = await self.get(code)
        if token is None:
            return actor, None
        digest = hash_token(token)
        for s in actor.seats:
            if not s.bot and secrets.compare_digest(s.token_hash, digest):
                return actor, s.seat
        raise RoomError("bad_token", "this token holds no seat in this room")

    async def close(self) -> None:
        """Stop every actor (their rooms stay in the store)."""
        for actor in list(self.rooms.values()):
            await actor.stop()
        self.rooms.clear()


async def rebuild(actor: RoomActor) -> None:
    """Load the session's progress into ``actor`` from its store: totals, the current hand
    (replaying its stored actions through the engine), dealer and streak.

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
    actor.state, actor.version = replay_hand(
        actor.opts, last.seed, last.dealer, last.dealer_streak, actions
    )
    actor.action_idx = len(actions)
    if last.settlement is not None:  # settled: next dealer from the settlement
        actor.last_settlement = last.settlement
        nd = last.settlement["next_dealer"]
        actor.dealer_streak = last.dealer_streak + 1 if nd == last.dealer else 1
        actor.dealer = nd
        actor.version += 1
        actor.status = "finished" if last.hand_no >= actor.opts.hands else "between"
    else:
        actor.status = "playing"
    if dissolved:  # ended early by a vote: stays ended, the open hand is not settled
        actor.status = "dissolved"
        if last.settlement is None:
            actor.last_settlement = None
