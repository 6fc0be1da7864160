"""Command line: ``python -m server [serve|migrate|replay|audit|admin] ...``.

* ``serve`` (the default): migrate the database, then run the app with uvicorn;
  ``--no-migrate``: do not migrate, only check that the schema serves this release.
  Either way it first waits up to ``DB_WAIT_SECONDS`` for the database (then as long for
  Redis, with ``REDIS_URL``), and refuses to serve a database that another process serves
  without ``REDIS_URL`` (:func:`server.store.schema.hold_serve_lock`).
* ``migrate``: Alembic ``upgrade head`` on ``DATABASE_URL`` (serialised against concurrent
  runs; a database already at a newer compatible schema is left alone).

An unusable schema (older than this release, or newer and lacking what it needs) ends
``serve`` and ``migrate`` with a one-paragraph message and exit status 2; so does a
configuration mistake (a setting that is not of its kind, a ``DATABASE_URL`` of a sync
driver, a refused login, a database or SQLite file that is not there or not writable, another
process serving the same database without ``REDIS_URL``), in one or two lines naming the
variable; a database or Redis that never answered within ``DB_WAIT_SECONDS``, with status 1
(see :mod:`server.store.schema`).
* ``replay FILE...``: run recorded hands / fixtures through the engine and check them.
* ``audit``: check that every settled hand's ledger sums to zero and matches its deltas.
* ``admin rooms|player|hand|leaderboard ...``: the admin's queries, read from the database
  directly (:mod:`server.admin_cli`; ``python -m server admin -h``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator, Sequence

COMMANDS = ("serve", "migrate", "replay", "audit", "admin")


class StartupError(Exception):
    """A start-up failure to report as a message and an exit status, not a traceback."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def database_url(given: str | None) -> str:
    """``--database-url`` if given, else ``DATABASE_URL``; :class:`StartupError` (status 2)
    naming the one at fault if it is not a URL the server can use."""
    from server.config import database_url_problem, get_settings

    if not given:
        return get_settings().database_url  # (checked when the settings are read)
    problem = database_url_problem(given)
    if problem:
        raise StartupError(f"--database-url: {problem}", 2)
    return given


def _migrate(url: str, wait_seconds: float) -> str:
    """Migrate (under the migration lock); returns the note of what was done."""
    from server.store import schema

    with _database_errors():
        return asyncio.run(schema.migrate(url, wait_seconds=wait_seconds))


def _check(url: str, wait_seconds: float) -> str:
    """Wait for the database, then judge its schema; returns the schema note."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from server.store import schema

    async def run() -> str:
        engine = create_async_engine(url)
        try:
            await schema.wait_for_database(engine, wait_seconds)
            return await schema.check_schema(engine)
        finally:
            await engine.dispose()

    with _database_errors():
        return asyncio.run(run())


def _wait_for_database(url: str, wait_seconds: float) -> None:
    """`schema.wait_for_database` on an engine of its own (its errors: the caller's)."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from server.store import schema

    async def run() -> None:
        engine = create_async_engine(url)
        try:
            await schema.wait_for_database(engine, wait_seconds)
        finally:
            await engine.dispose()

    asyncio.run(run())


@contextlib.contextmanager
def _database_errors() -> Iterator[None]:
    """The start-up checks' errors as :class:`StartupError`: 2 for what the host must fix,
    1 for a database that did not answer in time."""
    from server.store import schema

    try:
        yield
    except (schema.SchemaError, schema.ServeLockHeld) as err:
        raise StartupError(str(err), 2) from None
    except schema.DatabaseMisconfigured as err:
        raise StartupError(f"DATABASE_URL: {err}", 2) from None
    except schema.DatabaseUnavailable as err:
        raise StartupError(f"DATABASE_URL: {err}", 1) from None


def _wait_for_redis(url: str, wait_seconds: float) -> None:
    from server.bus import RedisMisconfigured, RedisUnavailable, wait_for_redis

    try:
        asyncio.run(wait_for_redis(url, wait_seconds))
    except RedisMisconfigured as err:
        raise StartupError(f"REDIS_URL: {err}", 2) from None
    except RedisUnavailable as err:
        raise StartupError(f"REDIS_URL: {err}", 1) from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (subcommands ``serve``, ``migrate``, ``replay``, ``audit``)."""
    from server.config import get_settings

    settings = get_settings()
    from server.admin_cli import help_text

    parser = argparse.ArgumentParser(
        prog="python -m server", description=help_text(__doc__.split("\n")[0])
    )
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="migrate, then serve HTTP + WebSocket (default)")
    serve.add_argument("--host", default=settings.host, help="default: %(default)s (HOST)")
    serve.add_argument("--port", type=int, default=settings.port, help="default: %(default)s")
    serve.add_argument("--database-url", default=None, help="default: DATABASE_URL")
    serve.add_argument(
        "--no-migrate",
        action="store_true",
        help="do not migrate: only check that the schema serves this release",
    )
    serve.add_argument("--reload", action="store_true", help="development auto-reload")
    serve.add_argument("--log-level", default="info")
    serve.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="comma-separated addresses (or *) of reverse proxies whose X-Forwarded-For / "
        "X-Forwarded-Proto are trusted; default: uvicorn's (FORWARDED_ALLOW_IPS, else "
        "127.0.0.1)",
    )

    migrate = sub.add_parser("migrate", help="bring the database schema up to date")
    migrate.add_argument("--database-url", default=None, help="default: DATABASE_URL")

    replay = sub.add_parser("replay", help="replay fixture / recorded hand files")
    replay.add_argument("files", nargs="+", metavar="FILE")

    audit = sub.add_parser("audit", help="check the ledger of every settled hand")
    audit.add_argument("--database-url", default=None, help="default: DATABASE_URL")

    admin = sub.add_parser(
        "admin",
        help="admin queries on the database: rooms | player NAME | hand CODE N | leaderboard",
        add_help=False,
    )
    admin.add_argument("admin_args", nargs=argparse.REMAINDER, metavar="ARGS")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; returns the process exit status."""
    from pydantic import ValidationError

    from server.config import describe

    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help")):
        args_list.insert(0, "serve")
    prog = "python -m server" + (f" {args_list[0]}" if args_list[0] in COMMANDS else "")
    try:
        if args_list[0] == "admin":  # its own parser (sub-commands, -h)
            from server.admin_cli import main as admin_main

            return admin_main(args_list[1:])
        return _run(build_parser().parse_args(args_list))
    except StartupError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return err.status
    except ValidationError as err:  # a setting (environment or .env) of the wrong kind
        for line in describe(err).splitlines():
            print(f"{prog}: {line}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from server.config import get_settings

    if args.command == "migrate":
        url = database_url(args.database_url)
        note = _migrate(url, get_settings().db_wait_seconds)
        print(f"database at {_redacted(url)}: {note}")
        return 0
    if args.command == "replay":
        from server.rules.replay import main as replay_main

        return int(replay_main(args.files))
    if args.command == "admin":
        from server.admin_cli import main as admin_main

        return admin_main(args.admin_args)
    if args.command == "audit":
        from server.audit import main as audit_main

        url = database_url(args.database_url)
        return audit_main(["--database-url", url] if args.database_url else [])

    # serve
    import logging
    import logging.config
    import os

    import uvicorn

    from server import heap
    from server.api.http import uvicorn_options
    from server.logs import log_config
    from server.store import schema

    if args.database_url:
        os.environ["DATABASE_URL"] = database_url(args.database_url)
        get_settings.cache_clear()
    settings = get_settings()
    logging_config = log_config(settings.log_format, args.log_level)
    logging.config.dictConfig(logging_config)
    log = logging.getLogger("server.main")
    url = settings.database_url
    # Without REDIS_URL this process runs its rooms alone: none other may serve the database
    # (each would run the same rooms apart, and their writes would clash); with it, only
    # processes that share a Redis (server.store.schema.hold_serve_lock). Taken before any
    # migration: a process refused (a newer release started by mistake) changes nothing.
    with _database_errors():
        _wait_for_database(url, settings.db_wait_seconds)
        schema.hold_serve_lock(url, shared=bool(settings.redis_url))
    # (the database answered above: one try each)
    note = _check(url, 0) if args.no_migrate else _migrate(url, 0)
    log.info("%s", note)
    if settings.redis_url:
        _wait_for_redis(settings.redis_url, settings.db_wait_seconds)
    # Migrated (or checked) once here: the app's lifespan only re-checks the schema.
    os.environ["MIGRATE"] = "false"
    # The process ends with the app: a stop that overruns SHUTDOWN_SECONDS ends it anyway.
    os.environ["SHUTDOWN_WATCHDOG"] = "true"
    # No collection pauses in play: the heap frozen every second, collected whole this often.
    os.environ.setdefault("GC_FULL_SECONDS", str(heap.FULL_SECONDS))
    get_settings.cache_clear()
    _tune_gc()
    uvicorn.run(
        "server.api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        reload=args.reload,
        log_level=args.log_level,
        # The client address (room-creation limit per address) comes from X-Forwarded-For
        # only when the peer is one of these proxies.
        forwarded_allow_ips=args.forwarded_allow_ips,
        log_config=logging_config,
        # HTTP/1.1 with a deadline per request (REQUEST_SECONDS), KEEP_ALIVE_SECONDS, the
        # WebSocket frame limit
        **uvicorn_options(settings),
    )
    return 0


#: The cyclic garbage collector's thresholds for a serving process (CPython's default is
#: ``(700, 10, 10)``). A room server allocates a few hundred objects per message and keeps
#: a large, long-lived heap (rooms, sockets, states): with the default a young collection
#: ran every few actions and a full one, which scans the whole heap, every few seconds,
#: each a pause of all rooms (bench/load.py, 400 rooms paced on SQLite: 15 full
#: collections of up to 0.5 s in a minute, p99 570 ms). A young collection's pause is set by
#: what is alive in the young generation, not by the threshold: every room's current
#: state, legal actions and awaiting coroutines, remade at each of its actions (1,000 rooms:
#: ~200,000 objects, a pause of 100-200 ms). At 50,000 one came every ~10 s of steady play;
#: at 1,000,000 one every ~75 s at 1,000 paced rooms, of ~1.2 million young objects, a
#: pause of 0.5-1.1 s that found almost no garbage (README, bench results): rarer, longer.
#: Almost everything the server frees goes by reference counting; the collector is only
#: for cycles, which it still finds. Since then `server.heap` freezes the heap every second
#: (``GC_FULL_SECONDS``): these thresholds only act on what one second allocates.
GC_THRESHOLDS = (1_000_000, 20, 100)


def _tune_gc() -> None:
    """Prepare the garbage collector for serving: the code and data loaded so far (the app,
    its libraries) moved out of the collector's sight (``gc.freeze``: never scanned again),
    and `GC_THRESHOLDS`."""
    import gc

    import server.api.app  # noqa: F401  (loaded now, to be frozen with the rest)

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _redacted(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


if __name__ == "__main__":
    sys.exit(main())
