"""花, 番, points and the settlement of a Jintan hand (spec/jintan.md §J4-§J8)."""

from __future__ import annotations

from dataclasses import dataclass

from ..hand import completing_tiles, is_all_triplets, is_sets_only, is_seven_pairs, is_standard
from ..tiles import NUM_KINDS, is_honour, suit_of, tile_name
from .state import Meld, State

Payment = dict[str, object]  # {"from", "to", "points", "reason", "detail"}
FAN_VALUES = {
    "hun_yi_se": 1,
    "dui_dui_hu": 1,
    "gang_kai": 1,
    "du_diao": 1,
    "qing_yi_se": 2,
    "qi_dui": 2,
}
MAX_FAN = 2  # the cap 封顶 = (底数 + 花) × 4 (§J6)


@dataclass(frozen=True)
class Score:
    """What one winner's hand is worth (§J5, §J6).

    ``hua`` lists ``(what, 花)`` items (``flower``, ``honour_pong``, ``honour_concealed_triplet``,
    ``honour_exposed_kong``, ``honour_added_kong``, ``honour_concealed_kong``, ``exposed_kong``,
    ``added_kong``, ``concealed_kong``: an added kong counts as exposed, named as the table
    names it)
    with the tile; ``fan`` the patterns (keys of `FAN_VALUES`); ``points`` = (base + 花 ×
    flower_value) × 2^番, capped at ×4 (``capped`` tells whether the cap applied).
    """

    hua: tuple[tuple[str, str, int], ...]
    fan: tuple[str, ...]
    base: int
    flower_value: int

    @property
    def hua_total(self) -> int:
        return sum(h for _, _, h in self.hua)

    @property
    def fan_total(self) -> int:
        return sum(FAN_VALUES[f] for f in self.fan)

    @property
    def capped(self) -> bool:
        return self.fan_total > MAX_FAN

    @property
    def unit(self) -> int:
        """底数 + 花数 × 花分值."""
        return self.base + self.hua_total * self.flower_value

    @property
    def points(self) -> int:
        return self.unit * 2 ** min(self.fan_total, MAX_FAN)

    @property
    def cap(self) -> int:
        return self.unit * 2**MAX_FAN

    def facts(self) -> dict[str, object]:
        """The payment's detail: 花 breakdown, 番 list, totals, the cap."""
        return {
            "hua": [{"what": w, "tile": t, "hua": h} for w, t, h in self.hua],
            "hua_total": self.hua_total,
            "fan": list(self.fan),
            "fan_total": self.fan_total,
            "base": self.base,
            "flower_value": self.flower_value,
            "capped": self.capped,
        }


def _meld_hua(meld: Meld) -> tuple[str, int] | None:
    """§J5 for an open set: honour pong 1, honour kong 3 (concealed 4), number kong 1 (2)."""
    honour = is_honour(meld.tiles[0])
    if meld.kind == "pong":
        return ("honour_pong", 1) if honour else None
    if meld.kind == "concealed_kong":
        return ("honour_concealed_kong", 4) if honour else ("concealed_kong", 2)
    if meld.kind == "added_kong":  # counted as exposed (§J5), named as the meld is (补杠)
        return ("honour_added_kong", 3) if honour else ("added_kong", 1)
    if meld.is_kong:
        return ("honour_exposed_kong", 3) if honour else ("exposed_kong", 1)
    return None


def hua_items(
    state: State, seat: int, counts: list[int] | None, win_tile: int | None, on_discard: bool
) -> list[tuple[str, str, int]]:
    """The 花 of ``seat``, §J5: its flowers, its open sets and, given the concealed
    ``counts`` of a complete hand (the winning tile included), its concealed honour triplets.

    A concealed honour triplet is worth 2, or 1 when the discarded winning tile completed it
    (decided in §J5); in seven pairs there are no triplets. ``counts`` None: flowers and open
    sets only (the eight-flower win, whose hand is not complete).
    """
    items = [("flower", tile_name(f), 1) for f in state.flowers[seat]]
    for meld in state.melds[seat]:
        got = _meld_hua(meld)
        if got is not None:
            items.append((got[0], tile_name(meld.tiles[0]), got[1]))
    if counts is not None and is_standard(counts):
        for k in range(NUM_KINDS, len(counts)):
            if counts[k] == 3:
                exposed = on_discard and k == win_tile
                items.append(
                    ("honour_pong", tile_name(k), 1)
                    if exposed
                    else ("honour_concealed_triplet", tile_name(k), 2)
                )
    return items


def _suit_fan(state: State, seat: int, counts: list[int]) -> list[str]:
    kinds = [k for k in range(len(counts)) if counts[k]]
    kinds += [k for m in state.melds[seat] for k in m.tiles]
    suits = {suit_of(k) for k in kinds if k < NUM_KINDS}
    honours = any(is_honour(k) for k in kinds)
    if len(suits) == 1 and not honours:
        return ["qing_yi_se"]
    if len(suits) <= 1 and honours:
        return ["hun_yi_se"]
    return []


def _waits(counts: list[int], melds: list[Meld]) -> list[int]:
    """Kinds completing 13 - 3 * melds concealed ``counts``, less those whose four copies the
    seat holds itself (§6.3 of Guiyang, as §J applies it)."""
    own = list(counts)
    for m in melds:
        for k in m.tiles:
            own[k] += 1
    return [k for k in completing_tiles(counts, len(melds)) if own[k] < 4]


def _du_diao(counts: list[int], melds: list[Meld], win_tile: int) -> bool:
    """§J6 独吊: ``win_tile`` completed the pair and was the hand's only wait."""
    before = list(counts)
    before[win_tile] -= 1
    pair_rest = list(counts)
    pair_rest[win_tile] -= 2
    return (
        pair_rest[win_tile] >= 0 and is_sets_only(pair_rest) and _waits(before, melds) == [win_tile]
    )


def fan_items(
    state: State, seat: int, counts: list[int], win_tile: int | None, kind: str
) -> list[str] | None:
    """The 番 patterns of a complete hand (§J6), or None if ``counts`` (winning tile included)
    plus the seat's melds is not a winning shape. Standard and seven-pairs readings are both
    tried and the higher one kept. ``win_tile`` None: the dealer's dealt 14 (Guiyang §3, as
    §J applies it), which won on no one tile, so it has no 独吊."""
    melds = state.melds[seat]
    readings: list[list[str]] = []
    suit = _suit_fan(state, seat, counts)
    extra = ["gang_kai"] if kind == "gang_kai" else []
    if is_standard(counts) and sum(counts) == 14 - 3 * len(melds):
        fan = list(suit)
        if is_all_triplets(counts) and all(m.kind != "chow" for m in melds):
            fan.append("dui_dui_hu")
        if win_tile is not None and _du_diao(counts, melds, win_tile):
            fan.append("du_diao")
        readings.append(fan + extra)
    if not melds and is_seven_pairs(counts):
        readings.append(["qi_dui", *suit, *extra])
    if not readings:
        return None
    return max(readings, key=lambda f: sum(FAN_VALUES[x] for x in f))


def score(
    state: State, seat: int, counts: list[int], win_tile: int | None, kind: str
) -> Score | None:
    """The `Score` of ``seat`` winning with concealed ``counts`` (winning tile included) by
    ``kind`` (``zi_mo``, ``gang_kai``, ``dian_pao``, ``qiang_gang``); None if incomplete.
    ``win_tile`` None: the dealer's dealt 14, a self-draw (see `fan_items`)."""
    fan = fan_items(state, seat, counts, win_tile, kind)
    if fan is None:
        return None
    on_discard = kind in ("dian_pao", "qiang_gang")
    hua = hua_items(state, seat, counts, win_tile, on_discard)
    opts = state.options
    return Score(tuple(hua), tuple(fan), opts.base, opts.flower_value)


def next_dealer(state: State) -> int:
    """§J8: the dealer keeps the deal by winning (also with others) or in 黄庄; otherwise
    the next seat deals."""
    if state.result == "huang_zhuang" or state.dealer in state.winners:
        return state.dealer
    return (state.dealer + 1) % state.players


def settle(state: State) -> dict[str, object] | None:
    """Itemised settlement of an ended hand, or None while it is being played (§J7).

    Returns a JSON-able dict with the keys Guiyang's settlement has where they apply:
    ``result``, ``winners``, ``win_kind``, ``loser``, ``hand_types`` ({seat: "qi_dui" or
    "standard"}), ``deltas`` (sum 0), ``ready`` (the winners), ``chickens`` ([]), ``turned``
    (None), ``next_dealer``, ``payments`` (``{"from", "to", "points", "reason": "hu",
    "detail"}`` with the 花 and 番 of `Score.facts`), ``flowers`` (per seat), ``seed``,
    ``hands`` (every seat's concealed tiles, revealed now) and ``melds`` (every seat's, as in
    its view). A 黄庄 pays nothing.
    """
    if not state.ended:
        return None
    n = state.players
    payments: list[Payment] = []
    hand_types: dict[str, str] = {}
    kind = state.win_kind
    for w in state.winners if state.result == "win" else []:
        counts = state.hands[w]
        if kind == "ba_hua":  # eight flowers: a self-draw at the cap (§J2)
            hua = tuple(hua_items(state, w, None, None, False))
            s = Score(hua, (), state.options.base, state.options.flower_value)
            each = s.cap
            hand_types[str(w)] = "ba_hua"
        else:
            got = score(state, w, counts, state.win_tile, kind or "zi_mo")
            assert got is not None, "a winner's hand is complete"
            s = got
            each = s.points
            hand_types[str(w)] = "qi_dui" if "qi_dui" in s.fan else "standard"
        detail = {
            "win": kind,
            "tile": tile_name(state.win_tile) if state.win_tile is not None else None,
            **s.facts(),
        }
        if kind == "ba_hua":
            detail["capped"] = True  # paid at the cap whatever its 番 (§J2)
        if kind in ("zi_mo", "gang_kai", "ba_hua"):
            payers = {p: each for p in range(n) if p != w}
        else:
            assert state.loser is not None
            payers = {state.loser: each * 3 if kind == "qiang_gang" else each}
        for p, points in payers.items():
            payments.append(
                {"from": p, "to": w, "points": points, "reason": "hu", "detail": detail}
            )
    deltas = [0] * n
    for line in payments:
        src, dst, pts = line["from"], line["to"], line["points"]
        assert isinstance(src, int) and isinstance(dst, int) and isinstance(pts, int)
        deltas[src] -= pts
        deltas[dst] += pts
    return {
        "result": state.result,
        "winners": list(state.winners),
        "win_kind": kind,
        "loser": state.loser,
        "hand_types": hand_types,
        "deltas": deltas,
        "ready": sorted(state.winners),
        "chickens": [],
        "turned": None,
        "next_dealer": next_dealer(state),
        "burned": [],
        "payments": payments,
        "flowers": [[tile_name(f) for f in fl] for fl in state.flowers],
        "seed": state.seed,
        "hands": [[tile_name(k) for k in range(len(h)) for _ in range(h[k])] for h in state.hands],
        "melds": [[m.to_dict() for m in ms] for ms in state.melds],
    }
