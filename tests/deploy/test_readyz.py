"""``/healthz`` and ``/readyz`` of a real server process on a private PostgreSQL instance of
its own (initdb + pg_ctl in a temporary directory, on its own port; the shared server is
never touched): the process waits for a database that is not up yet instead of dying,
``/readyz`` answers 503 while PostgreSQL is stopped and 200 once it is back, and
``/healthz`` answers throughout."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from live_helpers import free_port  # noqa: E402
from processes import ServerProcess  # noqa: E402

IN_CI = os.environ.get("CI", "").strip().lower() == "true"
pytestmark = pytest.mark.postgres


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary directory on ``port`` (trust auth, user
    ``postgres``), run as the ``postgres`` system user when this process is root."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            if IN_CI:
                pytest.fail("PostgreSQL server binaries (initdb) are required under CI=true")
            pytest.skip("no /usr/lib/postgresql/*/bin/initdb")
        self.bin = Path(bins[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="zj-pg-"))
        self.port = free_port()
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self._pg("initdb", "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres")

    def _pg(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as, str(self.bin / tool), *args], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._pg(
            "pg_ctl",
            "-D",
            str(self.dir / "data"),
            "-o",
            opts,
            "-l",
            str(self.dir / "log"),
            "-w",
            "start",
        )

    def stop(self) -> None:
        self._pg("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def cleanup(self) -> None:
        subprocess.run(
            [
                *self._as,
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.dir / "data"),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    pg = PrivatePostgres()
    try:
        yield pg
    finally:
        pg.cleanup()


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=5)
    except httpx.HTTPError:
        return None


def _until(predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.2)


@pytest.mark.redis
def test_readyz_follows_postgres_and_the_app_waits_for_it(
    private_postgres: PrivatePostgres, redis_url: str, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": private_postgres.url, "REDIS_URL": redis_url, "DB_WAIT_SECONDS": "90"}
    env["READY_TIMEOUT_SECONDS"] = "2"
    app = ServerProcess(env, tmp_path / "app.log")  # PostgreSQL is not running yet
    try:
        time.sleep(3)
        assert app.proc.poll() is None, f"the app gave up: {app.output()}"
        assert _get(f"{app.http}/healthz") is None  # not serving before its database is
        private_postgres.start()
        app.wait_ready(timeout=90)
        ready = _get(f"{app.http}/readyz")
        assert ready is not None and ready.status_code == 200
        assert ready.json() == {"status": "ready", "database": "ok", "redis": "ok"}

        private_postgres.stop()

        def unready() -> bool:
            r = _get(f"{app.http}/readyz")
            return r is not None and r.status_code == 503

        _until(unready)
        body = httpx.get(f"{app.http}/readyz", timeout=10).json()
        assert body["status"] == "unavailable" and body["database"] != "ok"
        assert body["redis"] == "ok"
        alive = httpx.get(f"{app.http}/healthz", timeout=5)
        assert alive.status_code == 200 and alive.json() == {"status": "alive"}
        refused = httpx.post(
            f"{app.http}/api/rooms", json={"game": "guiyang", "options": {}}, timeout=90
        )
        assert refused.status_code == 503, refused.text
        assert refused.json()["detail"]["code"] == "unavailable"
        assert "Traceback" not in app.output()

        private_postgres.start()

        def ready_again() -> bool:
            r = _get(f"{app.http}/readyz")
            return r is not None and r.status_code == 200

        _until(ready_again)
        created = httpx.post(
            f"{app.http}/api/rooms", json={"game": "guiyang", "options": {}}, timeout=10
        )
        assert created.status_code == 201
    finally:
        app.stop()
