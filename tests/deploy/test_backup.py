"""Backups: the compose ``backup`` service's script (``deploy/backup.sh once``) dumps the
real PostgreSQL database; the README's restore recipe (``pg_restore`` into a fresh database)
gives a database on which ``python -m server audit`` passes, with every hand and ledger row;
and audit fails on a tampered restore (so the check can fail)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from server.store import Store

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "store"))
from test_audit import store_played_hand  # noqa: E402

pytestmark = pytest.mark.postgres


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
    env = {**os.environ, **_libpq_env(postgres_url), "BACKUP_DIR": str(backups)}
    env["BACKUP_KEEP_DAYS"] = "14"
    done = subprocess.run(
        ["sh", str(REPO / "deploy" / "backup.sh"), "once"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    dumps = sorted(backups.glob("zhuoji-*.dump"))
    assert len(dumps) == 1 and not list(backups.glob("*.part"))

    fresh = f"{make_url(postgres_url).database}_restore"
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
            await conn.execute(f'DROP DATABASE IF EXISTS "{fresh}" WITH (FORCE)')
        finally:
            await conn.close()
