"""Shared fixtures: databases and Redis for the tests.

* ``database_url``: parametrized ``sqlite`` (a temp file) and ``postgres``
  (``TEST_DATABASE_URL``, e.g. ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).
  Each Postgres test gets an empty ``public`` schema (tables and ``alembic_version`` dropped)
  in a throw-away database created for this pytest run, so parallel runs don't collide.
* ``store``: a migrated :class:`server.store.Store` on ``database_url``.
* ``redis_url``: ``TEST_REDIS_URL``, e.g. ``redis://127.0.0.1:6379/0``.

Missing variables skip those tests locally. With ``CI=true`` a missing variable or an
unreachable service FAILS the test instead: CI never passes by skipping.

* ``full_size``: True under ``--slow``. Tests marked ``slow`` (the long property sweeps, the
  leak test) run a smaller count by default and their full count under ``--slow``, which
  ``.ci/run`` passes.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest
from sqlalchemy.engine import make_url

T = TypeVar("T")

IN_CI = os.environ.get("CI", "").strip().lower() == "true"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="run the tests marked slow at their full size (CI does); default: a smaller count",
    )


@pytest.fixture(scope="session")
def full_size(request: pytest.FixtureRequest) -> bool:
    """True under ``--slow``: a test marked ``slow`` runs its full count."""
    return bool(request.config.getoption("--slow"))


def unavailable(what: str, why: str) -> NoReturn:
    """Skip (locally) or fail (under ``CI=true``) because a service is not there."""
    if IN_CI:
        pytest.fail(f"{what} is required under CI=true: {why}", pytrace=False)
    pytest.skip(f"{what}: {why}")


def run_in_thread(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on a private event loop in another thread (for
    session-scoped setup outside pytest-asyncio's loops)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _sqlalchemy_url(url: str) -> str:
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql") or parsed.drivername.startswith(
        "postgresql+"
    ):
        parsed = parsed.set(drivername="postgresql+asyncpg")
    return parsed.render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_base_url() -> Iterator[str]:
    """A SQLAlchemy URL of a Postgres database private to this pytest run."""
    base = os.environ.get("TEST_DATABASE_URL", "").strip()
    if not base:
        unavailable("PostgreSQL", "TEST_DATABASE_URL is not set")
    import asyncpg

    name = f"zj_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"

    async def create() -> bool:
        conn = await asyncpg.connect(_asyncpg_dsn(base), timeout=10)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
            return True
        except asyncpg.InsufficientPrivilegeError:
            return False
        finally:
            await conn.close()

    try:
        own_db = run_in_thread(create())
    except Exception as exc:  # unreachable, bad credentials, ...
        pytest.fail(f"PostgreSQL at TEST_DATABASE_URL is unreachable: {exc!r}", pytrace=False)
    url = _sqlalchemy_url(base)
    if own_db:
        url = make_url(url).set(database=name).render_as_string(hide_password=False)
    yield url
    if own_db:

        async def drop() -> None:
            conn = await asyncpg.connect(_asyncpg_dsn(base), timeout=10)
            try:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            finally:
                await conn.close()

        run_in_thread(drop())


async def reset_postgres(url: str) -> None:
    """Drop every table (and ``alembic_version``) by recreating the ``public`` schema."""
    import asyncpg

    conn = await asyncpg.connect(_asyncpg_dsn(url), timeout=10)
    try:
        await conn.execute("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;")
    finally:
        await conn.close()


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database (no tables): a temp SQLite file, or a clean Postgres schema."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'test.db'}"
        return
    url: str = request.getfixturevalue("postgres_base_url")
    await reset_postgres(url)
    yield url


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Any]:
    """A migrated :class:`server.store.Store` on ``database_url``, closed afterwards."""
    from server.store import Store

    st = Store(database_url)
    await st.migrate()
    try:
        yield st
    finally:
        await st.close()


@pytest.fixture(scope="session")
def redis_url() -> str:
    """``TEST_REDIS_URL``, checked with a PING."""
    url = os.environ.get("TEST_REDIS_URL", "").strip()
    if not url:
        unavailable("Redis", "TEST_REDIS_URL is not set")
    import redis.asyncio as aioredis

    async def ping() -> None:
        client = aioredis.from_url(url, socket_connect_timeout=5)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        run_in_thread(ping())
    except Exception as exc:
        pytest.fail(f"Redis at TEST_REDIS_URL is unreachable: {exc!r}", pytrace=False)
    return url


@pytest.fixture
async def postgres_url(postgres_base_url: str) -> AsyncIterator[str]:
    """An empty PostgreSQL database (no tables) only, for tests that need PostgreSQL itself
    (e.g. several server processes sharing it); like ``database_url``'s postgres case."""
    await reset_postgres(postgres_base_url)
    yield postgres_base_url
