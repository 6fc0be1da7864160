"""Every shared replay fixture, run as it is from ../shared/fixtures (spec/fixtures.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from server.rules.replay import check

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
GUIYANG = sorted((FIXTURES / "guiyang").glob("*.json"))


def test_fixtures_are_there() -> None:
    assert len(GUIYANG) >= 23, f"no Guiyang fixtures found under {FIXTURES}"


@pytest.mark.parametrize("path", GUIYANG, ids=[p.stem for p in GUIYANG])
def test_guiyang_fixture(path: Path) -> None:
    fixture = json.loads(path.read_text(encoding="utf-8"))
    result = check(fixture)
    assert result["ok"], result.get("diff") or result.get("error")


def test_replay_command_prints_one_line_per_fixture_and_exit_status() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server", "replay", *map(str, GUIYANG)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == len(GUIYANG)
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
    fixture = json.loads((FIXTURES / "guiyang" / "zimo-ping-hu.json").read_text("utf-8"))
    fixture["expect"]["deltas"] = [-3, 7, -2, -2]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(fixture), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "server", "replay", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    line = json.loads(proc.stdout)
    assert line["ok"] is False and line["deltas"] == [-2, 6, -2, -2]
