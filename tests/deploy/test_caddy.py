"""The Caddyfile run by Debian's ``caddy`` in front of a stand-in upstream (a thread
answering 200), as the domain's HTTPS site (``tls internal`` for ``zhuoji.test``) and as a
LAN's plain-HTTP site: only the HTTPS site sends ``Strict-Transport-Security`` (a year, no
preload), the plain-HTTP answers never do (the domain's redirect to HTTPS included)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").strip().lower() == "true"
DOMAIN = "zhuoji.test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Upstream(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = b'{"status": "ready"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _caddy(env: dict[str, str], tmp: Path) -> subprocess.Popen[bytes]:
    binary = shutil.which("caddy")
    if binary is None:
        if IN_CI:
            pytest.fail("caddy (apt-get install caddy) is required under CI=true", pytrace=False)
        pytest.skip("caddy is not installed")
    base = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "CADDY_ADMIN": "off",
    }
    return subprocess.Popen(
        [binary, "run", "--config", str(REPO / "Caddyfile"), "--adapter", "caddyfile"],
        env={**base, **env},
        stdout=(tmp / "caddy.log").open("ab"),
        stderr=subprocess.STDOUT,
    )


def _get(
    url: str,
    proc: subprocess.Popen[bytes],
    tmp: Path,
    host: str | None = None,
    sni: str | None = None,
) -> httpx.Response:
    """GET ``url`` (``Host`` / SNI ``host`` / ``sni``; the internal CA not checked) once
    Caddy answers it with 200 or a redirect, within 30 s."""
    headers = {"Host": host} if host else {}
    extensions = {"sni_hostname": sni} if sni else {}
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, (tmp / "caddy.log").read_text(errors="replace")[-3000:]
        try:
            with httpx.Client(verify=False, timeout=5) as client:
                r = client.get(url, headers=headers, extensions=extensions)
            if r.status_code in (200, 308):
                return r
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, (tmp / "caddy.log").read_text(errors="replace")
        time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_hsts_on_the_https_site_only(upstream: str, tmp_path: Path) -> None:
    https, http = _free_port(), _free_port()
    env = {"DOMAIN": DOMAIN, "CADDY_TLS": "tls internal", "UPSTREAMS": upstream}
    proc = _caddy({**env, "HTTPS_PORT": str(https), "HTTP_PORT": str(http)}, tmp_path)
    try:
        r = _get(f"https://127.0.0.1:{https}/", proc, tmp_path, host=DOMAIN, sni=DOMAIN)
        assert r.status_code == 200 and r.json() == {"status": "ready"}
        hsts = r.headers.get("Strict-Transport-Security")
        assert hsts == "max-age=31536000", r.headers
        assert "preload" not in hsts
        # the domain's plain HTTP only redirects, without the header
        r = _get(f"http://127.0.0.1:{http}/", proc, tmp_path, host=DOMAIN)
        assert r.status_code == 308 and r.headers["Location"].startswith(f"https://{DOMAIN}")
        assert "Strict-Transport-Security" not in r.headers
    finally:
        _stop(proc)

    lan = _free_port()
    proc = _caddy({"DOMAIN": f":{lan}", "UPSTREAMS": upstream, "HTTP_PORT": str(lan)}, tmp_path)
    try:
        r = _get(f"http://127.0.0.1:{lan}/", proc, tmp_path)
        assert r.status_code == 200 and r.json() == {"status": "ready"}
        assert "Strict-Transport-Security" not in r.headers
    finally:
        _stop(proc)
