"""Fencing of room leases: ``rooms.lease_gen`` and a trigger that refuses stale actions.

Additive (server/store/schema.py): a column with a server default and a trigger that lets
every action without ``lease`` through, so an older release runs on this schema unchanged.

Each tenure of a room's lease (server/room/cluster.py) starts with ``Store.fence``, which
bumps ``rooms.lease_gen`` and returns the new generation; the owner logs it in every
action's payload (``payload["lease"]``). The trigger refuses (SQLSTATE 23000, an integrity
error) an action whose generation is below the room's, so a process that lost its lease
while stalled cannot append to a log a newer owner already replayed. On PostgreSQL the
trigger reads the room row ``FOR SHARE``: ``fence``'s UPDATE waits for an old owner's
insert in flight (which the new owner then sees when it replays) or the insert waits for
the fence (and is refused). Actions without ``lease`` (one process, no Redis) pass.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_FUNCTION = """
CREATE FUNCTION actions_lease_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    current_gen bigint;
BEGIN
    IF NEW.payload ->> 'lease' IS NOT NULL THEN
        SELECT r.lease_gen INTO current_gen
        FROM rooms r JOIN hands h ON h.room_id = r.id
        WHERE h.id = NEW.hand_id
        FOR SHARE OF r;
        IF current_gen > CAST(NEW.payload ->> 'lease' AS bigint) THEN
            RAISE EXCEPTION 'stale lease generation % (the room is at %)',
                NEW.payload ->> 'lease', current_gen
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    RETURN NEW;
END
$$
"""

_SQLITE_TRIGGER = """
CREATE TRIGGER actions_lease_fence BEFORE INSERT ON actions
WHEN json_extract(NEW.payload, '$.lease') IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'stale lease generation')
    FROM hands h JOIN rooms r ON r.id = h.room_id
    WHERE h.id = NEW.hand_id AND r.lease_gen > json_extract(NEW.payload, '$.lease');
END
"""


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(
            sa.Column("lease_gen", sa.BigInteger(), nullable=False, server_default="0")
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
        op.execute(
            "CREATE TRIGGER actions_lease_fence BEFORE INSERT ON actions "
            "FOR EACH ROW EXECUTE FUNCTION actions_lease_fence()"
        )
    else:
        op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    op.execute(
        "DROP TRIGGER IF EXISTS actions_lease_fence"
        + (" ON actions" if op.get_bind().dialect.name == "postgresql" else "")
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS actions_lease_fence()")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("lease_gen")
