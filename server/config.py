"""Settings, read from the environment (and an optional ``.env`` file).

Every field can be set by the upper-case environment variable of the same name, e.g.
``DATABASE_URL``, ``REDIS_URL``, ``ADMIN_TOKEN``, ``CLAIM_SECONDS``, ``TURN_SECONDS``,
``CLAIM_MIN_MS``, ``CLAIM_HOLD``, ``AUTO_SECONDS``, ``READY_SECONDS``, ``VOTE_SECONDS``,
``ROOM_IDLE_SECONDS``, ``UNLOAD_SECONDS``, ``PAUSE_UNWATCHED``,
``LEASE_SECONDS``, ``LEASE_MARGIN_SECONDS``, ``START_WAIT_SECONDS``, ``SWEEP_SECONDS``,
``ROOMS_PER_MINUTE``, ``SOCKETS_PER_MINUTE``, ``LOOKUPS_PER_MINUTE``, ``JOINS_PER_MINUTE``,
``ADMIN_FAILURES_PER_MINUTE``, ``SOCKETS_PER_ADDRESS``, ``SOCKETS_PER_ROOM``,
``SPECTATORS_PER_ROOM``, ``MESSAGES_PER_SECOND``, ``MESSAGE_BURST``, ``REQUEST_SECONDS``,
``KEEP_ALIVE_SECONDS``, ``GC_FULL_SECONDS``, ``MIGRATE``, ``DB_WAIT_SECONDS``,
``READY_TIMEOUT_SECONDS``, ``API_DOCS``, ``LOG_FORMAT``, ``HOST``, ``PORT``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: Settings whose values are never repeated in a message (they may carry a password).
SECRET = frozenset({"database_url", "redis_url", "admin_token", "metrics_token"})

DATABASE_URL_FORMS = "sqlite+aiosqlite:///PATH or postgresql+asyncpg://USER:PASSWORD@HOST:5432/DB"


def database_url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a ``DATABASE_URL`` (``None``: nothing): the server
    talks to its database through SQLAlchemy's async drivers only, aiosqlite and asyncpg.
    The message never repeats the URL (it may hold a password)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url.strip())
    except (ArgumentError, ValueError):
        return f"not a database URL: expected {DATABASE_URL_FORMS}"
    backend, _, driver = parsed.drivername.partition("+")
    if backend in ("postgres", "postgresql"):
        if driver != "asyncpg":
            return f"use postgresql+asyncpg://... (the async driver), not {parsed.drivername}://"
        if not parsed.database:
            return "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DB needs a database name (DB)"
        return None
    if backend == "sqlite":
        if driver != "aiosqlite":
            return f"use sqlite+aiosqlite:///PATH (the async driver), not {parsed.drivername}://"
        return None
    return f"unsupported database {parsed.drivername!r}: expected {DATABASE_URL_FORMS}"


def redis_url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a ``REDIS_URL`` (``None``: nothing)."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep or scheme not in ("redis", "rediss", "unix") or not rest:
        return "expected redis://HOST:6379/0 (or rediss://, unix://), or unset for one process"
    return None


def describe(err: ValidationError) -> str:
    """A settings error as one line per wrong variable, each naming the environment
    variable (``PORT``, not pydantic's ``port``), what it expects and the value given
    (never for a secret)."""
    lines = []
    for item in err.errors():
        name = str(item["loc"][0]) if item["loc"] else "?"
        msg = str(item["msg"]).removeprefix("Value error, ")
        shown = "" if name in SECRET else f" (got {item.get('input')!r})"
        lines.append(f"{name.upper()}: {msg}{shown}")
    return "\n".join(lines)


class Settings(BaseSettings):
    """Process-wide configuration.

    Attributes:
        database_url: SQLAlchemy async URL (``sqlite+aiosqlite:///...`` or
            ``postgresql+asyncpg://...``).
        redis_url: ``redis://host:port/db``; ``None`` means one process with an in-memory bus.
        admin_token: bearer token for ``/api/admin``; ``None`` disables the admin API.
        metrics_token: bearer token for ``/metrics``; ``None`` turns it off (404). Never open:
            its counters move with each claim answer a room logs, so on a quiet server a
            reader would see who could claim a discard before the window closes.
        claim_seconds: how long a claim window (pong/kong/win on a discard) stays open.
        turn_seconds: how long a seat may think on its own turn before auto-play.
        claim_min_ms: a claim window never closes earlier than this, even if all bots answered.
        claim_hold: how a claim window that no human could claim is held while a human
            (off auto-play) is seated: ``mimic`` (default) as long as a window a human of the
            room did think in (drawn from the room's recent ones), so that the length of a
            window does not tell whether a human could claim; ``min``: ``claim_min_ms`` only
            (docs/protocol.md "Claim windows").
        room_idle_seconds: a room that did nothing for this long and has no socket is
            unloaded from memory (rebuilt from the store when next asked for); finished
            rooms without sockets are unloaded at once. Keep it above every timer.
        unload_seconds: how often each process looks for rooms to unload (``0``: never).
        pause_unwatched: ``auto`` (default): a room whose every human seat is on auto-play
            (托管; a seat that left goes on it at its first timeout), or that has no human
            seat, pauses while no socket (seat or spectator) is open on it and resumes when
            one connects: a player who closed the page does not come back to hands played
            without anybody there; ``bots``: only a room without a human seat; ``never``.
        auto_seconds: how long a seat on auto-play (托管) "thinks" before its default action.
        ready_seconds: how long the room waits for ``ready`` between hands.
        vote_seconds: how long a dissolve vote stays open.
        lease_seconds: with ``redis_url``: the time to live of a room's lease (renewed every
            third of it, all of a process's leases in one call); a dead process's rooms move
            to another process after at most this.
        lease_margin_seconds: how late a renewal may be (event-loop lag) before the leases
            are no longer trusted without asking Redis before each write; ``None``: a third
            of ``lease_seconds``.
        start_wait_seconds: how long filling a room's last seat (or taking a room over from
            a dead process) waits for its first hand to be dealt (or resumed).
        sweep_seconds: how often each process resumes unfinished rooms that nobody runs
            (:mod:`server.room.sweeper`); unset: every ``lease_seconds`` with ``redis_url``,
            never without it (one process loads a room when asked); ``0`` disables it.
        rooms_per_minute: room creations allowed per client address per minute (bursts of
            the same size); beyond that ``POST /api/rooms`` answers 429 ``rate_limited``.
        sockets_per_minute: WebSocket connections a client address may open per minute;
            beyond that the socket gets ``rate_limited`` and is closed (4429). Both address
            limits are shared by every process through Redis when ``redis_url`` is set.
        lookups_per_minute: ``GET /api/rooms/{code}`` per client address per minute (429
            ``rate_limited`` beyond; shared like the above).
        joins_per_minute: ``POST /api/rooms/{code}/join`` and ``.../bots`` per client
            address per minute (same).
        admin_failures_per_minute: failed admin authentications per client address per
            minute; beyond that every admin call from the address is 429 (even with the
            right token) until the window moves on. Each failure is logged (warning).
        sockets_per_address: WebSockets open at once from one client address (this process);
            beyond that the socket gets ``too_many_sockets`` and is closed (4430).
        sockets_per_room: WebSockets open at once on one room (this process); beyond that a
            spectator gets ``too_many_spectators`` (4430). A seat's own socket is never refused by
            a room cap (it replaces the seat's previous one).
        spectators_per_room: spectator sockets open at once on one room (this process);
            beyond that ``too_many_spectators`` (4430).
        messages_per_second, message_burst: the client-message budget (a token bucket) of
            one client address in one room, shared by all its sockets there, so reconnecting
            does not refill it.
        shutdown_seconds: how long a stopping process (SIGTERM) may take: open sockets get
            a quarter of it to close (uvicorn's graceful timeout, at least 1 s), then the
            actors are stopped and their leases released (so other processes take the rooms
            at once) and the connections closed, each step with a deadline; a process still
            running half a second after that exits anyway (``server.room.bounded.watchdog``,
            armed when ``shutdown_watchdog``).
        shutdown_watchdog: arm that watchdog when the app shuts down (``python -m server
            serve`` sets it: the process ends with the app; off for an app inside another
            process, e.g. a test's).
        gc_full_seconds: how often the process collects its whole heap for reference
            cycles, the heap being frozen out of the collector's sight every second in
            between, so that no collection pauses the rooms in play (:mod:`server.heap`);
            ``python -m server serve`` sets 600 when unset; unset or ``0``: CPython's
            collector as it is (an app inside another process, e.g. a test's).
        request_seconds: an HTTP request (headers and body) must arrive within this many
            seconds of the connection (or of the previous response); else the connection is
            closed (slow clients).
        keep_alive_seconds: an idle keep-alive HTTP connection is closed after this (uvicorn
            ``timeout_keep_alive``).
        ws_deflate: accept WebSocket per-message compression (permessage-deflate) when the
            browser offers it. Off by default: a room's messages are 1-3 KB, so compressing
            saves little bandwidth but costs a quarter of the sending time, the largest part of
            the server's CPU per message (``bench/load.py``).
        migrate: the app migrates the database at start (``create_app``); ``False``
            (``python -m server serve --no-migrate``, ``MIGRATE=false``): it only checks
            that the schema serves this release (:mod:`server.store.schema`).
        db_wait_seconds: at start, how long to wait (retrying) for the database to answer
            before giving up, and then for Redis (``python -m server serve``).
        ready_timeout_seconds: each probe of ``/readyz`` (database, Redis) gives up after this.
        api_docs: serve ``/docs``, ``/redoc`` and ``/openapi.json`` (the admin routes are
            never listed); compose turns them off.
        log_format: ``json`` (one JSON object per line) or ``text``, for ``serve``.
        host, port: where ``python -m server serve`` listens by default.
    """

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(default="sqlite+aiosqlite:///./zhuoji.db")
    redis_url: str | None = None
    admin_token: str | None = None
    metrics_token: str | None = None
    claim_seconds: float = Field(default=10, gt=0)
    turn_seconds: float = Field(default=20, gt=0)
    claim_min_ms: int = Field(default=800, ge=0)
    claim_hold: Literal["min", "mimic"] = "mimic"
    room_idle_seconds: float = Field(default=600, gt=0)
    unload_seconds: float = Field(default=30, ge=0)
    pause_unwatched: Literal["never", "bots", "auto"] = "auto"
    auto_seconds: float = Field(default=1, ge=0)
    ready_seconds: float = Field(default=30, gt=0)
    vote_seconds: float = Field(default=60, gt=0)
    lease_seconds: float = Field(default=5, gt=0)
    lease_margin_seconds: float | None = Field(default=None, ge=0)
    start_wait_seconds: float = Field(default=10, gt=0)
    sweep_seconds: float | None = Field(default=None, ge=0)
    rooms_per_minute: int = Field(default=10, ge=1)
    sockets_per_minute: int = Field(default=120, ge=1)
    lookups_per_minute: int = Field(default=120, ge=1)
    joins_per_minute: int = Field(default=30, ge=1)
    admin_failures_per_minute: int = Field(default=10, ge=1)
    sockets_per_address: int = Field(default=50, ge=1)
    sockets_per_room: int = Field(default=1010, ge=1)
    spectators_per_room: int = Field(default=1000, ge=0)
    messages_per_second: float = Field(default=20, gt=0)
    message_burst: int = Field(default=40, ge=1)
    shutdown_seconds: float = Field(default=3, gt=0)
    shutdown_watchdog: bool = False
    gc_full_seconds: float = Field(default=0, ge=0)
    request_seconds: float = Field(default=10, gt=0)
    keep_alive_seconds: float = Field(default=5, gt=0)
    ws_deflate: bool = False
    migrate: bool = True
    db_wait_seconds: float = Field(default=60, ge=0)
    ready_timeout_seconds: float = Field(default=2, gt=0)
    api_docs: bool = True
    log_format: Literal["json", "text"] = "json"
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, url: str) -> str:
        problem = database_url_problem(url)
        if problem:
            raise ValueError(problem)
        return url.strip()

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, url: str | None) -> str | None:
        if url is None or not url.strip():
            return None  # unset or empty: one process, in-memory bus
        problem = redis_url_problem(url)
        if problem:
            raise ValueError(problem)
        return url.strip()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the process's settings (read once, then cached).

    Tests that change the environment call ``get_settings.cache_clear()``.
    """
    return Settings()
