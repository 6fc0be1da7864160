"""One seat per profile in a room (migration 0008, ``uq_players_room_profile``), on SQLite and
PostgreSQL: the store refuses a profile's second seat of a room as `AlreadySeated`, and the
migration keeps a profile's lowest seat of a room where races had seated it twice."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from server.store import Store
from server.store import profiles as pr
from server.store.store import AlreadySeated, Conflict
from tests.store.test_profiles import seat_room
from tests.store.test_replay_key_migration import _upgrade_to


async def test_a_profile_holds_one_seat_of_a_room(store: Store) -> None:
    ann, _ = await pr.create_profile(store, "ann")
    for code in ("ONE1", "TWO2"):
        await store.create_room(code, "guiyang", {"players": 4})
    await store.add_player("ONE1", 0, "ann", "t0", False, profile_id=ann.id)
    with pytest.raises(AlreadySeated):
        await store.add_player("ONE1", 1, "ann again", "t1", False, profile_id=ann.id)
    # a taken seat is still a plain Conflict; another room, and bots (no profile), are fine
    with pytest.raises(Conflict) as taken:
        await store.add_player("ONE1", 0, "bob", "t2", False)
    assert not isinstance(taken.value, AlreadySeated)
    await store.add_player("TWO2", 3, "ann", "t3", False, profile_id=ann.id)
    await store.add_player("ONE1", 1, "Bot South", "t4", True)
    await store.add_player("ONE1", 2, "Bot West", "t5", True)
    assert await pr.seat_of(store, ann.id, "ONE1") == 0
    assert await pr.seat_of(store, ann.id, "TWO2") == 3


async def test_the_migration_keeps_a_profiles_lowest_seat(database_url: str) -> None:
    store = Store(database_url)
    try:
        await store._write(_upgrade_to("0007"))
        ann, _ = await pr.create_profile(store, "ann")
        bob, _ = await pr.create_profile(store, "bob")
        # as a race seated them before 0008: ann at seats 2 and 0, bob at seat 1 only
        await seat_room(
            store, "RACE", [("ann", ann.id), ("bob", bob.id), ("ann", ann.id), ("Bot", None)], 1
        )
        await store.migrate()
        async with store.engine.connect() as conn:
            seats = (
                await conn.execute(text("SELECT seat, name, profile_id FROM players ORDER BY seat"))
            ).all()
            deltas = (
                await conn.execute(
                    text(
                        "SELECT p.seat, d.profile_id, d.delta FROM seat_deltas d"
                        " JOIN players p ON p.id = d.player_id ORDER BY p.seat"
                    )
                )
            ).all()
        assert [tuple(r) for r in seats] == [
            (0, "ann", ann.id),
            (1, "bob", bob.id),
            (2, "ann", None),
            (3, "Bot", None),
        ]
        assert [(s, p) for s, p, _ in deltas] == [(0, ann.id), (1, bob.id), (2, None), (3, None)]
        assert sum(d for _, _, d in deltas) == 0  # the ledger stays as it was
        with pytest.raises(AlreadySeated):
            await store.add_player("RACE", 2, "ann", "again", False, profile_id=ann.id)
    finally:
        await store.close()


async def test_a_profile_cannot_claim_a_second_seat_of_a_room(store: Store) -> None:
    ann, _ = await pr.create_profile(store, "ann")
    await store.create_room("CLM1", "guiyang", {"players": 4})
    await store.add_player("CLM1", 0, "ann", "tok-0", False, profile_id=ann.id)
    await store.add_player("CLM1", 1, "old ann", "tok-1", False)  # a seat from before profiles
    with pytest.raises(AlreadySeated):
        await pr.claim_seat(store, ann.id, "CLM1", "tok-1")
    assert await pr.claim_seat(store, ann.id, "CLM1", "tok-0") == 0  # its own: as before
    async with store.engine.connect() as conn:
        owner = await conn.scalar(text("SELECT profile_id FROM players WHERE seat = 1"))
    assert owner is None
