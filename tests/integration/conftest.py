"""The ``live`` and ``live_clock`` fixtures: uvicorn in a thread on a free port, over a real
database (``database_url``: SQLite, and Postgres when TEST_DATABASE_URL is set). Helpers are in
``live_helpers.py``."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from live_helpers import ADMIN_TOKEN, Live, free_port

from server.api.app import create_app
from server.api.http import uvicorn_options
from server.config import Settings
from server.room.clock import ManualClock

#: Address limits far above what a test does (tests of a limit set their own).
GENEROUS: dict[str, Any] = {
    "rooms_per_minute": 10_000,
    "sockets_per_minute": 100_000,
    "lookups_per_minute": 100_000,
    "joins_per_minute": 100_000,
    "admin_failures_per_minute": 1_000,
}


def _serve(settings: Settings, database_url: str, clock: Any = None) -> Iterator[Live]:
    app = create_app(settings, clock)
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws="websockets-sansio",
        lifespan="on",
        **uvicorn_options(settings),  # as `serve` runs it
    )
    config.request_seconds = settings.request_seconds  # type: ignore[attr-defined]
    server = uvicorn.Server(config)
    loop = asyncio.new_event_loop()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.02)
    try:
        yield Live(
            f"http://127.0.0.1:{port}",
            f"ws://127.0.0.1:{port}",
            app,
            database_url,
            loop=loop,
            clock=clock,
        )
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        if not thread.is_alive():
            loop.close()


@pytest.fixture
def live(database_url: str) -> Iterator[Live]:
    """A live server (in-memory bus, claim_min_ms=0, admin token set) on ``database_url``."""
    settings = Settings(
        database_url=database_url,
        redis_url=None,
        admin_token=ADMIN_TOKEN,
        claim_min_ms=0,
        **GENEROUS,
    )
    yield from _serve(settings, database_url)


@pytest.fixture
def live_with(database_url: str) -> Iterator[Callable[..., Live]]:
    """``live_with(**fields)`` starts a server like ``live`` with more ``Settings`` fields
    (e.g. ``request_seconds=1``); each is stopped at the end of the test."""
    with contextlib.ExitStack() as stack:

        def start(**fields: Any) -> Live:
            settings = Settings(
                database_url=database_url,
                **{
                    "redis_url": None,
                    "admin_token": ADMIN_TOKEN,
                    "claim_min_ms": 0,
                    **GENEROUS,
                    **fields,
                },
            )
            serve = contextlib.contextmanager(_serve)
            return stack.enter_context(serve(settings, database_url))

        yield start


@pytest.fixture
def live_redis(database_url: str, redis_url: str) -> Iterator[Live]:
    """Like ``live`` but every message goes over the Redis bus (``TEST_REDIS_URL``)."""
    settings = Settings(
        database_url=database_url,
        redis_url=redis_url,
        admin_token=ADMIN_TOKEN,
        claim_min_ms=0,
        **GENEROUS,
    )
    yield from _serve(settings, database_url)


@pytest.fixture
def live_clock(database_url: str) -> Iterator[Live]:
    """Like ``live`` but the server's timers run on a :class:`ManualClock` (``live.clock``);
    tests move time with ``await live.advance(seconds)``."""
    settings = Settings(
        database_url=database_url,
        redis_url=None,
        admin_token=ADMIN_TOKEN,
        claim_min_ms=0,
        **GENEROUS,
    )
    yield from _serve(settings, database_url, ManualClock())
