"""Real server processes for integration tests: ``python -m server serve`` in a subprocess
on a free port, and a scripted WebSocket player that reconnects when its server dies."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from live_helpers import choose, free_port
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

REPO = Path(__file__).resolve().parents[2]


class ServerProcess:
    """``python -m server serve`` on 127.0.0.1:``port`` with ``env`` added to the
    environment and ``args`` (e.g. ``["--log-level", "info"]``) to the command line; output
    goes to ``log``."""

    def __init__(
        self, env: dict[str, str], log: Path, port: int | None = None, args: list[str] | None = None
    ) -> None:
        self.port = port or free_port()
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        self.log = log
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **env}
        for key in ("TEST_DATABASE_URL", "TEST_REDIS_URL"):
            full_env.pop(key, None)
        self._out = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1"]
            + ["--port", str(self.port), "--log-level", "warning", *(args or [])],
            cwd=REPO,
            env=full_env,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Poll ``/api/health`` until it answers (raises if the process exits or the time
        runs out)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited ({self.proc.returncode}): {self.output()}")
            try:
                if httpx.get(f"{self.http}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not come up: {self.output()}")
            time.sleep(0.1)

    def output(self) -> str:
        """The process's log so far (its tail)."""
        self._out.flush()
        return self.log.read_text(errors="replace")[-4000:]

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (a crash)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM (graceful), then SIGKILL after 15 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._out.close()


#: Refusals a player may meet around a failover (answering a prompt twice, a moved room).
TRANSIENT = {"stale_prompt", "not_your_turn", "illegal_action", "no_hand", "unavailable"}


@dataclass
class Player:
    """A scripted human on one seat: answers every prompt it is sent, and reconnects to
    ``ws_url`` (which the test may point at another server) when its socket drops.

    With ``pause_at`` set, it stops before answering a prompt once it has answered that many:
    ``paused`` is set, and it waits for ``resume`` (the room is then waiting for this seat).
    """

    code: str
    seat: int
    token: str
    ws_url: str
    pause_at: int | None = None
    actions: int = 0
    last: dict[str, Any] | None = None
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0
    #: Versioned messages (snapshot, event, hand_end) received, in order.
    received: list[dict[str, Any]] = field(default_factory=list)
    paused: asyncio.Event = field(default_factory=asyncio.Event)
    resume: asyncio.Event = field(default_factory=asyncio.Event)
    _ws: ClientConnection | None = None

    async def connect(self, timeout: float = 30.0) -> None:
        """(Re)connect to ``ws_url`` until the server answers with a snapshot."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                ws = await connect(
                    f"{self.ws_url}/ws/rooms/{self.code}?token={self.token}",
                    open_timeout=10,
                    max_size=2**22,
                )
                first = json.loads(await asyncio.wait_for(ws.recv(), 20))
                assert first["type"] == "snapshot", first
                self._ws = ws
                self._see(first)
                return
            except (OSError, ConnectionClosed, InvalidStatus, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)

    async def send(self, message: dict[str, Any]) -> None:
        """Send ``message`` on the current socket (alongside :meth:`play`)."""
        assert self._ws is not None
        await self._ws.send(json.dumps(message))

    async def close(self) -> None:
        """Close the socket."""
        if self._ws is not None:
            await self._ws.close()

    def _see(self, msg: dict[str, Any]) -> None:
        if msg.get("type") in ("snapshot", "event", "hand_end") and (
            not self.received or msg is not self.received[-1]
        ):
            self.received.append(msg)
        if msg.get("type") == "snapshot":
            self.snapshots.append(msg)
        if msg.get("type") in ("snapshot", "event"):
            self.last = msg

    async def play_on(self) -> None:
        """Play hand after hand (``ready`` after each) until cancelled or the session ends."""
        while True:
            end = await self.play()
            if end.get("next_hand") is None:
                return
            with contextlib.suppress(ConnectionClosed):
                assert self._ws is not None
                await self._ws.send(json.dumps({"type": "ready"}))

    async def play(self) -> dict[str, Any]:
        """Play until this seat receives ``hand_end``; returns it."""
        answered: tuple[int, int] | None = None
        seq = 0
        while True:
            assert self._ws is not None
            try:
                msg = json.loads(await asyncio.wait_for(self._ws.recv(), 60))
            except ConnectionClosed:
                self.reconnects += 1
                await self.connect()
                msg = self.last or {}
            self._see(msg)
            kind = msg.get("type")
            if kind == "hand_end":
                return msg
            if kind == "snapshot":  # a new baseline (prompt numbers may restart)
                answered = None
            if kind == "error":
                assert msg["code"] in TRANSIENT, msg
                await asyncio.sleep(0.2)  # e.g. the room is moving: not at full speed
                await self._ws.send(json.dumps({"type": "sync"}))
                answered = None
                continue
            if kind in ("snapshot", "event") and msg.get("legal"):
                prompt = (msg["hand_no"], msg["prompt"])
                if prompt == answered:
                    continue
                if self.pause_at is not None and self.actions >= self.pause_at:
                    self.pause_at = None
                    self.paused.set()
                    await self.resume.wait()
                answered = prompt
                seq += 1
                action = choose(msg["legal"], msg["view"])
                body = {"type": "action", "seq": seq, "action": action}
                try:
                    await self._ws.send(json.dumps(body))
                except ConnectionClosed:
                    continue
                self.actions += 1
