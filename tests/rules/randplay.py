"""A seeded random player for property tests: any legal action, biased to finish hands.

Most discards keep the hand closest to ready (lowest shanten) so that wins, reports and
kongs happen often; the rest are random, and wins, claims and 报听 are taken only with some
probability, so hands end both in wins and in 黄庄 and every branch is reached.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from server.rules import guiyang
from server.rules.guiyang import Action, GuiyangOptions, State
from server.rules.hand import shanten
from server.rules.tiles import tile_index


def play_hand(
    options: GuiyangOptions, seed: str, policy_seed: int, dealer: int = 0, streak: int = 1
) -> Iterator[tuple[State, int, Action | None, State, list[dict]]]:
    """Deal from ``seed`` and play to the end; yields (before, seat, action, after, events),
    with seat -1 and action None where a decided claim window is closed.

    A decided window is closed at once when nobody may answer any more, else half of the
    time (the room closes it after its minimum time even if some seats it offered a claim
    have not answered, §3); otherwise those seats answer, late, and lose."""
    rng = random.Random(policy_seed)
    state = guiyang.deal(options, seed, dealer, streak)
    while not state.ended:
        acting = guiyang.acting_seats(state)
        if guiyang.claims_decided(state) and (not acting or rng.random() < 0.5):
            after, events = guiyang.resolve_claims(state)
            yield state, -1, None, after, events
            state = after
            continue
        seat = rng.choice(acting)
        legal = guiyang.legal_actions(state, seat)
        action = choose(rng, state, seat, legal)
        after, events = guiyang.apply(state, seat, action)
        yield state, seat, action, after, events
        state = after


def _best_discard(state: State, seat: int, discards: list[Action]) -> Action:
    counts = list(state.hands[seat])
    melds = len(state.melds[seat])

    def score(a: Action) -> int:
        k = tile_index(a.tile or "")
        counts[k] -= 1
        value = shanten(counts, melds)
        counts[k] += 1
        return value

    return min(discards, key=score)


def choose(rng: random.Random, state: State, seat: int, legal: list[Action]) -> Action:
    wins = [a for a in legal if a.kind in ("win", "self_draw")]
    if wins and rng.random() < 0.85:
        return wins[0]
    kongs = [a for a in legal if a.kind == "kong"]
    if kongs and rng.random() < 0.6:
        return rng.choice(kongs)
    pongs = [a for a in legal if a.kind == "pong"]
    if pongs and rng.random() < 0.4:
        return pongs[0]
    rest = [a for a in legal if a.kind not in ("win", "self_draw", "kong", "pong")]
    reported = [a for a in rest if a.bao_ting]
    if reported and rng.random() < 0.5:
        return reported[0]
    discards = [a for a in rest if a.kind == "discard" and not a.bao_ting]
    if discards and rng.random() < 0.75:
        return _best_discard(state, seat, discards)
    return rng.choice(rest or legal)
