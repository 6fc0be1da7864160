"""Hand types, readiness and the settlement of a finished hand (spec/guiyang.md §6-§12)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..hand import completing_tiles, is_all_triplets, is_seven_pairs, is_standard
from ..tiles import NUM_KINDS, YAO_JI, suit_of, tile_name
from .options import HAND_TYPES, dou_points, hand_type_values
from .state import DOU_KINDS, Meld, State

Payment = dict[str, object]  # {"from", "to", "points", "reason", "detail"}


def hand_type(counts: list[int], melds: list[Meld], values: dict[str, int]) -> str | None:
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
    if holds_void(state, seat):
        return []
    counts = state.hands[seat]
    melds = state.melds[seat]
    if sum(counts) != 13 - 3 * len(melds):
        return []
    void = state.ding_que[seat]
    result = []
    for k in completing_tiles(counts, len(melds)):
        own = counts[k] + sum(m.size for m in melds if m.tile == k)
        if own < 4 and suit_of(k) != void:
            result.append(k)
    return result


def ready_value(state: State, seat: int) -> int:
    """The highest hand-type value over the seat's waits (§6.3); 0 when not ready."""
    values = hand_type_values(state.options)
    best = 0
    counts = list(state.hands[seat])
    for k in waits(state, seat):
        counts[k] += 1
        t = hand_type(counts, state.melds[seat], values)
        counts[k] -= 1
        if t is not None:
            best = max(best, values[t])
    return best


def is_ready(state: State, seat: int) -> bool:
    """True if the seat is ready (§6.3) with its current 13 - 3 * melds concealed tiles."""
    return bool(waits(state, seat))


def chicken_kinds(state: State) -> tuple[list[int], int | None, bool]:
    """The chicken tile kinds of a won hand (§9.3), the turned tile, and whether 金鸡 applies.

    Returns ``(kinds, turned, jin_ji)``: ``kinds`` always holds 1s; ``turned`` is the wall's
    front tile after the win, or None when the wall is empty (then only 幺鸡 counts).
    """
    kinds = {YAO_JI}
    turned: int | None = None
    jin = False
    if state.wall_count > 0:
        turned = state.wall[state.front]
        base = suit_of(turned) * 9
        rank = turned - base
        turned_chickens = (
            {base + (rank - 1) % 9, base + (rank + 1) % 9}
            if state.options.yao_bai_ji
            else {base + (rank + 1) % 9}
        )
        jin = YAO_JI in turned_chickens
        kinds |= turned_chickens
    return sorted(kinds), turned, jin


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
            value += 1
            extras.append("zi_mo")
        if kind in ("gang_kai", "re_pao"):
            value += 1
            extras.append(kind)
        if state.bao_ting[w]:
            value += 10
            extras.append("ruan_bao")
        others = [p for p in range(n) if p != w]
        if kind in ("zi_mo", "gang_kai"):
            payers = {p: value + _streak_bonus(state, w, p) for p in others}
        else:
            assert state.loser is not None
            loser = state.loser
            once = value + _streak_bonus(state, w, loser)
            payers = {loser: once * (n - 1) if kind == "qiang_gang" else once}
        for p, points in payers.items():
            ledger.pay(
                p,
                w,
                points,
                "hu",
                hand_type=htype,
                win=kind,
                fan=values[htype],
                extras=extras,
                streak=_streak_bonus(state, w, p),
                tile=tile_name(state.win_tile) if state.win_tile is not None else None,
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


def _chicken_payments(
    state: State, ready: set[int], ledger: _Ledger
) -> tuple[list[int], int | None]:
    """§9.3: 普通鸡, 冲锋鸡, 责任鸡 and the 包鸡 of seats not ready."""
    kinds, turned, jin = chicken_kinds(state)
    chicken = set(kinds)
    n = state.players

    def value(k: int) -> int:
        return 2 if jin and k == YAO_JI else 1

    cfj_seat, cfj_index = None, None
    if state.first_yao_ji is not None:
        s, i = state.first_yao_ji
        if not state.discards[s][i].claimed:
            cfj_seat, cfj_index = s, i
    cfj_value = 4 if jin else 2
    man_tang = state.options.man_tang_ji

    for seat in range(n):
        river = [
            d.tile
            for i, d in enumerate(state.discards[seat])
            if not d.claimed and not (seat == cfj_seat and i == cfj_index)
        ]
        meld_tiles = [m.tile for m in state.melds[seat] for _ in range(m.size)]
        if seat in ready:
            held = [k for k in range(27) for _ in range(state.hands[seat][k])] + meld_tiles
            if man_tang:
                held += river
            for k in held:
                if k in chicken:
                    for p in range(n):
                        ledger.pay(
                            p, seat, value(k), "ji", tile=tile_name(k), jin=jin and k == YAO_JI
                        )
            if seat == cfj_seat:
                for p in range(n):
                    ledger.pay(p, seat, cfj_value, "chong_feng_ji", jin=jin)
        else:
            # 包鸡: a seat that is not ready pays for its open 幺鸡 (source 003).
            for k in river + meld_tiles:
                if k == YAO_JI:
                    for r in sorted(ready):
                        ledger.pay(seat, r, value(k), "ji", tile="1s", bao_ji=True, jin=jin)
            if seat == cfj_seat:
                for r in sorted(ready):
                    ledger.pay(seat, r, cfj_value, "chong_feng_ji", bao_ji=True, jin=jin)
    if state.ze_ren is not None:
        a, b = state.ze_ren
        points = 4 if jin else 2
        if a in ready:
            ledger.pay(b, a, points, "ze_ren_ji", jin=jin)
        elif b in ready:
            ledger.pay(a, b, points, "ze_ren_ji", jin=jin)
    return kinds, turned


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
    (the seats in R, §9 / §12), ``chickens`` (tiles), ``turned`` (tile or None),
    ``next_dealer``, ``burned`` (seats), ``payments`` (``{"from", "to", "points",
    "reason", "detail"}`` lines whose sum per seat is ``deltas``), ``seed`` and ``hands``
    (every seat's concealed tiles, revealed now). Implements §9-§12.
    """
    if not state.ended:
        return None
    n = state.players
    ledger = _Ledger(state.options.base_points)
    hand_types: dict[int, str] = {}
    chickens: list[int] = []
    turned: int | None = None
    if state.result == "win":
        ready = set(state.winners) | {s for s in range(n) if is_ready(state, s)}
        hand_types = _win_payments(state, ledger)
        _dou_payments(state, ready, ledger)
        chickens, turned = _chicken_payments(state, ready, ledger)
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
                value = ready_value(state, r)
                for p in range(n):
                    if p not in ready:
                        ledger.pay(
                            p,
                            r,
                            value + _streak_bonus(state, p, r),
                            "cha_jiao",
                            ready_value=value,
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
        "chickens": [tile_name(k) for k in chickens],
        "turned": tile_name(turned) if turned is not None else None,
        "next_dealer": next_dealer(state),
        "burned": sorted(state.burned),
        "payments": ledger.lines,
        "seed": state.seed,
        "hands": [[tile_name(k) for k in range(27) for _ in range(h[k])] for h in state.hands],
    }
