"""Command line: ``python -m server [serve|migrate|replay|audit] ...``.

* ``serve`` (the default): migrate the database, then run the app with uvicorn.
* ``migrate``: Alembic ``upgrade head`` on ``DATABASE_URL``.
* ``replay FILE...``: run recorded hands / fixtures through the engine and check them.
* ``audit``: check that every settled hand's ledger sums to zero and matches its deltas.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

COMMANDS = ("serve", "migrate", "replay", "audit")
WS_MAX_FRAME_BYTES = 64 * 1024


def _migrate(url: str) -> None:
    from server.store import Store

    async def run() -> None:
        store = Store(url)
        try:
            await store.migrate()
        finally:
            await store.close()

    asyncio.run(run())


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (subcommands ``serve``, ``migrate``, ``replay``, ``audit``)."""
    from server.config import get_settings

    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="migrate, then serve HTTP + WebSocket (default)")
    serve.add_argument("--host", default=settings.host, help="default: %(default)s (HOST)")
    serve.add_argument("--port", type=int, default=settings.port, help="default: %(default)s")
    serve.add_argument("--database-url", default=None, help="default: DATABASE_URL")
    serve.add_argument("--no-migrate", action="store_true", help="skip the migration step")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; returns the process exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help")):
        args_list.insert(0, "serve")
    args = build_parser().parse_args(args_list)

    from server.config import get_settings

    if args.command == "migrate":
        url = args.database_url or get_settings().database_url
        _migrate(url)
        print(f"database at {_redacted(url)} is at the latest schema")
        return 0
    if args.command == "replay":
        from server.rules.replay import main as replay_main

        return int(replay_main(args.files))
    if args.command == "audit":
        from server.audit import main as audit_main

        return audit_main(["--database-url", args.database_url] if args.database_url else [])

    # serve
    import os

    import uvicorn

    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
        get_settings.cache_clear()
    if not args.no_migrate:
        _migrate(get_settings().database_url)
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
        # Frames a little over the protocol's limit get a typed `too_large` error; far larger
        # ones are cut off by the WebSocket layer before they are read into memory.
        ws_max_size=WS_MAX_FRAME_BYTES,
    )
    return 0


def _redacted(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


if __name__ == "__main__":
    sys.exit(main())
