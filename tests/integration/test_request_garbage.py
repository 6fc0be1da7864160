"""HTTP requests leave no reference cycles behind (the request metrics are plain ASGI
middleware, not Starlette's ``BaseHTTPMiddleware``, whose task group, cancel scopes and
tracebacks of each request are freed only by the garbage collector, whose pauses stop
every room)."""

from __future__ import annotations

import gc
import http.client
from urllib.parse import urlsplit

from live_helpers import Live

REQUESTS = 40


def test_requests_leave_no_cycles_for_the_collector(live: Live) -> None:
    # (a plain http.client connection: the test's own client must not make cycles either;
    # the server answers from its own thread)
    url = urlsplit(live.http)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)

    def get(path: str) -> int:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status

    def post(path: str, body: str) -> int:
        conn.request("POST", path, body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status

    try:
        for _ in range(5):  # warm: first-use caches
            assert get("/api/games") == 200 and get("/api/rooms/ZZZZZZ") == 404
        gc.collect()
        for _ in range(REQUESTS):
            assert get("/api/games") == 200
            assert get("/api/rooms/ZZZZZZ") == 404
            assert post("/api/rooms/ZZZZZZ/join", '{"name": "ann"}') == 404
        unreachable = gc.collect()
    finally:
        conn.close()
    # (the same requests through BaseHTTPMiddleware: 258 objects in cycles)
    assert unreachable < REQUESTS, unreachable
