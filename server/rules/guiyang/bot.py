"""The Guiyang bot policy: ``choose_action(state, seat)`` picks one of the legal actions.

Policy, in order (every choice is among ``legal_actions(state, seat)``; same state -> same action):
1. win (``self_draw`` or ``win``) whenever legal;
2. ``ding_que`` (§11): the suit with the fewest tiles in hand; ties: the suit whose tiles
   are worth least (fewest pairs and neighbours), then m, p, s;
3. while it holds a tile of its void suit, discard one of those first (singles before pairs,
   then 1m..9s order): a seat holding one can never be ready nor win (§11);
4. kong (own turn or claiming a discard) when it does not raise shanten;
5. pong when it lowers shanten (after the best discard that follows it);
6. on a claim, otherwise ``pass``;
7. on a turn, discard the tile whose removal leaves the lowest shanten; ties prefer isolated
   tiles, then terminals (1/9), then the fixed order 1m..9m, 1p..9p, 1s..9s. A bot never
   declares 报听.

Shanten is always counted without the void suit's tiles (they are thrown away anyway).
The bot reads only its own seat's ``view`` (its hand, drawn tile, melds and void suit), like
a player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..botkit import best_discard_shanten, isolated, turn_kong_keeps_shanten
from ..hand import shanten
from ..tiles import tile_index
from ..types import Action
from .engine import default_action, legal_actions, view

_SUITS = ("m", "p", "s")


def _counts(tiles: list[str]) -> list[int]:
    counts = [0] * 27
    for t in tiles:
        counts[tile_index(t)] += 1
    return counts


def _own_tiles(v: dict[str, Any]) -> list[str]:
    tiles = list(v.get("hand") or [])
    if v.get("drawn"):
        tiles.append(v["drawn"])
    return tiles


def _melds(v: dict[str, Any], seat: int) -> int:
    for s in v.get("seats", []):
        if s.get("seat") == seat:
            return len(s.get("melds") or [])
    return 0


def _void(v: dict[str, Any], seat: int) -> int | None:
    """The seat's void suit as a suit index 0..2 (m, p, s), None without 定缺."""
    for s in v.get("seats", []):
        if s.get("seat") == seat and s.get("ding_que"):
            return _SUITS.index(s["ding_que"])
    return None


def _suit_worth(counts: list[int], suit: int) -> int:
    """How much a suit's tiles help: pairs and tiles with a neighbour (two apart at most)."""
    base = suit * 9
    worth = 0
    for pos in range(9):
        c = counts[base + pos]
        if not c:
            continue
        if c >= 2:
            worth += c
        if any(0 <= pos + d < 9 and counts[base + pos + d] for d in (-2, -1, 1, 2)):
            worth += 1
    return worth


def choose_action(state: Any, seat: int, legal: Sequence[Action] | None = None) -> Action:
    """Return the bot's action for ``seat`` now; ``default_action`` if it has no legal action.

    ``legal``: ``seat``'s legal actions in ``state`` if the caller has them (else computed).
    """
    if legal is None:
        legal = legal_actions(state, seat)
    if not legal:
        return default_action(state, seat)
    for a in legal:
        if a.kind in ("self_draw", "win"):
            return a
    v: dict[str, Any] = view(state, seat, hints=False)  # no 听牌提示 / waits for a bot
    tiles = _own_tiles(v)
    counts = _counts(tiles)
    melds = _melds(v, seat)

    que = [a for a in legal if a.kind == "ding_que"]
    if que:
        by_suit = {s: sum(1 for t in tiles if t[1] == s) for s in _SUITS}

        def que_key(a: Action) -> tuple[int, int, int]:
            suit = _SUITS.index(a.suit or "m")
            return (by_suit.get(a.suit or "", 99), _suit_worth(counts, suit), suit)

        return min(que, key=que_key)

    void = _void(v, seat)
    if void is not None:  # §11: the void suit's tiles count for nothing
        counts[void * 9 : void * 9 + 9] = [0] * 9

    discards = [a for a in legal if a.kind == "discard" and not a.bao_ting]
    kongs = [a for a in legal if a.kind == "kong"]
    if discards and void is not None:
        voids = [a for a in discards if tile_index(a.tile or "") // 9 == void]
        if voids:
            full = _counts(tiles)
            return min(
                voids, key=lambda a: (full[tile_index(a.tile or "")], tile_index(a.tile or ""))
            )
    if discards:  # own turn: len(tiles) % 3 == 2
        now = best_discard_shanten(list(counts), melds)
        for k in kongs:
            if k.tile is None:
                continue
            i = tile_index(k.tile)
            if turn_kong_keeps_shanten(counts, melds, i, now):
                return k

        def key(a: Action) -> tuple[int, int, int, int]:
            i = tile_index(a.tile or "")
            counts[i] -= 1
            s = shanten(counts, melds)
            counts[i] += 1
            terminal = i % 9 in (0, 8)
            return (s, 0 if isolated(counts, i) else 1, 0 if terminal else 1, i)

        return min(discards, key=key)

    # A claim on a discard: the claimed tile is the last discard.
    last = v.get("last_discard") or {}
    tile = last.get("tile")
    if tile is not None:
        i = tile_index(tile)
        now = shanten(counts, melds)
        for k in kongs:
            after = list(counts)
            after[i] -= 3
            if after[i] >= 0 and shanten(after, melds + 1) <= now:
                return k
        for p in (a for a in legal if a.kind == "pong"):
            after = list(counts)
            after[i] -= 2
            if after[i] >= 0 and best_discard_shanten(after, melds + 1) < now:
                return p
    for a in legal:
        if a.kind == "pass":
            return a
    return default_action(state, seat)
