"""`python -m server audit` replays stored hands and finds tampered ledgers (issue: no hand
lost, every point checkable)."""

from __future__ import annotations

import random
import subprocess
import sys

from sqlalchemy import text

from server.audit import audit
from server.rules import guiyang
from server.store import Store


def played_hand(seed: str) -> tuple[list[tuple[int, guiyang.Action]], dict]:
    """A seeded random hand that ends with payments: its actions and settlement."""
    options = guiyang.GuiyangOptions()
    for policy in range(100):
        rng = random.Random(policy)
        state = guiyang.deal(options, seed)
        actions = []
        while not state.ended:
            if guiyang.claims_decided(state):  # the room closes a decided claim window
                state, _ = guiyang.resolve_claims(state)
                continue
            seat = guiyang.acting_seats(state)[0]
            legal = guiyang.legal_actions(state, seat)
            wins = [a for a in legal if a.kind in ("win", "self_draw")]
            action = wins[0] if wins else rng.choice(legal)
            actions.append((seat, action))
            state, _ = guiyang.apply(state, seat, action)
        settlement = guiyang.settle(state)
        assert settlement is not None
        if settlement["payments"]:
            return actions, settlement
    raise AssertionError("no hand with payments")


async def store_played_hand(store: Store, code: str, seed: str) -> dict:
    """Store a played hand as the room actor does: room, seats, hand, actions, settlement."""
    options = guiyang.GuiyangOptions()
    await store.create_room(code, "guiyang", options.model_dump())
    for seat in range(4):
        await store.add_player(code, seat, f"p{seat}", "h", False)
    await store.start_hand(code, 1, seed, 0, 1)
    actions, settlement = played_hand(seed)
    for idx, (seat, action) in enumerate(actions):
        await store.append_action(code, 1, idx, seat, {"action": action.to_dict()})
    assert await store.settle_hand(
        code, 1, settlement["result"], settlement, settlement["payments"], settlement["deltas"]
    )
    return settlement


async def test_audit_passes_a_sound_ledger_and_flags_tampering(store: Store) -> None:
    settlement = await store_played_hand(store, "AUD1", "audit-seed")
    assert settlement["payments"]
    assert await audit(store) == []

    async with store.engine.begin() as conn:
        await conn.execute(text("UPDATE ledger_entries SET points = points + 1"))
    problems = await audit(store)
    assert problems and all("room AUD1 hand 1" in p for p in problems)


async def test_audit_flags_deltas_that_disagree_with_the_replay(store: Store) -> None:
    settlement = await store_played_hand(store, "AUD2", "another-seed")
    deltas = settlement["deltas"]
    # Move one point between two seats in both the deltas and a payment: still zero-sum and
    # self-consistent, so only the replay can tell.
    async with store.engine.begin() as conn:
        await conn.execute(text("UPDATE seat_deltas SET delta = delta + 1 WHERE seat = 0"))
        await conn.execute(text("UPDATE seat_deltas SET delta = delta - 1 WHERE seat = 1"))
        await conn.execute(
            text(
                "INSERT INTO ledger_entries (hand_id, from_seat, to_seat, points, reason, "
                "created_at) SELECT id, 1, 0, 1, 'hu', CURRENT_TIMESTAMP FROM hands"
            )
        )
    problems = await audit(store)
    assert any("replay" in p for p in problems), (deltas, problems)


def test_audit_command_exit_status(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite+aiosqlite:///{tmp_path / 'a.db'}"

    async def prepare() -> None:
        store = Store(url)
        try:
            await store.migrate()
            await store_played_hand(store, "AUD3", "cmd-seed")
        finally:
            await store.close()

    import asyncio

    asyncio.run(prepare())
    ok = subprocess.run(
        [sys.executable, "-m", "server", "audit", "--database-url", url],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    import sqlite3

    with sqlite3.connect(tmp_path / "a.db") as db:
        db.execute(
            "UPDATE ledger_entries SET points = points + 7 WHERE id = "
            "(SELECT min(id) FROM ledger_entries)"
        )
    bad = subprocess.run(
        [sys.executable, "-m", "server", "audit", "--database-url", url],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1 and "AUD3" in bad.stdout


async def test_audit_flags_deltas_of_an_unsettled_hand(store: Store) -> None:
    await store_played_hand(store, "AUD4", "unsettled-seed")
    await store.start_hand("AUD4", 2, "next-seed", 0, 1)
    async with store.engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO seat_deltas (hand_id, seat, delta) SELECT id, 0, 0 FROM hands "
                "WHERE hand_no = 2"
            )
        )
    problems = await audit(store)
    assert problems == ["room AUD4 hand 2: unsettled but has seat deltas [0]"]
