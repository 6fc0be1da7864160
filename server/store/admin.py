"""The admin's queries over the score history, and corrections as events (issue 14).

Every list is **keyset-paged**: it returns ``(rows, next)`` where ``next`` is an opaque cursor
(``None`` on the last page) to pass back as ``cursor``. A cursor holds the last row's sort key
and a *snapshot* (the highest ``seat_deltas`` / ``corrections`` / ``ledger_entries`` id seen
when the first page was read): later pages only count rows inside that snapshot, so paging
while new hands are settled returns every row of the first page's snapshot exactly once, and
aggregates (leaderboard) do not move between pages. Sort keys always end with a unique column.

Date ranges: ``since`` inclusive, ``until`` exclusive, timezone-aware (naive = UTC). Rooms are
dated by ``created_at``, hands by ``ended_at`` (when settled), payments by ``created_at``,
corrections by ``created_at``.

A "player" of the per-player aggregates (:func:`leaderboard`, :func:`player_history`,
:func:`player_totals`) is a player profile (:mod:`server.store.profiles`: one person by its
id, whatever the name of each seat; names may repeat, ids never), and for seats without a
profile (taken before profiles existed, and bots) the seat name stored with the room, matched
exactly (case-sensitive), marked ``profile: None``; bots are left out of the leaderboard
unless ``bots=True``. The filters of :func:`rooms` and :func:`payments` take a seat name
(``player``, any seat of that name) or a profile id (``profile``).

Corrections (table ``corrections``): ``void`` makes a hand count for nothing in totals and
standings; ``adjust`` moves ``points`` (> 0) from one seat of the hand's room to another,
counted with the hand (and dropped with it if the hand is voided). The ledger and seat-delta
rows are never changed. Voiding twice is a :class:`Conflict`.

Errors: :class:`BadCursor` (a ``ValueError``) for a cursor this code did not make or for
another list; :class:`~server.store.store.NotFound`; ``ValueError`` for a bad correction.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Select,
    and_,
    case,
    exists,
    func,
    insert,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, aliased

from server.store.models import (
    Correction,
    Hand,
    LedgerEntry,
    Player,
    Profile,
    Room,
    SeatDelta,
    utcnow,
)
from server.store.store import Conflict, NotFound, Store, _aware

#: Rows per page unless asked otherwise, and the most a page may hold.
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
#: The ledger reason of the winning payment in every registered game (a "win" is a hand in
#: which the seat received one).
WIN_REASON = "hu"
#: The reason under which adjustments appear in a player's points by reason.
ADJUST_REASON = "adjustment"

_BIG = 2**62

#: What the queries run on: an ORM session over the reading connection (entities), or the
#: writer's connection (columns only).
Conn = Session | Connection


class BadCursor(ValueError):
    """A ``cursor`` that is not one this list gave."""


@dataclass(frozen=True)
class Range:
    """``since`` (inclusive) .. ``until`` (exclusive); either may be ``None``."""

    since: datetime | None = None
    until: datetime | None = None


@dataclass
class _Cursor:
    kind: str
    key: list[Any]
    snap: dict[str, int]


def encode_cursor(kind: str, key: Sequence[Any], snap: dict[str, int]) -> str:
    raw = json.dumps({"l": kind, "k": list(key), "s": snap}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _bigint(value: Any) -> bool:
    """Whether ``value`` is a JSON integer the database's BIGINT holds."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def decode_cursor(kind: str, cursor: str | None) -> _Cursor | None:
    """The cursor's key and snapshot, ``None`` for no cursor. Raises :class:`BadCursor`
    for anything an ``encode_cursor`` of this list did not make, as far as its shape tells:
    a snapshot of integers the database holds and, but for the leaderboard's (checked by
    `_board_key`), a key of one such integer (a row id or hand number). A cursor is the
    client's to forge: a key of another type or size was a 500 from the query."""
    if cursor is None or cursor == "":
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        key, snap = data["k"], data["s"]
        if data["l"] != kind or not isinstance(key, list) or not isinstance(snap, dict):
            raise ValueError
        if not all(_bigint(v) for v in snap.values()):
            raise ValueError
        if kind != "leaderboard" and (len(key) != 1 or not _bigint(key[0])):
            raise ValueError
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadCursor(f"not a cursor of this list ({kind})") from None
    return _Cursor(kind, key, snap)


def _limit(limit: int) -> int:
    return max(1, min(int(limit), MAX_LIMIT))


def _ts(store: Store, when: datetime | None) -> datetime | None:
    """A bound for a timestamp column: UTC, naive on SQLite (as stored there)."""
    if when is None:
        return None
    when = (when.replace(tzinfo=UTC) if when.tzinfo is None else when).astimezone(UTC)
    return when.replace(tzinfo=None) if store.engine.dialect.name == "sqlite" else when


def _in_range(store: Store, column: Any, rng: Range) -> list[Any]:
    out = []
    if rng.since is not None:
        out.append(column >= _ts(store, rng.since))
    if rng.until is not None:
        out.append(column < _ts(store, rng.until))
    return out


def _iso(ts: datetime | None) -> str | None:
    ts = _aware(ts)
    return ts.isoformat() if ts else None


async def _read(store: Store, work: Any) -> Any:
    async with store.engine.connect() as conn:
        return await conn.run_sync(lambda c: work(Session(bind=c)))


def _snapshot(conn: Conn, cur: _Cursor | None, *names: str) -> dict[str, int]:
    if cur is not None:
        return {n: int(cur.snap.get(n, _BIG)) for n in names}
    tables = {"sd": SeatDelta.id, "c": Correction.id, "le": LedgerEntry.id, "r": Room.id}
    return {n: int(conn.scalar(select(func.max(tables[n]))) or 0) for n in names}


def _voided(snap: dict[str, int]) -> Any:
    """SQL: the hand (``Hand.id``) is voided inside the snapshot."""
    void = aliased(Correction, name="void")  # not correlated with a query's own corrections
    return exists().where(void.hand_id == Hand.id, void.kind == "void", void.id <= snap["c"])


def _points_rows(snap: dict[str, int], *where: Any, names: bool = False) -> Any:
    """Subquery ``(room_id, hand_id, seat, points, is_hand[, name, is_bot, profile_id])``:
    each seat's delta of each settled hand and each adjustment's two sides, all inside the
    snapshot, of hands not voided that meet ``where`` (conditions on ``Hand``). Each branch joins
    ``hands`` (and ``players`` with ``names``) itself, so the conditions reach each branch's
    index scans rather than filtering a union of every row."""

    def branch(src: Any, hand_id: Any, seat: Any, points: Any, is_hand: int, *conds: Any) -> Any:
        cols = [
            Hand.room_id.label("room_id"),
            hand_id.label("hand_id"),
            seat.label("seat"),
            points.label("points"),
            literal(is_hand).label("is_hand"),
        ]
        if names:
            cols += [
                Player.name.label("name"),
                Player.is_bot.label("is_bot"),
                Player.profile_id.label("profile_id"),
            ]
        q = (
            select(*cols)
            .select_from(src)
            .join(Hand, Hand.id == hand_id)
            .where(*conds, *where, ~_voided(snap))
        )
        if names:
            q = q.join(Player, (Player.room_id == Hand.room_id) & (Player.seat == seat))
        return q

    adjust = (Correction.kind == "adjust", Correction.id <= snap["c"])
    return union_all(
        branch(
            SeatDelta,
            SeatDelta.hand_id,
            SeatDelta.seat,
            SeatDelta.delta,
            1,
            SeatDelta.id <= snap["sd"],
        ),
        branch(Correction, Correction.hand_id, Correction.to_seat, Correction.points, 0, *adjust),
        branch(
            Correction, Correction.hand_id, Correction.from_seat, -Correction.points, 0, *adjust
        ),
    ).subquery("pts")


def _effective(conn: Conn, hand_ids: Sequence[int], snap: dict[str, int]) -> dict[int, Any]:
    """Per hand: ``{"deltas": [...], "adjust": [...], "voided": bool, "effective": [...]}``."""
    out: dict[int, Any] = {}
    if not hand_ids:
        return out
    for hid, _seat, delta in conn.execute(
        select(SeatDelta.hand_id, SeatDelta.seat, SeatDelta.delta)
        .where(SeatDelta.hand_id.in_(hand_ids), SeatDelta.id <= snap["sd"])
        .order_by(SeatDelta.hand_id, SeatDelta.seat)
    ):
        entry = out.setdefault(hid, {"deltas": [], "adjust": [], "voided": False})
        entry["deltas"].append(delta)
    for hid, kind, frm, to, pts in conn.execute(
        select(
            Correction.hand_id,
            Correction.kind,
            Correction.from_seat,
            Correction.to_seat,
            Correction.points,
        )
        .where(Correction.hand_id.in_(hand_ids), Correction.id <= snap["c"])
        .order_by(Correction.id)
    ):
        entry = out.setdefault(hid, {"deltas": [], "adjust": [], "voided": False})
        if kind == "void":
            entry["voided"] = True
        else:
            entry["adjust"].append((frm, to, pts))
    for entry in out.values():
        eff = [0] * len(entry["deltas"]) if entry["voided"] else list(entry["deltas"])
        adj = [0] * len(entry["deltas"])
        for frm, to, pts in entry["adjust"]:
            if 0 <= frm < len(adj) and 0 <= to < len(adj):
                adj[frm] -= pts
                adj[to] += pts
        entry["adjust"] = adj
        if not entry["voided"]:
            eff = [d + a for d, a in zip(eff, adj, strict=True)]
        entry["effective"] = eff
    return out


def _seat_names(
    conn: Conn, room_ids: Sequence[int], *, profiles: bool = False
) -> dict[int, dict[int, Any]]:
    """Per room id, per seat: ``{"seat", "name", "bot"}``, and ``"profile"`` (its id, or
    None) with ``profiles`` (for the admin: two players may share a name; not for the
    players, who need no one else's id)."""
    out: dict[int, dict[int, Any]] = {}
    if room_ids:
        for rid, seat, name, bot, profile in conn.execute(
            select(Player.room_id, Player.seat, Player.name, Player.is_bot, Player.profile_id)
            .where(Player.room_id.in_(room_ids))
            .order_by(Player.room_id, Player.seat)
        ):
            row = {"seat": seat, "name": name, "bot": bot}
            out.setdefault(rid, {})[seat] = {**row, "profile": profile} if profiles else row
    return out


def _standings(
    conn: Conn, room_ids: Sequence[int], snap: dict[str, int]
) -> tuple[dict[int, dict[int, int]], dict[int, int]]:
    """Per room: ``{seat: total}`` over its settled hands, voids and adjustments applied, and
    the number of those hands. By hand ids (``uq_hands_room_hand_no``), then their seat rows
    by ``hand_id`` lists (``uq_seat_deltas_hand_seat``) in chunks: a join here would make
    PostgreSQL's planner scan every seat row for a page of rooms."""
    hands = conn.execute(
        select(Hand.id, Hand.room_id).where(Hand.room_id.in_(room_ids), Hand.ended_at.is_not(None))
    ).all()
    totals: dict[int, dict[int, int]] = {rid: {} for rid in room_ids}
    counts: dict[int, int] = {}
    room_of = dict(hands)
    ids = list(room_of)
    for i in range(0, len(ids), 500):
        for hid, e in _effective(conn, ids[i : i + 500], snap).items():
            if not e["deltas"]:
                continue  # settled after the snapshot
            rid = room_of[hid]
            if not e["voided"]:
                counts[rid] = counts.get(rid, 0) + 1
            for seat, d in enumerate(e["effective"]):
                totals[rid][seat] = totals[rid].get(seat, 0) + d
    return totals, counts


# ------------------------------------------------------------------------------- rooms


async def rooms(
    store: Store,
    rng: Range = Range(),
    *,
    game: str | None = None,
    status: str | None = None,
    player: str | None = None,
    profile: int | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """Rooms newest first (``rooms.id`` descending), created in ``rng``, of ``game``, with
    ``status``, with a seat named ``player``, with a seat of ``profile`` (its id). Row:
    ``{"code", "game", "status", "options", "created_at", "seats": [{"seat", "name", "bot",
    "profile"}],
    "hands"` (settled, not voided), ``"standings": [total per seat]}``."""
    cur = decode_cursor("rooms", cursor)
    n = _limit(limit)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        snap = _snapshot(conn, cur, "r", "sd", "c")
        q = select(Room).where(Room.id <= snap["r"], *_in_range(store, Room.created_at, rng))
        if cur is not None:
            q = q.where(Room.id < int(cur.key[0]))
        if game is not None:
            q = q.where(Room.game == game)
        if status is not None:
            q = q.where(Room.status == status)
        if player is not None:
            q = q.where(exists().where(Player.room_id == Room.id, Player.name == player))
        if profile is not None:
            q = q.where(exists().where(Player.room_id == Room.id, Player.profile_id == profile))
        found = list(conn.execute(q.order_by(Room.id.desc()).limit(n + 1)).scalars())
        page = found[:n]
        ids = [r.id for r in page]
        seats = _seat_names(conn, ids, profiles=True)
        totals, counts = _standings(conn, ids, snap) if ids else ({}, {})
        rows = []
        for r in page:
            room_seats = seats.get(r.id, {})
            width = max(
                [
                    _seat_count(r.options),
                    *(s + 1 for s in room_seats),
                    *(s + 1 for s in totals.get(r.id, {})),
                ]
            )
            rows.append(
                {
                    "code": r.code,
                    "game": r.game,
                    "status": r.status,
                    "options": r.options,
                    "created_at": _iso(r.created_at),
                    "seats": [room_seats[s] for s in sorted(room_seats)],
                    "hands": int(counts.get(r.id, 0)),
                    "standings": [totals.get(r.id, {}).get(s, 0) for s in range(width)],
                }
            )
        nxt = encode_cursor("rooms", [page[-1].id], snap) if len(found) > n else None
        return rows, nxt

    return await _read(store, work)


def _seat_count(options: Any) -> int:
    n = options.get("players") if isinstance(options, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) else 0


def _room(conn: Conn, code: str) -> Any:
    """The room's ``(id, game, options)`` row. Raises :class:`NotFound`."""
    room = conn.execute(
        select(Room.id, Room.game, Room.options).where(Room.code == code)
    ).one_or_none()
    if room is None:
        raise NotFound(f"unknown room {code!r}")
    return room


# ------------------------------------------------------------------------------- hands


async def room_hands(
    store: Store,
    code: str,
    rng: Range = Range(),
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """The room's settled hands in ``hand_no`` order, settled in ``rng``. Row: ``{"room",
    "hand_no", "started_at", "ended_at", "result", "deltas" (as settled), "adjust" (net
    adjustments per seat), "voided", "effective" (what counts: 0s if voided, else deltas +
    adjust), "standings" (running totals after this hand, over every earlier counted hand
    of the room, whatever ``rng``)}``. Raises :class:`NotFound` for an unknown room."""
    cur = decode_cursor("hands", cursor)
    n = _limit(limit)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        room = _room(conn, code)
        snap = _snapshot(conn, cur, "sd", "c")
        settled = exists().where(SeatDelta.hand_id == Hand.id, SeatDelta.id <= snap["sd"])
        q = select(Hand).where(
            Hand.room_id == room.id, settled, *_in_range(store, Hand.ended_at, rng)
        )
        after = int(cur.key[0]) if cur is not None else 0
        found = list(
            conn.execute(
                q.where(Hand.hand_no > after).order_by(Hand.hand_no).limit(n + 1)
            ).scalars()
        )
        page = found[:n]
        running: dict[int, int] = {}
        if page:
            pts = _points_rows(snap, Hand.room_id == room.id, Hand.hand_no < page[0].hand_no)
            for seat, total in conn.execute(
                select(pts.c.seat, func.sum(pts.c.points)).group_by(pts.c.seat)
            ):
                running[seat] = int(total or 0)
        eff = _effective(conn, [h.id for h in page], snap)
        rows = []
        for h in page:
            e = eff.get(h.id, {"deltas": [], "adjust": [], "voided": False, "effective": []})
            for seat, d in enumerate(e["effective"]):
                running[seat] = running.get(seat, 0) + d
            width = max([len(e["deltas"]), *(s + 1 for s in running)])
            rows.append(
                {
                    "room": code,
                    "hand_no": h.hand_no,
                    "started_at": _iso(h.started_at),
                    "ended_at": _iso(h.ended_at),
                    "result": h.result,
                    "deltas": e["deltas"],
                    "adjust": e["adjust"],
                    "voided": e["voided"],
                    "effective": e["effective"],
                    "standings": [running.get(s, 0) for s in range(width)],
                }
            )
        nxt = encode_cursor("hands", [page[-1].hand_no], snap) if len(found) > n else None
        return rows, nxt

    return await _read(store, work)


async def hand_detail(
    store: Store, code: str, hand_no: int, *, profiles: bool = True
) -> dict[str, Any]:
    """One hand: ``{"room", "hand_id", "game", "options", "hand_no", "seed", "dealer",
    "dealer_streak", "weekday", "started_at", "ended_at", "result", "seats", "deltas",
    "adjust", "voided", "effective",
    "payments": [{"id", "from", "to", "points", "reason", "detail"}],
    "corrections": [correction rows]}``; each seat's ``profile`` id with ``profiles`` (the
    admin's, see `_seat_names`). Raises :class:`NotFound`."""

    def work(conn: Conn) -> dict[str, Any]:
        room = _room(conn, code)
        hand = conn.execute(
            select(Hand).where(Hand.room_id == room.id, Hand.hand_no == hand_no)
        ).scalar_one_or_none()
        if hand is None:
            raise NotFound(f"unknown hand {hand_no} of room {code!r}")
        snap = {"sd": _BIG, "c": _BIG}
        e = _effective(conn, [hand.id], snap).get(
            hand.id, {"deltas": [], "adjust": [], "voided": False, "effective": []}
        )
        payments = [
            {
                "id": p.id,
                "from": p.from_seat,
                "to": p.to_seat,
                "points": p.points,
                "reason": p.reason,
                "detail": p.detail,
            }
            for p in conn.execute(
                select(LedgerEntry).where(LedgerEntry.hand_id == hand.id).order_by(LedgerEntry.id)
            ).scalars()
        ]
        corrections = _correction_rows(
            conn, select(Correction).where(Correction.hand_id == hand.id).order_by(Correction.id)
        )
        seats = _seat_names(conn, [room.id], profiles=profiles).get(room.id, {})
        return {
            "room": code,
            "hand_id": hand.id,
            "game": room.game,
            "options": room.options,
            "hand_no": hand.hand_no,
            "seed": hand.seed,
            "dealer": hand.dealer,
            "dealer_streak": hand.dealer_streak,
            "weekday": hand.weekday,
            "started_at": _iso(hand.started_at),
            "ended_at": _iso(hand.ended_at),
            "result": hand.result,
            "seats": [seats[s] for s in sorted(seats)],
            **e,
            "payments": payments,
            "corrections": corrections,
        }

    return await _read(store, work)


# ------------------------------------------------------------------------------- players


def _whose(name: str | None, profile: int | None) -> list[Any]:
    """Conditions on ``SeatDelta``: the seats of ``profile`` (its id), whatever each was
    named; or, with ``name`` alone, the seats named ``name`` exactly that have **no** profile
    (taken before profiles existed, or bots): a profile's seats are never merged with
    another's of the same name. Both: the profile's seats named ``name``. ``ValueError`` if
    neither is given."""
    if name is None and profile is None:
        raise ValueError("a player needs a name or a profile id")
    out: list[Any] = []
    if name is not None:
        out.append(SeatDelta.player_id.in_(select(Player.id).where(Player.name == name)))
        if profile is None:
            out.append(SeatDelta.profile_id.is_(None))
    if profile is not None:
        out.append(SeatDelta.profile_id == profile)
    return out


async def player_history(
    store: Store,
    name: str | None,
    rng: Range = Range(),
    *,
    profile: int | None = None,
    game: str | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """The settled hands of ``profile`` (its id), or of the seats named ``name`` (exactly)
    without a profile (see :func:`_whose`; at least one of the two, ``ValueError``
    otherwise), newest settled first (``seat_deltas.id`` descending), settled in ``rng``,
    of rooms of ``game`` (any when ``None``).
    Row: ``{"id" (the seat-delta id), "room", "game", "hand_no", "seat", "name" (the seat's
    name in that room), "profile" (the seat's profile id, ``None`` before profiles), "bot",
    "ended_at", "result", "delta", "adjust", "voided", "points" (what counts), "won"}``."""
    cur = decode_cursor("player", cursor)
    n = _limit(limit)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        snap = _snapshot(conn, cur, "sd", "c")
        q = (
            select(SeatDelta, Hand, Room.code, Room.game, Player.name, Player.is_bot)
            .join(Hand, Hand.id == SeatDelta.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .outerjoin(Player, Player.id == SeatDelta.player_id)
            .where(
                *_whose(name, profile),
                SeatDelta.id <= snap["sd"],
                *_in_range(store, Hand.ended_at, rng),
            )
        )
        if cur is not None:
            q = q.where(SeatDelta.id < int(cur.key[0]))
        if game is not None:
            q = q.where(Room.game == game)
        found = conn.execute(q.order_by(SeatDelta.id.desc()).limit(n + 1)).all()
        page = found[:n]
        eff = _effective(conn, [h.id for _, h, *_ in page], snap)
        wins = _wins(conn, [(h.id, sd.seat) for sd, h, *_ in page])
        rows = []
        for sd, h, code, room_game, seat_name, is_bot in page:
            e = eff.get(h.id)
            adjust = e["adjust"][sd.seat] if e and sd.seat < len(e["adjust"]) else 0
            voided = bool(e and e["voided"])
            rows.append(
                {
                    "id": sd.id,
                    "room": code,
                    "game": room_game,
                    "hand_no": h.hand_no,
                    "seat": sd.seat,
                    "name": seat_name,
                    "profile": sd.profile_id,
                    "bot": bool(is_bot),
                    "ended_at": _iso(h.ended_at),
                    "result": h.result,
                    "delta": sd.delta,
                    "adjust": adjust,
                    "voided": voided,
                    "points": 0 if voided else sd.delta + adjust,
                    "won": (h.id, sd.seat) in wins,
                }
            )
        nxt = encode_cursor("player", [page[-1][0].id], snap) if len(found) > n else None
        return rows, nxt

    return await _read(store, work)


def _wins(conn: Conn, pairs: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
    if not pairs:
        return set()
    ids = sorted({h for h, _ in pairs})
    got = conn.execute(
        select(LedgerEntry.hand_id, LedgerEntry.to_seat)
        .where(LedgerEntry.hand_id.in_(ids), LedgerEntry.reason == WIN_REASON)
        .distinct()
    ).all()
    return {(h, s) for h, s in got} & set(pairs)


async def player_totals(
    store: Store,
    name: str | None,
    rng: Range = Range(),
    *,
    profile: int | None = None,
    game: str | None = None,
) -> dict[str, Any]:
    """Totals of ``profile``'s seats, or of the seats named ``name`` without a profile (as
    :func:`player_history`), over hands settled in ``rng`` in rooms of ``game`` (any when
    ``None``), voided hands left out: ``{"player" (the profile's current display name, or
    ``name``), "profile" (the id, or ``None`` for a name's seats without profile), "hands",
    "wins", "points", "by_reason": {reason: net points}, "games": {game: {"hands",
    "points"}}}`` (``by_reason`` sums the ledger rows received minus paid, plus
    ``"adjustment"``; its values add up to ``points``; ``games`` splits ``hands`` and
    ``points`` by game: Guiyang's and Jintan's points are of different sizes, so ``points``
    over both is no total to read). Raises :class:`NotFound` for a profile id that does
    not exist."""

    def work(conn: Conn) -> dict[str, Any]:
        snap = {"sd": _BIG, "c": _BIG}
        display = name
        if profile is not None:
            display = conn.scalar(select(Profile.name).where(Profile.id == profile))
            if display is None:
                raise NotFound(f"unknown profile {profile}")
        mine = (
            select(SeatDelta.hand_id, SeatDelta.seat, SeatDelta.delta, Room.game)
            .join(Hand, Hand.id == SeatDelta.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .where(
                *_whose(name, profile),
                ~_voided(snap),
                *_in_range(store, Hand.ended_at, rng),
                *([Room.game == game] if game is not None else []),
            )
            .subquery("mine")
        )
        hands = int(conn.scalar(select(func.count()).select_from(mine)) or 0)
        wins = int(
            conn.scalar(
                select(func.count(func.distinct(mine.c.hand_id))).where(
                    exists().where(
                        LedgerEntry.hand_id == mine.c.hand_id,
                        LedgerEntry.to_seat == mine.c.seat,
                        LedgerEntry.reason == WIN_REASON,
                    )
                )
            )
            or 0
        )
        signed = case(
            (LedgerEntry.to_seat == mine.c.seat, LedgerEntry.points), else_=-LedgerEntry.points
        )
        by_reason = {
            reason: int(total or 0)
            for reason, total in conn.execute(
                select(LedgerEntry.reason, func.sum(signed))
                .join(mine, mine.c.hand_id == LedgerEntry.hand_id)
                .where(
                    or_(LedgerEntry.to_seat == mine.c.seat, LedgerEntry.from_seat == mine.c.seat)
                )
                .where(LedgerEntry.to_seat != LedgerEntry.from_seat)
                .group_by(LedgerEntry.reason)
            )
        }
        adj_signed = case(
            (Correction.to_seat == mine.c.seat, Correction.points), else_=-Correction.points
        )
        adjusted_by_game = {
            g: int(total or 0)
            for g, total in conn.execute(
                select(mine.c.game, func.sum(adj_signed))
                .join(mine, mine.c.hand_id == Correction.hand_id)
                .where(
                    Correction.kind == "adjust",
                    or_(Correction.to_seat == mine.c.seat, Correction.from_seat == mine.c.seat),
                )
                .group_by(mine.c.game)
            )
        }
        adjusted = sum(adjusted_by_game.values())
        if adjusted:
            by_reason[ADJUST_REASON] = by_reason.get(ADJUST_REASON, 0) + adjusted
        by_reason = {k: v for k, v in sorted(by_reason.items()) if v != 0}
        games = {
            g: {"hands": int(n), "points": int(total or 0) + adjusted_by_game.get(g, 0)}
            for g, n, total in conn.execute(
                select(mine.c.game, func.count(), func.sum(mine.c.delta))
                .group_by(mine.c.game)
                .order_by(mine.c.game)
            )
        }
        return {
            "player": display,
            "profile": profile,
            "hands": hands,
            "wins": wins,
            "points": sum(g["points"] for g in games.values()),
            "by_reason": by_reason,
            "games": games,
        }

    return await _read(store, work)


def _player_keys(profile_id: Any, name: Any, is_bot: Any) -> list[Any]:
    """SQL columns ``(pid, nk, bk)``: who a seat row counts for. A seat with a profile: the
    profile (``pid`` = its id, ``nk`` = ``''``, ``bk`` = 0), whatever the seat's name; a seat
    without one (taken before profiles existed, or a bot): its exact name (``pid`` = 0, ``nk``
    = the name, ``bk`` = 1 for a bot, else 0). Profile ids start at 1."""
    none = profile_id.is_(None)
    return [
        func.coalesce(profile_id, 0).label("pid"),
        case((none, name), else_="").label("nk"),
        case((and_(none, is_bot.is_(True)), 1), else_=0).label("bk"),
    ]


def _board_key(cur: _Cursor) -> tuple[int, int, str, int, int]:
    """A leaderboard cursor's ``(points, pid, nk, bk, rank)``; :class:`BadCursor` otherwise."""
    key = cur.key
    if (
        len(key) != 5
        or not all(_bigint(key[i]) for i in (0, 1, 3, 4))
        or not isinstance(key[2], str)
    ):
        raise BadCursor("not a cursor of this list (leaderboard)")
    return int(key[0]), int(key[1]), str(key[2]), int(key[3]), int(key[4])


async def leaderboard(
    store: Store,
    rng: Range = Range(),
    *,
    game: str | None = None,
    bots: bool = False,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """Players by points over hands settled in ``rng`` (voids and adjustments applied), most
    points first. A player is a **profile** (one row per profile id, whatever each seat was
    named: two profiles named "ann" are two rows), or, for seats without a profile (taken
    before profiles existed, and bots), the exact seat name (bots and humans of one name
    apart). Row: ``{"rank", "profile" (id, ``None`` for a name row), "player" (the profile's
    current display name, ``profiles.name``, or the seat name), "bot", "points", "hands",
    "wins"}``; ties by points are ordered name rows first (by name), then by profile id. The
    whole board is of the first page's snapshot (rows are keyed by ids, so a profile renamed
    between pages keeps its place; only a seat claimed by a profile between pages,
    :func:`server.store.profiles.claim_seat`, moves from its name's row to the profile's)."""
    cur = decode_cursor("leaderboard", cursor)
    after = _board_key(cur) if cur is not None else None
    n = _limit(limit)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        snap = _snapshot(conn, cur, "sd", "c")
        where = list(_in_range(store, Hand.ended_at, rng))
        if game is not None:
            where.append(Hand.room_id.in_(select(Room.id).where(Room.game == game)))
        pts = _points_rows(snap, *where, names=True)
        # the key per row in a subquery, grouped outside: PostgreSQL matches GROUP BY to the
        # select list by expression, and the literals of a CASE would be separate parameters
        keyed = select(
            pts.c.points, pts.c.is_hand, *_player_keys(pts.c.profile_id, pts.c.name, pts.c.is_bot)
        )
        if not bots:
            keyed = keyed.where(pts.c.is_bot.is_(False))
        k = keyed.subquery("keyed")
        board = (
            select(
                k.c.pid,
                k.c.nk,
                k.c.bk,
                func.sum(k.c.points).label("points"),
                func.sum(k.c.is_hand).label("hands"),
            )
            .group_by(k.c.pid, k.c.nk, k.c.bk)
            .subquery("board")
        )
        page_q = select(
            board.c.pid, board.c.nk, board.c.bk, board.c.points, board.c.hands, Profile.name
        ).outerjoin(Profile, Profile.id == board.c.pid)
        rank0 = 0
        if after is not None:
            k_points, k_pid, k_nk, k_bk, rank0 = after
            page_q = page_q.where(
                or_(
                    board.c.points < k_points,
                    and_(
                        board.c.points == k_points,
                        or_(
                            board.c.pid > k_pid,
                            and_(
                                board.c.pid == k_pid,
                                or_(
                                    board.c.nk > k_nk,
                                    and_(board.c.nk == k_nk, board.c.bk > k_bk),
                                ),
                            ),
                        ),
                    ),
                )
            )
        found = conn.execute(
            page_q.order_by(board.c.points.desc(), board.c.pid, board.c.nk, board.c.bk).limit(n + 1)
        ).all()
        page = found[:n]
        keys = [(int(pid), nk, int(bk)) for pid, nk, bk, *_ in page]
        wins = _win_counts(store, conn, keys, rng, snap, game)
        rows = [
            {
                "rank": rank0 + i + 1,
                "profile": int(pid) or None,
                "player": display if pid else nk,
                "bot": bool(bk),
                "points": int(points or 0),
                "hands": int(hands or 0),
                "wins": wins.get((int(pid), nk, int(bk)), 0),
            }
            for i, (pid, nk, bk, points, hands, display) in enumerate(page)
        ]
        nxt = None
        if len(found) > n:
            pid, nk, bk = keys[-1]
            last = rows[-1]
            nxt = encode_cursor("leaderboard", [last["points"], pid, nk, bk, last["rank"]], snap)
        return rows, nxt

    return await _read(store, work)


def _win_counts(
    store: Store,
    conn: Conn,
    keys: Sequence[tuple[int, str, int]],
    rng: Range,
    snap: dict[str, int],
    game: str | None,
) -> dict[tuple[int, str, int], int]:
    """Hands won (a ``hu`` payment received) by each leaderboard key ``(pid, nk, bk)``."""
    if not keys:
        return {}
    pids = sorted({pid for pid, _, _ in keys if pid})
    names = sorted({nk for pid, nk, _ in keys if not pid})
    whose: list[Any] = []
    if pids:
        whose.append(Player.profile_id.in_(pids))
    if names:
        whose.append(and_(Player.profile_id.is_(None), Player.name.in_(names)))
    q = (
        select(LedgerEntry.hand_id, *_player_keys(Player.profile_id, Player.name, Player.is_bot))
        .select_from(LedgerEntry)
        .join(Hand, Hand.id == LedgerEntry.hand_id)
        .join(Player, (Player.room_id == Hand.room_id) & (Player.seat == LedgerEntry.to_seat))
        .where(
            or_(*whose),
            LedgerEntry.reason == WIN_REASON,
            ~_voided(snap),
            exists().where(SeatDelta.hand_id == Hand.id, SeatDelta.id <= snap["sd"]),
            *_in_range(store, Hand.ended_at, rng),
        )
    )
    if game is not None:
        q = q.join(Room, Room.id == Hand.room_id).where(Room.game == game)
    won = q.subquery("won")
    counted = select(won.c.pid, won.c.nk, won.c.bk, func.count(func.distinct(won.c.hand_id)))
    return {
        (int(pid), nk, int(bk)): int(c)
        for pid, nk, bk, c in conn.execute(counted.group_by(won.c.pid, won.c.nk, won.c.bk))
    }


# ------------------------------------------------------------------------------- ledger


async def payments(
    store: Store,
    rng: Range = Range(),
    *,
    room: str | None = None,
    player: str | None = None,
    profile: int | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """Ledger rows newest first (``id`` descending), created in ``rng``, of ``room``, paid or
    received by a seat named ``player`` / a seat of ``profile`` (its id). Row: ``{"id",
    "room", "hand_no", "from", "to", "from_name", "to_name", "points", "reason", "detail",
    "created_at", "voided"}``."""
    cur = decode_cursor("ledger", cursor)
    n = _limit(limit)
    payer, payee = aliased(Player), aliased(Player)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        snap = _snapshot(conn, cur, "le", "c")
        q = (
            select(LedgerEntry, Room.code, Hand.hand_no, payer.name, payee.name, _voided(snap))
            .join(Hand, Hand.id == LedgerEntry.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .outerjoin(payer, (payer.room_id == Room.id) & (payer.seat == LedgerEntry.from_seat))
            .outerjoin(payee, (payee.room_id == Room.id) & (payee.seat == LedgerEntry.to_seat))
            .where(LedgerEntry.id <= snap["le"], *_in_range(store, LedgerEntry.created_at, rng))
        )
        if cur is not None:
            q = q.where(LedgerEntry.id < int(cur.key[0]))
        if room is not None:
            q = q.where(Room.code == room)
        if player is not None:
            # the rooms the name sits in first (ix_players_name), then their hands' rows
            rooms_of = select(Player.room_id).where(Player.name == player)
            q = q.where(Hand.room_id.in_(rooms_of), or_(payer.name == player, payee.name == player))
        if profile is not None:
            rooms_of = select(Player.room_id).where(Player.profile_id == profile)
            q = q.where(
                Hand.room_id.in_(rooms_of),
                or_(payer.profile_id == profile, payee.profile_id == profile),
            )
        found = conn.execute(q.order_by(LedgerEntry.id.desc()).limit(n + 1)).all()
        page = found[:n]
        rows = [
            {
                "id": e.id,
                "room": code,
                "hand_no": hand_no,
                "from": e.from_seat,
                "to": e.to_seat,
                "from_name": from_name,
                "to_name": to_name,
                "points": e.points,
                "reason": e.reason,
                "detail": e.detail,
                "created_at": _iso(e.created_at),
                "voided": bool(voided),
            }
            for e, code, hand_no, from_name, to_name, voided in page
        ]
        nxt = encode_cursor("ledger", [page[-1][0].id], snap) if len(found) > n else None
        return rows, nxt

    return await _read(store, work)


# ------------------------------------------------------------------------------- corrections


def _correction_rows(conn: Conn, q: Select[Any]) -> list[dict[str, Any]]:
    out = []
    for c in conn.execute(q).scalars():
        out.append(
            {
                "id": c.id,
                "kind": c.kind,
                "from": c.from_seat,
                "to": c.to_seat,
                "points": c.points,
                "reason": c.reason,
                "actor": c.actor,
                "created_at": _iso(c.created_at),
            }
        )
    return out


async def corrections(
    store: Store,
    rng: Range = Range(),
    *,
    room: str | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """The corrections (who did what, when), newest first, made in ``rng``, of ``room``.
    Row: ``{"id", "room", "hand_no", "kind", "from", "to", "points", "reason", "actor",
    "created_at"}``."""
    cur = decode_cursor("corrections", cursor)
    n = _limit(limit)

    def work(conn: Conn) -> tuple[list[dict[str, Any]], str | None]:
        q = (
            select(Correction, Room.code, Hand.hand_no)
            .join(Hand, Hand.id == Correction.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .where(*_in_range(store, Correction.created_at, rng))
        )
        if cur is not None:
            q = q.where(Correction.id < int(cur.key[0]))
        if room is not None:
            q = q.where(Room.code == room)
        found = conn.execute(q.order_by(Correction.id.desc()).limit(n + 1)).all()
        page = found[:n]
        rows = [
            {
                "id": c.id,
                "room": code,
                "hand_no": hand_no,
                "kind": c.kind,
                "from": c.from_seat,
                "to": c.to_seat,
                "points": c.points,
                "reason": c.reason,
                "actor": c.actor,
                "created_at": _iso(c.created_at),
            }
            for c, code, hand_no in page
        ]
        nxt = encode_cursor("corrections", [page[-1][0].id], {}) if len(found) > n else None
        return rows, nxt

    return await _read(store, work)


async def correct(
    store: Store,
    code: str,
    hand_no: int,
    *,
    kind: str,
    reason: str,
    actor: str,
    from_seat: int | None = None,
    to_seat: int | None = None,
    points: int | None = None,
) -> dict[str, Any]:
    """Record a correction of a settled hand, in one transaction; returns its row (as
    :func:`corrections` gives it).

    ``kind="void"``: the hand stops counting. ``kind="adjust"``: ``points`` (int > 0) from
    ``from_seat`` to ``to_seat`` (two different seats of the hand). ``reason`` and ``actor``:
    non-empty strings (at most 500 / 64 characters).

    Raises:
        NotFound: unknown room or hand.
        ValueError: an unsettled hand, a bad kind, seats or points, an empty reason.
        Conflict: a hand already voided (voided again, or adjusted).
    """
    reason, actor = (reason or "").strip(), (actor or "").strip()
    if kind not in ("void", "adjust"):
        raise ValueError(f"kind must be 'void' or 'adjust', not {kind!r}")
    if not reason or len(reason) > 500:
        raise ValueError("a correction needs a reason (1..500 characters)")
    if not actor or len(actor) > 64:
        raise ValueError("a correction needs an actor (1..64 characters)")
    if kind == "adjust":
        for what, v in (("from", from_seat), ("to", to_seat), ("points", points)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"an adjustment needs an integer {what!r}")
        assert points is not None
        if points <= 0:
            raise ValueError("an adjustment's points must be > 0")
        if from_seat == to_seat:
            raise ValueError("an adjustment moves points between two different seats")
    else:
        from_seat = to_seat = points = None

    def work(conn: Conn) -> dict[str, Any]:
        room = _room(conn, code)
        # The hand's row locked (PostgreSQL; SQLite's writes are one at a time anyway): two
        # admins correcting one hand at once are taken in turn, so it is voided once.
        hand = conn.execute(
            select(Hand.id)
            .where(Hand.room_id == room.id, Hand.hand_no == hand_no)
            .with_for_update()
        ).scalar_one_or_none()
        if hand is None:
            raise NotFound(f"unknown hand {hand_no} of room {code!r}")
        seats = conn.scalar(select(func.count()).where(SeatDelta.hand_id == hand))
        if not seats:
            raise ValueError(f"hand {hand_no} of room {code!r} is not settled")
        if kind == "adjust" and not all(0 <= s < seats for s in (from_seat, to_seat)):  # type: ignore[operator]
            raise ValueError(f"seats must be in 0..{seats - 1}")
        if conn.scalar(
            select(Correction.id).where(Correction.hand_id == hand, Correction.kind == "void")
        ):
            # (an adjustment of a voided hand would count for nothing)
            raise Conflict(f"hand {hand_no} of room {code!r} is already voided")
        now = utcnow()
        cid = conn.execute(
            insert(Correction)
            .values(
                hand_id=hand,
                kind=kind,
                from_seat=from_seat,
                to_seat=to_seat,
                points=points,
                reason=reason,
                actor=actor,
                created_at=now,
            )
            .returning(Correction.id)
        ).scalar_one()
        return {
            "id": cid,
            "room": code,
            "hand_no": hand_no,
            "kind": kind,
            "from": from_seat,
            "to": to_seat,
            "points": points,
            "reason": reason,
            "actor": actor,
            "created_at": now.isoformat(),
        }

    return await store._write(work)


async def correction_problems(store: Store) -> list[str]:
    """For the audit: corrections that name an unsettled hand, seats outside the hand,
    non-positive points, a second void of a hand, or lack a reason or actor."""

    def work(conn: Conn) -> list[str]:
        problems = []
        widths = dict(
            conn.execute(select(SeatDelta.hand_id, func.count()).group_by(SeatDelta.hand_id)).all()
        )
        voids: set[int] = set()
        for c, code, hand_no in conn.execute(
            select(Correction, Room.code, Hand.hand_no)
            .join(Hand, Hand.id == Correction.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .order_by(Correction.id)
        ).all():
            where = f"room {code} hand {hand_no} correction {c.id}"
            width = widths.get(c.hand_id, 0)
            if not width:
                problems.append(f"{where}: corrects an unsettled hand")
            if not (c.reason or "").strip() or not (c.actor or "").strip():
                problems.append(f"{where}: no reason or actor")
            if c.kind == "void":
                if c.hand_id in voids:
                    problems.append(f"{where}: the hand is voided twice")
                voids.add(c.hand_id)
                if c.points is not None or c.from_seat is not None or c.to_seat is not None:
                    problems.append(f"{where}: a void with points or seats")
            elif c.kind == "adjust":
                if c.points is None or c.points <= 0:
                    problems.append(f"{where}: adjustment points {c.points} not > 0")
                seats = (c.from_seat, c.to_seat)
                if any(s is None or not 0 <= s < width for s in seats) or c.from_seat == c.to_seat:
                    problems.append(f"{where}: adjustment seats {seats} not two seats of the hand")
            else:
                problems.append(f"{where}: unknown kind {c.kind!r}")
        return problems

    return await _read(store, work)


__all__ = [
    "ADJUST_REASON",
    "BadCursor",
    "Range",
    "WIN_REASON",
    "correct",
    "correction_problems",
    "corrections",
    "hand_detail",
    "leaderboard",
    "payments",
    "player_history",
    "player_totals",
    "room_hands",
    "rooms",
]
