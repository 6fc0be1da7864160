"""Bots choose legal actions, deterministically, and win whenever they can."""

from __future__ import annotations

import pytest

from server.room.bots import choose_action
from server.rules.guiyang import (
    GuiyangOptions,
    acting_seats,
    apply,
    claims_decided,
    deal,
    legal_actions,
    prompt_kind,
    resolve_claims,
    settle,
)


@pytest.mark.parametrize("players", [4, 3, 2])
def test_bot_hands_play_to_the_end(players: int) -> None:
    opts = GuiyangOptions(players=players)
    results = []
    for n in range(12):
        state = deal(opts, f"bots-{players}-{n}", n % players, 1)
        for _ in range(1000):
            if state.ended:
                break
            if claims_decided(state):  # the room closes a decided claim window
                state, _ = resolve_claims(state)
                continue
            for seat in acting_seats(state):
                if state.ended or seat not in acting_seats(state):
                    continue
                legal = legal_actions(state, seat)
                action = choose_action(state, seat)
                assert action in legal
                assert choose_action(state, seat) == action, "deterministic"
                if any(a.kind in ("win", "self_draw") for a in legal):
                    assert action.kind in ("win", "self_draw")
                if prompt_kind(state) == "claim" and not any(
                    a.kind in ("win", "pong", "kong") for a in legal
                ):
                    assert action.kind == "pass"
                assert not action.bao_ting
                state, _ = apply(state, seat, action)
        assert state.ended
        settlement = settle(state)
        assert settlement is not None and sum(settlement["deltas"]) == 0
        results.append(settlement["result"])
    assert results
