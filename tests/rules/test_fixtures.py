"""Every replay fixture (spec/fixtures.md), run as it is.

* The repository's copies, ``tests/fixtures/<game>/*.json`` (the public fixtures, copied byte
  for byte, and the project's own beside them), always.
* Also every fixture under ``../shared/fixtures/<game>/`` when that folder is there. Under
  ``CI=true`` it must be, and each of its fixtures must have an identical copy in the
  repository (`test_shared_fixtures_are_in_the_repository`).

A fixture of a game the engine does not implement (not in `replay.IMPLEMENTED_GAMES`) is
collected and skipped ("<game> not implemented"); it runs once its game is in that set.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import server.rules
from server.rules.replay import IMPLEMENTED_GAMES, check
from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]
REPO_FIXTURES = ROOT / "tests" / "fixtures"
SHARED_FIXTURES = ROOT.parent / "shared" / "fixtures"


def fixture_files(folder: Path) -> list[Path]:
    """``folder/<game>/*.json``, sorted; none if the folder is not there."""
    return sorted(folder.glob("*/*.json")) if folder.is_dir() else []


def cases() -> list[Any]:
    params = []
    for where, folder in (("repo", REPO_FIXTURES), ("shared", SHARED_FIXTURES)):
        for path in fixture_files(folder):
            game = path.parent.name
            marks = []
            if game not in IMPLEMENTED_GAMES:
                marks.append(pytest.mark.skip(reason=f"{game} not implemented"))
            params.append(pytest.param(path, id=f"{where}/{game}/{path.stem}", marks=marks))
    return params


def repo_fixtures(game: str) -> list[Path]:
    return sorted((REPO_FIXTURES / game).glob("*.json"))


def test_the_repository_holds_the_fixtures_of_both_games() -> None:
    assert len(repo_fixtures("guiyang")) >= 23, f"no Guiyang fixtures under {REPO_FIXTURES}"
    assert len(repo_fixtures("jintan")) >= 8, f"no Jintan fixtures under {REPO_FIXTURES}"


def test_implemented_games_are_the_games_of_the_rules_package() -> None:
    """A new game package in server/rules must be added to `IMPLEMENTED_GAMES` (and so to
    `replay.check`), which turns its fixtures on here."""
    packages = {m.name for m in pkgutil.iter_modules(server.rules.__path__) if m.ispkg}
    assert packages == set(IMPLEMENTED_GAMES)


@pytest.mark.parametrize("path", cases())
def test_fixture(path: Path) -> None:
    fixture = json.loads(path.read_text(encoding="utf-8"))
    assert fixture.get("game", "guiyang") == path.parent.name, "fixture in another game's folder"
    result = check(fixture)
    assert result["ok"], result.get("diff") or result.get("error")


def test_shared_fixtures_are_in_the_repository() -> None:
    """Every fixture of ../shared/fixtures has a byte-identical copy under tests/fixtures."""
    if not SHARED_FIXTURES.is_dir():
        unavailable("shared fixtures", f"{SHARED_FIXTURES} is not there")
    shared = {p.relative_to(SHARED_FIXTURES): p for p in fixture_files(SHARED_FIXTURES)}
    assert shared, f"no fixtures under {SHARED_FIXTURES}"
    missing = sorted(str(rel) for rel in shared if not (REPO_FIXTURES / rel).is_file())
    differing = sorted(
        str(rel)
        for rel, path in shared.items()
        if str(rel) not in missing and (REPO_FIXTURES / rel).read_bytes() != path.read_bytes()
    )
    assert not missing and not differing, (
        f"shared fixtures without a copy in tests/fixtures: {missing}; "
        f"copies that differ from the shared ones: {differing}"
    )


def run_replay(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "replay", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_replay_command_prints_one_line_per_fixture_and_exit_status() -> None:
    files = [p for game in sorted(IMPLEMENTED_GAMES) for p in repo_fixtures(game)]
    proc = run_replay(*files)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == len(files)
    assert all(line["ok"] for line in lines)
    # Every key of the fixture outcome is filled, not only those the fixture expects.
    for key in (
        "result",
        "winners",
        "hand_types",
        "deltas",
        "ready",
        "chickens",
        "turned",
        "next_dealer",
        "payments",
    ):
        assert all(key in line for line in lines)


def test_replay_command_fails_on_a_wrong_expectation(tmp_path: Path) -> None:
    fixture = json.loads((REPO_FIXTURES / "guiyang" / "zimo-ping-hu.json").read_text("utf-8"))
    fixture["expect"]["deltas"] = [-3, 7, -2, -2]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(fixture), encoding="utf-8")
    proc = run_replay(bad)
    assert proc.returncode == 1
    line = json.loads(proc.stdout)
    assert line["ok"] is False and line["deltas"] == [-2, 6, -2, -2]


def test_replay_command_reports_a_game_it_does_not_implement(tmp_path: Path) -> None:
    fixture = json.loads((REPO_FIXTURES / "guiyang" / "zimo-ping-hu.json").read_text("utf-8"))
    fixture["game"] = "no_such_game"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(fixture), encoding="utf-8")
    proc = run_replay(other)
    assert proc.returncode == 1
    line = json.loads(proc.stdout)
    assert line["ok"] is False and line["error"] == "game 'no_such_game' is not implemented"
