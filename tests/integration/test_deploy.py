"""The compose topology without containers (marker ``deploy``), on the real PostgreSQL and
Redis: the one-shot ``python -m server migrate``, two ``serve --no-migrate`` processes, and
Debian's ``caddy`` run with the repository's Caddyfile in front of them (``tls internal`` for
the test domain ``zhuoji.test``, its own ports, admin off). Two players and two bots play a
room through the proxy over HTTPS and WSS; the process owning the room is SIGKILLed
mid-hand; the hand finishes on the other one with the settlement a replay of its seed and
logged actions gives, each ledger row written once; a bot-only room of the killed process
that nobody watches is resumed by the other's sweeper and plays to its end; the audit
(every hand replayed, its ledger compared) passes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from live_helpers import free_port
from processes import REPO, Player, ServerProcess
from test_processes import ENV, _audit, _check_hand
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.store import Store

pytestmark = [pytest.mark.deploy, pytest.mark.postgres, pytest.mark.redis]
DOMAIN = "zhuoji.test"
IN_CI = os.environ.get("CI", "").strip().lower() == "true"


class Caddy:
    """``caddy run`` with the repository's Caddyfile: HTTPS for ``zhuoji.test:port`` from
    Caddy's internal CA (its root certificate is trusted by :attr:`ssl`)."""

    def __init__(self, upstreams: list[str], tmp: Path) -> None:
        binary = shutil.which("caddy")
        if binary is None:
            if IN_CI:
                pytest.fail("caddy (apt-get install caddy) is required under CI=true")
            pytest.skip("caddy is not installed")
        self.port = free_port()
        self.tmp = tmp
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp),
            "XDG_DATA_HOME": str(tmp / "data"),
            "XDG_CONFIG_HOME": str(tmp / "config"),
            "DOMAIN": f"{DOMAIN}:{self.port}",
            "CADDY_TLS": "tls internal",
            "UPSTREAMS": " ".join(upstreams),
            "HTTP_PORT": str(free_port()),
            "HTTPS_PORT": str(self.port),
            "CADDY_ADMIN": "off",
        }
        self.log = (tmp / "caddy.log").open("ab")
        self.proc = subprocess.Popen(
            [binary, "run", "--config", str(REPO / "Caddyfile"), "--adapter", "caddyfile"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.ssl: ssl.SSLContext | None = None

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait for the internal CA's root certificate, then for ``/readyz`` through TLS."""
        root = self.tmp / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc.poll() is None, self.output()
            if root.exists() and self.ssl is None:
                self.ssl = ssl.create_default_context(cafile=str(root))
            if self.ssl is not None:
                try:
                    with httpx.Client(verify=self.ssl, timeout=5) as client:
                        r = client.get(
                            f"https://127.0.0.1:{self.port}/readyz",
                            headers={"Host": f"{DOMAIN}:{self.port}"},
                            extensions={"sni_hostname": DOMAIN},
                        )
                    if r.status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
            assert time.monotonic() < deadline, f"caddy not ready: {self.output()}"
            time.sleep(0.2)

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> httpx.Response:
        """One HTTPS request to the site (SNI and Host ``zhuoji.test``, certificate checked);
        ``token``: a seat token sent as ``Authorization: Bearer`` (bots)."""
        headers = {"Host": f"{DOMAIN}:{self.port}"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        async with httpx.AsyncClient(verify=self.ssl, timeout=30) as client:
            return await client.request(
                method,
                f"https://127.0.0.1:{self.port}{path}",
                json=body,
                headers=headers,
                extensions={"sni_hostname": DOMAIN},
            )

    def output(self) -> str:
        self.log.flush()
        return (self.tmp / "caddy.log").read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class SitePlayer(Player):
    """A :class:`Player` whose socket goes through the proxy: ``wss://zhuoji.test:port``."""

    site: Caddy | None = None

    async def connect(self, timeout: float = 60.0) -> None:
        assert self.site is not None
        deadline = time.monotonic() + timeout
        while True:
            try:
                ws = await connect(
                    f"wss://{DOMAIN}:{self.site.port}/ws/rooms/{self.code}?token={self.token}",
                    host="127.0.0.1",
                    port=self.site.port,
                    ssl=self.site.ssl,
                    proxy=None,
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
                await asyncio.sleep(0.2)


async def _ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    return response.json()


async def test_site_through_caddy_survives_a_replica_killed_mid_hand(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {**ENV, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url, "LEASE_SECONDS": "1.5"}
    env |= {"ROOMS_PER_MINUTE": "1000", "SOCKETS_PER_MINUTE": "10000"}
    # the bots' room's absent host plays on auto at once and is not waited for between hands,
    # and its room plays on with nobody watching (by default it would wait for a socket)
    env |= {"AUTO_SECONDS": "0", "READY_SECONDS": "1", "PAUSE_UNWATCHED": "bots"}
    env["FORWARDED_ALLOW_IPS"] = "127.0.0.1"  # the proxy's address, as PROXY_IP in compose
    migrate = subprocess.run(
        [sys.executable, "-m", "server", "migrate"],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert migrate.returncode == 0, migrate.stderr
    apps = [ServerProcess(env, tmp_path / f"app{i}.log", args=["--no-migrate"]) for i in (1, 2)]
    site: Caddy | None = None
    try:
        for app in apps:
            app.wait_ready()
        site = Caddy([f"127.0.0.1:{app.port}" for app in apps], tmp_path)
        site.wait_ready()
        SitePlayer.site = site

        for _attempt in range(5):
            room = await _ok(
                await site.request(
                    "POST", "/api/rooms", {"game": "guiyang", "options": {"hands": 4}}
                )
            )
            code = room["code"]
            j0 = await _ok(await site.request("POST", f"/api/rooms/{code}/join", {"name": "ann"}))
            j1 = await _ok(await site.request("POST", f"/api/rooms/{code}/join", {"name": "bob"}))
            p0 = SitePlayer(code, j0["seat"], j0["token"], "", pause_at=2)
            p1 = SitePlayer(code, j1["seat"], j1["token"], "")
            await p0.connect()
            await p1.connect()
            bots = await _ok(
                await site.request("POST", f"/api/rooms/{code}/bots", {"count": 2}, j1["token"])
            )
            assert bots["seats"] == [2, 3]
            plays = [asyncio.create_task(p0.play()), asyncio.create_task(p1.play())]
            paused = asyncio.create_task(p0.paused.wait())
            await asyncio.wait([paused, plays[0]], timeout=90, return_when="FIRST_COMPLETED")
            if paused.done():
                break
            assert plays[0].done(), "seat 0 neither paused nor saw the hand end"
            for task in (paused, plays[1]):
                task.cancel()
            await p0.close()
            await p1.close()
        else:
            raise AssertionError("five hands in a row ended before seat 0 could pause")

        # The owner: the process whose id (host:pid:random) holds the room's lease.
        r = aioredis.Redis.from_url(redis_url)
        try:
            lease = await r.get(f"zhuoji:lease:{code}")
        finally:
            await r.aclose()
        assert lease is not None, "nobody holds the room's lease"
        owner_pid = int(lease.decode().split(":")[-2])
        (owner,) = [app for app in apps if app.proc.pid == owner_pid]
        (survivor,) = [app for app in apps if app is not owner]
        # A bots' room nobody watches, on the same process (created there directly, so it
        # owns it); it must go on after the kill without anybody asking for it. Bots need a
        # seated player's token: its host joins, adds them and goes away; the host's seat
        # times out at once (1 s, no time bank) and plays on auto (AUTO_SECONDS=0).
        fast = {"hands": 8, "turn_seconds": 1, "claim_seconds": 1, "bank_seconds": 0}
        async with httpx.AsyncClient(base_url=owner.http, timeout=30) as client:
            r = await client.post("/api/rooms", json={"game": "guiyang", "options": fast})
            bot_room = r.json()["code"]
            r = await client.post(f"/api/rooms/{bot_room}/join", json={"name": "host"})
            host = r.json()["token"]
            r = await client.post(
                f"/api/rooms/{bot_room}/bots",
                json={"count": 3},
                headers={"Authorization": f"Bearer {host}"},
            )
            assert r.status_code == 200, r.text
            assert r.json()["seats"] == [1, 2, 3]
        owner.kill()

        store = Store(postgres_url)
        try:
            hand = (await store.hands(code))[0]
            assert hand.settlement is None, "the hand ended before the kill"
            bot_status = (await store.get_room(bot_room)).status  # type: ignore[union-attr]
            assert bot_status in ("playing", "between"), bot_status
            bot_hands = len(await store.hands(bot_room))
        finally:
            await store.close()
        p0.resume.set()
        end0, end1 = await asyncio.wait_for(asyncio.gather(*plays), 180)
        assert end0["settlement"] == end1["settlement"]
        await p0.close()
        await p1.close()
        async with httpx.AsyncClient(timeout=10) as client:
            assert (await client.get(f"{survivor.http}/api/health")).json()["rooms"] >= 1
        assert (await site.request("GET", "/metrics")).status_code == 404  # internal only
        info = await _ok(await site.request("GET", f"/api/rooms/{code}"))
        assert info["code"] == code
        await _check_hand(postgres_url, code, end0)

        store = Store(postgres_url)  # read the store only: asking the API would resume it
        try:
            deadline = time.monotonic() + 300
            while (await store.get_room(bot_room)).status != "finished":  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the bot-only room was left behind"
                await asyncio.sleep(0.5)
            hands = await store.hands(bot_room)
            assert len(hands) == 8 > bot_hands - 1
            assert all(h.settlement is not None for h in hands)
        finally:
            await store.close()
        _audit(postgres_url)  # every hand, both rooms: ledger = replay, each row once
        site.log.flush()
        access = (tmp_path / "caddy.log").read_text(errors="replace")
        assert "/ws/rooms/" in access and "token=REDACTED" in access  # logged, redacted
        assert j0["token"] not in access and j1["token"] not in access
    finally:
        if site is not None:
            site.stop()
        for app in apps:
            app.kill()
