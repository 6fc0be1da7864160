"""The FastAPI application: rooms REST, the room WebSocket, admin REST, health, static web/.

``create_app(settings=None, clock=None)`` is the factory (``uvicorn --factory
server.api.app:create_app``). Shapes: ``docs/protocol.md``; models: :mod:`server.api.messages`.
"""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from server.api.messages import (
    BotsRequest,
    BotsResponse,
    CreateRoomRequest,
    CreateRoomResponse,
    JoinRequest,
    JoinResponse,
    RoomInfo,
)
from server.api.ws import RATE_LIMIT, room_socket, valid_code
from server.bus import make_bus
from server.config import Settings, get_settings
from server.room.actor import RoomError, Timing
from server.room.clock import Clock
from server.room.cluster import Cluster
from server.room.manager import RoomManager
from server.store import Store

_STATUS = {"unknown_room": 404, "room_full": 409, "forbidden": 403, "unavailable": 503}


class AddressLimiter:
    """A token bucket per client address: ``per_minute`` tokens, refilled continuously.

    ``allow(address)`` takes a token and returns True, or returns False (nothing taken) when
    the address has none left. Idle full buckets are forgotten, so memory stays bounded by
    the addresses active in the last minute.
    """

    def __init__(self, per_minute: int, clock: Any = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, address: str) -> bool:
        now = self._clock()
        rate = self.per_minute / 60.0
        if len(self._buckets) > 10_000:  # forget buckets that have refilled
            self._buckets = {
                a: (t, at)
                for a, (t, at) in self._buckets.items()
                if t + (now - at) * rate < self.per_minute
            }
        tokens, at = self._buckets.get(address, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - at) * rate)
        if tokens < 1:
            self._buckets[address] = (tokens, now)
            return False
        self._buckets[address] = (tokens - 1, now)
        return True


_TOKEN = re.compile(r"(token=)[^\s&#\"']+")
#: Loggers whose records may carry a request path (uvicorn logs ``WebSocket /ws/...?token=``).
REDACTED_LOGGERS = ("uvicorn.error", "uvicorn.access")


def redact(text: str) -> str:
    """``text`` with every ``token=<value>`` replaced by ``token=***``."""
    return _TOKEN.sub(r"\1***", text)


class TokenRedactingFilter(logging.Filter):
    """Replaces ``token=<value>`` with ``token=***`` in a record before any handler sees it.

    String arguments are redacted in place (uvicorn's access formatter unpacks ``args``), as
    is ``msg``; if the formatted message still holds a token, it replaces ``msg`` and ``args``
    becomes ``()``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        try:
            message = record.getMessage()
        except Exception:
            return True
        if _TOKEN.search(message.replace("token=***", "")):
            record.msg, record.args = redact(message), ()
        return True


def install_log_redaction() -> None:
    """Add :class:`TokenRedactingFilter` to :data:`REDACTED_LOGGERS` (once each)."""
    for name in REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, TokenRedactingFilter) for f in logger.filters):
            logger.addFilter(TokenRedactingFilter())


def _unknown_room(code: str) -> HTTPException:
    return HTTPException(404, {"code": "unknown_room", "message": f"no room {code}"})


def _http_error(err: RoomError) -> HTTPException:
    return HTTPException(_STATUS.get(err.code, 400), {"code": err.code, "message": err.message})


def _web_dir() -> Path | None:
    for candidate in (Path(__file__).resolve().parents[2] / "web", Path.cwd() / "web"):
        if candidate.is_dir():
            return candidate
    return None


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the app. On startup: open the store (and run its migrations), the bus, and the
    room manager; on shutdown: stop the room actors and close both."""
    settings = settings or get_settings()
    install_log_redaction()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.database_url)
        await store.migrate()
        bus = make_bus(settings.redis_url)
        timing = Timing(
            claim_seconds=settings.claim_seconds,
            turn_seconds=settings.turn_seconds,
            claim_min_ms=settings.claim_min_ms,
            auto_seconds=settings.auto_seconds,
            ready_seconds=settings.ready_seconds,
            vote_seconds=settings.vote_seconds,
        )
        app.state.store = store
        app.state.bus = bus
        cluster = None
        if settings.redis_url:  # several processes may share the rooms: leases + forwarding
            cluster = Cluster(
                settings.redis_url,
                bus,
                lease_seconds=settings.lease_seconds,
                margin=settings.lease_margin_seconds,
            )
        app.state.manager = RoomManager(
            store, bus, clock, timing, cluster=cluster, start_wait=settings.start_wait_seconds
        )
        await app.state.manager.start()
        app.state.settings = settings
        app.state.rate_limit = RATE_LIMIT
        app.state.room_limiter = AddressLimiter(settings.rooms_per_minute)
        try:
            yield
        finally:
            await app.state.manager.close()
            await bus.close()
            await store.close()

    app = FastAPI(title="Guiyang Zhuoji mahjong", lifespan=lifespan)

    def manager(request: Request) -> RoomManager:
        return request.app.state.manager

    @app.get("/api/health")
    async def health(request: Request) -> dict[str, Any]:
        """``{"status": "ok", "rooms": n}``: n = rooms live in this process."""
        return {"status": "ok", "rooms": len(request.app.state.manager.rooms)}

    @app.post("/api/rooms", status_code=201, response_model=CreateRoomResponse)
    async def create_room(
        body: CreateRoomRequest, request: Request, rooms: RoomManager = Depends(manager)
    ) -> Any:
        """Create a room; 422 with FastAPI's error shape naming ``body.options.<field>``;
        429 ``rate_limited`` beyond ``ROOMS_PER_MINUTE`` rooms per client address."""
        address = request.client.host if request.client else "unknown"
        if not request.app.state.room_limiter.allow(address):
            return JSONResponse(
                {"detail": {"code": "rate_limited", "message": "too many rooms created"}},
                status_code=429,
                headers={"Retry-After": "60"},
            )
        try:
            actor = await rooms.create_room(body.options)
        except ValidationError as err:
            detail = [
                {"loc": ["body", "options", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                for e in err.errors()
            ]
            return JSONResponse({"detail": detail}, status_code=422)
        return {"code": actor.code, "game": "guiyang", "options": actor.options}

    @app.post("/api/rooms/{code}/join", response_model=JoinResponse)
    async def join(code: str, body: JoinRequest, rooms: RoomManager = Depends(manager)) -> Any:
        """Take the next free seat: ``{"seat", "token"}``; 404 ``unknown_room``,
        409 ``room_full``."""
        if not valid_code(code):
            raise _unknown_room(code)
        try:
            seat, token = await rooms.join(code, body.name)
        except RoomError as err:
            raise _http_error(err)
        return {"seat": seat, "token": token}

    @app.post("/api/rooms/{code}/bots", response_model=BotsResponse)
    async def bots(code: str, body: BotsRequest, rooms: RoomManager = Depends(manager)) -> Any:
        """Fill up to ``count`` free seats with bots: ``{"seats": [...]}``."""
        if not valid_code(code):
            raise _unknown_room(code)
        try:
            seats = await rooms.add_bots(code, body.count)
        except RoomError as err:
            raise _http_error(err)
        return {"seats": seats}

    @app.get("/api/rooms/{code}", response_model=RoomInfo)
    async def room(code: str, rooms: RoomManager = Depends(manager)) -> Any:
        """The room's public information (no tiles)."""
        if not valid_code(code):
            raise _unknown_room(code)
        try:
            info = await rooms.info(code)
        except RoomError as err:
            raise _http_error(err)
        return info

    def admin(request: Request, authorization: str | None = Header(default=None)) -> None:
        token = request.app.state.settings.admin_token
        scheme, _, given = (authorization or "").partition(" ")
        if (
            not token
            or scheme != "Bearer"
            or not secrets.compare_digest(given.encode(), token.encode())
        ):
            raise HTTPException(403, {"code": "forbidden", "message": "admin token required"})

    @app.get("/api/admin/ledger", dependencies=[Depends(admin)])
    async def ledger(
        request: Request,
        room: str | None = None,
        player: str | None = None,
        since: datetime | None = None,
        limit: int = 100,
    ) -> dict[str, Any]:
        """Ledger rows, newest first: ``{"rows": [{"id", "room", "hand_no", "from", "to",
        "from_name", "to_name", "points", "reason", "detail", "created_at"}]}``."""
        rows = await request.app.state.store.ledger(
            code=room, player=player, since=since, limit=max(1, min(limit, 1000))
        )
        return {"rows": rows}

    @app.get("/api/admin/rooms", dependencies=[Depends(admin)])
    async def admin_rooms(request: Request, status: str | None = None) -> dict[str, Any]:
        """Every stored room: ``{"rooms": [{"code", "game", "status", "options", "seats"}]}``."""
        recs = await request.app.state.store.rooms(status)
        return {
            "rooms": [
                {
                    "code": r.code,
                    "game": r.game,
                    "status": r.status,
                    "options": r.options,
                    "seats": [{"seat": p.seat, "name": p.name, "bot": p.is_bot} for p in r.players],
                }
                for r in recs
            ]
        }

    app.add_api_websocket_route("/ws/rooms/{code}", room_socket)

    web = _web_dir()
    if web is not None:
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    return app
