"""The FastAPI application: rooms REST, the room WebSocket, admin REST (:mod:`server.api.admin`),
health, static web/.

``create_app(settings=None, clock=None)`` is the factory (``uvicorn --factory
server.api.app:create_app``). Shapes: ``docs/protocol.md``; models: :mod:`server.api.messages`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from sqlalchemy.exc import DataError, DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

from server import heap, metrics
from server.api import admin as admin_api
from server.api import me as me_api
from server.api import replays as replays_api
from server.api.headers import SecurityHeaders
from server.api.http import BodyLimit, InternalErrors
from server.api.limits import AddressLimits
from server.api.messages import (
    AgainResponse,
    BotsRequest,
    BotsResponse,
    CreateRoomRequest,
    CreateRoomResponse,
    JoinRequest,
    JoinResponse,
    RoomInfo,
)
from server.api.params import bearer, client_address
from server.api.ws import Occupancy, SocketCaps, room_socket, valid_code
from server.bus import make_bus
from server.config import Settings, get_settings
from server.logs import (  # noqa: F401  (redact re-exported)
    ClientProtocolFilter,
    TokenRedactingFilter,
    redact,
)
from server.room import sweeper as room_sweeper
from server.room.actor import RoomError, Timing
from server.room.bounded import settle, watchdog
from server.room.clock import Clock
from server.room.cluster import Cluster
from server.room.manager import RoomManager
from server.rules.catalog import describe_options
from server.rules.registry import find_game, game_names
from server.store import Store, profiles, schema

log = logging.getLogger(__name__)

#: Largest HTTP request body (bytes): room options, names and admin corrections are far
#: smaller; a larger one is refused (413 ``too_large``, `BodyLimit`) before it is read whole.
MAX_BODY_BYTES = 64 * 1024
#: The ``code`` of an HTTP error raised with a bare message (Starlette's own: an unknown
#: route, a body it cannot parse), by status.
_PLAIN_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
_ALL_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

_STATUS = {
    "unknown_room": 404,
    "room_full": 409,
    "session_over": 409,
    "forbidden": 403,
    "bad_token": 403,
    "unavailable": 503,
    "seat_taken": 409,
    "seat_held": 409,
    "seat_empty": 404,
    "not_a_bot": 409,
    "room_started": 409,
    "already_seated": 409,
    "session_not_over": 409,
}


#: Loggers whose records may carry a request path (uvicorn logs ``WebSocket /ws/...?token=``).
REDACTED_LOGGERS = ("uvicorn.error", "uvicorn.access")


def install_log_redaction() -> None:
    """Add :class:`TokenRedactingFilter` and :class:`ClientProtocolFilter` to
    :data:`REDACTED_LOGGERS` (once each)."""
    for name in REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        for kind in (ClientProtocolFilter, TokenRedactingFilter):
            if not any(isinstance(f, kind) for f in logger.filters):
                logger.addFilter(kind())


def printable(value: Any) -> Any:
    """``value`` (JSON-like) with every string made encodable as UTF-8: a lone surrogate
    (``"\\ud800"`` in a request's JSON) becomes its ``\\ud800`` escape. Error answers echo
    the client's input; unencodable, they would turn a 422 into a 500."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable(v) for v in value]
    return value


def _rate_limited(what: str) -> JSONResponse:
    return JSONResponse(
        {"detail": {"code": "rate_limited", "message": f"too many {what}"}},
        status_code=429,
        headers={"Retry-After": "60"},
    )


async def _limited(request: Request, kind: str, what: str) -> JSONResponse | None:
    """A 429 answer if the client's address is over the ``kind`` limit (one hit counted)."""
    if await request.app.state.limits.allow(kind, client_address(request)):
        return None
    return _rate_limited(what)


def _unknown_room(code: str) -> HTTPException:
    return HTTPException(404, {"code": "unknown_room", "message": f"no room {code}"})


async def _seated_human(rooms: RoomManager, code: str, authorization: str | None) -> None:
    """Check that ``authorization`` (``Bearer <seat token>``) holds a human seat of room
    ``code`` (managing its bots needs one). Raises HTTPException 404 ``unknown_room`` (also
    without a token), 401 ``token_required`` (with ``WWW-Authenticate: Bearer``), and
    :class:`RoomError` ``bad_token`` from ``authenticate``."""
    if not valid_code(code):
        raise _unknown_room(code)
    token = bearer(authorization)
    if token is None:
        await rooms.info(code)  # an unknown room is still a 404
        raise HTTPException(
            401,
            {"code": "token_required", "message": "a seated player's token is needed"},
            headers={"WWW-Authenticate": "Bearer"},
        )
    await rooms.authenticate(code, token)


def _http_error(err: RoomError) -> HTTPException:
    return HTTPException(_STATUS.get(err.code, 400), {"code": err.code, "message": err.message})


def _web_dir() -> Path | None:
    for candidate in (Path(__file__).resolve().parents[2] / "web", Path.cwd() / "web"):
        if candidate.is_dir():
            return candidate
    return None


async def _ready(app: FastAPI, timeout: float) -> dict[str, str]:
    """``{"database": "ok" | error, "redis": "ok" | error | "unused"}``, each probe bounded
    by ``timeout`` seconds."""
    from sqlalchemy import text

    async def database() -> None:
        async with app.state.store.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    async def redis() -> None:
        await app.state.redis.ping()

    checks: dict[str, Any] = {"database": database}
    if app.state.redis is not None:
        checks["redis"] = redis
    result = {"redis": "unused"}
    for name, probe in checks.items():
        try:
            async with asyncio.timeout(timeout):
                await probe()
            result[name] = "ok"
        except TimeoutError:
            result[name] = f"no answer within {timeout:g} s"
        except Exception as err:
            result[name] = f"{type(err).__name__}: {err}"[:200]
    return result


def _data_error(err: DBAPIError) -> bool:
    """Whether the database refused a value as data (SQLAlchemy's ``DataError``, or the
    driver's SQLSTATE class 22, which asyncpg's errors carry without that class)."""
    sqlstate = getattr(err.orig, "sqlstate", None) or getattr(err.orig, "pgcode", None)
    return isinstance(err, DataError) or str(sqlstate or "").startswith("22")


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the app. On startup: wait for the database (``DB_WAIT_SECONDS``), migrate it
    (``MIGRATE``, the default) or check that its schema serves this release (raises
    :class:`server.store.schema.SchemaError` if not), open the bus and the room manager; on
    shutdown: stop the room actors and close both."""
    settings = settings or get_settings()
    install_log_redaction()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.migrate:
            note = await schema.migrate(
                settings.database_url, wait_seconds=settings.db_wait_seconds
            )
            store = Store(settings.database_url)
        else:
            store = Store(settings.database_url)
            await schema.wait_for_database(store.engine, settings.db_wait_seconds)
            note = await schema.check_schema(store.engine)
        log.info(note)
        metrics.instrument_engine(store.engine)
        bus: Any = metrics.InstrumentedBus(make_bus(settings.redis_url))
        app.state.redis = None
        if settings.redis_url:
            import redis.asyncio as aioredis

            app.state.redis = aioredis.Redis.from_url(
                settings.redis_url, socket_timeout=settings.ready_timeout_seconds
            )
        timing = Timing(
            claim_seconds=settings.claim_seconds,
            turn_seconds=settings.turn_seconds,
            claim_min_ms=settings.claim_min_ms,
            auto_seconds=settings.auto_seconds,
            ready_seconds=settings.ready_seconds,
            vote_seconds=settings.vote_seconds,
            claim_hold=settings.claim_hold,
            pause_unwatched=settings.pause_unwatched,
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
            store,
            bus,
            clock,
            timing,
            cluster=cluster,
            start_wait=settings.start_wait_seconds,
            idle_seconds=settings.room_idle_seconds,
            unload_every=settings.unload_seconds or None,
        )
        await app.state.manager.start()
        metrics.track_manager(app.state.manager)
        metrics.observe_gc()
        freezer = None
        if settings.gc_full_seconds > 0:  # (serve's process only: it freezes the whole heap)
            freezer = asyncio.create_task(heap.keep_frozen(settings.gc_full_seconds), name="heap")
        sweeper = None
        interval = settings.sweep_seconds
        if interval is None:
            interval = settings.lease_seconds if cluster is not None else 0
        if interval > 0:
            sweeper = asyncio.create_task(
                room_sweeper.run(app.state.manager, store, cluster, interval), name="sweeper"
            )
        app.state.settings = settings
        app.state.rate_limit = (settings.message_burst, settings.messages_per_second)
        app.state.occupancy = Occupancy(
            SocketCaps(
                per_address=settings.sockets_per_address,
                per_room=settings.sockets_per_room,
                spectators=settings.spectators_per_room,
            )
        )
        app.state.limits = AddressLimits(
            {
                "rooms": settings.rooms_per_minute,
                "sockets": settings.sockets_per_minute,
                "lookups": settings.lookups_per_minute,
                "joins": settings.joins_per_minute,
                "admin": settings.admin_failures_per_minute,
            },
            settings.redis_url,
        )
        try:
            yield
        finally:
            # Bounded whatever Redis or the database do (SHUTDOWN_SECONDS): the rooms'
            # leases are released first thing after the actors stop, so other processes
            # carry on at once; a task that ignores cancellation cannot hold the exit.
            if settings.shutdown_watchdog:  # the server process of `serve`, not a test's
                watchdog(settings.shutdown_seconds + 0.5)
            loop = asyncio.get_running_loop()
            end = loop.time() + settings.shutdown_seconds
            for task in (sweeper, freezer):
                if task is not None:
                    task.cancel()
                    await settle([task], 0.1, what=task.get_name())
            await app.state.manager.close(timeout=max(0.5, settings.shutdown_seconds * 0.6))
            closing = [app.state.limits.close(), bus.close(), store.close()]
            if app.state.redis is not None:
                closing.append(app.state.redis.aclose())
            await settle(closing, max(0.2, end - loop.time()), what="connection")

    docs = settings.api_docs
    app = FastAPI(
        title="Guiyang Zhuoji mahjong",
        lifespan=lifespan,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        openapi_url="/openapi.json" if docs else None,
    )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        """Every HTTP error as ``{"detail": {"code", "message"}}``: one raised with a bare
        message (`_PLAIN_CODES`) gets the code of its status; its headers are kept."""
        if isinstance(err.detail, str):
            code = _PLAIN_CODES.get(err.status_code, f"http_{err.status_code}")
            err = HTTPException(err.status_code, {"code": code, "message": err.detail}, err.headers)
        return await http_exception_handler(request, err)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, err: RequestValidationError) -> JSONResponse:
        """FastAPI's 422 (``{"detail": [{"loc", "msg", "type", "input"?}]}``), with the
        client's input made printable (a lone surrogate in any JSON string is a 422 naming
        the field, not a 500)."""
        return JSONResponse({"detail": printable(jsonable_encoder(err.errors()))}, status_code=422)

    @app.exception_handler(DBAPIError)
    @app.exception_handler(OSError)
    async def database_unavailable(request: Request, err: Exception) -> JSONResponse:
        """A database (or Redis) that does not answer: 503 ``unavailable``, one log line,
        no traceback (``/readyz`` says the same to the proxy). But a value the database
        refused as data (SQLSTATE class 22: a NUL in a string on PostgreSQL) that no check
        before caught is the client's: 400 ``bad_request``, not an outage."""
        if isinstance(err, DBAPIError) and _data_error(err):
            metrics.ERRORS.labels(code="bad_request").inc()
            path = request.url.path
            log.warning("%s %s: the database refused a value: %s", request.method, path, err.orig)
            return JSONResponse(
                {"detail": {"code": "bad_request", "message": "a value the server cannot store"}},
                status_code=400,
            )
        metrics.ERRORS.labels(code="unavailable").inc()
        log.warning("%s %s: unavailable: %s", request.method, request.url.path, err)
        return JSONResponse(
            {"detail": {"code": "unavailable", "message": "the service is unavailable"}},
            status_code=503,
            headers={"Retry-After": "5"},
        )

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """``{"status": "alive"}``: the process answers (liveness; checks nothing else)."""
        return {"status": "alive"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> Any:
        """200 ``{"status": "ready", "database": "ok", "redis": "ok" | "unused"}`` when the
        database (and Redis, if used) answer within ``READY_TIMEOUT_SECONDS``; else 503
        ``{"status": "unavailable", ...}`` with each failing probe's error."""
        checks = await _ready(request.app, request.app.state.settings.ready_timeout_seconds)
        ok = all(v in ("ok", "unused") for v in checks.values())
        return JSONResponse(
            {"status": "ready" if ok else "unavailable", **checks}, status_code=200 if ok else 503
        )

    @app.get("/metrics", include_in_schema=False)
    async def metrics_endpoint(
        request: Request, authorization: str | None = Header(default=None)
    ) -> Response:
        """Prometheus exposition text (:mod:`server.metrics`), for ``Authorization: Bearer
        <METRICS_TOKEN>`` only (403 ``forbidden`` otherwise, `admin_api.require_token`);
        404 ``not_found`` without ``METRICS_TOKEN``. Its counters move with each answer a
        seat sends, so read freely they would tell who could claim a discard."""
        token = request.app.state.settings.metrics_token
        if not token:
            raise HTTPException(404, {"code": "not_found", "message": "metrics are off"})
        await admin_api.require_token(request, token, authorization, "metrics")
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

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
        if (refused := await _limited(request, "rooms", "rooms created")) is not None:
            return refused
        try:
            actor = await rooms.create_room(body.options, body.game)
        except ValidationError as err:
            detail = [
                {"loc": ["body", "options", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                for e in err.errors()
            ]
            return JSONResponse({"detail": printable(detail)}, status_code=422)
        return {"code": actor.code, "game": actor.game.name, "options": actor.options}

    @app.post("/api/rooms/{code}/join", response_model=JoinResponse)
    async def join(
        code: str,
        body: JoinRequest,
        request: Request,
        rooms: RoomManager = Depends(manager),
        authorization: str | None = Header(default=None),
    ) -> Any:
        """Take the next free seat: ``{"seat", "token", "player"}``. The player's profile is
        named by ``Authorization: Bearer <player code>`` (403 ``bad_player_code`` for a code
        of no profile; its name becomes ``name``); without one a profile is made (its
        ``player.code`` is in the answer, once). 404 ``unknown_room``, 409 ``session_over``
        (the room's session finished or was dissolved), 409 ``room_full``, 409
        ``already_seated`` (the profile holds a seat of the room); 429 ``rate_limited``
        beyond ``JOINS_PER_MINUTE``."""
        if (refused := await _limited(request, "joins", "joins")) is not None:
            return refused
        if not valid_code(code):
            raise _unknown_room(code)
        store = request.app.state.store
        player = await me_api.player_of(store, authorization)
        secret = None
        if player is not None and await profiles.seat_of(store, player.id, code) is not None:
            raise HTTPException(
                409, {"code": "already_seated", "message": "you already hold a seat here"}
            )
        made = None
        try:
            await rooms.info(code)  # an unknown room makes no profile
            if player is None:
                player, secret = made = await profiles.create_profile(store, body.name)
            seat, token = await rooms.join(code, body.name, profile_id=player.id, seat=body.seat)
        except RoomError as err:
            if made is not None:  # a refused join leaves no profile behind (nor a new name)
                await profiles.delete_unseated(store, made[0].id)
            raise _http_error(err)
        if player.name != body.name:
            player = await profiles.rename_profile(store, player.id, body.name)
        return {"seat": seat, "token": token, "player": me_api.profile_out(player, secret)}

    @app.post(
        "/api/rooms/{code}/bots",
        response_model=BotsResponse,
        responses={401: {"description": "no seat token"}, 403: {"description": "bad token"}},
    )
    async def bots(
        code: str,
        body: BotsRequest,
        request: Request,
        rooms: RoomManager = Depends(manager),
        authorization: str | None = Header(default=None),
    ) -> Any:
        """Fill up to ``count`` free seats with bots: ``{"seats": [...]}``. Needs the token of
        a human seated in the room (``Authorization: Bearer <seat token>``): 401
        ``token_required`` without one, 403 ``bad_token`` for one that holds no seat here;
        404 ``unknown_room``, 409 ``room_full``; 429 beyond ``JOINS_PER_MINUTE``."""
        if (refused := await _limited(request, "joins", "joins")) is not None:
            return refused
        try:
            await _seated_human(rooms, code, authorization)
            seats = await rooms.add_bots(code, body.count, body.seat)
        except RoomError as err:
            raise _http_error(err)
        return {"seats": seats}

    @app.delete(
        "/api/rooms/{code}/bots/{seat}",
        status_code=204,
        responses={401: {"description": "no seat token"}, 403: {"description": "bad token"}},
    )
    async def remove_bot(
        code: str,
        seat: int,
        request: Request,
        rooms: RoomManager = Depends(manager),
        authorization: str | None = Header(default=None),
    ) -> Response:
        """Take the bot out of ``seat`` before the deal (204, the seat is free again). Needs
        a seated human's token as ``POST .../bots`` does (401 ``token_required``, 403
        ``bad_token``); 404 ``unknown_room`` / ``seat_empty``, 409 ``not_a_bot`` (a human
        sits there) / ``room_started`` (the room is full and dealt); 429 beyond
        ``JOINS_PER_MINUTE``."""
        if (refused := await _limited(request, "joins", "joins")) is not None:
            return refused
        try:
            await _seated_human(rooms, code, authorization)
            await rooms.remove_bot(code, seat)
        except RoomError as err:
            raise _http_error(err)
        return Response(status_code=204)

    @app.get("/api/games")
    def games() -> dict[str, Any]:
        """The games this server knows and the options of each (the room form):
        ``{"games": [{"name", "options": [{"name", "type", "default", "choices"?,
        "choice_labels"?, "min"?, "max"?, "label_zh", "label_en"}]}]}``."""
        return {
            "games": [
                {"name": name, "options": describe_options(find_game(name).options_model)}
                for name in game_names()
            ]
        }

    @app.get("/api/rooms/{code}", response_model=RoomInfo)
    async def room(code: str, request: Request, rooms: RoomManager = Depends(manager)) -> Any:
        """The room's public information (no tiles); 404 ``unknown_room``; 429
        ``rate_limited`` beyond ``LOOKUPS_PER_MINUTE``."""
        if (refused := await _limited(request, "lookups", "room lookups")) is not None:
            return refused
        if not valid_code(code):
            raise _unknown_room(code)
        try:
            info = await rooms.info(code)
        except RoomError as err:
            raise _http_error(err)
        if info["status"] in ("finished", "dissolved"):
            info = {**info, "next": await rooms.store.next_room(code)}
        return info

    @app.post(
        "/api/rooms/{code}/again",
        response_model=AgainResponse,
        responses={401: {"description": "no seat token"}, 403: {"description": "bad token"}},
    )
    async def again(
        code: str,
        request: Request,
        rooms: RoomManager = Depends(manager),
        authorization: str | None = Header(default=None),
    ) -> Any:
        """再来一场: the room this finished (or dissolved) session's players go on in, made
        by the first caller with the same game and options and this room's bots in their
        seats: ``{"code"}``, the same for every caller; each then joins it (``join``). Needs
        a seated human's token as ``POST .../bots`` does (401 ``token_required``, 403
        ``bad_token``); 404 ``unknown_room``, 409 ``session_not_over``; 429 beyond
        ``ROOMS_PER_MINUTE``."""
        if (refused := await _limited(request, "rooms", "rooms created")) is not None:
            return refused
        try:
            await _seated_human(rooms, code, authorization)
            return {"code": await rooms.again(code)}
        except RoomError as err:
            raise _http_error(err)

    app.include_router(admin_api.router)
    app.include_router(replays_api.router)
    app.include_router(me_api.router)

    @app.api_route("/api/{path:path}", methods=list(_ALL_METHODS), include_in_schema=False)
    async def unknown_api(request: Request, path: str) -> Response:
        """An ``/api`` path and method no route serves, answered here rather than by the
        static files mounted at ``/`` (a POST there is their 405): 405
        ``method_not_allowed`` (with ``Allow``) when routes serve the path with other
        methods (each method is tried on every route: routers included by FastAPI keep
        their own), else 404 ``not_found``."""
        allowed = [
            method
            for method in _ALL_METHODS
            if any(
                route.matches({**request.scope, "method": method})[0] is Match.FULL
                for route in app.router.routes
                if getattr(route, "endpoint", None) is not unknown_api
                and not isinstance(route, Mount)
            )
        ]
        if allowed:
            raise HTTPException(
                405,
                {"code": "method_not_allowed", "message": f"{request.method} is not allowed"},
                headers={"Allow": ", ".join(allowed)},
            )
        raise HTTPException(404, {"code": "not_found", "message": f"no API path /api/{path}"})

    app.add_api_websocket_route("/ws/rooms/{code}", room_socket)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(metrics.RequestMetrics)
    app.add_middleware(InternalErrors)
    app.add_middleware(SecurityHeaders)  # outermost of ours: every answer gets them

    web = _web_dir()
    if web is not None:
        admin_page = web / "admin.html"

        @app.get("/admin", include_in_schema=False)
        async def admin_console() -> FileResponse:
            """The admin console (web/admin.html); its data needs the admin token."""
            return FileResponse(admin_page)

        replay_page = web / "replay.html"

        @app.get("/replay", include_in_schema=False)
        async def replay_viewer() -> FileResponse:
            """The 回放 viewer (web/replay.html); its data needs the hand's replay key (or the
            admin token)."""
            return FileResponse(replay_page)

        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    return app
