"""Hand analysis over count arrays: complete shapes, waits and shanten (spec/guiyang.md §6,
spec/jintan.md §J4), shared by both games.

Everything works on count arrays (see `tiles`): 27 long for number tiles only (Guiyang), 34
long with the honours (Jintan). The suits are independent, so each question is answered per
suit from a table keyed by that suit's nine counts; the tables are filled lazily and
memoised, so after warm-up a win check is three dictionary look-ups. An honour forms
triplets and pairs, never runs, so each honour kind is a tiny "suit" of its own, decided by
its count alone. This module knows shapes only: hand types, 豆, 花, 番 and the other game
rules live in the games.
"""

from __future__ import annotations

from functools import cache

from .tiles import NUM_KINDS

Suit = tuple[int, ...]  # the nine counts of one suit, 1..9 (hashable: a cache key)


def _suits(counts: list[int]) -> tuple[Suit, Suit, Suit]:
    return (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]))


def _honours(counts: list[int]) -> list[int]:
    """The honour counts (kinds 27..) of a 34-length array; empty for a 27-length one."""
    return counts[NUM_KINDS:]


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
    for c in _honours(counts):
        if c == 2:
            pair_suits += 1
        elif c not in (0, 3):
            return False
    if pair_suits > 1:
        return False
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


def is_sets_only(counts: list[int]) -> bool:
    """True if the concealed ``counts`` split exactly into triplets and runs (no pair): what
    is left of a standard hand once its pair is taken out (独吊, jintan.md §J6)."""
    if any(c not in (0, 3) for c in _honours(counts)):
        return False
    return all(sum(suit) % 3 == 0 and _sets_only(suit) for suit in _suits(counts))


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
    """Kinds that would complete a hand of 13 - 3 * melds concealed tiles, sorted (0..26, or
    0..33 for a 34-length array with honours).

    Only kinds the hand could still draw are listed (fewer than four in ``counts``); the
    caller removes kinds whose other copies sit in the seat's own melds (§6.3). Works group by
    group (three suits, then each honour kind alone): the tile must land in one group while
    every other group already splits cleanly, one of them with the pair if the landing group
    gets none.
    """
    if sum(counts) != 13 - 3 * melds:
        return []
    suits = _suits(counts)
    honours = _honours(counts)
    # Per group: splits into sets only ("clean"), or sets and one pair ("paired").
    clean = [sum(x) % 3 == 0 and _sets_only(x) for x in suits] + [c in (0, 3) for c in honours]
    paired = [sum(x) % 3 == 2 and _sets_and_pair(x) for x in suits] + [c == 2 for c in honours]
    groups = len(clean)
    n_clean = sum(clean)
    n_paired = sum(paired)
    result: set[int] = set()
    for g in range(groups):
        others_clean = n_clean - clean[g]
        others_paired = n_paired - paired[g]
        all_clean = others_clean == groups - 1
        one_paired = others_clean == groups - 2 and others_paired == 1
        if not (all_clean or one_paired):
            continue
        if g < 3:
            sets, with_pair = _suit_completions(suits[g])
            if all_clean:
                result.update(g * 9 + r for r in with_pair)
            if one_paired:
                result.update(g * 9 + r for r in sets)
        else:
            c = honours[g - 3]
            if (all_clean and c == 1) or (one_paired and c == 2):
                result.add(NUM_KINDS + g - 3)
    if melds == 0:
        odd = [k for k in range(len(counts)) if counts[k] % 2]
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


@cache
def _honour_blocks(honours: tuple[int, ...]) -> Blocks:
    """(sets, partial sets, pair 0/1) combinations of the honours: a triplet is a set, a
    pair either the pair or a partial set (waiting for its third), single tiles nothing."""
    options = {(0, 0, 0)}
    for n in honours:
        step: set[tuple[int, int, int]] = set()
        for m, t, p in options:
            if n >= 3:
                step.add((m + 1, t, p))
            if n >= 2:
                step.add((m, t + 1, p))
                if p == 0:
                    step.add((m, t, 1))
            step.add((m, t, p))
        options = step
    return _prune(options)


@cache
def _with_honours(suit: Blocks, honours: tuple[int, ...]) -> Blocks:
    """A suit's block options combined with the honours' (at most one pair in all)."""
    out = {
        (m1 + m2, t1 + t2, p1 + p2)
        for m1, t1, p1 in suit
        for m2, t2, p2 in _honour_blocks(honours)
        if p1 + p2 <= 1
    }
    return _prune(out)


def shanten(counts: list[int], melds: int = 0) -> int:
    """Tiles away from ready: -1 complete, 0 ready (听牌), 1 one away, ...

    Takes concealed ``counts`` (13 or 14 - 3 * melds tiles) and the number of melds; the
    minimum over the standard shape and, without melds, seven pairs (§6.1).
    """
    a, b, c = (_suit_blocks(s) for s in _suits(counts))
    honours = _honours(counts)
    if any(honours):
        # Honours add sets (a triplet) and pair / partial-set candidates (a pair) of their
        # own; folded into the third suit's options so the loop below stays as it is.
        c = _with_honours(c, tuple(honours))
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
