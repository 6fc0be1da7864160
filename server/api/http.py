"""HTTP/1.1 for uvicorn with a deadline for each request (slow clients, "slowloris"), the
app's limit on request bodies (:class:`BodyLimit`) and its answer to a bug
(:class:`InternalErrors`).

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive`` seconds, but any
byte received disarms that timer and nothing bounds how long a request may take to arrive:
a client sending a header line every few seconds holds its connection (and its memory)
forever. :class:`RequestDeadlineProtocol` (uvicorn's h11 protocol) gives every request
``REQUEST_SECONDS`` (:attr:`server.config.Settings.request_seconds`) from the moment the
connection is made, or the previous response completed, until its headers and body are all
in; a request still incomplete then is cut off (the connection is closed, one warning
logged). A request fully received may take the app as long as it needs; a WebSocket upgrade
leaves HTTP (and this deadline) behind.

``python -m server serve`` runs uvicorn with it (:func:`uvicorn_options`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from fastapi import HTTPException
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

#: The largest WebSocket frame read (uvicorn's ``ws_max_size``): frames a little over the
#: protocol's 4096-byte limit get a typed ``too_large`` error; far larger ones are cut off
#: (close 1009) by the WebSocket layer before they are read into memory.
WS_MAX_FRAME_BYTES = 64 * 1024

#: h11 states of the client's side in which its request has not fully arrived.
_INCOMPLETE = (h11.IDLE, h11.SEND_BODY)


class RequestDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a per-request deadline (see the module). The deadline
    is ``config.request_seconds`` if the uvicorn config has that attribute, else the
    settings' ``request_seconds``."""

    def __init__(self, config: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        seconds = getattr(config, "request_seconds", None)
        if seconds is None:
            from server.config import get_settings

            seconds = get_settings().request_seconds
        self.request_seconds = float(seconds)
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state not in _INCOMPLETE:
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
        log.warning(
            "closing the connection of %s: its request did not arrive within %g s",
            client,
            self.request_seconds,
        )
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state not in _INCOMPLETE:  # all in (or the connection is over)
            self._disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        if not _fits_websockets(event.method, event.target, self.headers):
            # websockets would refuse the request uvicorn hands it, and uvicorn (0.54) then
            # answers nothing and keeps the connection open for good: refuse it here
            log.info("refusing a WebSocket upgrade: a request line or header too long")
            self.send_400_response("Request line or header too long for a WebSocket upgrade")
            return
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state in _INCOMPLETE:
            self._arm()  # the next request on this connection gets its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def _fits_websockets(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether the WebSocket layer (``websockets``' HTTP parser) accepts a request of this
    ``method``, ``target`` and ``headers`` as uvicorn writes it out for it: each line, CRLF
    included, within ``MAX_LINE_LENGTH`` (8 KiB) and at most ``MAX_NUM_HEADERS`` (128)
    headers. h11 lets longer lines through (its limit is on the whole head, 16 KiB)."""
    from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS

    if len(headers) > MAX_NUM_HEADERS:
        return False
    if len(method) + len(target) + len(b"  HTTP/1.1\r\n") > MAX_LINE_LENGTH:
        return False
    return all(len(n) + len(v) + len(b": \r\n") <= MAX_LINE_LENGTH for n, v in headers)


def uvicorn_options(settings: Any) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config`` from a
    :class:`server.config.Settings`: the HTTP protocol with request deadlines (it reads
    ``request_seconds`` itself, see the class), ``timeout_keep_alive``
    (``KEEP_ALIVE_SECONDS``) and ``timeout_graceful_shutdown`` (a quarter of
    ``SHUTDOWN_SECONDS``, at least 1 s: how long a stopping server waits for its open
    connections, e.g. WebSockets it closed with 1012, before the app's own shutdown) and
    ``ws_per_message_deflate`` (``WS_DEFLATE``, off by default) and ``ws_max_size``
    (`WS_MAX_FRAME_BYTES`); no ``Server: uvicorn`` header (behind Caddy the answers carried
    both its and uvicorn's)."""
    return {
        "server_header": False,
        "http": RequestDeadlineProtocol,
        "ws_max_size": WS_MAX_FRAME_BYTES,
        "timeout_keep_alive": settings.keep_alive_seconds,
        "ws_per_message_deflate": settings.ws_deflate,
        "timeout_graceful_shutdown": max(1, round(getattr(settings, "shutdown_seconds", 3) / 4)),
    }


class BodyLimit:
    """ASGI middleware refusing an HTTP request body over ``max_bytes`` with 413
    ``too_large`` (``{"detail": {"code", "message"}}``), before the app reads it: at once
    when its ``Content-Length`` says so, else (a chunked body) as soon as the bytes read
    pass the limit (an ``HTTPException`` from ``receive``, which the app's handler turns
    into the same answer). uvicorn sets no limit of its own; FastAPI's ``max_body_size``
    answers in plain text."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = {"code": "too_large", "message": f"the body is over {self.max_bytes} bytes"}
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await JSONResponse({"detail": too_large}, status_code=413)(scope, receive, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise HTTPException(413, too_large)
            return message

        await self.app(scope, limited, send)


class InternalErrors:
    """ASGI middleware answering an exception nothing else handled (a bug) with 500
    ``internal`` (``{"detail": {"code", "message"}}``, no traceback) and logging it with its
    traceback; it sits inside :class:`server.api.headers.SecurityHeaders`, so the answer
    carries them. Starlette's own answer comes from outside every middleware (plain text, no
    headers) and re-raises to the server, which may then close the connection under the
    answer; here the exception ends with the answer. An exception after the response has
    started (nothing can be answered any more) and any WebSocket's go on up as before."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception:
            if started:
                raise
            log.exception("%s %s failed", scope.get("method"), scope.get("path"))
            internal = {"code": "internal", "message": "the server failed; it is logged"}
            await JSONResponse({"detail": internal}, status_code=500)(scope, receive, send)
