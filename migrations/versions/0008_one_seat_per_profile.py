"""One seat per profile in a room: unique index ``uq_players_room_profile`` on ``players
(room_id, profile_id)``. ``POST /api/rooms/{code}/join`` refuses a profile that holds a seat
of the room (409 ``already_seated``), but the check and the seating were two steps, so
concurrent joins with one player code could seat one profile several times (each seat
showing its concealed hand to the same person). The index makes the database refuse it.

Before the index is made, a profile that holds several seats of one room keeps its lowest
(the seat ``/api/me`` already showed); the others are detached from it, as seats taken
before profiles existed are: ``players.profile_id`` and their settled hands'
``seat_deltas.profile_id`` become ``NULL`` (their names, points and ledger stay).

Additive (schema policy in :mod:`server.store.schema`): an index. An older release inserting
such a duplicate now gets the database's refusal instead.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The seats of a profile in a room other than its lowest.
_EXTRA_SEATS = """
    SELECT p.id FROM players p
    WHERE p.profile_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM players q
        WHERE q.room_id = p.room_id AND q.profile_id = p.profile_id AND q.seat < p.seat
    )
"""


def upgrade() -> None:
    op.execute(f"UPDATE seat_deltas SET profile_id = NULL WHERE player_id IN ({_EXTRA_SEATS})")
    op.execute(
        f"UPDATE players SET profile_id = NULL WHERE id IN (SELECT id FROM ({_EXTRA_SEATS}) x)"
    )
    op.create_index("uq_players_room_profile", "players", ["room_id", "profile_id"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_players_room_profile", table_name="players")
