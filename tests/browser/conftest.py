"""Browser test fixtures: Debian's Chromium driven by Playwright, and the real server.

* Chromium is found with ``shutil.which("chromium")`` and never downloaded. When it is
  missing the tests skip locally and FAIL under ``CI=true``.
* ``browser`` is **module-scoped**: Playwright's sync API keeps its own event loop running in
  the main thread while it is started, which would break every pytest-asyncio test that runs
  after it ("Cannot run the event loop while another loop is running"). So Playwright is
  started per test module and stopped when the module ends; browser test modules hold only
  sync tests and sync fixtures.
* ``live``: the real app (``server.api.app.create_app``) served by uvicorn in a thread on a
  free port, over a temp SQLite database, with an admin token and ``claim_min_ms=0``. Being
  in-process, a test can fix the seeds of a room's hands (:meth:`LiveServer.fix_seeds`, the
  ``new_seed`` hook of the room actor) and so play a chosen hand for real; it can also stop
  and restart the server on the same port and database (reconnect tests).
* Screenshots go to ``screenshots/`` (git-ignored) at the repository root.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"
IN_CI = os.environ.get("CI", "").strip().lower() == "true"
ADMIN_TOKEN = "browser-admin-token"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


def _unavailable(what: str, why: str) -> None:
    if IN_CI:
        pytest.fail(f"{what} is required under CI=true: {why}", pytrace=False)
    pytest.skip(f"{what}: {why}")


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        _unavailable("Chromium", "no `chromium` on PATH (apt-get install chromium)")
    return path  # type: ignore[return-value]


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """Chromium for one test module (Playwright is stopped at the module's end)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover
        _unavailable("Playwright", str(exc))
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def shots_dir() -> Path:
    SHOTS.mkdir(exist_ok=True)
    return SHOTS


class LiveServer:
    """The app in a uvicorn thread. ``start()`` / ``stop()`` may be called again: a restart
    keeps the port and the database (rooms are rebuilt from the store, as after a deploy)."""

    def __init__(self, database_url: str, port: int | None = None, **settings: Any) -> None:
        self.database_url = database_url
        #: more ``Settings`` fields (e.g. ``claim_min_ms=1500`` to see claim windows stay open)
        self.settings = {
            "claim_min_ms": 0,
            "sockets_per_minute": 10_000,
            # every page polls from 127.0.0.1: the per-address limits of strangers are
            # tested in tests/integration
            "lookups_per_minute": 100_000,
            "joins_per_minute": 100_000,
            "rooms_per_minute": 100_000,
            **settings,
        }
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.app: Any = None
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        from server.api.app import create_app
        from server.config import Settings

        settings = Settings(
            database_url=self.database_url,
            redis_url=None,
            admin_token=ADMIN_TOKEN,
            **self.settings,
        )
        self.app = create_app(settings)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws="websockets-sansio",
            lifespan="on",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start on {self.base}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=20)
            assert not self._thread.is_alive(), "the server did not stop"
        self._server = self._thread = None

    # ------------------------------------------------------------------ helpers
    def fix_seeds(self, code: str, seeds: list[str]) -> None:
        """Deal room ``code``'s next hands from ``seeds`` (then random seeds again).

        Sets the room actor's ``new_seed`` hook (the one ``RoomManager.new_seed`` sets for
        every room): a plain attribute the actor reads when it deals, in its own thread."""
        queue = list(seeds)
        actor = self.app.state.manager.rooms[code]
        actor.new_seed = lambda: queue.pop(0) if queue else secrets.token_hex(16)

    def get(self, path: str, admin: bool = False) -> Any:
        req = urllib.request.Request(self.base + path)
        if admin:
            req.add_header("Authorization", f"Bearer {ADMIN_TOKEN}")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def post(self, path: str, body: dict[str, Any], admin: bool = False) -> Any:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode())
        req.add_header("Content-Type", "application/json")
        if admin:
            req.add_header("Authorization", f"Bearer {ADMIN_TOKEN}")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def room(self, code: str) -> dict[str, Any]:
        """``GET /api/rooms/{code}``."""
        return self.get(f"/api/rooms/{code}")

    def ledger(self, code: str) -> list[dict[str, Any]]:
        """The room's ledger rows (``GET /api/admin/ledger``), oldest first."""
        rows = self.get(f"/api/admin/ledger?room={code}&limit=1000", admin=True)["rows"]
        return list(reversed(rows))


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    """The real server for a browser test module (SQLite in a temp dir); stopped at the
    module's end so its rooms (humans gone, on auto-play) do not run on under later tests."""
    tmp = tempfile.mkdtemp(prefix="zj-browser-")
    srv = LiveServer(f"sqlite+aiosqlite:///{tmp}/browser.db")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def live_server(live: LiveServer) -> str:
    """The live server's base URL ``http://127.0.0.1:N``."""
    return live.base
