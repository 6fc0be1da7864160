"""Small helpers shared by the games' bot policies: shanten after the best discard, and
whether a tile stands alone in a hand. Count arrays as in `server.rules.hand`."""

from __future__ import annotations

from .hand import shanten
from .tiles import NUM_KINDS


def best_discard_shanten(counts: list[int], melds: int) -> int:
    """The lowest shanten reachable by discarding one tile of ``counts`` (restored after)."""
    best = 99
    for i, c in enumerate(counts):
        if c:
            counts[i] -= 1
            best = min(best, shanten(counts, melds))
            counts[i] += 1
    return best


def isolated(counts: list[int], i: int) -> bool:
    """True if kind ``i`` is a single tile with no neighbour within two ranks (an honour
    has none)."""
    if counts[i] != 1:
        return False
    if i >= NUM_KINDS:
        return True
    pos = i % 9
    return not any(0 <= pos + d < 9 and counts[i + d] for d in (-2, -1, 1, 2))


def turn_kong_keeps_shanten(counts: list[int], melds: int, kind: int, now: int) -> bool:
    """True if an own-turn kong of ``kind`` leaves the hand no further from ready than
    ``now``: a concealed kong (four in hand) takes them out as one more meld, an added kong
    takes the one tile onto an own pong."""
    after = list(counts)
    if after[kind] >= 4:
        after[kind] -= 4
        return shanten(after, melds + 1) <= now
    after[kind] -= 1
    return shanten(after, melds) <= now
