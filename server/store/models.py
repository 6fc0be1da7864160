"""SQLAlchemy 2 ORM models. The schema itself is created only by Alembic (``migrations/``).

Tables: ``profiles`` (a player's identity across rooms: a display name and the sha256 of the
secret its browser keeps, migration 0006), ``rooms``, ``players`` (one row per seat of a room;
a human seat names its ``profile_id``, a bot has none and ``is_bot``), ``hands``, ``actions``
(the per-hand action log),
``ledger_entries`` (one row per payment), ``seat_deltas`` (one row per seat per settled hand)
and ``corrections`` (an admin's void of a hand or adjustment between its seats; the rows it
corrects stay as they were).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: JSON column type: JSONB on PostgreSQL, JSON (text) elsewhere.
JSONType = JSON().with_variant(JSONB(), "postgresql")
#: 64-bit ids on PostgreSQL; SQLite needs plain INTEGER for its rowid autoincrement.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base for every table of the store."""


class Profile(Base):
    """A player's identity (issue 14): ``id`` never repeats, ``name`` may (changeable);
    ``secret_hash`` is the sha256 hex digest of the secret (the "player code") only the
    player's browser holds. Seats created before migration 0006 have no profile."""

    __tablename__ = "profiles"
    __table_args__ = (UniqueConstraint("secret_hash", name="uq_profiles_secret_hash"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Room(Base):
    __tablename__ = "rooms"
    __table_args__ = (
        UniqueConstraint("code", name="uq_rooms_code"),
        Index("ix_rooms_status", "status"),
        Index("ix_rooms_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(32))
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: The room's current lease generation (fencing token; ``Store.fence``, migration 0004).
    lease_gen: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    #: 再来一场: the room this session's players went on in (``Store.set_next_room``, 0009).
    next_code: Mapped[str | None] = mapped_column(String(32), nullable=True)


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("room_id", "seat", name="uq_players_room_seat"),
        # one seat per profile and room (migration 0008; NULLs, bots' seats, never clash)
        Index("uq_players_room_profile", "room_id", "profile_id", unique=True),
        Index("ix_players_name", "name"),
        Index("ix_players_profile_id_id", "profile_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(128))
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: The seated player's profile (migration 0006); ``None`` for a bot and for a seat taken
    #: before profiles existed (until the seat's token claims it, ``claim_seat``).
    profile_id: Mapped[int | None] = mapped_column(
        ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True
    )


class Hand(Base):
    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("room_id", "hand_no", name="uq_hands_room_hand_no"),
        Index("ix_hands_started_at", "started_at"),
        Index("ix_hands_ended_at", "ended_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    hand_no: Mapped[int] = mapped_column(Integer)
    seed: Mapped[str] = mapped_column(String(128))
    dealer: Mapped[int] = mapped_column(Integer)
    dealer_streak: Mapped[int] = mapped_column(Integer)
    #: 1 = Monday .. 7 = Sunday at the deal, in the room's time zone (星期鸡, guiyang.md §9.6).
    weekday: Mapped[int | None] = mapped_column(Integer, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    result: Mapped[str | None] = mapped_column(String(32), nullable=True)
    settlement: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    #: The key of the hand's replay link (32 hex digits, set at creation; migration 0007).
    replay_key: Mapped[str | None] = mapped_column(String(32), nullable=True)


class Action(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("hand_id", "idx", name="uq_actions_hand_idx"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"))
    idx: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LedgerEntry(Base):
    __tablename__ = "ledger_entries"
    __table_args__ = (
        Index("ix_ledger_entries_hand_id", "hand_id"),
        Index("ix_ledger_entries_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"))
    from_seat: Mapped[int] = mapped_column(Integer)
    to_seat: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SeatDelta(Base):
    __tablename__ = "seat_deltas"
    __table_args__ = (
        UniqueConstraint("hand_id", "seat", name="uq_seat_deltas_hand_seat"),
        Index("ix_seat_deltas_player_id", "player_id"),
        Index("ix_seat_deltas_player_id_id", "player_id", "id"),
        Index("ix_seat_deltas_profile_id_id", "profile_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    #: The seat row (``players.id``) of ``seat`` in the hand's room.
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), nullable=True
    )
    delta: Mapped[int] = mapped_column(Integer)
    #: That seat's profile when the hand was settled (migration 0006; ``None``: a bot, or a
    #: seat without a profile).
    profile_id: Mapped[int | None] = mapped_column(
        ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True
    )


class Correction(Base):
    """An admin's correction of a settled hand, an event: ``kind`` ``"void"`` (the hand counts
    for nothing in totals and standings) or ``"adjust"`` (``points`` > 0 from ``from_seat`` to
    ``to_seat``, counted with the hand). ``actor``: who did it (an admin name or the token's
    id); ``reason``: why."""

    __tablename__ = "corrections"
    __table_args__ = (Index("ix_corrections_hand_id", "hand_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    from_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    to_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    points: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str] = mapped_column(String(500))
    actor: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
