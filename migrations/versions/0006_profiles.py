"""Player profiles (issue 14): ``profiles``, and the profile of each seat and seat delta.

* ``profiles``: ``id`` (never repeats), ``name`` (the display name, may repeat, changeable),
  ``secret_hash`` (sha256 hex of the secret the player's browser keeps, unique), ``created_at``.
* ``players.profile_id``: the seated profile (``NULL`` for bots and for seats taken before
  this revision), index ``ix_players_profile_id_id (profile_id, id)`` (a profile's rooms,
  keyset on ``players.id``).
* ``seat_deltas.profile_id``: that seat's profile when the hand was settled, index
  ``ix_seat_deltas_profile_id_id (profile_id, id)`` (a profile's hands, keyset).

Additive only (schema policy in :mod:`server.store.schema`): a new table, nullable columns and
indexes; an older release never reads them and inserts seats and deltas without them. Rows
that exist keep working unchanged: their seats have no profile (``NULL``; bots are already
marked by ``players.is_bot``) and are found by name as before; a browser that still holds a
seat's token can claim that seat for its profile (``POST /api/me/claim``), which fills both
columns for that seat's rows.

On SQLite the columns are added with ``ALTER TABLE ... ADD COLUMN ... REFERENCES`` (a
nullable column with a foreign key needs no table rebuild; a rebuild of ``players`` would,
with foreign keys on, run ``ON DELETE SET NULL`` on ``seat_deltas.player_id``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def _add_profile_column(table: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            f"ALTER TABLE {table} ADD COLUMN profile_id INTEGER "
            "REFERENCES profiles (id) ON DELETE SET NULL"
        )
        return
    op.add_column(table, sa.Column("profile_id", BigId, nullable=True))
    op.create_foreign_key(
        f"fk_{table}_profile_id", table, "profiles", ["profile_id"], ["id"], ondelete="SET NULL"
    )


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("secret_hash", sa.String(128), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("secret_hash", name="uq_profiles_secret_hash"),
    )
    _add_profile_column("players")
    _add_profile_column("seat_deltas")
    op.create_index("ix_players_profile_id_id", "players", ["profile_id", "id"])
    op.create_index("ix_seat_deltas_profile_id_id", "seat_deltas", ["profile_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_seat_deltas_profile_id_id", table_name="seat_deltas")
    op.drop_index("ix_players_profile_id_id", table_name="players")
    if op.get_bind().dialect.name != "sqlite":
        # (SQLite cannot drop a column with a foreign key without rebuilding the table: there
        # the two nullable columns stay, unused, which an older release does not mind)
        op.drop_constraint("fk_seat_deltas_profile_id", "seat_deltas", type_="foreignkey")
        op.drop_column("seat_deltas", "profile_id")
        op.drop_constraint("fk_players_profile_id", "players", type_="foreignkey")
        op.drop_column("players", "profile_id")
    op.drop_table("profiles")
