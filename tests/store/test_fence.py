"""Fencing of the action log (migration 0004, ``Store.fence``): an action logged with an
older lease generation than the room's is refused; actions without one always pass."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from server.store import Conflict, Store
from server.store.store import NotFound


def _payload(gen: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"action": {"kind": "discard", "tile": "1m"}, "source": "player"}
    if gen is not None:
        out["lease"] = gen
    return out


async def test_a_stale_generation_is_refused(store: Store) -> None:
    await store.create_room("FENCE1", "guiyang", {})
    await store.start_hand("FENCE1", 1, "seed", 0, 1)
    first = await store.fence("FENCE1")
    assert first == 1
    await store.append_action("FENCE1", 1, 0, 0, _payload(first))
    second = await store.fence("FENCE1")  # a new owner took the room over
    assert second == 2
    with pytest.raises(Conflict):
        await store.append_action("FENCE1", 1, 1, 1, _payload(first))
    await store.append_action("FENCE1", 1, 1, 2, _payload(second))
    await store.append_action("FENCE1", 1, 2, 3, _payload(None))  # no cluster: unfenced
    assert [seat for seat, _ in await store.hand_actions("FENCE1", 1)] == [0, 2, 3]
    # other rooms have their own generations
    await store.create_room("FENCE2", "guiyang", {})
    assert await store.fence("FENCE2") == 1
    with pytest.raises(NotFound):
        await store.fence("NOROOM")


async def test_fence_waits_for_an_append_in_flight(store: Store) -> None:
    """PostgreSQL (SQLite has one writer at a time anyway): an old owner's append that
    passed the check before the fence commits first and is then in the log the new owner
    reads; one that comes after the fence is refused."""
    from sqlalchemy import text

    if store.engine.dialect.name != "postgresql":
        pytest.skip("row locks: PostgreSQL only")
    await store.create_room("FENCE3", "guiyang", {})
    await store.start_hand("FENCE3", 1, "seed", 0, 1)
    old = await store.fence("FENCE3")
    async with store.engine.connect() as conn:
        tx = await conn.begin()
        row = await conn.execute(
            text("SELECT h.id FROM hands h JOIN rooms r ON r.id = h.room_id WHERE r.code = :c"),
            {"c": "FENCE3"},
        )
        hid = row.scalar_one()
        await conn.execute(
            text(
                "INSERT INTO actions (hand_id, idx, seat, payload, created_at) "
                "VALUES (:h, 0, 0, CAST(:p AS jsonb), now())"
            ),
            {"h": hid, "p": json.dumps({"action": {"kind": "pass"}, "lease": old})},
        )
        fencing = asyncio.create_task(store.fence("FENCE3"))
        await asyncio.sleep(0.3)
        assert not fencing.done()  # waits for the old owner's insert to end
        await tx.commit()
    new = await asyncio.wait_for(fencing, 5)
    assert new == old + 1
    assert len(await store.hand_actions("FENCE3", 1)) == 1
    with pytest.raises(Conflict):
        await store.append_action("FENCE3", 1, 1, 0, _payload(old))
