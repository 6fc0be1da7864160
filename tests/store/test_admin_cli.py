"""``python -m server admin ...`` (issue 14): the admin's queries from the host's shell, read
from the database directly, as JSON lines or CSV giving the same numbers as the queries."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime

from bench.admin import fill
from server.store import Store
from server.store import admin as q


def _cli(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url}
    return subprocess.run(
        [sys.executable, "-m", "server", "admin", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


async def test_admin_cli_prints_the_queries_results(store: Store, database_url: str) -> None:
    await fill(store, 80, names=6)
    await q.correct(store, "B3", 2, kind="void", reason="dispute", actor="host")

    out = _cli(database_url, "leaderboard", "--csv", "--all", "--limit", "2")
    assert out.returncode == 0, out.stderr
    board = list(csv.DictReader(io.StringIO(out.stdout)))
    want = (await q.leaderboard(store))[0]
    assert [(r["player"], int(r["points"]), int(r["hands"]), int(r["wins"])) for r in board] == [
        (r["player"], r["points"], r["hands"], r["wins"]) for r in want
    ]

    out = _cli(database_url, "player", "player2", "--since", "2026-01-01T02:00:00Z")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    since = q.Range(since=datetime(2026, 1, 1, 2, tzinfo=UTC))
    assert lines[0] == await q.player_totals(store, "player2", since)
    assert lines[1:] == (await q.player_history(store, "player2", since))[0]

    out = _cli(database_url, "rooms", "--limit", "3")
    assert out.returncode == 0 and out.stderr.startswith("next: ")
    codes = [json.loads(line)["code"] for line in out.stdout.splitlines()]
    assert codes == ["B10", "B9", "B8"]
    out = _cli(database_url, "rooms", "--limit", "3", "--cursor", out.stderr.split()[1])
    assert [json.loads(line)["code"] for line in out.stdout.splitlines()] == ["B7", "B6", "B5"]

    out = _cli(database_url, "hand", "B3", "2", "--csv")
    assert out.returncode == 0, out.stderr
    detail = await q.hand_detail(store, "B3", 2)
    assert detail["voided"]
    assert [int(r["points"]) for r in csv.DictReader(io.StringIO(out.stdout))] == [
        p["points"] for p in detail["payments"]
    ]
    out = _cli(database_url, "hand", "B3", "99")
    assert out.returncode == 1 and "unknown hand 99" in out.stderr

    # bad arguments: exit 2 with a message, as the API's 422 (not one row, not an empty
    # answer, not a traceback)
    for bad in (
        ("rooms", "--limit", "0"),
        ("rooms", "--limit", "-3"),
        ("rooms", "--limit", "1001"),
        ("rooms", "--game", "mahjong"),
        ("leaderboard", "--since", "2026-12-07", "--until", "2026-12-06"),
        ("leaderboard", "--since", "9999-12-31T23:59:59-23:59"),
        ("player", ""),
    ):
        out = _cli(database_url, *bad)
        assert out.returncode == 2, (bad, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr and out.stderr.strip(), (bad, out.stderr)


def test_the_help_reads_as_plain_text() -> None:
    # The help printed the docstrings' reStructuredText marks (``serve``, :mod:`x`) as is.
    from server.__main__ import build_parser as main_parser
    from server.admin_cli import build_parser as admin_parser

    for text in (main_parser().format_help(), admin_parser().format_help()):
        assert "``" not in text and ":mod:" not in text, text
    assert "python -m server [serve|migrate|replay|audit|admin]" in main_parser().format_help()
    assert "* rooms [--game G] [--status S]" in admin_parser().format_help()
