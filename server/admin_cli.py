"""``python -m server admin rooms|player|hand|leaderboard ...``: the admin's queries for a host,
read from the database directly (``--database-url``, default ``DATABASE_URL``); no server
needed. The same queries as the admin API (:mod:`server.store.admin`).

* ``rooms [--game G] [--status S] [--player NAME] [--profile ID]``: rooms newest first.
* ``player [NAME] [--profile ID] [--game G]``: the player's totals (each game's points apart
  in ``games``; first line / on stderr with ``--csv``), then hands: of the profile ``ID``
  (``NAME`` written ``#ID`` is the same), or of the seats named ``NAME`` that have no profile
  (taken before profiles existed, and bots).
* ``hand CODE HAND_NO``: one hand, its payments and corrections (``--csv``: the payments).
* ``leaderboard [--game G] [--bots]``: players by points, one row per profile id (``profile``,
  ``player`` = its current display name) and per seat name for seats without a profile
  (``profile`` null / empty in CSV; ``bot`` marks bots).

Every command takes ``--since``/``--until`` (ISO-8601; ``until`` exclusive; ignored by
``hand``), ``--limit`` (rows per page), ``--cursor`` (a page's ``next``) and ``--all`` (follow
the pages to the end). Output: one JSON object per line, or CSV with ``--csv`` (the API's
CSV). When more rows follow, ``next: <cursor>`` goes to stderr. Names may repeat, profile ids
never: a seat name is matched exactly (case-sensitive). Exit status 0; 1 for an unknown room,
hand or profile or a bad cursor, or a database that does not answer; 2 for bad arguments (a
``--limit`` outside 1..1000, an unknown game or status, ``--until`` not after ``--since``) or a
database it cannot use (no SQLite file there: none is created; a refused login; a schema this
release does not read), in one line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

COMMANDS = ("rooms", "player", "hand", "leaderboard")
GAMES = ("guiyang", "jintan")
STATUSES = ("open", "playing", "between", "finished", "dissolved")


def _when(text: str) -> datetime:
    """An ISO-8601 time (naive = UTC) whose UTC instant exists, as the API takes it."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if when.tzinfo is not None:
            when.astimezone(UTC)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"not an ISO-8601 time in range: {text!r}") from None
    return when


def _page_size(text: str) -> int:
    """A page's size, 1..1000 as the API takes it (not clamped)."""
    from server.store.admin import MAX_LIMIT

    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_LIMIT}: {text!r}")
    return n


def help_text(doc: str) -> str:
    """A module docstring as ``--help`` prints it: its reStructuredText marks taken out
    (````code````, ``:mod:`x``` and the like become plain ``code`` and ``x``)."""
    return re.sub(r":[a-z]+:`([^`]+)`", r"\1", doc).replace("``", "")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m server admin",
        description=help_text(__doc__ or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="what", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--since", type=_when, default=None)
    common.add_argument("--until", type=_when, default=None)
    common.add_argument("--csv", action="store_true", help="CSV instead of JSON lines")
    common.add_argument("--limit", type=_page_size, default=100, help="rows per page, 1..1000")
    common.add_argument("--cursor", default=None)
    common.add_argument("--all", action="store_true", help="every page")
    common.add_argument("--database-url", default=None, help="default: DATABASE_URL")
    rooms = sub.add_parser("rooms", parents=[common], help="rooms, newest first")
    rooms.add_argument("--game", choices=GAMES, default=None)
    rooms.add_argument("--status", choices=STATUSES, default=None)
    rooms.add_argument("--player", default=None)
    rooms.add_argument("--profile", type=int, default=None, help="a profile id")
    player = sub.add_parser("player", parents=[common], help="a player's totals and hands")
    player.add_argument("name", nargs="?", default=None, help="a seat name, or #ID")
    player.add_argument("--profile", type=int, default=None, help="a profile id")
    player.add_argument("--game", choices=GAMES, default=None, help="one game's hands only")
    hand = sub.add_parser("hand", parents=[common], help="one hand and its payments")
    hand.add_argument("code")
    hand.add_argument("hand_no", type=int)
    board = sub.add_parser("leaderboard", parents=[common], help="players by points")
    board.add_argument("--game", choices=GAMES, default=None)
    board.add_argument("--bots", action="store_true", help="bots too")
    return parser


async def _run(args: argparse.Namespace, url: str) -> int:
    from server.api.admin import to_csv
    from server.store import NotFound, Store
    from server.store import admin as queries
    from server.store.schema import check_readable, tool_error

    try:
        await check_readable(url)  # (creates no SQLite file)
    except Exception as err:
        known = tool_error(err)
        if known is None:
            raise
        print(f"python -m server admin {args.what}: {known[0]}", file=sys.stderr)
        return known[1]
    store = Store(url)
    rng = queries.Range(args.since, args.until)
    rows: list[dict[str, Any]] = []
    nxt = args.cursor
    try:
        if args.what == "hand":
            detail = await queries.hand_detail(store, args.code, args.hand_no)
            if args.csv:
                sys.stdout.write(to_csv(detail["payments"]))
            else:
                print(json.dumps(detail, ensure_ascii=False))
            return 0
        if args.what == "player":
            totals = await queries.player_totals(
                store, args.name, rng, profile=args.profile, game=args.game
            )
            line = json.dumps(totals, ensure_ascii=False)
            print(line, file=sys.stderr if args.csv else sys.stdout)
        while True:
            if args.what == "rooms":
                page, nxt = await queries.rooms(
                    store, rng, game=args.game, status=args.status, player=args.player,
                    profile=args.profile, limit=args.limit, cursor=nxt,
                )  # fmt: skip
                page = [{**r, "seats": [s["name"] for s in r["seats"]]} for r in page]
            elif args.what == "player":
                page, nxt = await queries.player_history(
                    store, args.name, rng, profile=args.profile, game=args.game,
                    limit=args.limit, cursor=nxt,
                )  # fmt: skip
            else:
                page, nxt = await queries.leaderboard(
                    store, rng, game=args.game, bots=args.bots, limit=args.limit, cursor=nxt
                )
            rows += page
            if nxt is None or not args.all:
                break
    except (NotFound, queries.BadCursor) as err:
        print(f"python -m server admin {args.what}: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # the database went away mid-way
        known = tool_error(err)
        if known is None:
            raise
        print(f"python -m server admin {args.what}: {known[0]}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    if args.csv:
        sys.stdout.write(to_csv(rows))
    else:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
    if nxt is not None:
        print(f"next: {nxt}", file=sys.stderr)
    return 0


def main(argv: Sequence[str]) -> int:
    """Run one admin query; returns the exit status."""
    from server.config import database_url_problem, get_settings

    parser = build_parser()
    args = parser.parse_args(list(argv))
    if args.what == "player" and args.name is not None and args.profile is None:
        found = re.fullmatch(r"#(\d+)", args.name.strip())
        if found:
            args.name, args.profile = None, int(found.group(1))
    if args.what == "player" and not args.name and args.profile is None:
        parser.error("player needs a NAME or --profile ID")
    since, until = args.since, args.until
    if since is not None and until is not None:
        as_utc = [t.replace(tzinfo=UTC) if t.tzinfo is None else t for t in (since, until)]
        if as_utc[1] <= as_utc[0]:
            parser.error("--until must be later than --since")
    if args.database_url and database_url_problem(args.database_url):
        parser.error(f"--database-url: {database_url_problem(args.database_url)}")
    try:
        return asyncio.run(_run(args, args.database_url or get_settings().database_url))
    except BrokenPipeError:  # (`... | head`: the reader left; Python's documented way out)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
