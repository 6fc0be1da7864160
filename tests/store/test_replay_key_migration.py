"""Migration 0007 (``hands.replay_key``) on SQLite and PostgreSQL: hands stored before it get
a random 32-hex-digit key each; hands created after get one from `Store.start_hand`."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection

from server.store import StartedHand, Store
from server.store.store import _migrations_dir

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _upgrade_to(revision: str) -> Callable[[Connection], None]:
    """`Store._write` work upgrading the schema to ``revision`` (not head)."""

    def work(connection: Connection) -> None:
        cfg = Config()
        cfg.set_main_option("script_location", str(_migrations_dir()))
        cfg.attributes["configure_logger"] = False
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)

    return work


async def test_hands_before_the_migration_get_distinct_random_keys(database_url: str) -> None:
    store = Store(database_url)
    try:
        await store._write(_upgrade_to("0005"))
        await store.create_room("OLDR", "guiyang", {"players": 4})
        now = datetime.now(UTC)
        async with store.engine.begin() as conn:
            room_id = (
                await conn.execute(text("SELECT id FROM rooms WHERE code = 'OLDR'"))
            ).scalar_one()
            for n in range(1, 6):
                await conn.execute(
                    text(
                        "INSERT INTO hands (room_id, hand_no, seed, dealer, dealer_streak,"
                        " started_at) VALUES (:r, :n, :s, 0, 1, :t)"
                    ),
                    {"r": room_id, "n": n, "s": f"old-{n}", "t": now},
                )
        await store.migrate()
        async with store.engine.connect() as conn:
            keys = [
                k
                for (k,) in await conn.execute(
                    text("SELECT replay_key FROM hands ORDER BY hand_no")
                )
            ]
        assert len(keys) == 5 and all(HEX32.match(k) for k in keys), keys
        assert len(set(keys)) == 5
        hands = await store.hands("OLDR")
        assert [h.replay_key for h in hands] == keys
        started = await store.start_hand("OLDR", 6, "new-6", 0, 1)
        assert isinstance(started, StartedHand) and HEX32.match(started.replay_key)
        assert started.replay_key not in keys
        again = await store.hand_by_id(started.id)
        assert again is not None
        assert (again.code, again.hand_no, again.seed, again.replay_key) == (
            "OLDR",
            6,
            "new-6",
            started.replay_key,
        )
        assert await store.hand_by_id(started.id + 1000) is None
    finally:
        await store.close()
