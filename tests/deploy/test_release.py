"""Which release runs: the app image's tag lives in ``.env`` (``ZHUOJI_TAG``, set by
``deploy/set-tag.sh``), never on a command line, so every ``docker compose`` command the
README gives runs the release last deployed; and README's upgrade and roll back replace the
replicas one after the other. Checked without a container engine: the script on copies of
``.env.example``, the compose file's interpolation, and the README's commands."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SET_TAG = REPO / "deploy" / "set-tag.sh"
README = (REPO / "README.md").read_text()


def _set_tag(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", str(SET_TAG), *args], cwd=cwd, capture_output=True, text=True)


def _dotenv(path: Path) -> dict[str, str]:
    """``NAME=value`` lines of an env file, as compose reads them (the last one wins)."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", line.strip())
        if m:
            out[m[1]] = m[2]
    return out


def _image(env: dict[str, str]) -> str:
    """The app's image as compose interpolates ``zhuoji:${ZHUOJI_TAG:-local}`` from ``env``."""
    services = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]
    images = {s["image"] for s in services.values() if "build" in s}
    assert images == {"zhuoji:${ZHUOJI_TAG:-local}"}, images
    image = images.pop()
    return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m[1]) or m[2], image)


def _section(heading: str) -> str:
    start = README.index(f"\n{heading}\n")
    end = README.find("\n#", start + len(heading) + 2)
    return README[start:end]


def _commands(text: str) -> list[str]:
    """The command lines of the ``sh`` blocks in ``text``, comments cut."""
    out: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def test_the_tag_lives_in_env_and_set_tag_replaces_it_in_place(tmp_path: Path) -> None:
    example = (REPO / ".env.example").read_text()
    assert re.search(r"^ZHUOJI_TAG=local$", example, re.M), "ZHUOJI_TAG is not set in .env"
    env = tmp_path / ".env"
    env.write_text(example.replace("POSTGRES_PASSWORD=\n", "POSTGRES_PASSWORD=secret\n"))
    env.chmod(0o600)
    assert _image(_dotenv(env)) == "zhuoji:local"

    done = _set_tag("3f2a9c1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "was local" in done.stdout and "deploy/set-tag.sh local" in done.stdout
    assert _image(_dotenv(env)) == "zhuoji:3f2a9c1"
    done = _set_tag("4b0d7e2", cwd=tmp_path)
    assert "was 3f2a9c1" in done.stdout
    text = env.read_text()
    assert text.count("ZHUOJI_TAG=") == 1
    # nothing else moved, and the secrets file stays private
    assert text == example.replace("POSTGRES_PASSWORD=\n", "POSTGRES_PASSWORD=secret\n").replace(
        "ZHUOJI_TAG=local\n", "ZHUOJI_TAG=4b0d7e2\n"
    )
    assert stat.S_IMODE(env.stat().st_mode) == 0o600
    assert _image(_dotenv(env)) == "zhuoji:4b0d7e2"


def test_set_tag_adds_the_line_to_an_older_env_and_refuses_a_bad_tag(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("POSTGRES_PASSWORD=secret\nADMIN_TOKEN=t")  # no final newline
    assert _image(_dotenv(env)) == "zhuoji:local"
    done = _set_tag("v1.2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert env.read_text() == "POSTGRES_PASSWORD=secret\nADMIN_TOKEN=t\nZHUOJI_TAG=v1.2\n"
    for bad in ("", "-x", ".x", "a b", "a/b", "a;rm -rf x", "x" * 129):
        done = _set_tag(bad, cwd=tmp_path)
        assert done.returncode == 2, bad
    assert env.read_text().endswith("ZHUOJI_TAG=v1.2\n")
    other = tmp_path / "sub"
    other.mkdir()
    done = _set_tag("v2", cwd=other)
    assert done.returncode == 1 and ".env not found" in done.stderr
    assert os.access(SET_TAG, os.X_OK)


def test_no_readme_command_sets_the_tag_on_its_command_line() -> None:
    commands = _commands(README)
    commands += [c for c in re.findall(r"`([^`\n]+)`", README) if "docker compose" in c]
    compose = [c for c in commands if "docker compose" in c]
    assert len(compose) >= 10, compose
    for command in commands:
        assert not re.search(r"(^|\s)ZHUOJI_TAG=", command), command
        assert "-e ZHUOJI_TAG" not in command, command


def test_upgrade_and_roll_back_replace_the_replicas_one_after_the_other() -> None:
    upgrade = _commands(_section("### Upgrade"))
    assert upgrade[0] == "git pull"
    assert upgrade[1].startswith("deploy/set-tag.sh ")

    def at(command: str) -> int:
        return upgrade.index(command)

    order = [
        at("docker compose build"),
        at("docker compose run --rm migrate"),
        at("docker compose up -d --no-deps --wait app1"),
        at("docker compose up -d --no-deps --wait app2"),
    ]
    assert order == sorted(order) and order[0] > 1, upgrade
    # nothing replaces both replicas at once before app2 is done
    for command in upgrade[: order[-1]]:
        assert not re.fullmatch(r"docker compose up .*", command) or "--no-deps" in command
    assert "short outage" in _section("### Upgrade")

    back = _commands(_section("### Roll back"))
    assert back[0] == "deploy/set-tag.sh <previous>"
    assert back[1:] == [
        "docker compose up -d --no-deps --wait app1",
        "docker compose up -d --no-deps --wait app2",
    ]


def test_command_line_shows_the_compose_site_command() -> None:
    commands = _commands(_section("## Command line"))
    assert any(c.startswith("docker compose exec app1 python -m server admin ") for c in commands)
    assert "docker compose exec app1 python -m server audit" in commands
