"""The admin API (issue 14): score history, replays and corrections, behind ``ADMIN_TOKEN``.

Every route needs ``Authorization: Bearer <ADMIN_TOKEN>`` (403 ``forbidden`` otherwise; 404
``admin_off`` when ``ADMIN_TOKEN`` is unset). Shapes are in ``docs/protocol.md``; the queries in
:mod:`server.store.admin`.

Lists answer ``{"rows": [...], "next": cursor | null}`` (``/api/admin/rooms`` names its list
``rooms``, as before), newest first unless said otherwise; pass ``cursor=<next>`` for the next
page (``limit`` 1..1000, default 100); a bad cursor is 400 ``bad_cursor``. ``since`` /
``until``: ISO-8601 times (``until`` exclusive). With ``Accept: text/csv`` or ``format=csv``
a list comes as CSV (one row per line, header first; a list-valued field ``deltas`` becomes
columns ``deltas.0``, ``deltas.1``, ...; a dict-valued one a JSON string; booleans
``true``/``false``; null empty) with the next cursor in the ``X-Next-Cursor`` header and a
``Link: <...>; rel="next"``.

A player of the per-player aggregates (``/api/admin/leaderboard``, ``/api/admin/player``,
``/api/admin/player/hands``) is a player profile by its id (``profile=<id>``: one person
whatever each seat's name; names may repeat, ids never); seats without a profile (taken before
profiles existed, and bots) count under their stored seat name, matched exactly and
case-sensitively (``name=``), marked ``"profile": null``. The filters of ``/rooms`` and
``/ledger`` take a seat name (``player=``, any seat of that name) or ``profile=<id>``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import secrets
from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field

from server.api.messages import GameName, RoomStatus, StrictInput
from server.api.params import (
    HandNo,
    Limit,
    PlainText,
    ProfileId,
    UtcDatetime,
    bearer,
    client_address,
)
from server.rules.registry import UnknownGame, find_game
from server.rules.replay import log_steps, outcome, replay
from server.rules.types import Action, IllegalAction
from server.store import admin as queries
from server.store.store import Conflict, NotFound, Store

log = logging.getLogger(__name__)


def token_id(token: str) -> str:
    """A short public name of an admin token (``token:`` + 8 hex digits of its SHA-256):
    recorded as who made a correction when no admin name is given."""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:8]


async def require_admin(request: Request, authorization: str | None = Header(default=None)) -> str:
    """The dependency of every admin route: the bearer token must equal ``ADMIN_TOKEN``
    (`require_token`). Returns the token's :func:`token_id`. Without ``ADMIN_TOKEN`` every
    route is 404 ``admin_off`` (saying so: a host took a 403 "token required" for a wrong
    token), and no failure is counted."""
    token = request.app.state.settings.admin_token
    if not token:
        off = "the admin API is off: the server has no ADMIN_TOKEN"
        raise HTTPException(404, {"code": "admin_off", "message": off})
    await require_token(request, token, authorization, "admin")
    return token_id(token)


async def require_token(
    request: Request, token: str | None, authorization: str | None, what: str
) -> None:
    """Check ``Authorization: Bearer <token>`` for ``what`` (``admin``, ``metrics``): 403
    ``forbidden`` when it is missing or wrong (callers answer an unset ``token`` first); each
    failure is logged (address, never the token) and counted: beyond
    ``ADMIN_FAILURES_PER_MINUTE`` failures (of both kinds) an address gets 429
    ``rate_limited`` whatever it sends."""
    limits = request.app.state.limits
    address = client_address(request)
    if not await limits.under("admin", address):
        log.warning("%s authentication refused: %s is over its failure limit", what, address)
        raise HTTPException(
            429,
            {"code": "rate_limited", "message": f"too many failed {what} attempts"},
            headers={"Retry-After": "60"},
        )
    given = bearer(authorization)
    if not token or given is None or not secrets.compare_digest(given.encode(), token.encode()):
        await limits.allow("admin", address)
        log.warning(
            "%s authentication failed from %s (%s)",
            what,
            address,
            "no bearer token" if given is None else "wrong token",
        )
        raise HTTPException(403, {"code": "forbidden", "message": f"{what} token required"})


router = APIRouter(prefix="/api/admin", dependencies=[Depends(require_admin)])


def _store(request: Request) -> Store:
    return request.app.state.store


def _range(since: datetime | None, until: datetime | None) -> queries.Range:
    if since is not None and until is not None and _utc(until) <= _utc(since):
        raise HTTPException(422, {"code": "bad_range", "message": "until must be later than since"})
    return queries.Range(since, until)


def _utc(ts: datetime) -> datetime:
    from datetime import UTC

    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts


def _not_found(err: NotFound) -> HTTPException:
    return HTTPException(404, {"code": "not_found", "message": str(err)})


def wants_csv(request: Request, fmt: str | None) -> bool:
    """``format=csv``, or an ``Accept`` header naming ``text/csv`` (and not ``format=json``)."""
    if fmt is not None:
        return fmt == "csv"
    return "text/csv" in request.headers.get("accept", "")


#: What a spreadsheet reads as the start of a formula (OWASP "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> str:
    """One CSV cell: a text that a spreadsheet would run as a formula (a player's name
    ``=HYPERLINK(...)``) is opened with ``'``, which makes it text; numbers stay numbers."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return str(value)


def to_csv(rows: list[dict[str, Any]]) -> str:
    """Rows as CSV text (see the module doc): list fields spread over ``name.i`` columns."""
    columns: list[str] = []
    widths: dict[str, int] = {}
    for row in rows:
        for key, value in row.items():
            if key not in widths and key not in columns:
                columns.append(key)
            if isinstance(value, list):
                widths[key] = max(widths.get(key, 0), len(value))
    header: list[str] = []
    for key in columns:
        header.extend([f"{key}.{i}" for i in range(widths[key])] if key in widths else [key])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        line: list[str] = []
        for key in columns:
            value = row.get(key)
            if key in widths:
                items = value if isinstance(value, list) else []
                line.extend(_cell(items[i]) if i < len(items) else "" for i in range(widths[key]))
            else:
                line.append(_cell(value))
        writer.writerow(line)
    return out.getvalue()


def _flat_seats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For CSV: a room's seats as their names (``seats.i``), not dicts."""
    return [
        {**r, "seats": [s["name"] for s in r["seats"]]} if isinstance(r.get("seats"), list) else r
        for r in rows
    ]


def listing(
    request: Request,
    rows: list[dict[str, Any]],
    nxt: str | None,
    fmt: str | None,
    key: str = "rows",
    extra: dict[str, Any] | None = None,
) -> Any:
    """The JSON ``{key: rows, "next": nxt, **extra}`` or the CSV of ``rows``."""
    if wants_csv(request, fmt):
        headers = {}
        if nxt is not None:
            headers["X-Next-Cursor"] = nxt
            url = request.url.include_query_params(cursor=nxt)
            headers["Link"] = f'<{url}>; rel="next"'
        return Response(to_csv(_flat_seats(rows)), media_type="text/csv", headers=headers)
    return JSONResponse({key: rows, "next": nxt, **(extra or {})})


async def _paged(coro: Any) -> tuple[list[dict[str, Any]], str | None]:
    try:
        return await coro
    except queries.BadCursor as err:
        raise HTTPException(400, {"code": "bad_cursor", "message": str(err)}) from None
    except NotFound as err:
        raise _not_found(err) from None


Format = Literal["csv", "json"] | None


@router.get("/rooms", include_in_schema=False)
async def rooms(
    request: Request,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
    game: GameName | None = None,
    status: RoomStatus | None = None,
    player: PlainText | None = None,
    profile: ProfileId = None,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    format: Format = None,
) -> Any:
    """Rooms newest first: ``{"rooms": [{"code", "game", "status", "options", "created_at",
    "seats": [{"seat", "name", "bot", "profile"}], "hands", "standings"}], "next"}``;
    ``player``: a seat name, ``profile``: a profile id."""
    rows, nxt = await _paged(
        queries.rooms(
            _store(request),
            _range(since, until),
            game=game,
            status=status,
            player=player,
            profile=profile,
            limit=limit,
            cursor=cursor,
        )
    )
    return listing(request, rows, nxt, format, key="rooms")


@router.get("/rooms/{code}/hands", include_in_schema=False)
async def room_hands(
    request: Request,
    code: str,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    format: Format = None,
) -> Any:
    """The room's settled hands in order, each seat's delta and the standings after it:
    ``{"rows": [{"room", "hand_no", "started_at", "ended_at", "result", "deltas", "adjust",
    "voided", "effective", "standings"}], "next"}``; 404 ``not_found``."""
    rows, nxt = await _paged(
        queries.room_hands(_store(request), code, _range(since, until), limit=limit, cursor=cursor)
    )
    return listing(request, rows, nxt, format)


def fixture_entry(seat: int, action: Action) -> list[Any]:
    """One stored action in fixture form ``[seat, kind, arg?, extra?]`` (fixtures.md)."""
    entry: list[Any] = [seat, action.kind]
    if action.kind == "chow" and action.tiles:
        entry.append("".join(action.tiles))
    elif action.suit is not None:
        entry.append(action.suit)
    elif action.tile is not None:
        entry.append(action.tile)
    if action.bao_ting:
        entry.append({"bao_ting": True})
    return entry


async def stored_fixture(store: Store, detail: dict[str, Any]) -> dict[str, Any]:
    """The hand as a fixture (``../shared/spec/fixtures.md``, the stored form: ``seed`` in
    place of ``hands``/``wall``), its ``expect`` computed by replaying the stored seed and
    action log through the game (:func:`server.rules.replay.replay`, the audit's replay), plus
    ``"replay_ok"``: whether that replay gives the ledger's deltas and payments. An action log
    that does not replay: ``expect`` is ``{"error": ...}``."""
    code, hand_no = detail["room"], detail["hand_no"]
    actions = await store.hand_actions(code, hand_no)
    fixture: dict[str, Any] = {
        "name": f"{code}-hand-{hand_no}",
        "game": detail["game"],
        "options": detail["options"],
        "dealer": detail["dealer"],
        "dealer_streak": detail["dealer_streak"],
        "seed": detail["seed"],
    }
    if detail["weekday"] is not None:
        fixture["weekday"] = detail["weekday"]
    try:
        steps = log_steps(actions)
        fixture["actions"] = [fixture_entry(s.seat, s.action) for s in steps]
        done = replay(
            find_game(detail["game"]),
            detail["options"],
            steps,
            seed=detail["seed"],
            dealer=detail["dealer"],
            dealer_streak=detail["dealer_streak"],
            weekday=detail["weekday"],
        )
    except (IllegalAction, UnknownGame, KeyError, TypeError, ValueError) as exc:
        fixture.setdefault("actions", [])
        fixture["expect"] = {"error": str(exc)}
        fixture["replay_ok"] = False
        return fixture
    if done.settlement is None:
        fixture["expect"] = {}
        fixture["replay_ok"] = not detail["deltas"]
        return fixture
    fixture["expect"] = outcome(done.settlement)
    stored = sorted((p["from"], p["to"], p["points"], p["reason"]) for p in detail["payments"])
    replayed = sorted(tuple(p) for p in fixture["expect"]["payments"])
    fixture["replay_ok"] = list(done.settlement.deltas) == detail["deltas"] and stored == replayed
    return fixture


@router.get("/rooms/{code}/hands/{hand_no}", include_in_schema=False)
async def hand(request: Request, code: str, hand_no: HandNo, format: Format = None) -> Any:
    """One hand: its seats, deltas, corrections and payments (in CSV its payments, each with
    ``room`` and ``hand_no``) and its
    ``replay`` (the fixture of :func:`stored_fixture`); 404 ``not_found``. A hand still
    played shows no ``seed`` and no ``replay``: the seed gives away the wall, and an
    admin may be a player too."""
    store = _store(request)
    try:
        detail = await queries.hand_detail(store, code, hand_no)
    except NotFound as err:
        raise _not_found(err) from None
    if wants_csv(request, format):  # each row says whose hand it is, as the ledger's rows do
        rows = [{"room": code, "hand_no": hand_no, **p} for p in detail["payments"]]
        return listing(request, rows, None, format)
    if detail["ended_at"] is None:  # in play: its seed is its wall, for nobody to see yet
        return {**detail, "seed": None, "replay": None}
    detail["replay"] = await stored_fixture(store, detail)
    return detail


@router.get("/rooms/{code}/hands/{hand_no}/replay", include_in_schema=False)
async def hand_replay(request: Request, code: str, hand_no: HandNo) -> Any:
    """The hand as a fixture only (what ``python -m server replay`` reads, with ``seed``);
    409 ``hand_not_finished`` while it is played (as ``GET /api/replays/{id}``)."""
    store = _store(request)
    try:
        detail = await queries.hand_detail(store, code, hand_no)
    except NotFound as err:
        raise _not_found(err) from None
    if detail["ended_at"] is None:
        raise HTTPException(
            409, {"code": "hand_not_finished", "message": "the hand is not finished yet"}
        )
    return await stored_fixture(store, detail)


class VoidRequest(StrictInput):
    """``{"reason": str, "admin"?: str}``: ``admin`` names who does it (else the token's id)."""

    reason: PlainText = Field(min_length=1, max_length=500)
    admin: PlainText | None = Field(default=None, min_length=1, max_length=40)


class AdjustRequest(VoidRequest):
    """``{"from": seat, "to": seat, "points": int > 0, "reason", "admin"?}``."""

    from_seat: int = Field(alias="from", ge=0)
    to_seat: int = Field(alias="to", ge=0)
    points: int = Field(gt=0, le=1_000_000)


def _actor(body: VoidRequest, token: str) -> str:
    return f"{body.admin.strip()} ({token})" if body.admin and body.admin.strip() else token


async def _correct(request: Request, code: str, hand_no: int, **kw: Any) -> dict[str, Any]:
    try:
        row = await queries.correct(_store(request), code, hand_no, **kw)
    except NotFound as err:
        raise _not_found(err) from None
    except Conflict as err:
        raise HTTPException(409, {"code": "conflict", "message": str(err)}) from None
    except ValueError as err:
        raise HTTPException(422, {"code": "bad_correction", "message": str(err)}) from None
    # the room's table and final standings count it too (stored: a room that cannot be
    # told now reads it when it is next loaded)
    try:
        await request.app.state.manager.corrected(code)
    except Exception as exc:
        log.warning("room %s: totals not refreshed after a correction: %r", code, exc)
    return row


@router.post("/rooms/{code}/hands/{hand_no}/void", status_code=201, include_in_schema=False)
async def void_hand(
    request: Request,
    code: str,
    hand_no: HandNo,
    body: VoidRequest,
    token: str = Depends(require_admin),
) -> dict[str, Any]:
    """Void a settled hand (it stops counting; its rows stay): the correction row. 404,
    409 ``conflict`` if already voided, 422 ``bad_correction`` for an unsettled hand."""
    return await _correct(
        request, code, hand_no, kind="void", reason=body.reason, actor=_actor(body, token)
    )


@router.post("/rooms/{code}/hands/{hand_no}/adjustments", status_code=201, include_in_schema=False)
async def adjust_hand(
    request: Request,
    code: str,
    hand_no: HandNo,
    body: AdjustRequest,
    token: str = Depends(require_admin),
) -> dict[str, Any]:
    """Move ``points`` from one seat of a settled hand to another, with a reason: the
    correction row. 404; 422 ``bad_correction`` (unsettled hand, seat outside the hand)."""
    return await _correct(
        request,
        code,
        hand_no,
        kind="adjust",
        reason=body.reason,
        actor=_actor(body, token),
        from_seat=body.from_seat,
        to_seat=body.to_seat,
        points=body.points,
    )


@router.get("/corrections", include_in_schema=False)
async def corrections(
    request: Request,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
    room: PlainText | None = None,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    format: Format = None,
) -> Any:
    """Who corrected what and when, newest first: ``{"rows": [{"id", "room", "hand_no",
    "kind", "from", "to", "points", "reason", "actor", "created_at"}], "next"}``."""
    rows, nxt = await _paged(
        queries.corrections(
            _store(request), _range(since, until), room=room, limit=limit, cursor=cursor
        )
    )
    return listing(request, rows, nxt, format)


def _who(name: str | None, profile: int | None) -> None:
    if not name and profile is None:  # (an empty name is none: no seat has it)
        raise HTTPException(
            422, {"code": "bad_player", "message": "give name=<seat name> or profile=<id>"}
        )


@router.get("/player", include_in_schema=False)
async def player(
    request: Request,
    name: PlainText | None = None,
    profile: ProfileId = None,
    game: GameName | None = None,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
) -> dict[str, Any]:
    """A player's totals over hands settled in the range (in rooms of ``game``, or any),
    voided hands left out: ``{"player", "profile", "hands", "wins", "points", "by_reason":
    {reason: points}, "games": {game: {"hands", "points"}}}`` (points of different games
    are of different sizes: ``games`` splits them); the player by ``profile`` (its id;
    ``player`` is its current display name), or by ``name`` (the seats of that name without
    a profile, ``"profile": null``); 422 ``bad_player`` with neither, 404 ``not_found`` for
    an unknown profile id."""
    _who(name, profile)
    try:
        return await queries.player_totals(
            _store(request), name, _range(since, until), profile=profile, game=game
        )
    except NotFound as err:
        raise _not_found(err) from None


@router.get("/player/hands", include_in_schema=False)
async def player_hands(
    request: Request,
    name: PlainText | None = None,
    profile: ProfileId = None,
    game: GameName | None = None,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    format: Format = None,
) -> Any:
    """A player's hands (by ``profile``, or by ``name`` for seats without a profile; in
    rooms of ``game``, or any), newest settled first: ``{"rows": [{"id", "room", "game",
    "hand_no", "seat", "name", "profile", "bot", "ended_at", "result", "delta", "adjust",
    "voided", "points", "won"}], "next"}``."""
    _who(name, profile)
    rows, nxt = await _paged(
        queries.player_history(
            _store(request),
            name,
            _range(since, until),
            profile=profile,
            game=game,
            limit=limit,
            cursor=cursor,
        )
    )
    return listing(request, rows, nxt, format)


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard(
    request: Request,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
    game: GameName | None = None,
    bots: bool = False,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    format: Format = None,
) -> Any:
    """Players by points over hands settled in the range, one row per profile id (and per
    seat name for seats without a profile): ``{"rows": [{"rank", "profile" (id or null),
    "player" (the profile's current display name, or the seat name), "bot", "points",
    "hands", "wins"}], "next"}``; bots only with ``bots=true``."""
    rows, nxt = await _paged(
        queries.leaderboard(
            _store(request),
            _range(since, until),
            game=game,
            bots=bots,
            limit=limit,
            cursor=cursor,
        )
    )
    return listing(request, rows, nxt, format)


@router.get("/ledger", include_in_schema=False)
async def ledger(
    request: Request,
    room: PlainText | None = None,
    player: PlainText | None = None,
    profile: ProfileId = None,
    since: UtcDatetime | None = None,
    until: UtcDatetime | None = None,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    format: Format = None,
) -> Any:
    """Payment rows (of a seat named ``player`` / of ``profile``), newest first: ``{"rows":
    [{"id", "room", "hand_no", "from", "to", "from_name", "to_name", "points", "reason",
    "detail", "created_at", "voided"}], "next"}``."""
    rows, nxt = await _paged(
        queries.payments(
            _store(request),
            _range(since, until),
            room=room,
            player=player,
            profile=profile,
            limit=limit,
            cursor=cursor,
        )
    )
    return listing(request, rows, nxt, format)
