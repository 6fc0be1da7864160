"""A ``redis-server`` of a test's own (fault tests stop and start it; the machine's shared
Redis is never touched)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """``redis-server`` on 127.0.0.1:``port`` without persistence (a restart starts empty:
    every key and subscription is gone, as after a real Redis restart). Output to ``log``."""

    def __init__(self, log: Path, port: int | None = None) -> None:
        if shutil.which("redis-server") is None:
            pytest.fail("redis-server is not installed", pytrace=False)
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Start it (on the same port as before) and wait until it accepts connections."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
                + ["--save", "", "--appendonly", "no", "--daemonize", "no"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {self.log.read_text()}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop it (SIGTERM, then wait); idempotent."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None
