"""Player profiles and a player's own records (战绩), issue 14.

A **profile** is one person across rooms: an ``id`` that never repeats, a display ``name``
(may repeat, changeable) and a **secret** that only the player's browser keeps. The secret is
also the **player code** the player copies to another device to bring the same profile back:
20 characters of :data:`CODE_ALPHABET` (28^20 ≈ 2^96), shown in groups of five
(``K7QH2-...``); the server stores only its sha256 (``profiles.secret_hash``, unique), so a
code is looked up by its hash. Human seats (``players.profile_id``) and the seat rows of each
settled hand (``seat_deltas.profile_id``) name the profile; bots have none (``is_bot``).
Seats taken before profiles existed have none either, until a browser that still holds the
seat's token claims it (:func:`claim_seat`).

The records of a profile (:func:`my_rooms`, :func:`my_room_hands`, :func:`my_hand`,
:func:`my_history`) are keyset-paged as the admin's lists (:mod:`server.store.admin`:
``(rows, next)``, an opaque cursor with a snapshot) and only cover rooms the profile sat in:
any other room is :class:`~server.store.store.NotFound`, whether it exists or not. Voids and
adjustments count as in the admin's totals.

Errors: :class:`~server.store.store.NotFound`, :class:`~server.store.store.Conflict`,
:class:`~server.store.admin.BadCursor`, ``ValueError`` (a bad name).
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from server.store import admin as queries
from server.store.admin import Conn, _effective, _read, _seat_names, _snapshot, _standings
from server.store.models import Correction, Hand, Player, Profile, Room, SeatDelta, utcnow
from server.store.store import AlreadySeated, Conflict, NotFound, Store, _aware

#: The player code's alphabet (as room codes: no 0/O, 1/I/L, no vowels).
CODE_ALPHABET = "23456789BCDFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 20
GROUP = 5
#: The longest display name (the API's player names are shorter, ``messages.NAME_MAX``).
NAME_MAX = 64


@dataclass(frozen=True, slots=True)
class ProfileRecord:
    """A profile as the API shows it (never its secret or hash)."""

    id: int
    name: str
    created_at: datetime | None


def new_secret() -> str:
    """A fresh player secret: :data:`CODE_LENGTH` random characters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_secret(code: str) -> str | None:
    """A player code as typed (any case, spaces and dashes anywhere) in its stored form, or
    ``None`` if it cannot be one (wrong length or characters)."""
    raw = "".join(ch for ch in code.upper() if ch not in " -\t\n")
    if len(raw) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in raw):
        return None
    return raw


def format_code(secret: str) -> str:
    """The secret as shown: groups of :data:`GROUP` characters joined by ``-``."""
    return "-".join(secret[i : i + GROUP] for i in range(0, len(secret), GROUP))


def hash_secret(secret: str) -> str:
    """The sha256 hex digest of a (normalised) secret: what ``profiles.secret_hash`` holds."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _name(name: str) -> str:
    name = (name or "").strip()
    bad = any(unicodedata.category(c) in ("Cc", "Cf") for c in name)
    if not name or len(name) > NAME_MAX or bad:
        raise ValueError(f"a name is 1..{NAME_MAX} characters, no control or format ones")
    return name


def _record(p: Any) -> ProfileRecord:
    return ProfileRecord(int(p.id), p.name, _aware(p.created_at))


async def create_profile(store: Store, name: str) -> tuple[ProfileRecord, str]:
    """A new profile called ``name``: ``(record, secret)``; the secret is returned only here
    (the caller hands it to the browser). ``ValueError`` for a bad name."""
    name = _name(name)
    secret = new_secret()
    now = utcnow()

    def work(conn: Connection) -> int:
        return int(
            conn.execute(
                insert(Profile)
                .values(name=name, secret_hash=hash_secret(secret), created_at=now)
                .returning(Profile.id)
            ).scalar_one()
        )

    pid = await store._write(work)
    return ProfileRecord(pid, name, now), secret


async def delete_unseated(store: Store, profile_id: int) -> bool:
    """Delete the profile unless it holds a seat (a profile made for a join the room then
    refused); True if it was deleted."""

    def work(conn: Connection) -> bool:
        seated = select(Player.id).where(Player.profile_id == profile_id).exists()
        gone = conn.execute(delete(Profile).where(Profile.id == profile_id, ~seated))
        return bool(gone.rowcount)

    return await store._write(work)


async def profile_by_secret(store: Store, code: str) -> ProfileRecord | None:
    """The profile whose player code is ``code`` (as typed), or ``None``."""
    secret = normal_secret(code)
    if secret is None:
        return None
    async with store.engine.connect() as conn:
        row = (
            await conn.execute(
                select(Profile.id, Profile.name, Profile.created_at).where(
                    Profile.secret_hash == hash_secret(secret)
                )
            )
        ).one_or_none()
    return _record(row) if row is not None else None


async def rename_profile(store: Store, profile_id: int, name: str) -> ProfileRecord:
    """Give the profile a new display name (seats already taken keep the name they were
    taken with, as the table showed it). ``ValueError``; :class:`NotFound`."""
    name = _name(name)

    def work(conn: Connection) -> Any:
        conn.execute(update(Profile).where(Profile.id == profile_id).values(name=name))
        return conn.execute(
            select(Profile.id, Profile.name, Profile.created_at).where(Profile.id == profile_id)
        ).one_or_none()

    row = await store._write(work)
    if row is None:
        raise NotFound(f"unknown profile {profile_id}")
    return _record(row)


async def claim_seat(store: Store, profile_id: int, code: str, token_hash: str) -> int:
    """Give the profile the human seat of room ``code`` whose token hashes to ``token_hash``
    (a seat taken before profiles existed, or one it holds already): sets ``players.
    profile_id`` and the ``seat_deltas.profile_id`` of that seat's settled hands, in one
    transaction. Returns the seat. :class:`NotFound` (no such room or seat),
    :class:`Conflict` (the seat belongs to another profile), :class:`AlreadySeated` (the
    profile holds another seat of the room: one seat per profile and room)."""

    def work(conn: Connection) -> int:
        row = conn.execute(
            select(Player.id, Player.seat, Player.profile_id)
            .join(Room, Room.id == Player.room_id)
            .where(Room.code == code, Player.token_hash == token_hash, Player.is_bot.is_(False))
        ).one_or_none()
        if row is None:
            raise NotFound(f"no seat of room {code!r} has this token")
        if row.profile_id is not None and row.profile_id != profile_id:
            raise Conflict(f"seat {row.seat} of room {code!r} belongs to another profile")
        conn.execute(update(Player).where(Player.id == row.id).values(profile_id=profile_id))
        conn.execute(
            update(SeatDelta).where(SeatDelta.player_id == row.id).values(profile_id=profile_id)
        )
        return int(row.seat)

    try:
        return await store._write(work)
    except IntegrityError as exc:
        raise AlreadySeated(f"the profile holds another seat of room {code!r}") from exc


async def seat_of(store: Store, profile_id: int, code: str) -> int | None:
    """The profile's seat in room ``code`` (its lowest), or ``None``."""
    async with store.engine.connect() as conn:
        seat = await conn.scalar(
            select(func.min(Player.seat))
            .join(Room, Room.id == Player.room_id)
            .where(Room.code == code, Player.profile_id == profile_id)
        )
    return int(seat) if seat is not None else None


# ------------------------------------------------------------------------------- records


def _my_seat(conn: Conn, profile_id: int, code: str) -> Any:
    """``(room_id, game, options, status, created_at, seat)`` of the profile's seat in room
    ``code``; :class:`NotFound` if it has none there (or there is no such room)."""
    row = conn.execute(
        select(Room.id, Room.game, Room.options, Room.status, Room.created_at, Player.seat)
        .join(Player, Player.room_id == Room.id)
        .where(Room.code == code, Player.profile_id == profile_id)
        .order_by(Player.seat)
        .limit(1)
    ).one_or_none()
    if row is None:
        raise NotFound(f"no room {code!r} among this player's rooms")
    return row


def _ranks(totals: list[int]) -> list[int]:
    """Competition ranks (1 = most points; equal totals share a rank)."""
    return [1 + sum(1 for o in totals if o > t) for t in totals]


async def my_rooms(
    store: Store, profile_id: int, *, limit: int = queries.DEFAULT_LIMIT, cursor: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """The rooms the profile sat in, newest seat first (keyset on ``players.id``, index
    ``ix_players_profile_id_id``). Row: ``{"code", "game", "options", "status",
    "created_at", "seat" (the profile's), "seats": [{"seat", "name", "bot"}], "hands"
    (counted), "standings": [total per seat], "ranks": [rank per seat]}``."""
    cur = queries.decode_cursor("me-rooms", cursor)
    n = queries._limit(limit)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        snap = _snapshot(conn, cur, "sd", "c")
        q = (
            select(Player.id, Player.seat, Room)
            .join(Room, Room.id == Player.room_id)
            .where(Player.profile_id == profile_id)
        )
        if cur is not None:
            q = q.where(Player.id < int(cur.key[0]))
        found = conn.execute(q.order_by(Player.id.desc()).limit(n + 1)).all()
        page = found[:n]
        ids = [r.id for _, _, r in page]
        seats = _seat_names(conn, ids)
        totals, counts = _standings(conn, ids, snap) if ids else ({}, {})
        rows = []
        for _, seat, r in page:
            room_seats = seats.get(r.id, {})
            width = max(
                [
                    queries._seat_count(r.options),
                    *(s + 1 for s in room_seats),
                    *(s + 1 for s in totals.get(r.id, {})),
                ]
            )
            standings = [totals.get(r.id, {}).get(s, 0) for s in range(width)]
            rows.append(
                {
                    "code": r.code,
                    "game": r.game,
                    "options": r.options,
                    "status": r.status,
                    "created_at": queries._iso(r.created_at),
                    "seat": seat,
                    "seats": [room_seats[s] for s in sorted(room_seats)],
                    "hands": int(counts.get(r.id, 0)),
                    "standings": standings,
                    "ranks": _ranks(standings),
                }
            )
        nxt = queries.encode_cursor("me-rooms", [page[-1][0]], snap) if len(found) > n else None
        return rows, nxt

    return await _read(store, work)


async def my_room_hands(
    store: Store,
    profile_id: int,
    code: str,
    *,
    limit: int = queries.DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], str | None]:
    """One of the profile's rooms and its settled hands in order: ``(room, rows, next)``.
    ``room``: ``{"code", "game", "options", "status", "created_at", "seat", "seats"}``;
    rows as :func:`server.store.admin.room_hands` gives them (``deltas``, ``effective``,
    ``standings`` after each hand, ...) plus ``"id"`` (the hand's id, for its replay link)
    and, from its stored settlement, how it ended: ``"winners"`` (seats), ``"win_kind"``
    (``zi_mo``, ``dian_pao``, ...; None for 黄庄) and ``"loser"`` (the seat that dealt in or
    was robbed, else None). :class:`NotFound` unless the profile sat in the room."""

    def head(conn: Conn) -> dict[str, Any]:
        me = _my_seat(conn, profile_id, code)
        seats = _seat_names(conn, [me.id]).get(me.id, {})
        return {
            "code": code,
            "game": me.game,
            "options": me.options,
            "status": me.status,
            "created_at": queries._iso(me.created_at),
            "seat": me.seat,
            "seats": [seats[s] for s in sorted(seats)],
        }

    room = await _read(store, head)
    rows, nxt = await queries.room_hands(store, code, limit=limit, cursor=cursor)
    if rows:

        def ids(conn: Conn) -> dict[int, dict[str, Any]]:
            got = conn.execute(
                select(Hand.hand_no, Hand.id, Hand.replay_key, Hand.settlement)
                .join(Room, Room.id == Hand.room_id)
                .where(Room.code == code, Hand.hand_no.in_([r["hand_no"] for r in rows]))
            ).all()
            return {int(no): _hand_links(hid, key, st) for no, hid, key, st in got}

        by_no = await _read(store, ids)
        # the replay key of a settled hand goes to its players only (this profile sat here)
        rows = [{**by_no.get(r["hand_no"], _hand_links(None, None, None)), **r} for r in rows]
    return room, rows, nxt


def _hand_links(
    hand_id: int | None, replay_key: str | None, settlement: dict[str, Any] | None
) -> dict[str, Any]:
    """A `my_room_hands` row's own fields: the hand's id and replay key, and how it ended
    (its settlement's ``winners``, ``win_kind`` and ``loser``)."""
    st = settlement or {}
    return {
        "id": None if hand_id is None else int(hand_id),
        "replay_key": replay_key,
        "winners": list(st.get("winners") or []),
        "win_kind": st.get("win_kind"),
        "loser": st.get("loser"),
    }


async def my_hand(store: Store, profile_id: int, code: str, hand_no: int) -> dict[str, Any]:
    """One settled hand of one of the profile's rooms, as the table showed it: what
    :func:`server.store.admin.hand_detail` gives (seats, deltas, voided, effective, payments,
    corrections; the seed, revealed at the hand's end) plus ``"id"``, ``"seat"`` (the
    profile's), ``"settlement"`` (the stored settlement, the ``hand_end`` message's),
    ``"totals"`` (each seat's running total after this hand, voids and adjustments applied)
    and ``"session_last"`` (the session is over and this was its last hand: no next dealer).
    :class:`NotFound` unless the profile sat in the room and the hand is settled."""

    def check(conn: Conn) -> dict[str, Any]:
        me = _my_seat(conn, profile_id, code)
        hand = conn.execute(
            select(Hand.id, Hand.settlement).where(Hand.room_id == me.id, Hand.hand_no == hand_no)
        ).one_or_none()
        if hand is None or hand.settlement is None:
            raise NotFound(f"no settled hand {hand_no} in room {code!r}")
        upto = conn.execute(
            select(Hand.id).where(Hand.room_id == me.id, Hand.hand_no <= hand_no)
        ).scalars()
        totals: dict[int, int] = {}
        for e in _effective(conn, list(upto), {"sd": queries._BIG, "c": queries._BIG}).values():
            for seat, d in enumerate(e["effective"]):
                totals[seat] = totals.get(seat, 0) + d
        later = conn.execute(
            select(Hand.id).where(Hand.room_id == me.id, Hand.hand_no > hand_no).limit(1)
        ).first()
        return {
            "id": int(hand.id),
            "seat": me.seat,
            "settlement": hand.settlement,
            "totals": [totals.get(s, 0) for s in range(max(totals, default=-1) + 1)],
            "session_last": later is None and me.status in ("finished", "dissolved"),
        }

    mine = await _read(store, check)
    detail = await queries.hand_detail(store, code, hand_no, profiles=False)
    return {**detail, **mine}


async def my_history(
    store: Store, profile_id: int, *, limit: int = queries.DEFAULT_LIMIT, cursor: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """The profile's settled hands, newest first (keyset on ``seat_deltas.id``, index
    ``ix_seat_deltas_profile_id_id``), each with the running total after it: rows as
    :func:`server.store.admin.player_history` gives them (``points`` = what counts) plus
    ``"total"``: the sum of ``points`` over this hand and every earlier hand of the profile
    **in the same game** (inside the first page's snapshot): Guiyang's and Jintan's points
    are of different sizes (底分 1 against 底数 10) and are never added together."""
    rows, nxt = await queries.player_history(
        store, None, profile=profile_id, limit=limit, cursor=cursor
    )
    if not rows:
        return rows, nxt
    oldest = min(r["id"] for r in rows)
    # the snapshot the pages share (either cursor carries it; a single page: everything)
    paged = queries.decode_cursor("player", cursor or nxt)

    def base(conn: Conn) -> dict[str, int]:
        snap = _snapshot(conn, paged, "sd", "c") if paged else {"sd": oldest, "c": queries._BIG}
        mine = and_(
            SeatDelta.profile_id == profile_id,
            SeatDelta.id < oldest,
            SeatDelta.id <= snap["sd"],
        )
        deltas = conn.execute(
            select(Room.game, func.sum(SeatDelta.delta))
            .join(Hand, Hand.id == SeatDelta.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .where(mine, ~queries._voided(snap))
            .group_by(Room.game)
        ).all()
        signed = case(
            (Correction.to_seat == SeatDelta.seat, Correction.points),
            (Correction.from_seat == SeatDelta.seat, -Correction.points),
            else_=0,
        )
        adjusted = conn.execute(
            select(Room.game, func.sum(signed))
            .select_from(SeatDelta)
            .join(Hand, Hand.id == SeatDelta.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .join(Correction, Correction.hand_id == SeatDelta.hand_id)
            .where(
                mine,
                Correction.kind == "adjust",
                Correction.id <= snap["c"],
                or_(Correction.to_seat == SeatDelta.seat, Correction.from_seat == SeatDelta.seat),
                ~queries._voided(snap),
            )
            .group_by(Room.game)
        ).all()
        sums: dict[str, int] = defaultdict(int)
        for game, points in [*deltas, *adjusted]:
            sums[game] += int(points or 0)
        return sums

    running = await _read(store, base)
    out = []
    for r in reversed(rows):
        running[r["game"]] += r["points"]
        out.append({**r, "total": running[r["game"]]})
    out.reverse()
    return out, nxt


__all__ = [
    "CODE_ALPHABET",
    "ProfileRecord",
    "claim_seat",
    "create_profile",
    "format_code",
    "hash_secret",
    "my_hand",
    "my_history",
    "my_room_hands",
    "my_rooms",
    "new_secret",
    "normal_secret",
    "profile_by_secret",
    "rename_profile",
    "seat_of",
]
