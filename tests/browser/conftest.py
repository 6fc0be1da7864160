"""Browser test fixtures: Debian's Chromium driven by Playwright, and the real server.

* Chromium is found with ``shutil.which("chromium")`` and never downloaded. When it is
  missing the tests skip locally and FAIL under ``CI=true``.
* ``live_server``: ``python -m server serve --port N`` as a subprocess, with a temp SQLite
  database and a temp working directory; yields the base URL.
* ``static_server``: a plain HTTP server for ``web/`` alone (client tests with a mocked
  API and WebSocket, independent of the server).
* Screenshots go to ``screenshots/`` (git-ignored) at the repository root.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
SHOTS = ROOT / "screenshots"
IN_CI = os.environ.get("CI", "").strip().lower() == "true"
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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        _unavailable("Chromium", "no `chromium` on PATH (apt-get install chromium)")
    return path  # type: ignore[return-value]


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[object]:
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


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """The real server on a free port (SQLite in a temp dir); yields ``http://127.0.0.1:N``."""
    if not (ROOT / "server" / "api" / "app.py").exists():
        _unavailable("server", "server/api is not there yet")
    tmp = tempfile.mkdtemp(prefix="zj-browser-")
    port = free_port()
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp}/browser.db",
        PYTHONPATH=str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""),
        CLAIM_MIN_MS="0",
    )
    env.pop("REDIS_URL", None)  # one process, in-memory bus
    log = open(Path(tmp) / "server.log", "w+b")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "serve", "--port", str(port)],
        cwd=tmp,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"server exited ({proc.returncode}):\n{log.read().decode()[-4000:]}")
            try:
                with urllib.request.urlopen(base + "/api/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"server did not answer on {base}:\n{log.read().decode()[-4000:]}")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def static_server() -> Iterator[str]:
    """``web/`` over plain HTTP (for client tests with a mocked API)."""
    handler = functools.partial(_QuietHandler, directory=str(WEB))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
