"""Helpers for integration tests: the :class:`Live` server handle, a free port, and a real
``websockets`` client's receive helpers. The ``live`` fixture is in ``conftest.py``."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

ADMIN_TOKEN = "test-admin-token"


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Live:
    """A running server."""

    http: str
    ws: str
    app: Any
    database_url: str
    sockets: list[ClientConnection] = field(default_factory=list)

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
