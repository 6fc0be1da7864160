"""Indexes for the admin's queries: ledger rows by time, hands by time, rooms by status.

By player: ``ix_players_name`` (0001) and ``uq_players_room_seat`` for the payer/payee joins.
By room: ``uq_rooms_code`` and ``uq_hands_room_hand_no`` (0001). By time: the two indexes
below (``GET /api/admin/ledger?since=`` filters ``ledger_entries.created_at``).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_ledger_entries_created_at", "ledger_entries", ["created_at"])
    op.create_index("ix_hands_started_at", "hands", ["started_at"])
    op.create_index("ix_rooms_status", "rooms", ["status"])


def downgrade() -> None:
    op.drop_index("ix_rooms_status", table_name="rooms")
    op.drop_index("ix_hands_started_at", table_name="hands")
    op.drop_index("ix_ledger_entries_created_at", table_name="ledger_entries")
