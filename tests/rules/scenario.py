"""Build Guiyang hands for unit tests from the tiles that matter, and play them.

`build` takes the hands a test cares about (the others are filled with scattered tiles that
can neither pong, kong nor win), the front of the wall in draw order and the kong
replacements in draw order; the rest of the 108 tiles fill the middle of the wall in sorted
order, so every scenario is deterministic. `play` runs fixture-form actions with the
implicit passes of `server.rules.replay.run_hand`, and ``[seat, "discard_drawn"]``
discards the tile that seat just drew (摸打).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from server.rules import guiyang
from server.rules.guiyang import Action, GuiyangOptions, State
from server.rules.hand import shanten
from server.rules.replay import close_window, parse_action
from server.rules.tiles import TILE_NAMES, full_set, parse_tiles, tile_name, to_counts

# Filler hands take one tile of each kind in this order: single tiles two apart at most
# form no pair, so a filler seat can never pong, kong or win; 1s (幺鸡) is never used.
_SCATTER = [f"{r}{s}" for r in (2, 6, 9, 4, 8, 3, 7, 5, 1) for s in "mps" if f"{r}{s}" != "1s"]


def _filler(pool: Counter[str], given: list[str], size: int) -> list[str]:
    """``given`` completed to ``size`` tiles with kinds it does not hold yet."""
    picked = [t for t in _SCATTER if pool[t] > 0 and t not in given][: size - len(given)]
    assert len(given) + len(picked) == size, "not enough distinct tiles left for a filler hand"
    for t in picked:
        pool[t] -= 1
    hand = given + picked
    assert shanten(to_counts(hand)) >= 2, f"filler hand {hand} is too close to ready"
    return hand


def build(
    hands: Sequence[str | None],
    wall: str = "",
    back: str = "",
    *,
    dealer: int = 0,
    streak: int = 1,
    weekday: int | None = None,
    **options: Any,
) -> State:
    """A new hand with the given tiles.

    ``hands[i]`` is seat i's tiles; None is a filler hand, and a string ending in ``+`` is
    those tiles completed with filler (13 tiles, the dealer 14). ``wall`` is the first tiles
    drawn, in order; ``back`` the kong replacement tiles in the order they are drawn (with
    no kong, ``back[0]`` is the last tile of the wall); ``weekday`` the hand's weekday for
    星期鸡. Options are keyword arguments.
    """
    opts = GuiyangOptions(**{"players": len(hands), **options})
    pool = Counter(full_set())
    given = [parse_tiles((h or "").rstrip("+")) for h in hands]
    partial = [h is None or h.rstrip().endswith("+") for h in hands]
    front, rear = parse_tiles(wall), parse_tiles(back)
    for tiles in [*given, front, rear]:
        pool.subtract(tiles)
    assert all(v >= 0 for v in pool.values()), {k: v for k, v in pool.items() if v < 0}
    full = [
        _filler(pool, g, 14 if seat == dealer else 13) if partial[seat] else g
        for seat, g in enumerate(given)
    ]
    middle = [t for t in TILE_NAMES for _ in range(pool[t])]
    wall_tiles = front + middle + rear[::-1]
    return guiyang.new_hand(opts, full, wall_tiles, dealer, streak, weekday=weekday)


def play(state: State, actions: Sequence[Sequence[Any]]) -> State:
    """Apply fixture-form actions and return the final state.

    Like `server.rules.replay.run_hand`: before an action that is not an answer to the open
    claim window, every seat still owing an answer passes. Unlike it, a window still open
    after the last action stays open while some seat still owes an answer, so a test can
    look at the claims; a decided window is closed, as the room closes it. Also accepts
    ``[seat, "discard_drawn"]``: discard the tile that seat just drew (摸打).
    """
    for entry in actions:
        if entry[1] == "discard_drawn":
            state = close_window(state)
            drawn = state.drawn[entry[0]]
            assert drawn is not None, f"seat {entry[0]} has no drawn tile"
            entry = [entry[0], "discard", tile_name(drawn)]
        seat, action, _ = parse_action(entry)
        answers = state.phase in ("claim", "rob") and seat in state.claim_options
        if not (answers and action.kind in ("win", "pong", "kong", "pass") and not action.tile):
            state = close_window(state)
        state, _ = guiyang.apply(state, seat, action)
    if guiyang.claims_decided(state):
        state = close_window(state)  # nothing left to answer: the room would close it now
    return state


def settle(state: State) -> dict[str, Any]:
    """The settlement of an ended hand (fails the test if it has not ended)."""
    assert state.ended, f"the hand has not ended (phase {state.phase})"
    result = guiyang.settle(state)
    assert result is not None
    return result


def payments(settlement: dict[str, Any]) -> dict[tuple[int, int, str], int]:
    """Payment lines summed per (from, to, reason)."""
    sums: dict[tuple[int, int, str], int] = defaultdict(int)
    for p in settlement["payments"]:
        sums[(p["from"], p["to"], p["reason"])] += p["points"]
    return dict(sums)


def by_reason(settlement: dict[str, Any], reason: str) -> dict[tuple[int, int], int]:
    """Payment lines of one reason summed per (from, to)."""
    return {(f, t): p for (f, t, r), p in payments(settlement).items() if r == reason}


def legal(state: State, seat: int) -> set[tuple[str, str | None, bool]]:
    """The seat's legal actions as (kind, tile, bao_ting) triples."""
    return {(a.kind, a.tile, a.bao_ting) for a in guiyang.legal_actions(state, seat)}


def drain(state: State, keep: int = -1) -> State:
    """Every seat discards what it draws (all claims passed) until ``keep`` tiles are left in
    the wall and the turn seat has drawn (with ``keep=0``: it drew the last tile, and the
    next draw ends the hand in 黄庄), or until the hand ends (the default, ``keep=-1``)."""
    while True:
        state = close_window(state)
        if state.ended or (state.wall_count <= keep and state.drawn[state.turn] is not None):
            return state
        drawn = state.drawn[state.turn]
        assert drawn is not None, "drain needs a seat that has drawn"
        state, _ = guiyang.apply(state, state.turn, Action("discard", tile=tile_name(drawn)))
