"""Smoke test of the benchmark scripts: each runs a few seconds with tiny parameters and
prints its table. It asserts no times (the numbers are for people to read).

    .venv/bin/python -m pytest -q bench/test_smoke.py

Outside ``tests/`` (the default test paths), so the suite never runs it unasked.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_selfplay_prints_its_table() -> None:
    out = run("bench/selfplay.py", "--seconds", "0.2", "--repeat", "1", "--no-rlcard")
    assert "| engine |" in out and "| actor |" in out


def test_load_prints_its_table() -> None:
    out = run(
        "bench/load.py",
        *("--rooms", "1", "--seconds", "2", "--mode", "closed", "--config", "sqlite"),
        *("--repeat", "1"),
    )
    assert "| baseline |" in out and "| sqlite |" in out
    row = next(line for line in out.splitlines() if line.startswith("| sqlite |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "1"  # the room was seated and connected
    assert float(cells[2]) > 0  # and its players' actions went through
