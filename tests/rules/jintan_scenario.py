"""Build Jintan hands for unit tests from the tiles that matter, and play them.

`build` takes the hands a test cares about (the others are filled with tiles three ranks apart
and single honours, which can neither chow, pong, kong nor win), the front of the wall in
draw order and the back (flower and kong replacements) in the order they are drawn. The flowers
nobody was given come right after the front (so a test that draws no further sees none), then
the rest of the 144 tiles in sorted order: every scenario is deterministic. `play` runs
fixture-form actions, passing for the seats that owe an answer and are not listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from server.rules import jintan
from server.rules.jintan import Action, JintanOptions, State
from server.rules.tiles import (
    TILE_NAMES,
    full_set_with_honours_and_flowers,
    is_flower,
    parse_tiles,
    tile_index,
)

# Three ranks apart in each suit, and single honours: no two tiles of a filler hand are
# within two ranks of each other, so it can never chow, pong or get ready.
_SCATTER = [*parse_tiles("147m 258p 369s 1234567z"), *parse_tiles("258m 369p 147s")]


def _filler(pool: Counter[str], given: list[str], size: int) -> list[str]:
    picked = [t for t in _SCATTER if pool[t] > 0 and t not in given][: size - len(given)]
    assert len(given) + len(picked) == size, "not enough distinct tiles left for a filler"
    for t in picked:
        pool[t] -= 1
    return given + picked


def build(
    hands: Sequence[str | None],
    wall: str = "",
    back: str = "",
    *,
    dealer: int = 0,
    **options: Any,
) -> State:
    """A new Jintan hand. ``hands[i]``: seat i's tiles; None a filler hand; a string ending in
    ``+`` is those tiles completed with filler (13 tiles, the dealer 14). ``wall``: the first
    tiles drawn; ``back``: the replacement tiles in the order they are drawn."""
    opts = JintanOptions(**options)
    pool = Counter(full_set_with_honours_and_flowers())
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
    flowers = [t for t in TILE_NAMES if is_flower(tile_index(t)) for _ in range(pool[t])]
    middle = [t for t in TILE_NAMES if not is_flower(tile_index(t)) for _ in range(pool[t])]
    return jintan.new_hand(opts, full, front + flowers + middle + rear[::-1], dealer)


def parse(entry: Sequence[Any]) -> tuple[int, Action]:
    """A fixture-form action ``[seat, kind, arg?]`` (a chow's arg: the two tiles)."""
    seat, kind, *rest = entry
    arg = rest[0] if rest else None
    if kind == "chow":
        return seat, Action.from_dict({"kind": "chow", "tiles": arg})
    return seat, Action(kind, tile=arg)


def close_window(state: State) -> State:
    """Every seat still owing an answer passes, in turn order; then the window closes."""
    while state.phase in ("claim", "rob"):
        if jintan.claims_decided(state):
            state, _ = jintan.resolve_claims(state)
        else:
            state, _ = jintan.apply(state, jintan.acting_seats(state)[0], Action("pass"))
    return state


def play(state: State, actions: Sequence[Sequence[Any]]) -> State:
    """Apply the actions; before one that is not an answer to the open window, the window is
    closed (passes). ``[seat, "discard_drawn"]`` discards what that seat just drew."""
    for entry in actions:
        if entry[1] == "discard_drawn":
            state = close_window(state)
            drawn = state.drawn[entry[0]]
            assert drawn is not None, f"seat {entry[0]} has no drawn tile"
            entry = [entry[0], "discard", TILE_NAMES[drawn]]
        seat, action = parse(entry)
        answers = state.phase in ("claim", "rob") and seat in state.claim_options
        if not (answers and action.tile is None and action.kind != "self_draw"):
            state = close_window(state)
        state, _ = jintan.apply(state, seat, action)
    if jintan.claims_decided(state):
        state = close_window(state)
    return state


def settle(state: State) -> dict[str, Any]:
    assert state.ended, f"the hand has not ended (phase {state.phase})"
    result = jintan.settle(state)
    assert result is not None
    return result


def payments(s: dict[str, Any]) -> dict[tuple[int, int], int]:
    """``hu`` points per (from, to)."""
    out: dict[tuple[int, int], int] = {}
    for p in s["payments"]:
        out[(p["from"], p["to"])] = out.get((p["from"], p["to"]), 0) + p["points"]
    return out


def legal(state: State, seat: int) -> set[tuple[str, str | None, tuple[str, ...]]]:
    return {(a.kind, a.tile, a.tiles) for a in jintan.legal_actions(state, seat)}
