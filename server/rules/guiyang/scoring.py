"""Hand types, readiness and the settlement of a finished hand (spec/guiyang.md §6-§12)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from ..hand import completing_tiles, is_all_triplets, is_seven_pairs, is_standard, shanten
from ..tiles import NUM_KINDS, WU_GU_JI, YAO_JI, suit_of, tile_index, tile_name
from .options import HAND_TYPES, GuiyangOptions, dou_points, hand_type_values
from .state import DOU_KINDS, Meld, State

Payment = dict[str, object]  # {"from", "to", "points", "reason", "detail"}


def hand_type(counts: list[int], melds: Sequence[Meld], values: dict[str, int]) -> str | None:
    """The single highest-valued hand type (§6.2) of a complete hand, or None if incomplete.

    ``counts`` are the concealed tiles including the winning tile; ``values`` the 番 table.
    """
    nm = len(melds)
    if sum(counts) != 14 - 3 * nm:
        return None
    suits = {suit_of(k) for k in range(NUM_KINDS) if counts[k]} | {suit_of(m.tile) for m in melds}
    qing = len(suits) == 1
    found: list[str] = []
    if is_standard(counts):
        if nm == 4:
            found.append("qing_dan_diao" if qing else "dan_diao")
        if is_all_triplets(counts):
            found.append("qing_da_dui" if qing else "da_dui_zi")
        found.append("qing_yi_se" if qing else "ping_hu")
    if nm == 0 and is_seven_pairs(counts):
        long = any(c == 4 for c in counts)
        if qing:
            found.append("qing_long_bei" if long else "qing_qi_dui")
        else:
            found.append("long_qi_dui" if long else "qi_dui")
    if not found:
        return None
    return max(found, key=lambda t: (values[t], HAND_TYPES.index(t)))


def holds_void(state: State, seat: int) -> bool:
    """True if the seat holds a concealed tile of its void suit (§11)."""
    void = state.ding_que[seat]
    return void is not None and any(state.hands[seat][void * 9 : void * 9 + 9])


def waits(state: State, seat: int) -> list[int]:
    """Kinds that would complete the seat's hand of 13 - 3 * melds tiles (§6.3).

    Empty while the seat holds a void-suit tile; a kind whose four copies are all in the
    seat's own hand and melds is not a wait; nor is a kind of the void suit.
    """
    return waits_of(state.hands[seat], state.melds[seat], state.ding_que[seat])


def waits_of(counts: list[int], melds: Sequence[Meld], void: int | None) -> list[int]:
    """`waits` of concealed ``counts`` with ``melds`` and void suit ``void`` (0..2 or None)."""
    return list(hand_waits(tuple(counts), tuple((m.tile, m.size) for m in melds), void))


@lru_cache(maxsize=65536)
def hand_waits(
    counts: tuple[int, ...], melds: tuple[tuple[int, int], ...], void: int | None
) -> tuple[int, ...]:
    """`waits_of` for a hand's counts, melds (tile, size) and void suit: a seat's hand is
    looked at after every change of the table (each view, legality), but changes only on
    its own turns."""
    if void is not None and any(counts[void * 9 : void * 9 + 9]):
        return ()
    if sum(counts) != 13 - 3 * len(melds):
        return ()
    result = []
    for k in completing_tiles(list(counts), len(melds)):
        own = counts[k] + sum(size for tile, size in melds if tile == k)
        if own < 4 and suit_of(k) != void:
            result.append(k)
    return tuple(result)


class TileCounts(Protocol):
    """Copies per tile kind (``counts[kind]``): a list, or one counted at its first look."""

    def __getitem__(self, kind: int, /) -> int: ...


def unseen_copies(held: Sequence[int], seen: TileCounts, kind: int) -> int:
    """Copies of tile ``kind`` a seat cannot see: 4 less those in its concealed ``held``
    counts and those open on the table (``seen``: every meld and unclaimed river tile), at
    least 0 (§6.3's 听牌提示 counts)."""
    return max(0, 4 - held[kind] - seen[kind])


def hint_table(
    found: tuple[tuple[int, tuple[int, ...]], ...], held: Sequence[int], seen: TileCounts
) -> dict[str, list[list[object]]]:
    """听牌提示 (出牌提示) for a seat about to discard (§6.3), from ``found`` (`hint_waits` of
    its hand): each tile kind whose discard would leave it ready -> ``[[wait tile, unseen
    copies], ...]`` (waits sorted). ``held``: the seat's concealed counts; ``seen[k]``:
    copies of kind k open on the table (`unseen_copies` counts the rest against the seat's
    own hand of 14 - 3 * melds tiles; the discarded tile lands in its own river, so the
    count holds after the discard too). Empty when ``found`` is."""
    return {
        tile_name(k): [[tile_name(w), unseen_copies(held, seen, w)] for w in ws] for k, ws in found
    }


@lru_cache(maxsize=16384)
def hint_waits(
    counts: tuple[int, ...], melds: tuple[tuple[int, int], ...], void: int | None
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(discard kind, its waits) of `hint_table`, for a hand's counts, melds (tile, size) and
    void suit (0..2 or None): each kind whose discard leaves the hand ready; empty unless the
    hand holds 14 - 3 * melds tiles one from ready."""
    hand = list(counts)
    if sum(hand) != 14 - 3 * len(melds) or shanten(hand, len(melds)) > 0:
        return ()  # more than one tile from ready: no discard leaves it ready (most turns)
    shaped = [Meld("pong" if size == 3 else "men_dou", tile) for tile, size in melds]
    out = []
    for k in range(NUM_KINDS):
        if not hand[k]:
            continue
        hand[k] -= 1
        found = waits_of(hand, shaped, void)
        hand[k] += 1
        if found:
            out.append((k, tuple(found)))
    return tuple(out)


def ready_value(state: State, seat: int) -> int:
    """The highest hand-type value over the seat's waits (§6.3); 0 when not ready."""
    return ready_best(state, seat)[0]


def ready_best(state: State, seat: int) -> tuple[int, str | None]:
    """``(value, hand type id)`` of the best hand the seat waits for (§6.3; the first wait
    in tile order among equals), shown with 查叫 (§12); ``(0, None)`` when not ready."""
    values = hand_type_values(state.options)
    best: tuple[int, str | None] = (0, None)
    counts = list(state.hands[seat])
    for k in waits(state, seat):
        counts[k] += 1
        t = hand_type(counts, state.melds[seat], values)
        counts[k] -= 1
        if t is not None and values[t] > best[0]:
            best = (values[t], t)
    return best


def is_ready(state: State, seat: int) -> bool:
    """True if the seat is ready (§6.3) with its current 13 - 3 * melds concealed tiles."""
    return bool(waits(state, seat))


FIVE_DOTS = tile_index("5p")  # 吹风鸡's tile (§9.6)


@dataclass(frozen=True)
class Chickens:
    """The chickens of a won hand (§9.3, §9.6).

    ``values``: tile kind -> points one such tile is worth (a kind that is a chicken for
    several reasons counts once, at its highest value; 金 already applied). ``reasons``: kind
    -> the chicken kinds that make it one (``yao_ji``, ``wu_gu_ji``, ``fan_pai_ji``, ``ben_ji``,
    ``xing_qi_ji``), highest value first. ``golden``: kinds worth double (金鸡 for 1s, 金乌骨
    for 8p). ``turned``: the tile turned over, or None when the wall was empty. ``blown``:
    吹风鸡 voided every chicken (``values`` is then empty).
    """

    values: dict[int, int]
    reasons: dict[int, tuple[str, ...]]
    golden: frozenset[int]
    turned: int | None
    blown: bool

    def value(self, kind: int) -> int:
        """Points of one tile of ``kind`` (0 if it is no chicken)."""
        return self.values.get(kind, 0)


def own_chickens(options: GuiyangOptions) -> tuple[int, ...]:
    """The tiles that are chickens by their own kind: 1s, and 8p with 乌骨鸡 (§9.3, §9.6).
    Their first discard is a 冲锋鸡 or 责任鸡, a seat not ready pays for their open copies
    (包鸡), and they turn golden when also a turned chicken."""
    return (YAO_JI, WU_GU_JI) if options.wu_gu_ji else (YAO_JI,)


# Base value of one tile per chicken reason (§9.3, §9.6), before 金.
_CHICKEN_BASE = {"wu_gu_ji": 2, "yao_ji": 1, "fan_pai_ji": 1, "ben_ji": 1, "xing_qi_ji": 1}


def chickens_of(state: State) -> Chickens:
    """Which tiles are chickens in a won hand and what each is worth (§9.3, §9.6).

    1s always; the tile after the turned one (both neighbours under 摇摆鸡) when the wall
    still has a tile; with 乌骨鸡 8p (2); with 本鸡 the turned tile itself; with 星期鸡 the
    three tiles of the weekday's rank. 1s is golden (2) when it is also a turned chicken, 8p
    (4) likewise. With 吹风鸡 a turned 5p voids them all.
    """
    opts = state.options
    turned: int | None = state.wall[state.front] if state.wall_count > 0 else None
    if opts.chui_feng_ji and turned == FIVE_DOTS:
        return Chickens({}, {}, frozenset(), turned, blown=True)
    reasons: dict[int, list[str]] = defaultdict(list)
    for kind in own_chickens(opts):
        reasons[kind].append("wu_gu_ji" if kind == WU_GU_JI else "yao_ji")
    turned_chickens: set[int] = set()
    if turned is not None:
        base = suit_of(turned) * 9
        rank = turned - base
        steps = (-1, 1) if opts.yao_bai_ji else (1,)
        for step in steps:
            kind = base + (rank + step) % 9
            turned_chickens.add(kind)
            reasons[kind].append("fan_pai_ji")
        if opts.ben_ji:
            turned_chickens.add(turned)
            reasons[turned].append("ben_ji")
    if opts.xing_qi_ji and state.weekday is not None:
        for suit in range(3):
            reasons[suit * 9 + state.weekday - 1].append("xing_qi_ji")
    golden = frozenset(k for k in own_chickens(opts) if k in turned_chickens)
    values: dict[int, int] = {}
    ordered: dict[int, tuple[str, ...]] = {}
    for kind, why in reasons.items():
        ranked = sorted(why, key=lambda r: -_CHICKEN_BASE[r])
        ordered[kind] = tuple(ranked)
        value = _CHICKEN_BASE[ranked[0]]
        if kind in golden:
            value = 2 * _CHICKEN_BASE["wu_gu_ji" if kind == WU_GU_JI else "yao_ji"]
        values[kind] = value
    return Chickens(values, ordered, golden, turned, blown=False)


def next_dealer(state: State) -> int:
    """The dealer of the next hand (§10.3, §12)."""
    n = state.players
    if state.result == "win":
        if len(state.winners) == 1:
            return state.winners[0]
        if len(state.winners) == 2:
            return min(state.winners, key=lambda w: (w - state.dealer) % n)
        assert state.loser is not None
        return state.loser
    ready = [s for s in range(n) if is_ready(state, s)]
    if len(ready) == n - 1:
        return next(s for s in range(n) if s not in ready)
    if state.dealer in ready:
        return state.dealer
    if not ready:
        return state.dealer
    return (state.dealer + 1) % n


class _Ledger:
    """Collects payment lines; points are multiplied by ``base_points`` as they are added."""

    def __init__(self, base_points: int) -> None:
        self.base = base_points
        self.lines: list[Payment] = []

    def pay(self, src: int, dst: int, points: int, reason: str, **detail: object) -> None:
        if points and src != dst:
            self.lines.append(
                {
                    "from": src,
                    "to": dst,
                    "points": points * self.base,
                    "reason": reason,
                    "detail": detail,
                }
            )


def _streak_bonus(state: State, a: int, b: int) -> int:
    """连庄 +N on a payment between the dealer and another seat (§10.2)."""
    if state.options.scoring == "lian_zhuang" and state.dealer in (a, b):
        return state.dealer_streak
    return 0


#: The win extras' values (§8.1 自摸, §8.3 杠开 / 热炮, §8.5 软报), in 底分.
EXTRA_POINTS = {"zi_mo": 1, "gang_kai": 1, "re_pao": 1, "ruan_bao": 10}


def _win_payments(state: State, ledger: _Ledger) -> dict[int, str]:
    """§9.1 hu, §8.5 ying_bao / sha_bao. Returns winner -> hand type."""
    n = state.players
    values = hand_type_values(state.options)
    kind = state.win_kind
    self_draw = kind in ("zi_mo", "gang_kai", "qiang_gang")
    types: dict[int, str] = {}
    for w in state.winners:
        htype = hand_type(state.hands[w], state.melds[w], values)
        assert htype is not None, "a winner's hand is complete"
        types[w] = htype
        value = values[htype]
        extras: list[str] = []
        if self_draw and state.options.scoring != "yi_kou_san":
            value += EXTRA_POINTS["zi_mo"]
            extras.append("zi_mo")
        if kind in ("gang_kai", "re_pao"):
            value += EXTRA_POINTS[kind]
            extras.append(kind)
        if state.bao_ting[w]:
            value += EXTRA_POINTS["ruan_bao"]
            extras.append("ruan_bao")
        others = [p for p in range(n) if p != w]
        if kind in ("zi_mo", "gang_kai"):
            payers = {p: value + _streak_bonus(state, w, p) for p in others}
        else:
            assert state.loser is not None
            loser = state.loser
            once = value + _streak_bonus(state, w, loser)
            payers = {loser: once * (n - 1) if kind == "qiang_gang" else once}
        # What the value is made of, in 底分 (the ledger multiplies by base_points):
        # points = (sum of the parts) * times; times is n - 1 for 抢杠 (包三家, §8.4).
        base_parts = [(htype, values[htype])] + [(e, EXTRA_POINTS[e]) for e in extras]
        times = n - 1 if kind == "qiang_gang" else 1
        for p, points in payers.items():
            streak = _streak_bonus(state, w, p)
            parts = base_parts + ([("lian_zhuang", streak)] if streak else [])
            assert sum(v for _, v in parts) * times == points
            ledger.pay(
                p,
                w,
                points,
                "hu",
                hand_type=htype,
                win=kind,
                fan=values[htype],
                extras=extras,
                streak=streak,
                tile=tile_name(state.win_tile) if state.win_tile is not None else None,
                parts=[[name, v] for name, v in parts],
                times=times,
            )
        if state.ying_bao:
            for p in others:
                ledger.pay(p, w, 20, "ying_bao")
        if (
            kind in ("dian_pao", "re_pao")
            and state.loser is not None
            and state.bao_ting[state.loser]
        ):
            ledger.pay(state.loser, w, 10, "sha_bao")
    return types


def _dou_payments(state: State, ready: set[int], ledger: _Ledger) -> None:
    """§9.2: 豆 of seats in R (burned seats are filtered later)."""
    points = dou_points(state.options)
    for seat in sorted(ready):
        for meld in state.melds[seat]:
            if meld.kind not in DOU_KINDS:
                continue
            tile = tile_name(meld.tile)
            if meld.kind == "ming_dou":
                assert meld.from_seat is not None
                ledger.pay(
                    meld.from_seat, seat, points["ming_dou"], "dou", kind="ming_dou", tile=tile
                )
            else:
                for p in range(state.players):
                    ledger.pay(p, seat, points[meld.kind], "dou", kind=meld.kind, tile=tile)


def _chicken_payments(state: State, ready: set[int], ledger: _Ledger) -> Chickens:
    """§9.3, §9.6: 普通鸡, 冲锋鸡, 责任鸡 and the 包鸡 of seats not ready.

    The first 1s (and, with 乌骨鸡, the first 8p) discarded and not claimed is its
    discarder's 冲锋鸡, worth twice the tile; claimed by a pong or kong it is a 责任鸡 of the
    same worth between the two seats. A seat not ready pays each ready seat for its open
    1s / 8p and its 冲锋鸡 (包鸡). Each line's detail names the tile, the chicken kind and 金,
    and a ``ji`` line where the tile lies (``at``: ``"hand"``, ``"meld"`` or ``"river"``, the
    last with 满堂鸡 or for 包鸡)."""
    chickens = chickens_of(state)
    if chickens.blown:
        return chickens
    n = state.players
    first_kinds = own_chickens(state.options)
    cfj: list[tuple[int, int, int]] = []  # 冲锋鸡: (seat, river index, kind)
    for kind in first_kinds:
        first = state.first_discards.get(kind)
        if first is not None and not state.discards[first[0]][first[1]].claimed:
            cfj.append((first[0], first[1], kind))
    cfj_at = {(seat, i) for seat, i, _ in cfj}

    def facts(kind: int) -> dict[str, object]:
        return {
            "tile": tile_name(kind),
            "kind": chickens.reasons[kind][0],
            "jin": kind in chickens.golden,
        }

    for seat in range(n):
        river = [
            d.tile
            for i, d in enumerate(state.discards[seat])
            if not d.claimed and (seat, i) not in cfj_at
        ]
        meld_tiles = [m.tile for m in state.melds[seat] for _ in range(m.size)]
        own_cfj = [kind for s, _, kind in cfj if s == seat]
        if seat in ready:
            held = [(k, "hand") for k in range(27) for _ in range(state.hands[seat][k])]
            held += [(k, "meld") for k in meld_tiles]
            if state.options.man_tang_ji:
                held += [(k, "river") for k in river]
            for k, at in held:
                if chickens.value(k):
                    for p in range(n):
                        ledger.pay(p, seat, chickens.value(k), "ji", at=at, **facts(k))
            for k in own_cfj:
                for p in range(n):
                    ledger.pay(p, seat, 2 * chickens.value(k), "chong_feng_ji", **facts(k))
        else:
            # 包鸡: a seat that is not ready pays for its open 1s / 8p (source 003).
            for k, at in [(k, "river") for k in river] + [(k, "meld") for k in meld_tiles]:
                if k in first_kinds:
                    for r in sorted(ready):
                        ledger.pay(seat, r, chickens.value(k), "ji", bao_ji=True, at=at, **facts(k))
            for k in own_cfj:
                for r in sorted(ready):
                    ledger.pay(
                        seat, r, 2 * chickens.value(k), "chong_feng_ji", bao_ji=True, **facts(k)
                    )
    for kind in first_kinds:
        if kind not in state.ze_ren:
            continue
        a, b = state.ze_ren[kind]
        points = 2 * chickens.value(kind)
        if a in ready:
            ledger.pay(b, a, points, "ze_ren_ji", **facts(kind))
        elif b in ready:
            ledger.pay(a, b, points, "ze_ren_ji", **facts(kind))
    return chickens


def _void_payments(state: State, ready: set[int], ledger: _Ledger, yuan_que: bool) -> None:
    """§9.4 查缺 (and, in a won hand, 原缺) for 三丁拐 / 二丁拐."""
    n = state.players
    for seat in range(n):
        void = state.ding_que[seat]
        if void is None:
            continue
        held = sum(state.hands[seat][void * 9 : void * 9 + 9])
        if held:
            for r in sorted(ready):
                ledger.pay(seat, r, held, "cha_que", suit="mps"[void], tiles=held)
        if yuan_que and not any(state.start_hands[seat][void * 9 : void * 9 + 9]):
            for p in range(n):
                ledger.pay(p, seat, 3, "yuan_que", suit="mps"[void])


def settle(state: State) -> dict[str, Any] | None:
    """Itemised settlement of an ended hand, or None while it is being played.

    Returns a JSON-able dict: ``result`` ("win" | "huang_zhuang"), ``winners`` (seats),
    ``hand_types`` ({seat as str: type id}), ``deltas`` (points per seat, sum 0), ``ready``
    (the seats in R, §9 / §12), ``chickens`` (tiles), ``chicken_values`` (``{"tile",
    "value", "kinds", "jin"}`` per chicken tile, §9.6), ``turned`` (tile or None),
    ``chui_feng`` (吹风鸡 voided the chickens), ``weekday`` (1..7 or None, 星期鸡),
    ``next_dealer``, ``burned`` (seats), ``payments`` (``{"from", "to", "points",
    "reason", "detail"}`` lines whose sum per seat is ``deltas``), ``seed``, ``hands``
    (every seat's concealed tiles, revealed now) and ``melds`` (every seat's, as in its
    view). Implements §9-§12.
    """
    if not state.ended:
        return None
    n = state.players
    ledger = _Ledger(state.options.base_points)
    hand_types: dict[int, str] = {}
    chickens: Chickens | None = None
    if state.result == "win":
        ready = set(state.winners) | {s for s in range(n) if is_ready(state, s)}
        hand_types = _win_payments(state, ledger)
        _dou_payments(state, ready, ledger)
        chickens = _chicken_payments(state, ready, ledger)
        _void_payments(state, ready, ledger, yuan_que=True)
        # §9.5: payments of 豆 and chickens to a burned seat are void.
        ledger.lines = [
            line
            for line in ledger.lines
            if not (
                line["to"] in state.burned
                and line["reason"] in ("dou", "ji", "chong_feng_ji", "ze_ren_ji")
            )
        ]
    else:
        ready = {s for s in range(n) if is_ready(state, s)}
        if 0 < len(ready) < n:
            for r in sorted(ready):
                value, kind = ready_best(state, r)
                for p in range(n):
                    if p not in ready:
                        ledger.pay(
                            p,
                            r,
                            value + _streak_bonus(state, p, r),
                            "cha_jiao",
                            ready_value=value,
                            ready_type=kind,
                            streak=_streak_bonus(state, p, r),
                        )
        _void_payments(state, ready, ledger, yuan_que=False)
    deltas = [0] * n
    totals: dict[tuple[int, int, str], int] = defaultdict(int)
    for line in ledger.lines:
        src, dst, pts = line["from"], line["to"], line["points"]
        assert isinstance(src, int) and isinstance(dst, int) and isinstance(pts, int)
        deltas[src] -= pts
        deltas[dst] += pts
        totals[(src, dst, str(line["reason"]))] += pts
    return {
        "result": state.result,
        "winners": list(state.winners),
        "win_kind": state.win_kind,
        "loser": state.loser,
        "hand_types": {str(w): t for w, t in hand_types.items()},
        "deltas": deltas,
        "ready": sorted(ready),
        "chickens": [tile_name(k) for k in sorted(chickens.values)] if chickens else [],
        "chicken_values": [
            {
                "tile": tile_name(k),
                "value": chickens.values[k],
                "kinds": list(chickens.reasons[k]),
                "jin": k in chickens.golden,
            }
            for k in sorted(chickens.values)
        ]
        if chickens
        else [],
        "turned": tile_name(chickens.turned) if chickens and chickens.turned is not None else None,
        "chui_feng": bool(chickens and chickens.blown),
        "weekday": state.weekday,
        "next_dealer": next_dealer(state),
        "burned": sorted(state.burned),
        "payments": ledger.lines,
        "seed": state.seed,
        "hands": [[tile_name(k) for k in range(27) for _ in range(h[k])] for h in state.hands],
        "melds": [[m.to_dict() for m in ms] for ms in state.melds],
    }
