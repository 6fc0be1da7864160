"""再来一场: ``rooms.next_code``, the room a finished (or dissolved) session's players go on in.
``POST /api/rooms/{code}/again`` makes it once (the first caller's room is recorded; a
concurrent one gets the same code), and the room info shows it to the others.

Additive (schema policy in :mod:`server.store.schema`): a nullable column.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("next_code", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("next_code")
