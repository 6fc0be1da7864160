"""Hand analysis over count arrays: complete shapes, waits and shanten (spec/guiyang.md §6).

Everything works on 27-length count arrays (see `tiles`). The suits are independent, so each
question is answered per suit from a table keyed by that suit's nine counts; the tables are
filled lazily and memoised, so after warm-up a win check is three dictionary look-ups.
This module knows shapes only: hand types, 豆 and the other game rules live in the games.
"""

from __future__ import annotations

from functools import cache

from .tiles import NUM_KINDS

Suit = tuple[int, ...]  # the nine counts of one suit, 1..9 (hashable: a cache key)


def _suits(counts: list[int]) -> tuple[Suit, Suit, Suit]:
    return (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]))


@cache
def _sets_only(suit: Suit) -> bool:
    """True if the suit's tiles split exactly into triplets and runs."""
    i = next((k for k in range(9) if suit[k]), -1)
    if i < 0:
        return True
    c = list(suit)
    if c[i] >= 3:
        c[i] -= 3
        if _sets_only(tuple(c)):
            return True
        c[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        return _sets_only(tuple(c))
    return False


@cache
def _sets_and_pair(suit: Suit) -> bool:
    """True if the suit's tiles split into one pair plus triplets and runs."""
    c = list(suit)
    for i in range(9):
        if c[i] >= 2:
            c[i] -= 2
            ok = _sets_only(tuple(c))
            c[i] += 2
            if ok:
                return True
    return False


def is_standard(counts: list[int]) -> bool:
    """True if the concealed ``counts`` form n sets + one pair (§6.1 standard shape).

    Melds are not passed: a concealed part of 14 - 3 * melds tiles that forms sets and a pair
    completes the hand with any melds.
    """
    pair_suits = 0
    for suit in _suits(counts):
        r = sum(suit) % 3
        if r == 1:
            return False
        if r == 2:
            pair_suits += 1
            if pair_suits > 1 or not _sets_and_pair(suit):
                return False
        elif not _sets_only(suit):
            return False
    return pair_suits == 1


def is_all_triplets(counts: list[int]) -> bool:
    """True if the concealed ``counts`` are triplets plus exactly one pair (大对子 shape)."""
    pairs = 0
    for c in counts:
        if c == 2:
            pairs += 1
        elif c not in (0, 3):
            return False
    return pairs == 1


def is_seven_pairs(counts: list[int]) -> bool:
    """True if the 14 concealed ``counts`` are seven pairs; four equal tiles are two (§6.1)."""
    return sum(counts) == 14 and all(c % 2 == 0 for c in counts)


def is_complete(counts: list[int], melds: int) -> bool:
    """True if concealed ``counts`` plus ``melds`` melds form a winning shape (§6.1).

    ``counts`` must hold 14 - 3 * melds tiles; any other size is not complete.
    """
    if sum(counts) != 14 - 3 * melds:
        return False
    return is_standard(counts) or (melds == 0 and is_seven_pairs(counts))


@cache
def _suit_completions(suit: Suit) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ranks (0..8) whose addition makes the suit sets only, and sets plus one pair."""
    sets: list[int] = []
    with_pair: list[int] = []
    c = list(suit)
    r = (sum(suit) + 1) % 3
    for rank in range(9):
        if c[rank] >= 4:
            continue
        c[rank] += 1
        key: Suit = tuple(c)
        if r == 0 and _sets_only(key):
            sets.append(rank)
        elif r == 2 and _sets_and_pair(key):
            with_pair.append(rank)
        c[rank] -= 1
    return tuple(sets), tuple(with_pair)


def completing_tiles(counts: list[int], melds: int) -> list[int]:
    """Kinds (0..26) that would complete a hand of 13 - 3 * melds concealed tiles, sorted.

    Only kinds the hand could still draw are listed (fewer than four in ``counts``); the
    caller removes kinds whose other copies sit in the seat's own melds (§6.3). Works suit by
    suit: the tile must land in one suit while the other two already split cleanly.
    """
    if sum(counts) != 13 - 3 * melds:
        return []
    suits = _suits(counts)
    clean = [sum(x) % 3 == 0 and _sets_only(x) for x in suits]
    paired = [sum(x) % 3 == 2 and _sets_and_pair(x) for x in suits]
    result: set[int] = set()
    for s in range(3):
        o1, o2 = (s + 1) % 3, (s + 2) % 3
        sets, with_pair = _suit_completions(suits[s])
        if clean[o1] and clean[o2]:
            result.update(s * 9 + r for r in with_pair)
        if (clean[o1] and paired[o2]) or (paired[o1] and clean[o2]):
            result.update(s * 9 + r for r in sets)
    if melds == 0:
        odd = [k for k in range(NUM_KINDS) if counts[k] % 2]
        if len(odd) == 1 and counts[odd[0]] < 4:
            result.add(odd[0])
    return sorted(result)


Blocks = frozenset[tuple[int, int, int]]


def _prune(options: set[tuple[int, int, int]]) -> Blocks:
    keep = [
        o
        for o in options
        if not any(p != o and p[0] >= o[0] and p[1] >= o[1] and p[2] >= o[2] for p in options)
    ]
    return frozenset(keep)


@cache
def _suit_blocks(suit: Suit) -> Blocks:
    """Best (sets, partial sets, pair 0/1) combinations a suit's tiles can be split into."""
    i = next((k for k in range(9) if suit[k]), -1)
    if i < 0:
        return frozenset({(0, 0, 0)})
    c = list(suit)
    options: set[tuple[int, int, int]] = set()

    def take(delta: dict[int, int], add: tuple[int, int, int]) -> None:
        for k, d in delta.items():
            c[k] -= d
        for m, t, p in _suit_blocks(tuple(c)):
            if p + add[2] <= 1:
                options.add((m + add[0], t + add[1], p + add[2]))
        for k, d in delta.items():
            c[k] += d

    take({i: 1}, (0, 0, 0))  # tile i left isolated
    if c[i] >= 3:
        take({i: 3}, (1, 0, 0))
    if c[i] >= 2:
        take({i: 2}, (0, 0, 1))
        take({i: 2}, (0, 1, 0))
    if i <= 6 and c[i + 1] and c[i + 2]:
        take({i: 1, i + 1: 1, i + 2: 1}, (1, 0, 0))
    if i <= 7 and c[i + 1]:
        take({i: 1, i + 1: 1}, (0, 1, 0))
    if i <= 6 and c[i + 2]:
        take({i: 1, i + 2: 1}, (0, 1, 0))
    return _prune(options)


def shanten(counts: list[int], melds: int = 0) -> int:
    """Tiles away from ready: -1 complete, 0 ready (听牌), 1 one away, ...

    Takes concealed ``counts`` (13 or 14 - 3 * melds tiles) and the number of melds; the
    minimum over the standard shape and, without melds, seven pairs (§6.1).
    """
    a, b, c = (_suit_blocks(s) for s in _suits(counts))
    best = 8
    need = 4 - melds
    for m1, t1, p1 in a:
        for m2, t2, p2 in b:
            if p1 + p2 > 1:
                continue
            for m3, t3, p3 in c:
                p = p1 + p2 + p3
                if p > 1:
                    continue
                m = m1 + m2 + m3
                t = t1 + t2 + t3
                if m > need:
                    t += m - need  # surplus sets still help as partial work
                    m = need
                t = min(t, need - m)
                value = 2 * (need - m) - t - p
                if value < best:
                    best = value
    standard = best
    if melds == 0:
        pairs = sum(n // 2 for n in counts)
        standard = min(standard, 6 - min(pairs, 7))
    return standard
