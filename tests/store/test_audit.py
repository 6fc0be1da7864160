"""The ledger audit finds tampered ledgers."""

from __future__ import annotations

from sqlalchemy import text

from server.store import Store
from server.store.audit import audit


async def test_audit_passes_a_sound_ledger_and_flags_tampering(store: Store) -> None:
    await store.create_room("AUD1", "guiyang", {"players": 2})
    await store.add_player("AUD1", 0, "a", "h", False)
    await store.add_player("AUD1", 1, "b", "h", False)
    await store.start_hand("AUD1", 1, "s", 0, 1)
    await store.start_hand("AUD1", 2, "s", 0, 2)
    pay = [{"from": 1, "to": 0, "points": 4, "reason": "zi_mo", "detail": None}]
    assert await store.settle_hand("AUD1", 1, "win", {}, pay, [4, -4])
    assert await audit(store) == []

    async with store.engine.begin() as conn:
        await conn.execute(text("UPDATE ledger_entries SET points = 5"))
    problems = await audit(store)
    assert len(problems) == 1 and "room AUD1 hand 1" in problems[0]
