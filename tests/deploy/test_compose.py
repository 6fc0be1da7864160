"""The deployment files, checked without a container engine: the compose file against the
compose-spec JSON schema (vendored in ``check-jsonschema``), its secrets and topology, the
Caddyfile through Debian's ``caddy adapt``, and the Dockerfile through hadolint."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
IN_CI = os.environ.get("CI", "").strip().lower() == "true"
REQUIRED_SECRETS = ("POSTGRES_PASSWORD", "ADMIN_TOKEN")


def _tool(name: str) -> str:
    """The path of ``name`` (next to this Python first); skip, or fail under CI=true."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        if IN_CI:
            pytest.fail(f"{name} is required under CI=true", pytrace=False)
        pytest.skip(f"{name} is not installed")
    return found


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_file_matches_the_compose_spec() -> None:
    tool = _tool("check-jsonschema")
    run = subprocess.run(
        [tool, "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_schema_check_catches_a_broken_compose_file(tmp_path: Path) -> None:
    tool = _tool("check-jsonschema")
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace("    depends_on:\n", "    depends_onn:\n", 1))
    run = subprocess.run(
        [tool, "--builtin-schema", "vendor.compose-spec", str(broken)], capture_output=True
    )
    assert run.returncode != 0


def test_secrets_are_required_and_never_written_in_the_file() -> None:
    text = COMPOSE.read_text()
    for name in REQUIRED_SECRETS:
        uses = re.findall(r"\$\{" + name + r"([^}]*)\}", text)
        assert uses, f"{name} is not used"
        assert all(u.startswith(":?") for u in uses), f"{name} must be ${{{name}:?...}}: {uses}"
    compose = _compose()
    for service in compose["services"].values():
        env = service.get("environment") or {}
        for key, value in env.items():
            if re.search("PASSWORD|TOKEN", key):
                assert "${" in str(value), f"{key} has a literal value"
    assert "zhuoji:zhuoji@" not in text


def test_topology_only_the_proxy_publishes_and_apps_wait_for_the_migration() -> None:
    services = _compose()["services"]
    published = sorted(name for name, s in services.items() if s.get("ports"))
    assert published == ["caddy"]
    assert services["caddy"]["image"].startswith("caddy:")
    apps = [name for name, s in services.items() if "--no-migrate" in (s.get("command") or [])]
    assert apps == ["app1", "app2"]
    upstreams = services["caddy"]["environment"]["UPSTREAMS"].split()
    assert upstreams == [f"{a}:8000" for a in apps]
    # the Caddyfile's site settings from .env reach it (CADDY_TLS=tls internal did nothing)
    assert services["caddy"]["environment"]["CADDY_TLS"] == "${CADDY_TLS:-}"
    assert "# CADDY_TLS=tls internal" in (REPO / ".env.example").read_text()
    proxy_ip = "${PROXY_IP:-172.30.77.10}"
    assert services["caddy"]["networks"]["front"]["ipv4_address"] == proxy_ip
    for name in apps:
        app = services[name]
        assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert app["environment"]["FORWARDED_ALLOW_IPS"] == proxy_ip
        assert "/readyz" in " ".join(app["healthcheck"]["test"])
    assert services["migrate"]["command"] == ["python", "-m", "server", "migrate"]
    assert services["migrate"]["restart"] == "no"


def test_every_service_rotates_its_log() -> None:
    text = COMPOSE.read_text()
    assert re.search(r"^x-logging: &logging$", text, re.M)
    services = _compose()["services"]
    assert {"caddy", "migrate", "app1", "app2", "postgres", "redis", "backup"} <= services.keys()
    for name, service in services.items():
        logging = service.get("logging")
        assert logging, f"{name} has no logging options (its log grows without bound)"
        assert logging["driver"] == "json-file", name
        options = {k: _interpolate(str(v), {}) for k, v in logging["options"].items()}
        assert re.fullmatch(r"[1-9][0-9]*[kmg]", options["max-size"]), (name, options)
        assert int(options["max-file"]) >= 2, (name, options)
    example = (REPO / ".env.example").read_text()
    assert "LOG_MAX_SIZE" in example and "LOG_MAX_FILES" in example


def _interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ``${NAME:-default}`` and ``${NAME}`` in ``value`` (the forms the caddy
    service uses), ``env`` being the ``.env`` file: the default when NAME is unset or empty."""
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}", lambda m: env.get(m[1]) or m[2] or "", value)


def test_caddyfile_adapts_for_a_domain_and_for_a_lan() -> None:
    caddy = _tool("caddy")

    def adapt(env: dict[str, str]) -> dict[str, Any]:
        run = subprocess.run(
            [caddy, "adapt", "--config", str(REPO / "Caddyfile")],
            capture_output=True,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/tmp", **env},
        )
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)

    lan = adapt({})["apps"]["http"]["servers"]["srv0"]
    assert lan["listen"] == [":80"]
    # as compose starts it: .env.example's empty DOMAIN= (and no DOMAIN at all) is a LAN too
    caddy_env = _compose()["services"]["caddy"]["environment"]
    for dot_env in ({"DOMAIN": ""}, {}):
        env = {k: _interpolate(str(v), dot_env) for k, v in caddy_env.items()}
        lan = adapt(env)["apps"]["http"]["servers"]["srv0"]
        assert lan["listen"] == [":80"], (dot_env, env)
    assert re.search(r"^DOMAIN=$", (REPO / ".env.example").read_text(), re.M)
    site = adapt({"DOMAIN": "mahjong.example.org", "UPSTREAMS": "a:1 b:2"})
    server = site["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == [":443"]
    assert server["routes"][0]["match"] == [{"host": ["mahjong.example.org"]}]
    proxy = json.dumps(server)
    assert '"upstreams": [{"dial": "a:1"}, {"dial": "b:2"}]' in proxy
    assert '"uri": "/readyz"' in proxy
    assert '{"path": ["/metrics"]}' in proxy and '"status_code": 404' in proxy


def test_dockerfile_lints_clean_and_installs_locked_deps_before_the_code() -> None:
    hadolint = _tool("hadolint")
    run = subprocess.run([hadolint, str(REPO / "Dockerfile")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = (REPO / "Dockerfile").read_text().splitlines()
    install = next(i for i, line in enumerate(lines) if "pip install" in line)
    assert "--require-hashes -r requirements.txt" in lines[install]
    copies = [i for i, line in enumerate(lines) if line.startswith("COPY server")]
    assert copies and copies[0] > install
    # a lone container's SQLite file is in a directory its user may write (/app is not:
    # `docker run` exited at once, "the directory ... is not writable by this process")
    text = "\n".join(lines)
    assert "ENV DATABASE_URL=sqlite+aiosqlite:////app/data/zhuoji.db" in lines
    assert "chown 1000:1000 /app/data" in text and "USER 1000:1000" in lines


def _dockerignore_regex(pattern: str) -> re.Pattern[str]:
    """A ``.dockerignore`` pattern as Docker matches it (Go's filepath.Match, plus ``**``
    for any number of directories, none included)."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``path`` out of the build context: the last pattern matching it
    or one of its parent directories decides (``!`` patterns put it back)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    ignored = False
    for raw in patterns:
        negate = raw.startswith("!")
        rx = _dockerignore_regex(raw.removeprefix("!").strip("/"))
        if any(rx.fullmatch(p) for p in prefixes):
            ignored = not negate
    return ignored


def test_dockerignore_keeps_secrets_backups_and_databases_out_of_the_build_context() -> None:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    patterns = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    for path in (
        ".env",
        ".env.local",
        "backups/zhuoji-20261201T030000Z.dump",
        "backups/zhuoji-20261201T030000Z.dump.part",
        "backups/zhuoji-2026-12-01.db",
        "zhuoji.db",
        "zhuoji.db-wal",
        "zhuoji.db-shm",
        "zhuoji.db-migrate.lock",
        ".git/config",
        ".venv/bin/python",
        ".venv-ci/bin/python",
        "screenshots/table.png",
        "server/__pycache__/config.cpython-311.pyc",
        "tests/conftest.py",
    ):
        assert _ignored(path, patterns), f"{path} would be sent to the builder"
    # everything the Dockerfile copies stays in the context
    copied = [
        line.split()[1]
        for line in (REPO / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    ]
    assert copied
    for source in copied:
        files = (
            [source]
            if (REPO / source).is_file()
            else [str(p.relative_to(REPO)) for p in (REPO / source).rglob("*") if p.is_file()]
        )
        files = [f for f in files if "__pycache__" not in f]
        assert files, source
        for f in files:
            assert not _ignored(f, patterns), f"{f} (COPY {source}) is left out of the context"
