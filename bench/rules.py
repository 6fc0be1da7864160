"""Benchmark of the rules core; prints ratios against references measured in the same run.

    python bench/rules.py [--hands N]

1. Waits (听牌) of random ready-ish hands: the per-suit tables of `server.rules.hand`
   against a naive reference that tries every tile with a recursive decomposition.
2. Whole hands: seeded random play through `apply` (legal actions, claims, settlement),
   reported as hands per second and as a ratio to the waits reference, so the numbers stay
   comparable across machines.
3. Shanten of random 13-tile hands with honours (34 kinds, as Jintan holds them): ours
   against the `mahjong` package's (the Riichi hand calculator, ``pip install mahjong``),
   with the number of hands on which the two disagree among those holding no kind three or
   four times (only those may differ: our seven pairs count four equal tiles as two pairs,
   Riichi's do not). Skipped without it.
4. Whole Jintan hands by the bot policy, hands per second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.rules import guiyang, jintan  # noqa: E402
from server.rules.hand import completing_tiles, shanten  # noqa: E402
from server.rules.jintan.bot import choose_action  # noqa: E402
from server.rules.tiles import HAND_KINDS, full_set, to_counts  # noqa: E402


def naive_complete(counts: list[int], need_pair: bool = True) -> bool:
    """Reference: first tile is a pair, a triplet or starts a run; plain recursion."""
    i = next((k for k in range(27) if counts[k]), -1)
    if i < 0:
        return not need_pair
    if need_pair and counts[i] >= 2:
        counts[i] -= 2
        ok = naive_complete(counts, False)
        counts[i] += 2
        if ok:
            return True
    if counts[i] >= 3:
        counts[i] -= 3
        ok = naive_complete(counts, need_pair)
        counts[i] += 3
        if ok:
            return True
    if i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        ok = naive_complete(counts, need_pair)
        for k in (i, i + 1, i + 2):
            counts[k] += 1
        return ok
    if need_pair:
        # the pair may be a later kind
        for j in range(i + 1, 27):
            if counts[j] >= 2:
                counts[j] -= 2
                ok = naive_complete(counts, False)
                counts[j] += 2
                if ok:
                    return True
    return False


def naive_waits(counts: list[int]) -> list[int]:
    out = []
    for k in range(27):
        if counts[k] < 4:
            counts[k] += 1
            if naive_complete(counts) or (sum(counts) == 14 and all(c % 2 == 0 for c in counts)):
                out.append(k)
            counts[k] -= 1
    return out


def timed(fn, *args) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    tiles = full_set()
    samples = []
    for _ in range(20000):
        rng.shuffle(tiles)
        samples.append(to_counts(tiles[:13]))

    def ours() -> None:
        for c in samples:
            completing_tiles(c, 0)

    def reference() -> None:
        for c in samples:
            naive_waits(c)

    ours()  # warm the per-suit tables, as a running server has them
    t_ref = timed(reference)
    t_ours = timed(ours)
    print(f"waits: reference {t_ref:.3f}s, ours {t_ours:.3f}s, speed-up x{t_ref / t_ours:.1f}")

    options = guiyang.GuiyangOptions()

    def play() -> None:
        for i in range(args.hands):
            prng = random.Random(i)
            state = guiyang.deal(options, f"bench-{i}")
            while not state.ended:
                if guiyang.claims_decided(state):
                    state, _ = guiyang.resolve_claims(state)
                    continue
                seat = guiyang.acting_seats(state)[0]
                legal = guiyang.legal_actions(state, seat)
                wins = [a for a in legal if a.kind in ("win", "self_draw")]
                state, _ = guiyang.apply(state, seat, wins[0] if wins else prng.choice(legal))
            guiyang.settle(state)

    t_play = timed(play)
    per_hand_ref = t_ref / len(samples)
    print(
        f"hands: {args.hands / t_play:.0f} hands/s; one hand costs "
        f"{t_play / args.hands / per_hand_ref:.0f} reference wait searches"
    )

    honour_hands(rng)
    jintan_hands(args.hands)


def honour_hands(rng: random.Random) -> None:
    try:
        from mahjong.shanten import Shanten
    except ImportError:
        print("shanten with honours: the `mahjong` package is not installed, skipped")
        return
    tiles = [t for t in full_set() for _ in range(1)] + [
        f"{r}z" for r in range(1, 8) for _ in range(4)
    ]
    samples = []
    for _ in range(5000):
        rng.shuffle(tiles)
        samples.append(to_counts(tiles[:13], HAND_KINDS))
    reference = Shanten()
    for c in samples[:200]:  # warm our tables as a running server has them
        shanten(c)
    t_ref = timed(lambda: [reference.calculate_shanten(c, use_kokushi=False) for c in samples])
    t_ours = timed(lambda: [shanten(c) for c in samples])
    differ = sum(
        shanten(c) != reference.calculate_shanten(c, use_kokushi=False)
        for c in samples
        if max(c) <= 2
    )
    print(
        f"shanten with honours: mahjong {t_ref:.3f}s, ours {t_ours:.3f}s, "
        f"ratio x{t_ref / t_ours:.1f}; disagreements on hands without a triplet: {differ}"
    )


def jintan_hands(count: int) -> None:
    options = jintan.JintanOptions()

    def play() -> None:
        for i in range(count):
            state = jintan.deal(options, f"bench-{i}", i % 4)
            while not state.ended:
                if jintan.claims_decided(state):
                    state, _ = jintan.resolve_claims(state)
                    continue
                seat = jintan.acting_seats(state)[0]
                state, _ = jintan.apply(state, seat, choose_action(state, seat))
            jintan.settle(state)

    t_play = timed(play)
    print(f"jintan hands (bots): {count / t_play:.0f} hands/s")


if __name__ == "__main__":
    main()
