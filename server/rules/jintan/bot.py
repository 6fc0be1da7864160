"""A deterministic Jintan bot: ``choose_action(state, seat)`` picks one of the legal actions.

Policy, in order (same state -> same action; it reads only what its own seat sees):
1. win (``self_draw`` or ``win``) whenever legal;
2. kong (own turn or claiming a discard) when it does not raise shanten;
3. pong, then chow (the run that leaves the lowest shanten), when it lowers shanten after the
   best discard that follows;
4. on a claim, otherwise ``pass``;
5. on a turn, discard the tile whose removal leaves the lowest shanten; ties prefer isolated
   honours, then other isolated tiles, then terminals, then the kind order.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..botkit import best_discard_shanten, isolated, turn_kong_keeps_shanten
from ..hand import shanten
from ..tiles import NUM_KINDS, tile_index
from .engine import default_action, legal_actions
from .state import Action, State


def choose_action(state: State, seat: int, legal: Sequence[Action] | None = None) -> Action:
    """The bot's action for ``seat`` now; ``default_action`` if it has none better.

    Raises:
        IllegalAction: code ``not_your_turn`` if the seat owes no action.

    ``legal``: ``seat``'s legal actions in ``state`` if the caller has them (else computed).
    """
    if legal is None:
        legal = legal_actions(state, seat)
    if not legal:
        return default_action(state, seat)
    for a in legal:
        if a.kind in ("self_draw", "win"):
            return a
    counts = list(state.hands[seat])
    melds = len(state.melds[seat])
    kongs = [a for a in legal if a.kind == "kong"]
    discards = [a for a in legal if a.kind == "discard"]
    if discards:
        now = best_discard_shanten(list(counts), melds)
        for k in kongs:
            i = tile_index(k.tile or "")
            if turn_kong_keeps_shanten(counts, melds, i, now):
                return k

        def key(a: Action) -> tuple[int, int, int, int]:
            i = tile_index(a.tile or "")
            counts[i] -= 1
            s = shanten(counts, melds)
            counts[i] += 1
            lone = isolated(counts, i)
            terminal = i >= NUM_KINDS or i % 9 in (0, 8)
            rank = 0 if lone and i >= NUM_KINDS else 1 if lone else 2
            return (s, rank, 0 if terminal else 1, i)

        return min(discards, key=key)

    tile = state.rob_tile if state.phase == "rob" else (state.last_discard or (0, 0))[1]
    assert tile is not None, "a claim window has a tile"
    now = shanten(counts, melds)
    for k in kongs:
        after = list(counts)
        after[tile] -= 3
        if after[tile] >= 0 and shanten(after, melds + 1) <= now:
            return k
    best: tuple[int, Action] | None = None
    for a in legal:
        after = list(counts)
        if a.kind == "pong":
            after[tile] -= 2
        elif a.kind == "chow":
            for t in a.tiles:
                after[tile_index(t)] -= 1
        else:
            continue
        s = best_discard_shanten(after, melds + 1)
        if s < now and (best is None or s < best[0]):
            best = (s, a)
    if best is not None:
        return best[1]
    return Action("pass")
