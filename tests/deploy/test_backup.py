"""Backups: the compose ``backup`` service's script (``deploy/backup.sh once``) dumps the
real PostgreSQL database into a file only its owner reads (0600: it holds token and
player-code hashes); the README's restore recipe (``pg_restore`` into a fresh database)
gives a database on which ``python -m server audit`` passes, with every hand and ledger row;
and audit fails on a tampered restore (so the check can fail). A failing ``pg_dump`` (a
stand-in on PATH) is tried ``BACKUP_TRIES`` times, then reported loudly: exit status 1, an
ERROR line, and ``BACKUP-FAILED`` (the compose healthcheck's mark) until a dump succeeds."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import pytest
import yaml
from sqlalchemy.engine import make_url

from server.store import Store

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "store"))
from test_audit import store_played_hand  # noqa: E402

BACKUP = REPO / "deploy" / "backup.sh"


def _libpq_env(url: str) -> dict[str, str]:
    u = make_url(url)
    env = {"PGHOST": u.host or "127.0.0.1", "PGPORT": str(u.port or 5432)}
    env["PGUSER"] = u.username or "postgres"
    env["PGDATABASE"] = u.database or "postgres"
    if u.password:
        env["PGPASSWORD"] = u.password
    return env


def _audit(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "audit", "--database-url", url],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.postgres
async def test_backup_restored_into_a_fresh_database_passes_audit(
    postgres_url: str, tmp_path: Path
) -> None:
    for tool in ("pg_dump", "pg_restore"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed")
    store = Store(postgres_url)
    try:
        await store.migrate()
        for i, code in enumerate(("BKUPAA", "BKUPBB", "BKUPCC")):
            await store_played_hand(store, code, f"backup-seed-{i}")
        rows = len(await store.ledger(limit=10_000))
    finally:
        await store.close()
    assert rows > 0

    backups = tmp_path / "backups"
    backups.mkdir()
    older = backups / "zhuoji-20261130T030000Z.dump"  # written before dumps were 0600
    older.write_bytes(b"")
    older.chmod(0o644)
    env = {**os.environ, **_libpq_env(postgres_url), "BACKUP_DIR": str(backups)}
    env["BACKUP_KEEP_DAYS"] = "14"
    done = subprocess.run(  # under the usual umask 022: the script sets its own
        ["sh", "-c", 'umask 022 && exec sh "$0" once', str(BACKUP)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    dumps = sorted(set(backups.glob("zhuoji-*.dump")) - {older})
    assert len(dumps) == 1 and not list(backups.glob("*.part"))
    for dump in (dumps[0], older):
        assert stat.S_IMODE(dump.stat().st_mode) == 0o600, dump
    assert not (backups / "BACKUP-FAILED").exists()

    fresh = f"{make_url(postgres_url).database}_restore"
    live = f"{make_url(postgres_url).database}_live"
    admin_dsn = make_url(postgres_url).set(drivername="postgresql", database="postgres")
    conn = await asyncpg.connect(admin_dsn.render_as_string(hide_password=False))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{fresh}"')
        await conn.execute(f'CREATE DATABASE "{fresh}"')
    finally:
        await conn.close()
    restored = make_url(postgres_url).set(database=fresh).render_as_string(hide_password=False)
    try:
        restore_env = {**os.environ, **_libpq_env(restored)}
        done = subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", "-d", fresh, str(dumps[0])],
            env=restore_env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr

        audit = _audit(restored)
        assert audit.returncode == 0, audit.stdout + audit.stderr

        # README's swap: its SQL, `zhuoji` standing for a live database `<fresh>_live`
        swap = next(c for c in _readme_block("(exit status 1 if it failed)") if "RENAME" in c)
        names = {"zhuoji": live, "zhuoji_old": f"{live}_old", "zhuoji_restore": fresh}
        conn = await asyncpg.connect(admin_dsn.render_as_string(hide_password=False))
        try:
            await conn.execute(f'CREATE DATABASE "{live}"')
            for sql in re.findall(r"-c '([^']*)'", swap):
                await conn.execute(re.sub(r"\bzhuoji\w*", lambda m: f'"{names[m[0]]}"', sql))
            found = {r["datname"] for r in await conn.fetch("SELECT datname FROM pg_database")}
        finally:
            await conn.close()
        assert {live, f"{live}_old"} <= found and fresh not in found
        restored = make_url(postgres_url).set(database=live).render_as_string(hide_password=False)
        store = Store(restored)
        try:
            assert len(await store.ledger(limit=10_000)) == rows
            assert len(await store.all_hands()) == 3
            from sqlalchemy import text

            async with store.engine.begin() as c:  # tamper: the audit must notice
                await c.execute(
                    text(
                        "UPDATE ledger_entries SET points = points + 1 WHERE id = ("
                        "SELECT min(id) FROM ledger_entries)"
                    )
                )
        finally:
            await store.close()
        assert _audit(restored).returncode == 1
    finally:
        conn = await asyncpg.connect(admin_dsn.render_as_string(hide_password=False))
        try:
            for name in (fresh, live, f"{live}_old"):
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


def _stand_in_pg_dump(bin_dir: Path, failures: int) -> None:
    """``pg_dump`` on PATH failing its first ``failures`` runs (counted in a file beside it),
    then the real one."""
    real = shutil.which("pg_dump")
    bin_dir.mkdir()
    script = bin_dir / "pg_dump"
    script.write_text(
        "#!/bin/sh\n"
        f'count="{bin_dir}/runs"\n'
        'n=$(($(cat "$count" 2>/dev/null || echo 0) + 1)); echo "$n" >"$count"\n'
        f'if [ "$n" -le {failures} ]; then\n'
        '    echo "pg_dump: error: connection to server failed (run $n)" >&2; exit 1\n'
        "fi\n"
        f'exec {real or "false"} "$@"\n'
    )
    script.chmod(0o755)


def _backup_once(backups: Path, bin_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "BACKUP_DIR": str(backups), "BACKUP_RETRY_SECONDS": "1", **env}
    full["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(["sh", str(BACKUP), "once"], env=full, capture_output=True, text=True)


def test_a_dump_that_keeps_failing_is_retried_then_reported_loudly(tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    backups.mkdir()
    _stand_in_pg_dump(tmp_path / "bin", failures=99)
    started = time.monotonic()
    done = _backup_once(backups, tmp_path / "bin", BACKUP_TRIES="3")
    took = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    assert (tmp_path / "bin" / "runs").read_text().strip() == "3"
    assert 2.0 <= took < 30, took  # two waits of BACKUP_RETRY_SECONDS between three tries
    for n in (1, 2, 3):
        assert f"pg_dump failed (try {n} of 3)" in done.stderr
        assert f"(run {n})" in done.stderr
    assert "backup: ERROR: NO BACKUP WRITTEN" in done.stderr
    mark = backups / "BACKUP-FAILED"
    assert "pg_dump failed 3 times" in mark.read_text() and "(run 3)" in mark.read_text()
    assert stat.S_IMODE(mark.stat().st_mode) == 0o600
    assert [p.name for p in backups.iterdir()] == ["BACKUP-FAILED"]  # no dump, no .part

    # compose's healthcheck for the service looks for that very mark, where the script is
    services = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]
    backup = services["backup"]
    assert "${BACKUP_DIR:-./backups}:/backups" in backup["volumes"]
    assert backup["healthcheck"]["test"] == ["CMD-SHELL", "test ! -e /backups/BACKUP-FAILED"]
    for name in ("BACKUP_TRIES", "BACKUP_RETRY_SECONDS"):
        assert name in backup["environment"] and name in (REPO / ".env.example").read_text()


@pytest.mark.postgres
async def test_a_dump_that_fails_once_is_retried_and_clears_the_failure(
    postgres_url: str, tmp_path: Path
) -> None:
    if shutil.which("pg_dump") is None:
        pytest.fail("pg_dump is not installed")
    store = Store(postgres_url)
    try:
        await store.migrate()
    finally:
        await store.close()
    backups = tmp_path / "backups"
    backups.mkdir()
    (backups / "BACKUP-FAILED").write_text("an earlier failure\n")
    _stand_in_pg_dump(tmp_path / "bin", failures=1)
    done = _backup_once(backups, tmp_path / "bin", **_libpq_env(postgres_url))
    assert done.returncode == 0, done.stderr
    assert "pg_dump failed (try 1 of 3)" in done.stderr and "ERROR" not in done.stderr
    assert (tmp_path / "bin" / "runs").read_text().strip() == "2"
    dumps = list(backups.glob("zhuoji-*.dump"))
    assert len(dumps) == 1 and stat.S_IMODE(dumps[0].stat().st_mode) == 0o600
    assert not (backups / "BACKUP-FAILED").exists()


def _readme_block(after: str) -> list[str]:
    """The command lines of README's first ``sh`` block after the text ``after``."""
    readme = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", readme[readme.index(after) :], re.S)
    assert block, after
    lines = [ln.strip() for ln in block[1].splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _rows(path: Path, sql: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


async def test_sqlite_backup_while_running_and_restore_as_the_readme_says(
    tmp_path: Path,
) -> None:
    """README's SQLite commands: both backups (the sqlite3 program, Python's backup API) of
    a database in use hold what is still in its -wal (a copy of zhuoji.db alone does not);
    the restore steps swap one in, and the audit passes on it."""
    db = tmp_path / "zhuoji.db"
    store = Store(f"sqlite+aiosqlite:///{db}")
    try:
        await store.migrate()
        for i, code in enumerate(("SQLTAA", "SQLTBB")):
            await store_played_hand(store, code, f"sqlite-backup-seed-{i}")
    finally:
        await store.close()
    # a connection still open (the running server) with a write only in the -wal
    running = sqlite3.connect(db, isolation_level=None)
    try:
        running.execute("PRAGMA wal_autocheckpoint=0")
        assert running.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        running.execute("CREATE TABLE backup_probe (x INTEGER)")
        running.execute("INSERT INTO backup_probe VALUES (42)")
        plain = tmp_path / "plain.db"
        shutil.copyfile(db, plain)
        assert (tmp_path / "zhuoji.db-wal").stat().st_size > 0
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            _rows(plain, "SELECT count(*) FROM backup_probe")
        plain.unlink()

        commands = _readme_block("**SQLite** (one process")
        assert len(commands) == 2 and ".backup" in commands[0] and "backup(" in commands[1]
        if shutil.which("sqlite3") is None:
            commands = commands[1:]  # the README's alternative without the program
        made: list[Path] = []
        for command in commands:
            done = subprocess.run(
                ["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True
            )
            assert done.returncode == 0, command + done.stderr
            new = sorted(set((tmp_path / "backups").glob("zhuoji-*.db")) - set(made))
            assert len(new) == 1, new
            made.append(new[0].rename(new[0].with_name(f"{new[0].stem}-{len(made)}.db")))
    finally:
        running.close()
    ledger = "SELECT count(*) FROM ledger_entries"
    for backup in made:
        assert stat.S_IMODE(backup.stat().st_mode) == 0o600, backup
        assert _rows(backup, "SELECT x FROM backup_probe") == 42
        assert _rows(backup, ledger) == _rows(db, ledger) > 0

    # restore: the README's steps, `python` being this one, from the server's directory
    (tmp_path / "zhuoji.db").write_bytes(b"damaged")
    steps = _readme_block("Restore: stop the server, set the current files aside")
    assert steps[-1] == "python -m server"  # serve: not run here
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("DATABASE_URL", None)
    for step in steps[:-1]:
        step = step.replace("backups/zhuoji-YYYYmmddTHHMMSSZ.db", str(made[-1]))
        step = re.sub(r"^python ", f"{sys.executable} ", step)
        done = subprocess.run(["sh", "-c", step], cwd=tmp_path, env=env, capture_output=True)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    (replaced,) = (tmp_path / "backups").glob("replaced-*")
    assert (replaced / "zhuoji.db").read_bytes() == b"damaged"
    assert _rows(tmp_path / "zhuoji.db", "SELECT x FROM backup_probe") == 42
