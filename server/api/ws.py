"""``WS /ws/rooms/{code}?token=TOKEN``: one client connection to a room.

The handler authenticates the seat, subscribes to the seat's bus channel, sends a
``snapshot``, then forwards every bus message (already projected for the seat by the room
actor) while reading client messages, validating them (pydantic) and handing them to the
actor. It never touches game state. Close codes: 4401 bad token, 4404 unknown room,
4409 replaced by a newer connection of the same seat, 4429 too many connections from the
client's address (``SOCKETS_PER_MINUTE``, shared by every process), 4430 a cap of this
process reached (:class:`SocketCaps`: ``too_many_sockets`` open from the address, or
``too_many_spectators`` on the room; a seat is never refused by a room cap), 1008 flooding
(the client kept sending after :data:`FLOOD_LIMIT` ``rate_limited`` errors in a row).
Client messages are budgeted per client address and room (:class:`Budget`, shared by the
address's sockets there), so reconnecting does not raise the rate.

A client that goes away (closes, or drops the connection) at any moment ends the handler
quietly: that is a normal disconnect, logged at DEBUG, not an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from uvicorn.protocols.utils import ClientDisconnected
from websockets.exceptions import ConnectionClosed

from server import metrics
from server.api.messages import MAX_SEQ, ClientMessageAdapter
from server.bus import GAP, SubscriptionClosed, decode
from server.logs import HAND, ROOM, SEAT
from server.room.actor import SPECTATORS, RoomError, seat_channel
from server.room.manager import CODE_ALPHABET, CODE_LENGTH
from server.room.publisher import message_head
from server.rules.types import Action, IllegalAction

MAX_MESSAGE_BYTES = 4096
#: Default per-connection rate limit: a token bucket of ``capacity`` messages refilled at
#: ``per_second`` (``app.state.rate_limit`` overrides it, read when a socket connects).
RATE_LIMIT = (40, 20.0)
#: Refused (``rate_limited``) messages in a row after which the socket is closed (1008).
FLOOD_LIMIT = 20
CLOSE_CODES = {"bad_token": 4401, "unknown_room": 4404, "unavailable": 1013}
#: Close code of a socket refused by a cap (``too_many_sockets``, ``too_many_spectators``).
CAPACITY_CLOSE = 4430
#: What the server meets when the client has gone: a normal end of a connection.
GONE = (WebSocketDisconnect, ClientDisconnected, ConnectionClosed)

log = logging.getLogger(__name__)


@dataclass
class SocketCaps:
    """Sockets open at once in this process: ``per_address`` from one client address,
    ``per_room`` on one room, ``spectators`` spectators on one room (settings
    ``SOCKETS_PER_ADDRESS``, ``SOCKETS_PER_ROOM``, ``SPECTATORS_PER_ROOM``)."""

    per_address: int = 50
    per_room: int = 1010
    spectators: int = 1000


class Budget:
    """A token bucket of client messages (``capacity`` messages, refilled at
    ``per_second``), shared by every socket of one client address in one room."""

    def __init__(self, limit: tuple[int, float], now: float) -> None:
        self.limit = limit
        self.tokens, self.last = float(limit[0]), now
        self.sockets = 0

    def take(self, now: float) -> bool:
        """Spend one message if there is one (True), else False."""
        capacity, per_second = self.limit
        self.tokens = min(float(capacity), self.tokens + (now - self.last) * per_second)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def refilled(self, now: float) -> bool:
        """True once the bucket is full again (forgetting it then changes nothing)."""
        capacity, per_second = self.limit
        return self.tokens + (now - self.last) * per_second >= capacity


@dataclass
class Occupancy:
    """The sockets of this process, counted for :class:`SocketCaps`, and the message
    budgets by ``(address, room)`` (so reconnecting does not refill a budget)."""

    caps: SocketCaps = field(default_factory=SocketCaps)
    by_address: Counter[str] = field(default_factory=Counter)
    by_room: Counter[str] = field(default_factory=Counter)
    spectators: Counter[str] = field(default_factory=Counter)
    budgets: dict[tuple[str, str], Budget] = field(default_factory=dict)

    @staticmethod
    def drop(counter: Counter[str], key: str) -> None:
        """One less for ``key`` (forgotten at zero, so idle keys take no memory)."""
        counter[key] -= 1
        if counter[key] <= 0:
            del counter[key]

    def budget(self, address: str, code: str, limit: tuple[int, float]) -> Budget:
        """The shared budget of ``address`` in room ``code`` (one more socket holds it);
        a new one if there is none or the limit changed. Forgets refilled budgets nobody
        holds."""
        now = time.monotonic()
        key = (address, code)
        found = self.budgets.get(key)
        if found is None or found.limit != limit:
            for other in [k for k, b in self.budgets.items() if not b.sockets]:
                if self.budgets[other].refilled(now):
                    del self.budgets[other]
            found = self.budgets[key] = Budget(limit, now)
        found.sockets += 1
        return found

    def release(self, budget: Budget) -> None:
        """A socket that held ``budget`` closed (the budget stays until refilled)."""
        budget.sockets -= 1


def occupancy(app: Any) -> Occupancy:
    """The app's :class:`Occupancy` (``app.state.occupancy``; made on first use)."""
    found = getattr(app.state, "occupancy", None)
    if found is None:
        found = app.state.occupancy = Occupancy()
    return found


def valid_code(code: str) -> bool:
    """True if ``code`` has the shape of a room code (:data:`CODE_LENGTH` characters of
    :data:`CODE_ALPHABET`); other codes are refused without asking the manager."""
    return len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)


def _echo_seq(data: Any) -> int | None:
    """The ``seq`` of a refused message if it is a valid one (an int in ``0..MAX_SEQ``)."""
    seq = data.get("seq") if isinstance(data, dict) else None
    if isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq <= MAX_SEQ:
        return seq
    return None


def _frame_seq(raw: Mapping[str, Any]) -> int | None:
    """The ``seq`` of a received frame refused before it is read (``rate_limited``), so
    that the client knows which message was dropped; None unless it is a JSON object of at
    most `MAX_MESSAGE_BYTES` with a valid ``seq`` (at most `FLOOD_LIMIT` of these are read
    before a flooding socket is closed)."""
    data = raw.get("text")
    if data is None:
        data = raw.get("bytes")
    if not data or len(data) > MAX_MESSAGE_BYTES:
        return None
    try:
        return _echo_seq(decode(data))
    except ValueError:  # (JSONDecodeError and UnicodeDecodeError too)
        return None


def _error(code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    metrics.ERRORS.labels(code=code).inc()
    return {"type": "error", "code": code, "message": message, "seq": seq}


def _newer(msg: dict[str, Any], snap: dict[str, Any]) -> bool:
    """False for a message the snapshot already covers (same hand, version not above)."""
    if "version" not in msg or "hand_no" not in msg:
        return True
    return (msg["hand_no"], msg["version"]) > (snap["hand_no"], snap["version"])


def _missed(msg: dict[str, Any], last: tuple[int, int, bool] | None) -> bool:
    """True if ``msg`` shows that a message meant for this socket never arrived (the bus is
    at-most-once), or cannot show that none did: an ``event`` / ``hand_end`` of a later hand
    than the last one forwarded (its deal snapshot was lost), or newer than the last one
    forwarded with a ``prev_version`` that is not usable: ``null`` (the owner does not know
    what this audience was sent, e.g. the room was just rebuilt), above the last version
    forwarded, or (when the last message forwarded was an event, not a snapshot) not equal to
    it. ``last`` is ``(hand_no, version, after_event)`` of the last versioned message sent.
    (After a snapshot ``prev_version`` may be below its version: events private to other
    seats count in it.)"""
    if last is None or msg.get("type") not in ("event", "hand_end"):
        return False
    hand_no, version, prev = msg.get("hand_no"), msg.get("version"), msg.get("prev_version")
    if not isinstance(hand_no, int) or not isinstance(version, int):
        return False
    if hand_no != last[0]:
        return hand_no > last[0]
    if version <= last[1]:
        return False  # already covered (dropped by `send`)
    if not isinstance(prev, int):
        return True
    return prev > last[1] or (last[2] and prev != last[1])


class MisspelledToken(Exception):
    """A query parameter that decodes to ``token`` without being spelled ``token``."""


def query_token(query_string: bytes) -> str | None:
    """The seat token of a raw query string: the value of the parameter whose name is
    exactly ``token`` as sent (not percent-encoded), percent-decoded; None if there is none.
    Raises :class:`MisspelledToken` for a parameter whose name only decodes to ``token``
    (``?%74oken=...``): Starlette's ``query_params`` would decode it, so it is refused
    rather than taken. The last ``token`` wins, as in ``query_params``."""
    found = None
    for part in query_string.decode("latin-1").split("&"):
        name, eq, value = part.partition("=")
        if name == "token" and eq:
            found = unquote_plus(value)
        elif unquote_plus(name).strip().lower() == "token":
            raise MisspelledToken(name)
    return found


async def room_socket(websocket: WebSocket, code: str) -> None:
    """Serve one connection (see module docstring and ``docs/protocol.md``)."""
    try:
        await _room_socket(websocket, code)
    except GONE as err:
        log.debug("client went away: %s", type(err).__name__)
    except RuntimeError as err:  # Starlette: send/receive after the socket closed
        if "close" not in str(err) and "disconnect" not in str(err):
            raise
        log.debug("client went away: %s", err)


async def _room_socket(websocket: WebSocket, code: str) -> None:
    await websocket.accept()
    address = websocket.client.host if websocket.client else "unknown"
    limits = getattr(websocket.app.state, "limits", None)
    if limits is not None and not await limits.allow("sockets", address):
        await websocket.send_json(_error("rate_limited", "too many connections"))
        await websocket.close(4429)
        return
    sockets = occupancy(websocket.app)
    if sockets.by_address[address] >= sockets.caps.per_address:
        await websocket.send_json(
            _error("too_many_sockets", "too many sockets open from this address")
        )
        await websocket.close(CAPACITY_CLOSE)
        return
    sockets.by_address[address] += 1
    try:
        await _open_socket(websocket, code, address, sockets)
    finally:
        sockets.drop(sockets.by_address, address)


async def _open_socket(websocket: WebSocket, code: str, address: str, sockets: Occupancy) -> None:
    try:
        token = query_token(websocket.scope.get("query_string", b""))
    except MisspelledToken:
        await websocket.send_json(_error("bad_token", "the token goes in ?token="))
        await websocket.close(CLOSE_CODES["bad_token"])
        return
    ROOM.set(code)
    manager = websocket.app.state.manager
    try:
        if not valid_code(code):  # refused before the manager (or the store) sees it
            raise RoomError("unknown_room", f"no room {code}")
        actor, seat = await manager.authenticate(code, token)
    except RoomError as err:
        await websocket.send_json(_error(err.code, err.message))
        await websocket.close(CLOSE_CODES.get(err.code, 4400))
        return

    caps = sockets.caps
    if seat is None and (
        sockets.spectators[code] >= caps.spectators or sockets.by_room[code] >= caps.per_room
    ):  # a seat always gets in: it replaces its own previous socket
        await websocket.send_json(_error("too_many_spectators", "this room has no more room"))
        await websocket.close(CAPACITY_CLOSE)
        return
    sockets.by_room[code] += 1
    if seat is None:
        sockets.spectators[code] += 1
    limit = getattr(websocket.app.state, "rate_limit", RATE_LIMIT)
    budget = sockets.budget(address, code, limit)
    try:
        await _serve_socket(websocket, code, actor, seat, budget)
    finally:
        sockets.release(budget)
        sockets.drop(sockets.by_room, code)
        if seat is None:
            sockets.drop(sockets.spectators, code)


async def _serve_socket(
    websocket: WebSocket, code: str, actor: Any, seat: int | None, budget: Budget
) -> None:
    bus = websocket.app.state.bus
    SEAT.set(seat)
    conn_id = secrets.token_hex(8)
    channel = seat_channel(code, seat)
    # Counted before anything awaits, so that the room is not unloaded under this socket;
    # spectators are counted too (not shown): an unwatched room may pause (Timing).
    key = SPECTATORS if seat is None else seat
    actor.connected[key] = actor.connected.get(key, 0) + 1
    try:
        sub = await bus.subscribe(channel)
    except BaseException:
        actor.connected[key] = max(0, actor.connected.get(key, 1) - 1)
        raise
    role = "spectator" if seat is None else "seat"
    metrics.SOCKETS.labels(role=role).inc()
    if seat is not None:
        await bus.publish(channel, {"type": "_takeover", "conn": conn_id})
        await actor.publish_room()
    elif actor.connected[key] == 1:  # spectators: the room is told on 0 <-> 1 only
        await actor.publish_room(quiet=True)
    send_lock = asyncio.Lock()

    ctx: dict[str, Any] = {}

    async def send(msg: dict[str, Any], text: str | None = None) -> None:
        """Send ``msg`` unless the last snapshot sent already covers it, or it is a
        snapshot older than the last versioned message sent (a ``sync`` answered by an owner
        that had not caught up, or crossed by newer events): the socket's versions never go
        back. ``text``: its JSON text as the bus delivered it, sent as is (no second
        encoding)."""
        async with send_lock:
            if msg.get("type") == "snapshot":
                last = ctx.get("last")
                if last is not None and (msg["hand_no"], msg["version"]) < last[:2]:
                    return  # older than what was sent (a sync crossed newer messages)
                ctx["snap"] = msg
            elif "snap" in ctx and not _newer(msg, ctx["snap"]):
                return
            if text is None:
                await websocket.send_json(msg)
            else:
                await websocket.send_text(text)
            if msg.get("type") in ("snapshot", "event", "hand_end"):
                ctx["last"] = (msg["hand_no"], msg["version"], msg["type"] != "snapshot")
                HAND.set(msg["hand_no"])

    snap: dict[str, Any] = await actor.snapshot(seat)
    closing = asyncio.Event()

    async def resync() -> None:
        """Send a fresh snapshot in place of what this socket missed; while the room has no
        owner that answers (it is moving, the bus is away) ask again, every second at most,
        forwarding nothing meanwhile (what arrives is covered by the snapshot or after it)."""
        delay = 0.1
        while not closing.is_set():
            try:
                fresh = await actor.snapshot(seat)
            except GONE:
                raise
            except Exception as err:  # RoomError("unavailable"), the bus's errors
                log.info("resync of seat %s delayed: %r", seat, err)
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            await send(fresh)
            return

    async def writer() -> None:
        try:
            while True:
                text = await sub.get_text()
                # routed by its head; decoded only when it is not a stamped event
                msg = message_head(text) or decode(text)
                kind = msg.get("type")
                if kind == "_takeover":
                    if msg.get("conn") != conn_id:
                        await send(_error("replaced", "this seat connected elsewhere"))
                        closing.set()
                        await websocket.close(4409)
                        return
                    continue
                if kind == GAP or _missed(msg, ctx.get("last")):
                    # the bus may have lost messages, or this one shows a loss: a fresh
                    # snapshot (taken after ``msg`` was published) replaces it
                    await resync()
                    continue
                await send(msg, text)
        except (SubscriptionClosed, RuntimeError, *GONE):
            pass
        if not closing.is_set():  # fell behind: the client must resync
            closing.set()
            with contextlib.suppress(Exception):
                await websocket.close(1011)

    try:
        await send(snap)
        writer_task = asyncio.create_task(writer())
        try:
            await _reader(websocket, actor, seat, send, budget, lambda: ctx.get("last"))
        finally:
            closing.set()
            writer_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer_task
    except GONE:
        pass
    finally:
        metrics.SOCKETS.labels(role=role).dec()
        await sub.close()
        key = SPECTATORS if seat is None else seat
        actor.connected[key] = max(0, actor.connected.get(key, 1) - 1)
        if seat is not None or actor.connected[key] == 0:
            with contextlib.suppress(Exception):
                await actor.publish_room(quiet=seat is None)


async def _reader(
    websocket: WebSocket,
    actor: Any,
    seat: int | None,
    send: Any,
    budget: Budget,
    last: Callable[[], tuple[int, int, bool] | None],
) -> None:
    """Read and dispatch the socket's frames. ``last``: the (hand_no, version, after_event)
    of the socket's last message sent, whose hand its log lines name (the writer task sets
    ``HAND`` in its own context only: this task's would keep the hand it connected in)."""
    per_second = budget.limit[1]
    refused = 0
    too_large = f"messages are limited to {MAX_MESSAGE_BYTES} bytes"
    bad_frames = 0

    async def bad(code: str, message: str, seq: int | None = None) -> None:
        """Refuse a frame the client got wrong: one WARNING per connection (the first;
        the rest at DEBUG, a fuzzing client must not flood the log), no traceback."""
        nonlocal bad_frames
        bad_frames += 1
        level = logging.WARNING if bad_frames == 1 else logging.DEBUG
        log.log(level, "client protocol error %s: %s (frame %d)", code, message, bad_frames)
        await send(_error(code, message, seq))

    while True:
        raw = await websocket.receive()
        if raw["type"] == "websocket.disconnect":
            return
        sent = last()
        if sent is not None:
            HAND.set(sent[0])
        if not budget.take(time.monotonic()):  # every frame counts, whatever it holds
            refused += 1
            if refused > FLOOD_LIMIT:
                await websocket.close(1008, "flooding")
                return
            limited = f"at most {per_second:g} messages per second"
            await send(_error("rate_limited", limited, _frame_seq(raw)))
            continue
        refused = 0
        text = raw.get("text")
        if text is None and raw.get("bytes") is not None:
            data: bytes = raw["bytes"]
            if len(data) > MAX_MESSAGE_BYTES:
                await bad("too_large", too_large)
                continue
            try:
                text = data.decode()
            except UnicodeDecodeError:
                await bad("bad_message", "not UTF-8 text")
                continue
        text = text or ""
        if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
            await bad("too_large", too_large)
            continue
        seq = None
        try:
            data_obj = decode(text)  # (orjson: a sixth of the stdlib decoder's time)
            seq = _echo_seq(data_obj)
            msg = ClientMessageAdapter.validate_python(data_obj)
        except (json.JSONDecodeError, RecursionError):  # (orjson: also too deep, a lone surrogate)
            await bad("bad_message", "not JSON (or nested too deeply)", seq)
            continue
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            # (a message that is not an object has no field to name)
            reason = f"{where}: {first['msg']}" if where else str(first["msg"])
            # a lone surrogate in a key: keep it sendable
            reason = reason.encode("utf-8", "backslashreplace").decode("utf-8")
            await bad("bad_message", reason, seq)
            continue
        await _dispatch(actor, seat, msg, send)


async def _dispatch(actor: Any, seat: int | None, msg: Any, send: Any) -> None:
    start = time.perf_counter()
    outcome = await _handle(actor, seat, msg, send)
    metrics.observe_action(msg.type, outcome, time.perf_counter() - start)


async def _handle(actor: Any, seat: int | None, msg: Any, send: Any) -> str:
    """Carry out one client message; returns ``ok`` or the refusal's error code."""
    seq = msg.seq
    if msg.type == "ping":
        await send({"type": "pong", "seq": seq})
        return "ok"
    if msg.type == "sync":
        try:
            await send(await actor.snapshot(seat))
        except RoomError as err:  # e.g. ``unavailable`` while the room moves
            await send(_error(err.code, err.message, seq))
            return err.code
        return "ok"
    if seat is None:
        await send(_error("spectator", "spectators cannot play", seq))
        return "spectator"
    try:
        if msg.type == "action":
            action = Action.from_dict(msg.action.model_dump(exclude_none=True))
            await actor.act(seat, action, msg.prompt)
        elif msg.type == "ready":
            await actor.mark_ready(seat)
        elif msg.type == "auto":
            await actor.set_auto(seat, msg.on)
        elif msg.type == "dissolve":
            await actor.vote_dissolve(seat, msg.agree)
        elif msg.type == "phrase":  # 快捷语: no game state, nothing logged
            await actor.quick_phrase(seat, msg.phrase)
    except (IllegalAction, RoomError) as err:
        await send(_error(err.code, err.message, seq))
        return err.code
    return "ok"
