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


def test_load_prints_its_table(tmp_path: Path) -> None:
    out = run(
        "bench/load.py",
        *("--rooms", "1", "--seconds", "2", "--mode", "closed", "--config", "sqlite"),
        *("--repeat", "1", "--warm-up", "1", "--latencies", str(tmp_path)),
    )
    assert "| baseline |" in out and "| sqlite |" in out
    row = next(line for line in out.splitlines() if line.startswith("| sqlite |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "1"  # the room was seated and connected
    assert float(cells[2]) > 0  # and its players' actions went through
    # each whole second of the window, with the actions the room sent in it
    trace = (tmp_path / "sqlite-closed-1-seconds.csv").read_text().splitlines()
    assert trace[0] == "second,actions,hands,server_cpu_ms_per_action"
    assert [line.split(",")[0] for line in trace[1:]] == ["0", "1"]
    assert all(int(line.split(",")[1]) > 0 for line in trace[1:])


def test_server_log_counts_chained_tracebacks_once_and_lost_leases(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from load import logged_exceptions

    log = tmp_path / "server.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in f\n'
        "KeyError: 'a'\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 2, in g\n'
        "server.room.errors.RoomError: unavailable\n"
        "WARNING server.room.cluster room ABC123: lease lost\n"
        "WARNING server.room.cluster room DEF456: lease lost\n"
    )
    assert logged_exceptions(log) == {"RoomError": 1, "lease_lost": 2}


def test_paced_slots_keep_each_rooms_grid() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from load import PacedSlots

    slots = PacedSlots(10.25)
    assert slots.reserve(10.0) == 0.25  # waits for its slot
    assert slots.reserve(10.5) == 0.75  # the next one, a second later (11.25)
    # a prompt that comes after its slot (12.25) is answered at once, and the slot after
    # stays on the grid (13.25): not a second after the late answer
    assert slots.reserve(12.6) == 0.0
    assert abs(slots.reserve(12.7) - 0.55) < 1e-9
    assert slots.reserve(16.3) == 0.0  # slots missed meanwhile are skipped
    assert abs(slots.reserve(16.4) - 0.85) < 1e-9  # 17.25
