"""Schema versions, migration locking and the start-up checks of a process.

Schema policy (additive migrations): a revision may add tables, nullable columns, columns
with a server default, and indexes; it never drops, renames or narrows what a release still
in service uses (that waits until no such release runs). So the previous release runs
against the new schema, and a rollback needs no downgrade. :func:`check_schema` enforces
what can be checked: a database at a revision this code does not know (a newer release
migrated it) is accepted when every table and column of :mod:`server.store.models` is
there, and refused with a :class:`SchemaError` naming what is missing otherwise.

Concurrency: migrations are serialised by :data:`PG_MIGRATION_LOCK` (a PostgreSQL
transaction-scoped advisory lock) or :func:`sqlite_migration_lock` (a file lock), whichever
entry point runs them (``python -m server migrate``, the app at start, ``alembic``).

Errors a wait cannot mend (a refused login, a database that does not exist, a SQLite file
that cannot be opened or written) raise :class:`DatabaseMisconfigured` at once instead of
being retried for ``DB_WAIT_SECONDS`` (:func:`sqlite_problem`, :func:`lasting_problem`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

log = logging.getLogger(__name__)

#: Key of the PostgreSQL advisory lock every migration takes (``pg_advisory_xact_lock``).
PG_MIGRATION_LOCK = 7461303931


class SchemaError(RuntimeError):
    """The database's schema cannot serve this release; ``str(err)`` says what to do."""


class DatabaseUnavailable(RuntimeError):
    """The database did not answer within the wait allowed at start."""


class DatabaseMisconfigured(RuntimeError):
    """The database answered (or its file was looked at) and cannot be used as
    ``DATABASE_URL`` says, which no wait mends: ``str(err)`` says what is wrong."""


def _sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (``None``: not SQLite, in memory, or a ``file:`` URI)."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    if parsed.query.get("uri") or str(parsed.database).startswith("file:"):
        return None
    return Path(str(parsed.database)).absolute()


def sqlite_problem(url: str, *, create: bool) -> str | None:
    """What keeps the SQLite file of ``url`` from being used (``None``: nothing, or not
    SQLite). ``create``: the caller may create the file and writes to it (a server, a
    migration), so its directory must exist and be writable (SQLite keeps its ``-wal`` and
    ``-shm`` files there, and the lock files lie there too) and the file, if there, be
    readable and writable; otherwise (the admin CLI, the audit) the file must exist."""
    path = _sqlite_path(url)
    if path is None:
        return None
    folder = path.parent
    if not folder.is_dir():
        return f"the directory {folder} of the SQLite file does not exist"
    if create and not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"the directory {folder} is not writable by this process{_who()}: SQLite keeps "
            "its -wal and -shm files next to the database file"
        )
    if path.exists():
        if not path.is_file():
            return f"the SQLite database {path} is not a file"
        if not os.access(path, os.R_OK):
            return f"the SQLite file {path} is not readable by this process{_who()}"
        if create and not os.access(path, os.W_OK):
            return f"the SQLite file {path} is not writable by this process{_who()}"
    elif not create:
        return (
            f"there is no SQLite database at {path}: check the path "
            "(`python -m server migrate` creates one)"
        )
    return None


def _who() -> str:
    return f" (user id {os.getuid()}; or its file system is read-only)"


def lasting_problem(err: BaseException) -> str | None:
    """A one-line reason if ``err`` (raised by connecting or a first query) is one that
    retrying does not mend, else ``None`` (the database may just not be up yet)."""
    orig = getattr(err, "orig", None) or err
    sqlstate = str(getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None) or "")
    if sqlstate.startswith("28"):  # invalid authorization: wrong password, unknown role
        return f"PostgreSQL refused the login: {orig} (check the user and password)"
    if sqlstate == "3D000":  # invalid catalog name
        return f"{orig} (check the database name, or create the database)"
    if isinstance(orig, sqlite3.Error):
        text = str(orig)
        if "locked" in text or "busy" in text:
            return None
        return f"SQLite: {text}"
    return None


@contextlib.contextmanager
def sqlite_migration_lock(url: str) -> Iterator[None]:
    """Hold an exclusive lock on ``<database file>-migrate.lock`` while migrating a SQLite
    database (blocks until a concurrent migration of the same file is done). A no-op for
    other databases, in-memory SQLite and platforms without ``fcntl``."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        yield
        return
    try:
        import fcntl
    except ImportError:  # Windows: a single local process is the only use there
        yield
        return
    path = Path(f"{parsed.database}-migrate.lock")
    with path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def migrations_dir() -> Path:
    """This release's ``migrations/``: next to the package (a checkout), else in the working
    directory (as ``Store.migrate`` looks it up). ``FileNotFoundError`` if neither has it."""
    candidates = [Path(__file__).resolve().parents[2] / "migrations", Path.cwd() / "migrations"]
    for candidate in candidates:
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError("migrations/ not found in " + ", ".join(map(str, candidates)))


def script_directory() -> Any:
    """Alembic's ``ScriptDirectory`` of this release's ``migrations/``."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    return ScriptDirectory.from_config(cfg)


@dataclass(frozen=True)
class SchemaState:
    """What the database holds: ``revisions`` (empty = never migrated), this release's
    ``heads``, ``unknown`` (revisions this release has no script for) and ``missing``
    (``table`` or ``table.column`` of the models that the database lacks)."""

    revisions: tuple[str, ...]
    heads: tuple[str, ...]
    unknown: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def current(self) -> bool:
        """The database is exactly at this release's head(s)."""
        return bool(self.revisions) and set(self.revisions) == set(self.heads)


def _inspect(connection: Connection) -> SchemaState:
    from alembic.runtime.migration import MigrationContext

    from server.store.models import Base

    revisions = tuple(sorted(MigrationContext.configure(connection).get_current_heads()))
    script = script_directory()
    heads = tuple(sorted(script.get_heads()))
    known = {rev.revision for rev in script.walk_revisions()}
    unknown = tuple(r for r in revisions if r not in known)
    insp = inspect(connection)
    tables = set(insp.get_table_names())
    missing: list[str] = []
    for table in Base.metadata.sorted_tables:
        if table.name not in tables:
            missing.append(table.name)
            continue
        have = {c["name"] for c in insp.get_columns(table.name)}
        missing.extend(f"{table.name}.{c.name}" for c in table.columns if c.name not in have)
    return SchemaState(revisions, heads, unknown, tuple(missing))


async def schema_state(engine: AsyncEngine) -> SchemaState:
    """Read the database's revision(s) and compare its tables with the models."""
    async with engine.connect() as conn:
        return await conn.run_sync(_inspect)


def judge(state: SchemaState) -> str:
    """``state`` judged for serving: a one-line note if this release can run on it, else
    :class:`SchemaError` with the reason and the fix."""
    heads = ", ".join(state.heads)
    if state.current:
        return f"database schema at {heads} (this release's head)"
    if not state.revisions:
        raise SchemaError(
            "the database has no schema yet: run `python -m server migrate` "
            "(in compose: the `migrate` service)"
        )
    revs = ", ".join(state.revisions)
    if not state.unknown:
        raise SchemaError(
            f"the database schema is at {revs}, older than this release's {heads}: run "
            "`python -m server migrate` (in compose: the `migrate` service) first"
        )
    if state.missing:
        raise SchemaError(
            f"the database schema is at {revs}, which this release does not know (its head "
            f"is {heads}), and it lacks what this release needs: {', '.join(state.missing)}. "
            "Run the release that migrated it (or newer), or restore a backup taken before "
            "that migration."
        )
    return (
        f"database schema at {revs} is newer than this release's {heads}; every table and "
        "column this release uses is there (additive schema policy), so it runs"
    )


async def check_schema(engine: AsyncEngine) -> str:
    """:func:`judge` of the database behind ``engine``."""
    return judge(await schema_state(engine))


def _probe(dialect: str) -> Any:
    """A query that the database answers only if it is usable: SQLite reads a file's header
    (a file that is not a database) only when the schema is read."""
    return text("SELECT count(*) FROM sqlite_master" if dialect == "sqlite" else "SELECT 1")


async def wait_for_database(
    engine: AsyncEngine, timeout: float, *, interval: float = 1.0, probe_timeout: float = 5.0
) -> None:
    """Retry ``SELECT 1`` until the database answers (each try bounded by ``probe_timeout``
    seconds), logging each failure; :class:`DatabaseUnavailable` after ``timeout`` seconds.
    :class:`DatabaseMisconfigured` at once for what no wait mends (:func:`sqlite_problem`,
    :func:`lasting_problem`)."""
    url = engine.url.render_as_string(hide_password=False)
    problem = sqlite_problem(url, create=True)
    if problem:
        raise DatabaseMisconfigured(problem)
    deadline = time.monotonic() + timeout
    while True:
        try:
            async with asyncio.timeout(probe_timeout):
                async with engine.connect() as conn:
                    await conn.execute(_probe(conn.dialect.name))
            return
        except Exception as err:  # any driver / network error: the database is not there yet
            problem = lasting_problem(err)
            if problem:
                raise DatabaseMisconfigured(problem) from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise DatabaseUnavailable(
                    f"the database did not answer for {timeout:g} s: {type(err).__name__}: {err}"
                ) from None
            log.warning("database not available yet (%s: %s); retrying", type(err).__name__, err)
            await asyncio.sleep(min(interval, left))


async def check_readable(url: str, *, probe_timeout: float = 10.0) -> None:
    """For a tool that reads the database and must not create one (the admin CLI, the
    audit): the database is there, answers at once and has a schema this release reads.
    :class:`DatabaseMisconfigured` (a missing SQLite file, a refused login, ...),
    :class:`DatabaseUnavailable` (no answer; not waited for) or :class:`SchemaError`."""
    problem = sqlite_problem(url, create=False)
    if problem:
        raise DatabaseMisconfigured(problem)
    engine = create_async_engine(url)
    try:
        try:
            async with asyncio.timeout(probe_timeout):
                async with engine.connect() as conn:
                    await conn.execute(_probe(conn.dialect.name))
        except Exception as err:
            problem = lasting_problem(err)
            if problem:
                raise DatabaseMisconfigured(problem) from None
            raise DatabaseUnavailable(
                f"the database did not answer: {type(err).__name__}: {err}"
            ) from None
        judge(await schema_state(engine))
    finally:
        await engine.dispose()


def tool_error(err: BaseException) -> tuple[str, int] | None:
    """A database error met by a command-line tool as ``(one line, exit status)``: 2 for
    what the host must fix, 1 for a database that does not answer or failed mid-way; ``None``
    for any other error (a bug: let its traceback show)."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(err, DatabaseMisconfigured):
        return f"DATABASE_URL: {err}", 2
    if isinstance(err, SchemaError):
        return str(err), 2
    if isinstance(err, DatabaseUnavailable):
        return f"DATABASE_URL: {err}", 1
    if isinstance(err, (DBAPIError, OSError, TimeoutError)):
        orig = getattr(err, "orig", None) or err
        return f"DATABASE_URL: the database failed: {type(orig).__name__}: {orig}", 1
    return None


async def migrate(url: str, *, wait_seconds: float = 0.0) -> str:
    """Bring the database at ``url`` to this release's head, under the migration lock, and
    return a note saying what was done: the schema created (an empty database), upgraded
    (from which revision), or nothing (already at the head). A database already at a newer,
    compatible revision (see :func:`judge`) is left alone; an incompatible one raises
    :class:`SchemaError`. First waits ``wait_seconds`` at most for the database
    (:func:`wait_for_database`; one try with ``0``)."""
    from server.store.store import Store

    engine = create_async_engine(url)
    try:
        await wait_for_database(engine, wait_seconds)
        state = await schema_state(engine)
        if state.unknown:  # a newer release migrated it: upgrading is not ours to do
            return judge(state)
        heads = ", ".join(state.heads)
        if state.current:
            return f"database schema already at {heads} (this release's head): nothing to do"
        with sqlite_migration_lock(url):
            before = (await schema_state(engine)).revisions  # another run may have gone first
            await engine.dispose()  # (its idle connection closed before the migration's)
            store = Store(url)
            try:
                await store.migrate()
            finally:
                await store.close()
    finally:
        await engine.dispose()
    if set(before) == set(state.heads):
        return f"database schema already at {heads} (this release's head): nothing to do"
    if not before:
        return f"created the database schema at {heads} (this release's head) in an empty database"
    return f"upgraded the database schema from {', '.join(before)} to {heads} (this release's head)"


#: Key of the PostgreSQL session advisory lock a serving process holds for its life
#: (:func:`hold_serve_lock`): exclusive without ``REDIS_URL``, shared with it.
PG_SERVE_LOCK = 7461303932


class ServeLockHeld(RuntimeError):
    """Another server process serves this database in a way this one cannot share."""


def _serve_lock_message(shared: bool) -> str:
    if shared:
        return (
            "a server process without REDIS_URL already serves this database, and only it "
            "may: stop it, or give every process the same REDIS_URL"
        )
    return (
        "another server process already serves this database; without REDIS_URL only one "
        "process may (each would run the same rooms apart): stop the other one, or give "
        "every process the same REDIS_URL"
    )


#: What the process holds for its life (a lock file's handle, the lock thread).
_held: list[Any] = []


def hold_serve_lock(url: str, *, shared: bool) -> None:
    """Hold, for the rest of the process's life, the lock that keeps two server processes
    without a shared bus off one database: exclusive without ``REDIS_URL`` (``shared``
    false), shared with it (processes that share a Redis coordinate through it, and none of
    them may run beside a process without it). :class:`ServeLockHeld` if it is taken.

    SQLite: ``flock`` on ``<database file>-serve.lock`` (released by the kernel however the
    process ends). PostgreSQL: a session advisory lock (:data:`PG_SERVE_LOCK`, per database)
    on a connection of its own, kept by a daemon thread that takes the lock again after the
    connection is lost (PostgreSQL restarted). Nothing for in-memory SQLite and platforms
    without ``fcntl``."""
    parsed = make_url(url)
    if parsed.drivername.startswith("postgresql"):
        keeper = _PgServeLock(url, shared)
        keeper.start()
        keeper.first.result()
        _held.append(keeper)
        return
    path = _sqlite_path(url)
    if path is None:
        return
    try:
        import fcntl
    except ImportError:  # Windows: a single local process is the only use there
        return
    handle = Path(f"{path}-serve.lock").open("a")
    try:
        fcntl.flock(handle.fileno(), (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ServeLockHeld(_serve_lock_message(shared)) from None
    _held.append(handle)


class _PgServeLock(threading.Thread):
    """Holds :data:`PG_SERVE_LOCK` on a connection of its own, on its own event loop;
    ``first`` is done once the lock was taken (or refused) the first time."""

    def __init__(self, url: str, shared: bool, *, every: float = 5.0) -> None:
        super().__init__(name="serve-lock", daemon=True)
        self.url, self.shared, self.every = url, shared, every
        self.first: Future[None] = Future()

    def run(self) -> None:
        asyncio.run(self._keep())

    async def _keep(self) -> None:
        from sqlalchemy.pool import NullPool

        take = "pg_try_advisory_lock_shared" if self.shared else "pg_try_advisory_lock"
        engine = create_async_engine(self.url, poolclass=NullPool)
        conn = None
        failing = False
        while True:
            try:
                async with asyncio.timeout(10):
                    if conn is None:
                        conn = await engine.connect()
                        # no transaction held open for the process's life
                        await conn.execution_options(isolation_level="AUTOCOMMIT")
                        got = (
                            await conn.execute(text(f"SELECT {take}(:key)"), {"key": PG_SERVE_LOCK})
                        ).scalar()
                        if not got:
                            await conn.close()
                            conn = None
                            if not self.first.done():
                                self.first.set_exception(
                                    ServeLockHeld(_serve_lock_message(self.shared))
                                )
                                await engine.dispose()
                                return
                            log.error(
                                "the database's serve lock was taken by another process while "
                                "the connection holding it was lost: %s",
                                _serve_lock_message(self.shared),
                            )
                        elif failing:
                            log.warning("serve lock taken again")
                        failing = False
                        if not self.first.done():
                            self.first.set_result(None)
                    else:
                        await conn.execute(text("SELECT 1"))
            except Exception as err:
                if not self.first.done():
                    self.first.set_exception(err)
                    await engine.dispose()
                    return
                if not failing:
                    log.warning(
                        "the connection holding the serve lock is lost (%s: %s); retrying",
                        type(err).__name__,
                        err,
                    )
                failing = True
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.invalidate()
                    conn = None
            await asyncio.sleep(self.every)
