"""A host's mistakes at start: each ends in one or two lines naming the variable at fault and
what it expects, with a nonzero status (2: configuration), never a traceback; errors no wait
mends are told at once; ``migrate`` says what it did; a second process without ``REDIS_URL``
on a database another serves is refused; the admin CLI and the audit on a database that is
not there say so (and create no SQLite file)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from live_helpers import free_port  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
#: What a host's environment may carry that would change what these processes see.
CLEARED = ("TEST_DATABASE_URL", "TEST_REDIS_URL", "REDIS_URL", "DATABASE_URL", "PORT", "HOST")


def _env(env: dict[str, str]) -> dict[str, str]:
    full = {k: v for k, v in os.environ.items() if k not in CLEARED}
    return {**full, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO), **env}


def _server(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m server ARGS`` in ``cwd`` (no ``.env`` there), run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        cwd=cwd,
        env=_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _short(done: subprocess.CompletedProcess[str], *, most: int = 2) -> str:
    """The stderr of a process that failed as it should: at most ``most`` lines, none of
    them a traceback's or a JSON log record's."""
    err = done.stderr
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err and "startup failed" not in err, err
    assert 1 <= len(lines) <= most, err
    return err


def _sqlite(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


# -- 1. the settings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "says"),
    [
        (
            {"DATABASE_URL": "postgres://zj:s3cret@db/zhuoji"},
            "DATABASE_URL: use postgresql+asyncpg://... (the async driver), not postgres://",
        ),
        (
            {"DATABASE_URL": "postgresql://zj:s3cret@db/zhuoji"},
            "DATABASE_URL: use postgresql+asyncpg://... (the async driver), not postgresql://",
        ),
        (
            {"DATABASE_URL": "sqlite:///x.db"},
            "DATABASE_URL: use sqlite+aiosqlite:///PATH (the async driver), not sqlite://",
        ),
        ({"DATABASE_URL": "s3cret garbage"}, "DATABASE_URL: not a database URL: expected"),
        ({"DATABASE_URL": "mysql+aiomysql://db/z"}, "DATABASE_URL: unsupported database"),
        ({"PORT": "abc"}, "PORT: Input should be a valid integer"),
        ({"CLAIM_SECONDS": "abc"}, "CLAIM_SECONDS: Input should be a valid number"),
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT: Input should be 'json' or 'text' (got 'xml')"),
        ({"TURN_SECONDS": "-5"}, "TURN_SECONDS: Input should be greater than 0 (got '-5')"),
        ({"REDIS_URL": "http://s3cret@cache:6379"}, "REDIS_URL: expected redis://HOST:6379/0"),
    ],
)
def test_a_wrong_setting_is_one_line_naming_its_variable(
    env: dict[str, str], says: str, tmp_path: Path
) -> None:
    for args in (["serve", "--port", str(free_port())], ["migrate"], ["audit"], ["admin", "rooms"]):
        done = _server(args, env, tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        err = _short(done, most=1)
        assert f"python -m server {args[0]}: {says}" in err, err
        assert "s3cret" not in err  # a URL's password is never repeated
    assert list(tmp_path.iterdir()) == []  # and nothing was created


def test_several_wrong_settings_are_each_named(tmp_path: Path) -> None:
    done = _server([], {"PORT": "abc", "TURN_SECONDS": "-5", "LOG_FORMAT": "xml"}, tmp_path)
    assert done.returncode == 2
    err = _short(done, most=3)
    for name in ("PORT", "TURN_SECONDS", "LOG_FORMAT"):
        assert f"python -m server serve: {name}: " in err


def test_a_wrong_database_url_option_is_named(tmp_path: Path) -> None:
    for args in (["serve"], ["migrate"], ["audit"], ["admin", "rooms"]):
        done = _server([*args, "--database-url", "postgresql://zj:s3cret@db/z"], {}, tmp_path)
        assert done.returncode == 2, done.stderr
        err = done.stderr
        assert "--database-url: use postgresql+asyncpg://..." in err and "Traceback" not in err
        assert "s3cret" not in err


# -- 2. errors no wait mends ----------------------------------------------------------------


def _lasting_cases(tmp_path: Path, base: str | None) -> list[tuple[str, str]]:
    cases = [
        (
            _sqlite(Path("/nonexistent/dir/z.db")),
            "the directory /nonexistent/dir of the SQLite file does not exist",
        ),
        (_sqlite(tmp_path / "a-directory"), "is not a file"),
    ]
    (tmp_path / "a-directory").mkdir()
    (tmp_path / "not-sqlite.db").write_text("not a database, " * 300)
    cases.append((_sqlite(tmp_path / "not-sqlite.db"), "SQLite: file is not a database"))
    if base is not None:
        url = make_url(base)
        missing = url.set(database=f"zj_missing_{uuid.uuid4().hex[:8]}")
        cases.append((missing.render_as_string(hide_password=False), "does not exist"))
        stranger = url.set(username=f"zj_nobody_{uuid.uuid4().hex[:8]}", password="wrong")
        cases.append((stranger.render_as_string(hide_password=False), "refused the login"))
    return cases


def _check_lasting(cases: list[tuple[str, str]], tmp_path: Path) -> None:
    for url, says in cases:
        for args in (["serve", "--port", str(free_port())], ["serve", "--no-migrate"], ["migrate"]):
            started = time.monotonic()
            done = _server(args, {"DATABASE_URL": url, "DB_WAIT_SECONDS": "60"}, tmp_path)
            took = time.monotonic() - started
            assert done.returncode == 2, (url, args, done.stderr)
            err = _short(done)
            assert f"python -m server {args[0]}: DATABASE_URL: " in err and says in err, err
            assert took < 20, f"{url}: {took:.0f} s (waited for what no wait mends)"
            assert "wrong" not in err.replace("wrong password", "")


def test_what_no_wait_mends_fails_at_once_sqlite(tmp_path: Path) -> None:
    _check_lasting(_lasting_cases(tmp_path, None), tmp_path)
    assert not Path("/nonexistent").exists()


@pytest.mark.postgres
def test_what_no_wait_mends_fails_at_once_postgres(postgres_base_url: str, tmp_path: Path) -> None:
    _check_lasting(_lasting_cases(tmp_path, postgres_base_url)[3:], tmp_path)


def test_a_database_that_does_not_answer_is_still_waited_for(tmp_path: Path) -> None:
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/zhuoji"
    started = time.monotonic()
    done = _server(["migrate"], {"DATABASE_URL": url, "DB_WAIT_SECONDS": "2"}, tmp_path)
    assert time.monotonic() - started >= 2
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("python -m server migrate: DATABASE_URL: the database did not answer")


def _read_only(path: Path, args: list[str], env: dict[str, str], cwd: Path):  # type: ignore[no-untyped-def]
    """Run ``python -m server ARGS`` with ``path`` (a file or a directory) read-only: by its
    mode for a user other than root; for root (whom modes do not stop) on a read-only bind
    mount in a mount namespace of its own (``unshare -m``)."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            return _server(args, env, cwd)
        finally:
            path.chmod(0o755 if path.is_dir() else 0o644)
    inner = " ".join(
        [
            f"mount --bind {path} {path} && mount -o remount,ro,bind {path} && exec",
            sys.executable,
            "-m",
            "server",
            *args,
        ]
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", inner],
        cwd=cwd,
        env=_env(env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "mount" in done.stderr and "Traceback" not in done.stderr and done.returncode == 32:
        pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    return done


def test_a_read_only_sqlite_file_or_directory_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "z.db"
    env = {"DATABASE_URL": _sqlite(db), "DB_WAIT_SECONDS": "60"}
    assert _server(["migrate"], env, tmp_path).returncode == 0
    for path, says in (
        (db, f"the SQLite file {db} is not writable by this process"),
        (folder, f"the directory {folder} is not writable by this process"),
    ):
        for args in (["serve", "--port", str(free_port())], ["migrate"]):
            done = _read_only(path, args, env, tmp_path)
            assert done.returncode == 2, done.stderr
            assert f"python -m server {args[0]}: DATABASE_URL: {says}" in _short(done)
    fresh = {**env, "DATABASE_URL": _sqlite(folder / "new.db")}
    done = _read_only(folder, ["migrate"], fresh, tmp_path)
    assert done.returncode == 2 and f"the directory {folder} is not writable" in _short(done)


# -- 3. migrate says what it did ------------------------------------------------------------


def test_migrate_says_whether_it_created_upgraded_or_did_nothing(tmp_path: Path) -> None:
    from server.store.schema import script_directory

    script = script_directory()
    (head,) = script.get_heads()
    previous = script.get_revision(head).down_revision
    assert isinstance(previous, str)
    env = {"DATABASE_URL": _sqlite(tmp_path / "z.db")}

    def migrate() -> str:
        done = _server(["migrate"], env, tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert f"created the database schema at {head} (this release's head)" in migrate()
    assert f"database schema already at {head} (this release's head): nothing to do" in migrate()
    older = {**env, "DATABASE_URL": _sqlite(tmp_path / "older.db")}
    alembic = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", previous],
        cwd=REPO,
        env=_env(older),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert alembic.returncode == 0, alembic.stderr
    env = older
    assert f"upgraded the database schema from {previous} to {head}" in migrate()
    assert "nothing to do" in migrate()


# -- 4. Redis at start ----------------------------------------------------------------------


def test_a_redis_that_does_not_answer_is_waited_for_then_named(tmp_path: Path) -> None:
    env = {"DATABASE_URL": _sqlite(tmp_path / "z.db"), "DB_WAIT_SECONDS": "2"}
    env["REDIS_URL"] = f"redis://127.0.0.1:{free_port()}/0"
    env["LOG_FORMAT"] = "text"
    started = time.monotonic()
    done = _server(["serve", "--port", str(free_port())], env, tmp_path)
    assert time.monotonic() - started >= 2
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "startup failed" not in done.stderr, done.stderr
    assert "Redis not available yet" in done.stderr  # (its waiting, logged)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("python -m server serve: REDIS_URL: Redis did not answer for 2 s: ")


@pytest.mark.redis
def test_a_redis_that_refuses_is_named_at_once(redis_url: str, tmp_path: Path) -> None:
    env = {"DATABASE_URL": _sqlite(tmp_path / "z.db"), "DB_WAIT_SECONDS": "60"}
    env["REDIS_URL"] = redis_url.rsplit("/", 1)[0] + "/9999"  # a database it does not have
    env["LOG_FORMAT"] = "text"
    started = time.monotonic()
    done = _server(["serve", "--port", str(free_port())], env, tmp_path)
    assert time.monotonic() - started < 20
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("python -m server serve: REDIS_URL: Redis refused: "), done.stderr
    assert "Traceback" not in done.stderr


# -- 5. one process per database without REDIS_URL ------------------------------------------

SECOND = "python -m server serve: another server process already serves this database; "
BESIDE = "python -m server serve: a server process without REDIS_URL already serves this database"


def _second_processes_refused(url: str, tmp_path: Path) -> None:
    """With a process serving ``url`` without ``REDIS_URL``: another one, without it or
    with it, is refused in one line; once the first stops, another starts."""
    from processes import ServerProcess

    env = {"DATABASE_URL": url, "REDIS_URL": "", "ADMIN_TOKEN": "", "DB_WAIT_SECONDS": "5"}
    first = ServerProcess(env, tmp_path / "first.log")
    try:
        first.wait_ready()
        for more, says in (({}, SECOND), ({"REDIS_URL": "redis://127.0.0.1:6379/0"}, BESIDE)):
            done = _server(["serve", "--port", str(free_port())], {**env, **more}, tmp_path)
            assert done.returncode == 2, done.stderr
            assert says in done.stderr and "Traceback" not in done.stderr, done.stderr
            assert done.stderr.strip().splitlines()[-1].startswith(says)
            # refused before any migration: it did not touch the schema another serves
            assert "schema" not in done.stdout + done.stderr, done.stdout + done.stderr
        assert first.proc.poll() is None
    finally:
        first.kill()  # (even a process killed outright leaves its lock behind)
    again = ServerProcess(env, tmp_path / "again.log")
    try:
        again.wait_ready()
    finally:
        again.stop()


def test_a_second_process_on_one_sqlite_file_without_redis_is_refused(tmp_path: Path) -> None:
    _second_processes_refused(_sqlite(tmp_path / "zhuoji.db"), tmp_path)


@pytest.mark.postgres
def test_a_second_process_on_one_postgres_database_without_redis_is_refused(
    postgres_url: str, tmp_path: Path
) -> None:
    _second_processes_refused(postgres_url, tmp_path)


@pytest.mark.postgres
async def test_the_postgres_serve_lock_is_taken_again_after_its_connection_is_lost(
    postgres_url: str, tmp_path: Path
) -> None:
    import asyncpg
    from processes import ServerProcess

    from server.store.schema import PG_SERVE_LOCK

    holder = f"""SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((classid::bigint << 32) | objid::bigint) = {PG_SERVE_LOCK}"""
    env = {"DATABASE_URL": postgres_url, "REDIS_URL": "", "ADMIN_TOKEN": "", "LOG_FORMAT": "text"}
    app = ServerProcess(env, tmp_path / "app.log", args=["--log-level", "info"])
    dsn = make_url(postgres_url).set(drivername="postgresql").render_as_string(False)
    conn = await asyncpg.connect(dsn)
    try:
        app.wait_ready()
        pid = await conn.fetchval(holder)
        assert pid is not None
        await conn.execute("SELECT pg_terminate_backend($1)", pid)
        deadline = time.monotonic() + 30
        while await conn.fetchval(holder) in (None, pid):
            assert time.monotonic() < deadline, app.output()
            await asyncio.sleep(0.2)
        assert "serve lock taken again" in app.output()
        done = _server(["serve", "--port", str(free_port())], env, tmp_path)
        assert done.returncode == 2 and SECOND in done.stderr, done.stderr
    finally:
        await conn.close()
        app.stop()


# -- 6. the admin CLI and the audit on a database that is not there ---------------------------

TOOLS = (["audit"], ["admin", "rooms"], ["admin", "leaderboard"])


def test_tools_on_a_mistyped_sqlite_path_create_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "zhuoij.db"
    for args in TOOLS:
        done = _server(args, {"DATABASE_URL": _sqlite(typo)}, tmp_path)
        assert done.returncode == 2, done.stderr
        err = _short(done, most=1)
        assert f"python -m server {' '.join(args)}: DATABASE_URL: " in err
        assert f"there is no SQLite database at {typo}" in err
    assert list(tmp_path.iterdir()) == []
    empty = tmp_path / "empty.db"
    empty.touch()
    for args in TOOLS:
        done = _server(args, {"DATABASE_URL": _sqlite(empty)}, tmp_path)
        assert done.returncode == 2, done.stderr
        assert "the database has no schema yet" in _short(done, most=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_tools_on_a_database_that_does_not_answer(tmp_path: Path) -> None:
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/zhuoji"
    for args in TOOLS:
        done = _server(args, {"DATABASE_URL": url}, tmp_path)
        assert done.returncode != 0
        err = _short(done, most=1)
        assert (
            f"python -m server {' '.join(args)}: DATABASE_URL: the database did not answer" in err
        )


@pytest.mark.postgres
def test_tools_on_a_missing_postgres_database(postgres_base_url: str, tmp_path: Path) -> None:
    url = make_url(postgres_base_url).set(database=f"zj_missing_{uuid.uuid4().hex[:8]}")
    for args in TOOLS:
        done = _server(args, {"DATABASE_URL": url.render_as_string(False)}, tmp_path)
        assert done.returncode == 2, done.stderr
        assert "does not exist (check the database name" in _short(done, most=1)
