"""Admin console: the ``corrections`` table (voids and adjustments as events) and the indexes
the admin's keyset-paged queries walk (issue 14).

* ``ix_hands_ended_at``: hands settled in a date range (leaderboard, player totals).
* ``ix_rooms_created_at``: rooms created in a date range.
* ``ix_seat_deltas_player_id_id``: a player's hands newest first, keyset on ``seat_deltas.id``.
* ``ix_corrections_hand_id``: the corrections of a hand (voided? adjusted?).

Additive only (schema policy in :mod:`server.store.schema`).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "corrections",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("hand_id", BigId, sa.ForeignKey("hands.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("from_seat", sa.Integer(), nullable=True),
        sa.Column("to_seat", sa.Integer(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_corrections_hand_id", "corrections", ["hand_id"])
    op.create_index("ix_hands_ended_at", "hands", ["ended_at"])
    op.create_index("ix_rooms_created_at", "rooms", ["created_at"])
    op.create_index("ix_seat_deltas_player_id_id", "seat_deltas", ["player_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_seat_deltas_player_id_id", table_name="seat_deltas")
    op.drop_index("ix_rooms_created_at", table_name="rooms")
    op.drop_index("ix_hands_ended_at", table_name="hands")
    op.drop_index("ix_corrections_hand_id", table_name="corrections")
    op.drop_table("corrections")
