"""Initial schema: rooms, players, hands, actions, ledger_entries, seat_deltas.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", JSONType, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("code", name="uq_rooms_code"),
    )
    op.create_table(
        "players",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("room_id", BigId, sa.ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(128), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("room_id", "seat", name="uq_players_room_seat"),
    )
    op.create_index("ix_players_name", "players", ["name"])
    op.create_table(
        "hands",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("room_id", BigId, sa.ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("dealer_streak", sa.Integer(), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("ended_at", TS, nullable=True),
        sa.Column("result", sa.String(32), nullable=True),
        sa.Column("settlement", JSONType, nullable=True),
        sa.UniqueConstraint("room_id", "hand_no", name="uq_hands_room_hand_no"),
    )
    op.create_table(
        "actions",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("hand_id", BigId, sa.ForeignKey("hands.id", ondelete="CASCADE"), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("payload", JSONType, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("hand_id", "idx", name="uq_actions_hand_idx"),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("hand_id", BigId, sa.ForeignKey("hands.id", ondelete="CASCADE"), nullable=False),
        sa.Column("from_seat", sa.Integer(), nullable=False),
        sa.Column("to_seat", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("detail", JSONType, nullable=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_ledger_entries_hand_id", "ledger_entries", ["hand_id"])
    op.create_table(
        "seat_deltas",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("hand_id", BigId, sa.ForeignKey("hands.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column(
            "player_id",
            BigId,
            sa.ForeignKey("players.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("delta", sa.Integer(), nullable=False),
        sa.UniqueConstraint("hand_id", "seat", name="uq_seat_deltas_hand_seat"),
    )
    op.create_index("ix_seat_deltas_player_id", "seat_deltas", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_seat_deltas_player_id", table_name="seat_deltas")
    op.drop_table("seat_deltas")
    op.drop_index("ix_ledger_entries_hand_id", table_name="ledger_entries")
    op.drop_table("ledger_entries")
    op.drop_table("actions")
    op.drop_table("hands")
    op.drop_index("ix_players_name", table_name="players")
    op.drop_table("players")
    op.drop_table("rooms")
