"""The shuffle and the deal every game uses (guiyang.md §2, §13; jintan.md §J1)."""

from __future__ import annotations

import hashlib
import random


def seed_hash(seed: str) -> str:
    """SHA-256 hex of a hand's seed: published at the deal, the seed itself at the end, so
    any player can rebuild the wall and check it (guiyang.md §13)."""
    return hashlib.sha256(seed.encode()).hexdigest()


def shuffle_and_deal(
    tiles: list[str], seed: str, players: int, dealer: int
) -> tuple[list[list[str]], list[str]]:
    """Shuffle ``tiles`` (a whole set, in notation) from ``seed`` and deal by the table custom:
    four tiles a seat for three rounds from the dealer, then one each, then one more for the
    dealer. Returns ``(hands, wall)``: seat i's 13 tiles (the dealer's 14) and the rest in draw
    order. The same seed always gives the same deal."""
    rng = random.Random(seed)
    shuffled = list(tiles)
    rng.shuffle(shuffled)
    hands: list[list[str]] = [[] for _ in range(players)]
    pos = 0
    order = [(dealer + i) % players for i in range(players)]
    for _ in range(3):
        for seat in order:
            hands[seat].extend(shuffled[pos : pos + 4])
            pos += 4
    for seat in order:
        hands[seat].append(shuffled[pos])
        pos += 1
    hands[dealer].append(shuffled[pos])
    pos += 1
    return hands, shuffled[pos:]


def roll_dice(seed: str, tile_count: int) -> tuple[int, int]:
    """The two dice (each 1..6) a live deal rolls and shows (guiyang.md §2): the two rolls
    that follow the shuffle of ``tile_count`` tiles from ``seed`` in the same generator
    (`shuffle_and_deal`'s; a shuffle draws the same numbers whatever the tiles are). They
    decide nothing: the deal is the seed's."""
    rng = random.Random(seed)
    rng.shuffle([0] * tile_count)
    return rng.randint(1, 6), rng.randint(1, 6)
