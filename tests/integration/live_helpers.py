"""Helpers for integration tests: the :class:`Live` server handle, a free port, and a real
``websockets`` client's receive helpers. The ``live`` fixture is in ``conftest.py``."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from websockets.asyncio.client import ClientConnection, connect

ADMIN_TOKEN = "test-admin-token"
#: Refusals a scripted player meets when its answer lands after the prompt it answered was
#: closed (e.g. a pong answer after the room closed a window a win decided; an answer that
#: arrives while the window is still open is accepted, spec §3).
STALE = ("stale_prompt", "no_hand", "not_your_turn")
T = TypeVar("T")


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Live:
    """A running server. ``loop`` is the server's event loop (it runs in another thread);
    ``clock`` its :class:`ManualClock` when the fixture is ``live_clock``."""

    http: str
    ws: str
    app: Any
    database_url: str
    sockets: list[ClientConnection] = field(default_factory=list)
    loop: asyncio.AbstractEventLoop | None = None
    clock: Any = None

    async def on_server(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the server's loop (room actors live there) and return its result."""
        assert self.loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    async def idle(self) -> None:
        """Wait until every room actor of the server has nothing left to do."""

        async def all_idle() -> None:
            for actor in list(self.app.state.manager.rooms.values()):
                await actor.idle()

        await self.on_server(all_idle())

    async def advance(self, seconds: float) -> None:
        """Move the server's manual clock (timers fire on the server's loop), then wait until
        the actors are idle."""

        async def step() -> None:
            self.clock.advance(seconds)

        await self.idle()
        await self.on_server(step())
        await self.idle()

    async def actor(self, code: str) -> Any:
        """The room actor of ``code`` (read its attributes only; call it via ``on_server``)."""
        return await self.on_server(self.app.state.manager.get(code))

    def client(self) -> httpx.AsyncClient:
        """An HTTP client on the server."""
        return httpx.AsyncClient(base_url=self.http, timeout=10)

    async def connect(self, code: str, token: str | None = None) -> ClientConnection:
        """A WebSocket to room ``code`` (spectator without a token)."""
        url = f"{self.ws}/ws/rooms/{code}" + (f"?token={token}" if token else "")
        ws = await connect(url, open_timeout=10, max_size=2**22)
        self.sockets.append(ws)
        return ws


async def recv(ws: ClientConnection, timeout: float = 10.0) -> dict[str, Any]:
    """The next JSON message of ``ws``."""
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def recv_until(
    ws: ClientConnection, want: str, timeout: float = 10.0
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read until a message of type ``want``; returns it and everything read before it."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        msg = await recv(ws, max(0.01, deadline - time.monotonic()))
        if msg.get("type") == want:
            return msg, seen
        seen.append(msg)


async def create_room(client: httpx.AsyncClient, options: dict[str, Any] | None = None) -> str:
    """POST /api/rooms; returns the code."""
    r = await client.post("/api/rooms", json={"game": "guiyang", "options": options or {}})
    assert r.status_code == 201, r.text
    return r.json()["code"]


def choose(legal: list[dict[str, Any]], view: dict[str, Any]) -> dict[str, Any]:
    """Win if possible; choose a void suit; discard the drawn tile (else the first discard);
    pass a claim."""
    kinds = {a["kind"]: a for a in legal}
    for k in ("self_draw", "win", "ding_que"):
        if k in kinds:
            return kinds[k]
    discards = [a for a in legal if a["kind"] == "discard" and not a.get("bao_ting")]
    for a in discards:
        if a.get("tile") == view.get("drawn"):
            return a
    if discards:
        return discards[0]
    if "pass" in kinds:
        return kinds["pass"]
    return legal[0]
