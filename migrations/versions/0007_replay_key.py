"""Replay links (issue 14): ``hands.replay_key``, a random 128-bit hex key set when the hand is
created. ``GET /api/replays/{hand_id}?key=<replay_key>`` shows a finished hand's replay; the
key is sent to the hand's seats with its settlement.

Hands created before this revision get a random key here, so their replays work the same.
Additive only (schema policy in :mod:`server.store.schema`): a nullable column.

Revision ID: 0007
Revises: 0005 (re-chained after 0006 at merge)
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("replay_key", sa.String(32), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        # 32 hex digits per row: the MD5 of two random UUIDs (244 random bits, built in
        # since PostgreSQL 13)
        op.execute(
            "UPDATE hands SET replay_key = md5(gen_random_uuid()::text || gen_random_uuid()::text)"
            " WHERE replay_key IS NULL"
        )
    else:
        op.execute(
            "UPDATE hands SET replay_key = lower(hex(randomblob(16))) WHERE replay_key IS NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("replay_key")
