"""The durable store: rooms, seats, hands, the action log and the ledger.

All methods are coroutines over one SQLAlchemy ``AsyncEngine``; every method is its own
transaction. Errors:

* :class:`NotFound` (a ``LookupError``): unknown room code or hand number.
* :class:`Conflict` (a ``ValueError``): a unique key is taken (room code, seat, hand number,
  action index).
* ``ValueError``: a settlement that does not sum to zero or whose payments do not net to the
  seat deltas.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event, func, or_, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import aliased

from server.store.models import Action, Hand, LedgerEntry, Player, Room, SeatDelta, utcnow


class NotFound(LookupError):
    """An unknown room code or hand number."""


class Conflict(ValueError):
    """A unique key is already taken (room code, seat, hand number, action index)."""


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """One occupied seat of a room."""

    seat: int
    name: str
    token_hash: str
    is_bot: bool


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """A room and its occupied seats (``players`` sorted by seat)."""

    code: str
    game: str
    options: dict[str, Any]
    status: str
    players: list[PlayerRecord] = field(default_factory=list)
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand of a room. ``result``/``settlement``/``ended_at`` are ``None`` and ``deltas``
    is empty until the hand is settled; ``deltas[i]`` is seat ``i``'s points for the hand."""

    code: str
    hand_no: int
    seed: str
    dealer: int
    dealer_streak: int
    started_at: datetime
    ended_at: datetime | None
    result: str | None
    settlement: dict[str, Any] | None
    deltas: list[int]


def _aware(ts: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    if ts is not None and ts.tzinfo is None:
        return ts.replace(tzinfo=UTC)
    return ts


def _migrations_dir() -> Path:
    """Find ``migrations/``: next to the package (a checkout / editable install), else in
    the working directory (``pip install .`` run from the checkout, as in the Dockerfile)."""
    candidates = [Path(__file__).resolve().parents[2] / "migrations", Path.cwd() / "migrations"]
    for candidate in candidates:
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError(
        "migrations/ not found (looked in " + ", ".join(str(c) for c in candidates) + ")"
    )


def _check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an int, got {value!r}")
    return value


class Store:
    """Async access to the database at ``url`` (``sqlite+aiosqlite://`` or
    ``postgresql+asyncpg://``). Create once per process; ``await close()`` at shutdown.

    The schema is made only by :meth:`migrate` (Alembic ``upgrade head``).
    """

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"echo": echo}
        if not url.startswith("sqlite"):
            kwargs["pool_pre_ping"] = True
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_on_connect)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._room_ids: dict[str, int] = {}
        self._hand_ids: dict[tuple[str, int], int] = {}

    async def close(self) -> None:
        """Close every pooled connection. The store is unusable afterwards."""
        await self.engine.dispose()

    async def migrate(self) -> None:
        """Bring the schema up to date (Alembic ``upgrade head``); safe to call repeatedly."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(_migrations_dir()))
        cfg.attributes["configure_logger"] = False

        def upgrade(connection: Connection) -> None:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "head")

        async with self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":
                # Several processes may start at once: one migrates, the others wait here
                # (the lock ends with the transaction) and then find the schema current.
                await conn.execute(text("SELECT pg_advisory_xact_lock(7461303931)"))
            await conn.run_sync(upgrade)

    # ------------------------------------------------------------------ helpers

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session, session.begin():
            yield session

    async def _room_id(self, session: AsyncSession, code: str) -> int:
        room_id = self._room_ids.get(code)
        if room_id is None:
            room_id = await session.scalar(select(Room.id).where(Room.code == code))
            if room_id is None:
                raise NotFound(f"unknown room {code!r}")
            self._room_ids[code] = room_id
        return room_id

    async def _hand_id(self, session: AsyncSession, code: str, hand_no: int) -> int:
        hand_id = self._hand_ids.get((code, hand_no))
        if hand_id is None:
            hand_id = await session.scalar(
                select(Hand.id)
                .join(Room, Room.id == Hand.room_id)
                .where(Room.code == code, Hand.hand_no == hand_no)
            )
            if hand_id is None:
                raise NotFound(f"unknown hand {hand_no} of room {code!r}")
            self._hand_ids[(code, hand_no)] = hand_id
        return hand_id

    # ------------------------------------------------------------------ rooms and seats

    async def create_room(self, code: str, game: str, options: dict[str, Any]) -> None:
        """Create room ``code`` with status ``"open"``. Raises :class:`Conflict` if the code
        is taken."""
        try:
            async with self._tx() as s:
                s.add(Room(code=code, game=game, options=options, status="open"))
        except IntegrityError as exc:
            raise Conflict(f"room code {code!r} is taken") from exc

    async def add_player(
        self, code: str, seat: int, name: str, token_hash: str, is_bot: bool
    ) -> None:
        """Put a player in ``seat`` of room ``code``. Raises :class:`NotFound` for an unknown
        room, :class:`Conflict` if the seat is taken."""
        try:
            async with self._tx() as s:
                room_id = await self._room_id(s, code)
                s.add(
                    Player(
                        room_id=room_id,
                        seat=seat,
                        name=name,
                        token_hash=token_hash,
                        is_bot=is_bot,
                    )
                )
        except IntegrityError as exc:
            raise Conflict(f"seat {seat} of room {code!r} is taken") from exc

    async def get_room(self, code: str) -> RoomRecord | None:
        """The room with its players sorted by seat, or ``None`` if there is no such room."""
        async with self._sessions() as s:
            room = await s.scalar(select(Room).where(Room.code == code))
            if room is None:
                return None
            players = (
                await s.scalars(
                    select(Player).where(Player.room_id == room.id).order_by(Player.seat)
                )
            ).all()
        return RoomRecord(
            code=room.code,
            game=room.game,
            options=dict(room.options),
            status=room.status,
            players=[PlayerRecord(p.seat, p.name, p.token_hash, p.is_bot) for p in players],
            created_at=_aware(room.created_at),
        )

    async def rooms(self, status: str | None = None) -> list[RoomRecord]:
        """Every room (optionally only those with ``status``), oldest first."""
        async with self._sessions() as s:
            query = select(Room.code).order_by(Room.id)
            if status is not None:
                query = query.where(Room.status == status)
            codes = list((await s.scalars(query)).all())
        out = []
        for code in codes:
            record = await self.get_room(code)
            if record is not None:
                out.append(record)
        return out

    async def set_room_status(self, code: str, status: str) -> None:
        """Set the room's status (e.g. ``"open"``, ``"playing"``, ``"closed"``). Raises
        :class:`NotFound` for an unknown room."""
        async with self._tx() as s:
            done = await s.execute(update(Room).where(Room.code == code).values(status=status))
            if done.rowcount != 1:  # type: ignore[attr-defined]
                raise NotFound(f"unknown room {code!r}")

    async def fence(self, code: str) -> int:
        """Start a new lease generation of room ``code`` and return it (1, 2, ...): every
        action logged later with an older ``payload["lease"]`` is refused (:class:`Conflict`),
        by a trigger (migration 0003). Waits for older-generation appends in flight, so what
        the new owner then reads includes them. Raises :class:`NotFound` for an unknown room."""
        async with self._tx() as s:
            gen = await s.scalar(
                update(Room)
                .where(Room.code == code)
                .values(lease_gen=Room.lease_gen + 1)
                .returning(Room.lease_gen)
            )
        if gen is None:
            raise NotFound(f"unknown room {code!r}")
        return int(gen)

    # ------------------------------------------------------------------ hands and the log

    async def start_hand(
        self, code: str, hand_no: int, seed: str, dealer: int, dealer_streak: int
    ) -> None:
        """Record the start of hand ``hand_no`` (numbers are per room). Raises
        :class:`NotFound` for an unknown room, :class:`Conflict` if that hand exists."""
        try:
            async with self._tx() as s:
                room_id = await self._room_id(s, code)
                hand = Hand(
                    room_id=room_id,
                    hand_no=hand_no,
                    seed=seed,
                    dealer=dealer,
                    dealer_streak=dealer_streak,
                )
                s.add(hand)
                await s.flush()
                hand_id = hand.id
        except IntegrityError as exc:
            raise Conflict(f"hand {hand_no} of room {code!r} exists") from exc
        self._hand_ids[(code, hand_no)] = hand_id

    async def append_action(
        self, code: str, hand_no: int, idx: int, seat: int, payload: dict[str, Any]
    ) -> None:
        """Append action number ``idx`` (0, 1, 2, ... per hand) by ``seat`` to the hand's log.
        Raises :class:`Conflict` if ``idx`` is already logged, :class:`NotFound` for an unknown
        room/hand."""
        try:
            async with self._tx() as s:
                hand_id = await self._hand_id(s, code, hand_no)
                s.add(Action(hand_id=hand_id, idx=idx, seat=seat, payload=payload))
        except IntegrityError as exc:
            raise Conflict(f"action {idx} of hand {hand_no} in room {code!r} exists") from exc

    async def hand_actions(self, code: str, hand_no: int) -> list[tuple[int, dict[str, Any]]]:
        """The hand's action log as ``[(seat, payload), ...]`` in ``idx`` order. Raises
        :class:`NotFound` for an unknown room/hand."""
        async with self._sessions() as s:
            hand_id = await self._hand_id(s, code, hand_no)
            rows = await s.execute(
                select(Action.seat, Action.payload)
                .where(Action.hand_id == hand_id)
                .order_by(Action.idx)
            )
            return [(seat, payload) for seat, payload in rows.all()]

    async def hands(self, code: str) -> list[HandRecord]:
        """Every hand of the room in ``hand_no`` order (empty for an unknown room)."""
        async with self._sessions() as s:
            rows = (
                (
                    await s.execute(
                        select(Hand)
                        .join(Room, Room.id == Hand.room_id)
                        .where(Room.code == code)
                        .order_by(Hand.hand_no)
                    )
                )
                .scalars()
                .all()
            )
            return await self._hand_records(s, [(code, h) for h in rows])

    async def all_hands(self) -> list[HandRecord]:
        """Every hand of every room, ordered by room (oldest first) then ``hand_no``."""
        async with self._sessions() as s:
            rows = (
                await s.execute(
                    select(Room.code, Hand)
                    .join(Room, Room.id == Hand.room_id)
                    .order_by(Room.id, Hand.hand_no)
                )
            ).all()
            return await self._hand_records(s, [(code, h) for code, h in rows])

    async def _hand_records(
        self, s: AsyncSession, hands: Sequence[tuple[str, Hand]]
    ) -> list[HandRecord]:
        ids = [h.id for _, h in hands]
        deltas: dict[int, list[tuple[int, int]]] = {}
        for chunk_start in range(0, len(ids), 500):
            chunk = ids[chunk_start : chunk_start + 500]
            rows = await s.execute(
                select(SeatDelta.hand_id, SeatDelta.seat, SeatDelta.delta)
                .where(SeatDelta.hand_id.in_(chunk))
                .order_by(SeatDelta.hand_id, SeatDelta.seat)
            )
            for hand_id, seat, delta in rows.all():
                deltas.setdefault(hand_id, []).append((seat, delta))
        return [
            HandRecord(
                code=code,
                hand_no=h.hand_no,
                seed=h.seed,
                dealer=h.dealer,
                dealer_streak=h.dealer_streak,
                started_at=_aware(h.started_at) or h.started_at,
                ended_at=_aware(h.ended_at),
                result=h.result,
                settlement=h.settlement,
                deltas=[d for _, d in deltas.get(h.id, [])],
            )
            for code, h in hands
        ]

    # ------------------------------------------------------------------ settlement

    async def settle_hand(
        self,
        code: str,
        hand_no: int,
        result: str,
        settlement: dict[str, Any],
        payments: list[dict[str, Any]],
        deltas: list[int],
    ) -> bool:
        """Settle a hand, once, in one transaction.

        Sets the hand's ``ended_at``/``result``/``settlement``, writes one ``ledger_entries``
        row per payment (``{"from": seat, "to": seat, "points": int > 0, "reason": str,
        "detail": dict | None}``) and one ``seat_deltas`` row per seat (``deltas[i]`` for
        seat ``i``).

        Returns ``True`` if this call settled the hand, ``False`` (writing nothing) if the
        hand was already settled, by this process or any other.

        Raises:
            ValueError: ``deltas`` do not sum to zero, a value is not an int, or the payments
                do not net to ``deltas``.
            NotFound: unknown room or hand.
        """
        deltas = [_check_int(d, "delta") for d in deltas]
        if sum(deltas) != 0:
            raise ValueError(f"deltas {deltas} do not sum to zero")
        net = [0] * len(deltas)
        for p in payments:
            frm, to = _check_int(p["from"], "from"), _check_int(p["to"], "to")
            points = _check_int(p["points"], "points")
            if not (0 <= frm < len(deltas) and 0 <= to < len(deltas)):
                raise ValueError(f"payment {p} names a seat outside 0..{len(deltas) - 1}")
            net[frm] -= points
            net[to] += points
        if net != deltas:
            raise ValueError(f"payments net to {net}, not to deltas {deltas}")

        now = utcnow()
        try:
            async with self._tx() as s:
                hand_id = await self._hand_id(s, code, hand_no)
                # The conditional UPDATE is the guard (it takes the row lock first on
                # PostgreSQL, the write lock on SQLite); uq_seat_deltas_hand_seat is the last.
                done = await s.execute(
                    update(Hand)
                    .where(Hand.id == hand_id, Hand.ended_at.is_(None))
                    .values(ended_at=now, result=result, settlement=settlement)
                )
                if done.rowcount != 1:  # type: ignore[attr-defined]
                    return False  # already settled: nothing was changed
                room_id = await self._room_id(s, code)
                player_ids = dict(
                    (
                        await s.execute(
                            select(Player.seat, Player.id).where(Player.room_id == room_id)
                        )
                    ).all()
                )
                s.add_all(
                    LedgerEntry(
                        hand_id=hand_id,
                        from_seat=p["from"],
                        to_seat=p["to"],
                        points=p["points"],
                        reason=str(p.get("reason", "")),
                        detail=p.get("detail"),
                        created_at=now,
                    )
                    for p in payments
                )
                s.add_all(
                    SeatDelta(hand_id=hand_id, seat=seat, player_id=player_ids.get(seat), delta=d)
                    for seat, d in enumerate(deltas)
                )
                await s.flush()
        except IntegrityError:
            return False
        return True

    async def totals(self, code: str) -> list[int]:
        """Each seat's running total over the room's settled hands: ``totals[i]`` for seat
        ``i``. The list is as long as the room's seat count (``options["players"]`` if set,
        else the highest seat seen + 1). Raises :class:`NotFound` for an unknown room."""
        async with self._sessions() as s:
            room = await s.scalar(select(Room).where(Room.code == code))
            if room is None:
                raise NotFound(f"unknown room {code!r}")
            sums = dict(
                (
                    await s.execute(
                        select(SeatDelta.seat, func.sum(SeatDelta.delta))
                        .join(Hand, Hand.id == SeatDelta.hand_id)
                        .where(Hand.room_id == room.id)
                        .group_by(SeatDelta.seat)
                    )
                ).all()
            )
            max_seat = await s.scalar(
                select(func.max(Player.seat)).where(Player.room_id == room.id)
            )
        n = room.options.get("players") if isinstance(room.options, dict) else None
        if not isinstance(n, int) or isinstance(n, bool):
            n = 0
        n = max(n, (max_seat + 1) if max_seat is not None else 0, max(sums, default=-1) + 1)
        return [int(sums.get(seat) or 0) for seat in range(n)]

    async def ledger(
        self,
        code: str | None = None,
        player: str | None = None,
        since: datetime | None = None,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """Ledger rows, newest first, at most ``limit``, optionally filtered by room code,
        by player name (as payer or payee) and by time (``created_at >= since``; a naive
        ``since`` is taken as UTC).

        Each row: ``{"id", "room", "hand_no", "from", "to", "from_name", "to_name", "points",
        "reason", "detail", "created_at"}`` (``created_at`` an ISO-8601 string, names ``None``
        for an empty seat).
        """
        payer, payee = aliased(Player), aliased(Player)
        query = (
            select(
                LedgerEntry,
                Room.code,
                Hand.hand_no,
                payer.name,
                payee.name,
            )
            .join(Hand, Hand.id == LedgerEntry.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .outerjoin(payer, (payer.room_id == Room.id) & (payer.seat == LedgerEntry.from_seat))
            .outerjoin(payee, (payee.room_id == Room.id) & (payee.seat == LedgerEntry.to_seat))
            .order_by(LedgerEntry.id.desc())
            .limit(max(0, int(limit)))
        )
        if code is not None:
            query = query.where(Room.code == code)
        if player is not None:
            query = query.where(or_(payer.name == player, payee.name == player))
        if since is not None:
            since_utc = since.replace(tzinfo=UTC) if since.tzinfo is None else since
            since_utc = since_utc.astimezone(UTC)
            if self.engine.dialect.name == "sqlite":
                since_utc = since_utc.replace(tzinfo=None)
            query = query.where(LedgerEntry.created_at >= since_utc)
        async with self._sessions() as s:
            rows = (await s.execute(query)).all()
        out = []
        for entry, room_code, hand_no, from_name, to_name in rows:
            created = _aware(entry.created_at)
            out.append(
                {
                    "id": entry.id,
                    "room": room_code,
                    "hand_no": hand_no,
                    "from": entry.from_seat,
                    "to": entry.to_seat,
                    "from_name": from_name,
                    "to_name": to_name,
                    "points": entry.points,
                    "reason": entry.reason,
                    "detail": entry.detail,
                    "created_at": created.isoformat() if created else None,
                }
            )
        return out

    async def ledger_by_hand(self, code: str, hand_no: int) -> list[dict[str, Any]]:
        """The payments of one hand in insertion order, as ``{"from", "to", "points",
        "reason", "detail"}``. Raises :class:`NotFound` for an unknown room/hand."""
        async with self._sessions() as s:
            hand_id = await self._hand_id(s, code, hand_no)
            rows = (
                await s.scalars(
                    select(LedgerEntry)
                    .where(LedgerEntry.hand_id == hand_id)
                    .order_by(LedgerEntry.id)
                )
            ).all()
        return [
            {
                "from": r.from_seat,
                "to": r.to_seat,
                "points": r.points,
                "reason": r.reason,
                "detail": r.detail,
            }
            for r in rows
        ]


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=10000")
    finally:
        cursor.close()


__all__ = [
    "Conflict",
    "HandRecord",
    "NotFound",
    "PlayerRecord",
    "RoomRecord",
    "Store",
]
