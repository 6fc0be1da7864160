"""The lock files pin every dependency pyproject.toml declares (with hashes), so a new
dependency cannot ship without re-running pip-compile (README: "Pinned dependencies")."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def _pinned(path: Path) -> dict[str, str]:
    text = path.read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", text, flags=re.M))
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        if "==" in block.split("\n")[0]:
            assert "--hash=sha256:" in block, f"no hash: {block.splitlines()[0]}"
    return {k.lower().replace("_", "-"): v for k, v in pins.items()}


def test_lock_files_pin_every_declared_dependency_with_hashes() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = {_name(d) for d in project["dependencies"]}
    test = {_name(d) for d in project["optional-dependencies"]["test"]}
    locked = _pinned(REPO / "requirements.txt")
    locked_test = _pinned(REPO / "requirements-test.txt")
    assert runtime <= locked.keys(), runtime - locked.keys()
    assert runtime | test <= locked_test.keys(), (runtime | test) - locked_test.keys()
    differ = {n for n in locked if n in locked_test and locked[n] != locked_test[n]}
    assert not differ, f"runtime and test locks disagree on {differ}"
