"""Prometheus metrics (``prometheus-client``), served at ``GET /metrics``.

Series (all per process; Prometheus sums them over the replicas):

* ``zhuoji_rooms{state}``: rooms live in this process by status (open, playing, between,
  finished, dissolved), read at scrape time from the room managers passed to
  :func:`track_manager`.
* ``zhuoji_sockets{role}``: open WebSockets (``seat`` / ``spectator``).
* ``zhuoji_actions_total{type,outcome}`` and ``zhuoji_action_seconds{type}``: client
  messages (``action``, ``ready``, ``auto``, ``dissolve``, ``sync``...) handled by the socket
  layer; outcome ``ok`` or the refusal's error code; seconds until the room answered.
* ``zhuoji_claim_windows_total``: claim windows opened (each discard and added kong, spec
  §3), and ``zhuoji_settlements_total``: hands settled, both counted by the owner process
  as its rooms publish them (:func:`observe_change`, :func:`observe_settlement`).
* ``zhuoji_errors_total{code}``: error messages sent to clients, and ``http_500`` for
  unhandled server errors.
* ``zhuoji_bus_publish_seconds``: bus publish latency; ``zhuoji_store_query_seconds{op}``:
  database statement latency by SQL verb (SQLAlchemy engine events).
* ``zhuoji_http_requests_total{method,route,status}``: HTTP requests.
* ``zhuoji_gc_pause_seconds{generation}``: how long each run of the garbage collector
  stopped the process (every room in it), by the oldest generation it collected
  (:func:`observe_gc`, installed by the app).

Everything here is a small hook the other layers call; nothing imports the room code.
"""

from __future__ import annotations

import functools
import gc
import time
import weakref
from collections import Counter as _Tally
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

SOCKETS = Gauge("zhuoji_sockets", "Open WebSocket connections in this process", ["role"])
ACTIONS = Counter(
    "zhuoji_actions", "Client messages handled by the socket layer", ["type", "outcome"]
)
ACTION_SECONDS = Histogram(
    "zhuoji_action_seconds",
    "Seconds until the room answered a client message",
    ["type"],
    buckets=_FAST,
)
CLAIM_WINDOWS = Counter("zhuoji_claim_windows", "Claim windows opened (discards, added kongs)")
SETTLEMENTS = Counter("zhuoji_settlements", "Hands settled by rooms owned by this process")
ERRORS = Counter("zhuoji_errors", "Errors sent to clients, and unhandled server errors", ["code"])
BUS_SECONDS = Histogram("zhuoji_bus_publish_seconds", "Bus publish latency", buckets=_FAST)
STORE_SECONDS = Histogram(
    "zhuoji_store_query_seconds", "Database statement latency", ["op"], buckets=_FAST
)
HTTP_REQUESTS = Counter("zhuoji_http_requests", "HTTP requests", ["method", "route", "status"])
GC_PAUSE_SECONDS = Histogram(
    "zhuoji_gc_pause_seconds",
    "Garbage collector runs, by the oldest generation collected: seconds the process stopped",
    ["generation"],
    buckets=_FAST,
)

#: Engine events that open a claim window (spec §3: every discard and every added kong).
CLAIM_OPENERS = frozenset({"discard", "kong_declared"})

_managers: weakref.WeakSet[Any] = weakref.WeakSet()


class _RoomsCollector(Collector):
    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily("zhuoji_rooms", "Rooms live in this process", labels=["state"])
        tally: _Tally[str] = _Tally({s: 0 for s in ("open", "playing", "between")})
        for manager in list(_managers):
            for actor in list(getattr(manager, "rooms", {}).values()):
                tally[str(getattr(actor, "status", "unknown"))] += 1
        for state, n in sorted(tally.items()):
            family.add_metric([state], n)
        yield family


REGISTRY.register(_RoomsCollector())


def track_manager(manager: Any) -> None:
    """Count ``manager.rooms`` (``{code: actor with .status}``) in ``zhuoji_rooms``."""
    _managers.add(manager)


_gc_started: list[float] = []


def _gc_callback(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter()]
    elif _gc_started:
        paused = time.perf_counter() - _gc_started.pop()
        GC_PAUSE_SECONDS.labels(generation=str(info.get("generation"))).observe(paused)


def observe_gc() -> None:
    """Time every garbage collector run of this process into ``zhuoji_gc_pause_seconds``
    (``gc.callbacks``; installed once however often it is called). A collection is the
    longest pause the server has: under ``serve`` one full collection every
    ``GC_FULL_SECONDS`` (`server.heap`), about 2 s at 1,000 busy rooms (``bench/load.py``
    reports them)."""
    if _gc_callback not in gc.callbacks:
        gc.callbacks.append(_gc_callback)


def render() -> tuple[bytes, str]:
    """The exposition text of every series and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def observe_action(kind: str, outcome: str, seconds: float) -> None:
    """Count one client message of type ``kind`` the socket layer handled, ``outcome``
    ``ok`` or its refusal's error code, answered in ``seconds``."""
    count, timing = _action_metrics(kind, outcome)
    count.inc()
    timing.observe(seconds)


@functools.lru_cache(maxsize=512)
def _action_metrics(kind: str, outcome: str) -> tuple[Any, Any]:
    """The labelled children of ``zhuoji_actions`` and ``zhuoji_action_seconds`` for one
    (type, outcome): found once (``labels`` takes a lock and builds keys each call; both
    sets are small and closed: validated message types, error codes)."""
    return ACTIONS.labels(type=kind, outcome=outcome), ACTION_SECONDS.labels(type=kind)


def observe_change(event_types: Iterable[str]) -> None:
    """Count what one change of a room brought (the ``type`` of each of its engine events):
    the claim windows it opened. Called once per change by the room that owns it."""
    for kind in event_types:
        if kind in CLAIM_OPENERS:
            CLAIM_WINDOWS.inc()


def observe_settlement() -> None:
    """Count a hand settled (stored) by a room of this process."""
    SETTLEMENTS.inc()


class RequestMetrics:
    """ASGI middleware counting each HTTP request into ``zhuoji_http_requests`` by method,
    route template and status, and into ``zhuoji_errors`` (``http_500``) a 5xx answer or an
    exception the app let through (then re-raised). Plain ASGI, not ``@app.middleware``:
    Starlette's ``BaseHTTPMiddleware`` runs each request in a task group whose cancel
    scopes, tasks and tracebacks are left in reference cycles, garbage only the collector's
    pauses free."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def counted(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, counted)
        except Exception:
            ERRORS.labels(code="http_500").inc()
            raise
        route = scope.get("route")  # (set in the same scope by the router)
        path = getattr(route, "path", None) or "other"
        HTTP_REQUESTS.labels(scope.get("method", ""), path, str(status)).inc()
        if status >= 500:
            ERRORS.labels(code="http_500").inc()


class InstrumentedBus:
    """A bus (``publish`` / ``subscribe`` / ``close`` ...) whose ``publish`` is timed;
    everything else is the wrapped bus's."""

    def __init__(self, bus: Any) -> None:
        self._bus = bus

    async def publish(self, channel: str, message: dict[str, Any] | str) -> Any:
        start = time.perf_counter()
        try:
            return await self._bus.publish(channel, message)
        finally:
            BUS_SECONDS.observe(time.perf_counter() - start)

    async def publish_many(
        self, messages: list[tuple[str, dict[str, Any] | str]], *, local: bool = False
    ) -> Any:
        """One change's messages in one call (`server.bus.Bus.publish_many`), timed as one
        publish."""
        start = time.perf_counter()
        try:
            return await self._bus.publish_many(messages, local=local)
        finally:
            BUS_SECONDS.observe(time.perf_counter() - start)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._bus, name)
        if callable(value) or name == "process_local":  # (constant: kept, asked per change)
            setattr(self, name, value)
        return value


def instrument_engine(engine: Any) -> None:
    """Time every statement of a SQLAlchemy (async) engine into ``zhuoji_store_query_seconds``
    labelled by its first SQL word (select, insert, update...). Not the statements the store
    runs on driver connections, out of SQLAlchemy's sight: the action log (SQLite file and
    PostgreSQL) and ``finish_hand`` on PostgreSQL."""
    from sqlalchemy import event

    sync_engine = getattr(engine, "sync_engine", engine)
    if getattr(sync_engine, "_zhuoji_metrics", False):
        return
    sync_engine._zhuoji_metrics = True

    @event.listens_for(sync_engine, "before_cursor_execute")
    def _before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        conn.info.setdefault("zhuoji_t0", []).append(time.perf_counter())

    @event.listens_for(sync_engine, "after_cursor_execute")
    def _after(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        starts = conn.info.get("zhuoji_t0")
        if starts:
            op = statement.lstrip().split(None, 1)[0].lower() if statement.strip() else "?"
            STORE_SECONDS.labels(op=op[:16]).observe(time.perf_counter() - starts.pop())
