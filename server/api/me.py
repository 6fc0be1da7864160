"""Player profiles and a player's own records (战绩), issue 14: ``/api/profiles`` and
``/api/me/...``.

A profile is created on a browser's first visit (``POST /api/profiles``) or by a join that
brings none; its secret, the **player code**, is returned once and kept by the browser
(localStorage); the server stores only its sha256 (:mod:`server.store.profiles`). Every
``/api/me`` route needs ``Authorization: Bearer <player code>``: 401 ``player_code_required``
without one, 403 ``bad_player_code`` for a code of no profile. A player reads only the rooms
they sat in: any other room (or a hand not settled) is 404 ``not_found``, whether it exists or
not. Lists are keyset-paged as the admin's (``{"rows", "next"}``, ``cursor=<next>``, ``limit``
1..1000, default 100; 400 ``bad_cursor``). Shapes: ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from server.api.messages import PlayerName, StrictInput
from server.api.params import HandNo, Limit, bearer, client_address
from server.room.manager import hash_token
from server.rules.registry import find_game
from server.store import admin as queries
from server.store import profiles
from server.store.profiles import ProfileRecord
from server.store.store import AlreadySeated, Conflict, NotFound, Store

router = APIRouter(prefix="/api")


class ProfileRequest(StrictInput):
    """``POST /api/profiles`` and ``PATCH /api/me``: ``{"name"}``."""

    name: PlayerName


class ClaimRequest(StrictInput):
    """``POST /api/me/claim``: a seat's room code and the seat token the browser holds."""

    room: str = Field(min_length=1, max_length=32)
    token: str = Field(min_length=1, max_length=200)


def profile_out(p: ProfileRecord, secret: str | None = None) -> dict[str, Any]:
    """``{"id", "name", "created_at", "code"?}``: ``code`` (the player code) only when the
    profile was just made."""
    out: dict[str, Any] = {
        "id": p.id,
        "name": p.name,
        "created_at": p.created_at.isoformat() if p.created_at else None,
    }
    if secret is not None:
        out["code"] = profiles.format_code(secret)
    return out


def _store(request: Request) -> Store:
    return request.app.state.store


async def player_of(store: Store, authorization: str | None) -> ProfileRecord | None:
    """The profile named by an ``Authorization: Bearer <player code>`` header; ``None``
    without the header; 403 ``bad_player_code`` for a code of no profile."""
    given = bearer(authorization)
    if given is None:
        return None
    found = await profiles.profile_by_secret(store, given)
    if found is None:
        raise HTTPException(
            403, {"code": "bad_player_code", "message": "this player code names no player"}
        )
    return found


async def require_player(
    request: Request, authorization: str | None = Header(default=None)
) -> ProfileRecord:
    """The dependency of every ``/api/me`` route (see the module doc)."""
    found = await player_of(_store(request), authorization)
    if found is None:
        raise HTTPException(
            401,
            {"code": "player_code_required", "message": "a player code is needed"},
            headers={"WWW-Authenticate": "Bearer"},
        )
    return found


def _not_found(err: NotFound) -> HTTPException:
    return HTTPException(404, {"code": "not_found", "message": str(err)})


async def _guard(coro: Any) -> Any:
    try:
        return await coro
    except queries.BadCursor as err:
        raise HTTPException(400, {"code": "bad_cursor", "message": str(err)}) from None
    except NotFound as err:
        raise _not_found(err) from None


@router.post("/profiles", status_code=201)
async def create_profile(body: ProfileRequest, request: Request) -> Any:
    """A new profile: 201 ``{"id", "name", "created_at", "code"}`` (the code only here);
    429 ``rate_limited`` beyond ``JOINS_PER_MINUTE`` per client address."""
    if not await request.app.state.limits.allow("joins", client_address(request)):
        return JSONResponse(
            {"detail": {"code": "rate_limited", "message": "too many new players"}},
            status_code=429,
            headers={"Retry-After": "60"},
        )
    record, secret = await profiles.create_profile(_store(request), body.name)
    return profile_out(record, secret)


@router.get("/me")
async def me(player: ProfileRecord = Depends(require_player)) -> dict[str, Any]:
    """The caller's profile: ``{"id", "name", "created_at"}``."""
    return profile_out(player)


@router.patch("/me")
async def rename(
    body: ProfileRequest, request: Request, player: ProfileRecord = Depends(require_player)
) -> dict[str, Any]:
    """A new display name for later seats: the profile ``{"id", "name", "created_at"}``."""
    return profile_out(await profiles.rename_profile(_store(request), player.id, body.name))


@router.post("/me/claim")
async def claim(
    body: ClaimRequest, request: Request, player: ProfileRecord = Depends(require_player)
) -> dict[str, Any]:
    """Claim a seat taken before profiles existed with its seat token: ``{"room", "seat"}``;
    404 ``not_found`` (no seat of that room has the token), 409 ``conflict`` (another
    profile's seat), 409 ``already_seated`` (the caller holds another seat of that room)."""
    try:
        seat = await profiles.claim_seat(
            _store(request), player.id, body.room.strip().upper(), hash_token(body.token)
        )
    except NotFound as err:
        raise _not_found(err) from None
    except Conflict as err:
        code = "already_seated" if isinstance(err, AlreadySeated) else "conflict"
        raise HTTPException(409, {"code": code, "message": str(err)}) from None
    return {"room": body.room.strip().upper(), "seat": seat}


@router.get("/me/rooms")
async def my_rooms(
    request: Request,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    player: ProfileRecord = Depends(require_player),
) -> dict[str, Any]:
    """The rooms the caller sat in, newest first: ``{"rows": [{"code", "game", "options",
    "status", "created_at", "seat", "seats": [{"seat", "name", "bot"}], "hands",
    "standings", "ranks"}], "next"}``."""
    rows, nxt = await _guard(
        profiles.my_rooms(_store(request), player.id, limit=limit, cursor=cursor)
    )
    return {"rows": rows, "next": nxt}


@router.get("/me/rooms/{code}/hands")
async def my_room_hands(
    request: Request,
    code: str,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    player: ProfileRecord = Depends(require_player),
) -> dict[str, Any]:
    """One of the caller's rooms and its settled hands in order: ``{"room": {"code", "game",
    "options", "status", "created_at", "seat", "seats"}, "rows": [{"id", "replay_key", "room",
    "hand_no", "started_at", "ended_at", "result", "winners", "win_kind", "loser", "deltas",
    "adjust", "voided", "effective", "standings"}], "next"}``; 404 ``not_found`` for a room
    the caller did not sit in."""
    room, rows, nxt = await _guard(
        profiles.my_room_hands(_store(request), player.id, code, limit=limit, cursor=cursor)
    )
    return {"room": room, "rows": rows, "next": nxt}


@router.get("/me/rooms/{code}/hands/{hand_no}")
async def my_hand(
    request: Request,
    code: str,
    hand_no: HandNo,
    player: ProfileRecord = Depends(require_player),
) -> dict[str, Any]:
    """One settled hand of one of the caller's rooms, as the table showed it: ``{"id",
    "room", "game", "options", "hand_no", "seed", "dealer", "dealer_streak", "weekday",
    "seed_hash", "started_at", "ended_at", "result", "seat", "seats", "deltas", "adjust",
    "voided", "effective", "totals", "settlement", "session_last", "payments",
    "corrections"}``; 404
    ``not_found`` otherwise (another player's room, an unsettled hand)."""
    detail: dict[str, Any] = await _guard(
        profiles.my_hand(_store(request), player.id, code, hand_no)
    )
    # the seed's hash as the deal published it, for the page's 验证 (as 回放's)
    detail["seed_hash"] = find_game(detail["game"]).seed_hash(detail["seed"])
    return detail


@router.get("/me/history")
async def my_history(
    request: Request,
    limit: Limit = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
    player: ProfileRecord = Depends(require_player),
) -> dict[str, Any]:
    """The caller's settled hands, newest first, with the running total of the hand's game
    after each:
    ``{"rows": [{"id", "room", "game", "hand_no", "seat", "ended_at", "result", "delta",
    "adjust", "voided", "points", "won", "total"}], "next"}``."""
    rows, nxt = await _guard(
        profiles.my_history(_store(request), player.id, limit=limit, cursor=cursor)
    )
    return {"rows": rows, "next": nxt}
