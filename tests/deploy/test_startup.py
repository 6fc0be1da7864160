"""A host's mistakes at start: each ends in one or two lines naming the variable at fault and
what it expects, with a nonzero status (2: configuration), never a traceback; errors no wait
mends are told at once; ``migrate`` says what it did; a second process without ``REDIS_URL``
on a database another serves is refused; the admin CLI and the audit on a database that is
not there say so (and create no SQLite file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
