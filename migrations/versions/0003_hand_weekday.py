"""The weekday of each hand's deal, for 星期鸡 (spec/guiyang.md §9.6).

Nullable and additive: hands dealt before it have none (no 星期鸡 was possible then), and an
older release that does not know the column still reads and writes the table.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("weekday", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("weekday")
