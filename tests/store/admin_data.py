"""Hands played by bots (random legal moves, a win taken when offered), stored as the room
actor stores them: for the admin tests (issue 14)."""

from __future__ import annotations

import random
from typing import Any

from server.rules import guiyang
from server.store import Store


def bot_hand(seed: str, policy: int) -> tuple[list[tuple[int, guiyang.Action]], dict[str, Any]]:
    """A seeded hand played by bots choosing with ``random.Random(policy)``, the first policy
    from there whose hand ends in a win: actions and settlement."""
    for p in range(policy, policy + 200):
        actions, settlement = _play(seed, p)
        if settlement["result"] == "win":
            return actions, settlement
    raise AssertionError(f"no win with seed {seed!r}")


def _play(seed: str, policy: int) -> tuple[list[tuple[int, guiyang.Action]], dict[str, Any]]:
    options = guiyang.GuiyangOptions()
    rng = random.Random(policy)
    state = guiyang.deal(options, seed)
    actions = []
    while not state.ended:
        if guiyang.claims_decided(state):
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
    return actions, settlement


async def store_room(
    store: Store, code: str, names: list[str], hands: int, *, bots: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """A Guiyang room seating ``names`` (seats in ``bots`` marked bots) with ``hands`` hands
    played by bots and settled; returns the settlements in hand order."""
    await store.create_room(code, "guiyang", guiyang.GuiyangOptions().model_dump())
    for seat, name in enumerate(names):
        await store.add_player(code, seat, name, "h", seat in bots)
    out = []
    for hand_no in range(1, hands + 1):
        seed = f"{code}-{hand_no}"
        await store.start_hand(code, hand_no, seed, 0, 1)
        actions, settlement = bot_hand(seed, hand_no * 1000)
        for idx, (seat, action) in enumerate(actions):
            await store.append_action(code, hand_no, idx, seat, {"action": action.to_dict()})
        assert await store.settle_hand(
            code,
            hand_no,
            settlement["result"],
            settlement,
            settlement["payments"],
            settlement["deltas"],
        )
        out.append(settlement)
    return out
