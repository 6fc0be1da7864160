"""The Jintan engine: deal and flowers, legal actions, apply, views (spec/jintan.md).

Pure functions over `State`, with the same shape as Guiyang's engine: ``apply`` returns a new
state and its events and raises `IllegalAction` (changing nothing) for an action that is not
in ``legal_actions(state, seat)``; draws and flower replacements are implicit. Every discard
and every added kong opens a claim window; a decided window is closed by the caller with
`resolve_claims`. Events are JSON-able dicts; fields only one seat may see are listed under
``"_private"`` (see `server.rules.events.project_event`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dealing import roll_dice, seed_hash, shuffle_and_deal
from ..errors import IllegalAction
from ..events import river_last
from ..hand import is_complete
from ..tiles import (
    FIRST_FLOWER,
    FLOWER_KINDS,
    HAND_KINDS,
    NUM_KINDS,
    full_set_with_honours_and_flowers,
    is_flower,
    parse_tiles,
    tile_index,
    tile_name,
)
from .options import JintanOptions
from .scoring import _waits, hua_items, score, settle
from .state import Action, Discard, Meld, State

Event = dict[str, object]


# ---------------------------------------------------------------------------- deal


def new_hand(
    options: JintanOptions,
    hands: list[list[str]] | list[str],
    wall: list[str] | str,
    dealer: int = 0,
    dealer_streak: int = 1,
    seed: str | None = None,
) -> State:
    """Start a hand from given starting tiles and wall (fixture form, spec/fixtures.md), then
    lay open and replace the flowers seat by seat from the dealer (§J2).

    ``hands[i]``: seat i's 14 (dealer) or 13 tiles, flowers included; ``wall``: the rest in
    draw order (replacements come from its end). Raises ``ValueError`` unless hands and wall
    are exactly the 144 tiles with the right counts. The state's ``opening_events`` are the
    flower replacements; a seat that reaches eight flowers ends the hand at once.
    """
    n = options.players
    parsed = [parse_tiles(h) if isinstance(h, str) else list(h) for h in hands]
    wall_tiles = parse_tiles(wall) if isinstance(wall, str) else list(wall)
    if len(parsed) != n:
        raise ValueError(f"{len(parsed)} hands for {n} players")
    if not 0 <= dealer < n:
        raise ValueError(f"dealer {dealer} is not a seat")
    for seat, tiles in enumerate(parsed):
        want = 14 if seat == dealer else 13
        if len(tiles) != want:
            raise ValueError(f"seat {seat} holds {len(tiles)} tiles, expected {want}")
    if sorted([t for h in parsed for t in h] + wall_tiles) != sorted(
        full_set_with_honours_and_flowers()
    ):
        raise ValueError("hands and wall are not exactly the 144 tiles")
    counts = [[0] * HAND_KINDS for _ in range(n)]
    dealt_flowers: list[list[int]] = [[] for _ in range(n)]
    for seat, tiles in enumerate(parsed):
        for t in tiles:
            k = tile_index(t)
            if is_flower(k):
                dealt_flowers[seat].append(k)
            else:
                counts[seat][k] += 1
    wall_idx = [tile_index(t) for t in wall_tiles]
    state = State(
        options=options,
        players=n,
        dealer=dealer,
        dealer_streak=dealer_streak,
        seed=seed,
        seed_hash=seed_hash(seed) if seed is not None else None,
        wall=wall_idx,
        front=0,
        back=len(wall_idx),
        hands=counts,
        flowers=[[] for _ in range(n)],
        drawn=[None] * n,
        melds=[[] for _ in range(n)],
        discards=[[] for _ in range(n)],
        phase="turn",
        turn=dealer,
        guo_hu=[False] * n,
    )
    events: list[Event] = []
    for seat in [(dealer + i) % n for i in range(n)]:
        for flower in sorted(dealt_flowers[seat]):
            if state.ended:
                break
            _lay_flower(state, seat, flower, events)
    state.drawn = [None] * n
    state.opening_events = events
    return state


def deal(options: JintanOptions, seed: str, dealer: int = 0, dealer_streak: int = 1) -> State:
    """Shuffle the 144 tiles from ``seed`` and deal by the table custom: four tiles a seat for
    three rounds from the dealer, one each, one more for the dealer; then the flowers (§J2).
    The same seed always gives the same hand; the state's ``dice`` are the two the deal
    rolls (`roll_dice`, guiyang.md §2), shown in every view."""
    tiles = full_set_with_honours_and_flowers()
    hands, wall = shuffle_and_deal(tiles, seed, options.players, dealer)
    state = new_hand(options, hands, wall, dealer, dealer_streak, seed)
    state.dice = roll_dice(seed, len(tiles))
    return state


def _take(s: State, from_back: bool) -> int:
    if from_back:
        s.back -= 1
        return s.wall[s.back]
    tile = s.wall[s.front]
    s.front += 1
    return tile


def _lay_flower(s: State, seat: int, flower: int, events: list[Event]) -> None:
    """Lay ``flower`` open and draw its replacement from the back, again while the
    replacement is a flower (§J2). Eight flowers win at once; an empty wall is 黄庄."""
    while True:
        s.flowers[seat].append(flower)
        events.append(
            {"type": "flower", "seat": seat, "tile": tile_name(flower), "wall_count": s.wall_count}
        )
        if len(s.flowers[seat]) == FLOWER_KINDS:
            s.win_kind = "ba_hua"
            _end_win(s, [seat], None, events)
            return
        if s.wall_count == 0:
            _huang_zhuang(s, events)
            return
        tile = _take(s, from_back=True)
        events.append(
            {
                "type": "draw",
                "seat": seat,
                "tile": tile_name(tile),
                "from_back": True,
                "wall_count": s.wall_count,
                "_private": ["tile"],
            }
        )
        if not is_flower(tile):
            s.hands[seat][tile] += 1
            s.drawn = [None] * s.players
            s.drawn[seat] = tile
            return
        flower = tile


# ---------------------------------------------------------------------------- legality


def _complete(s: State, seat: int, counts: list[int]) -> bool:
    return is_complete(counts, len(s.melds[seat]))


def _may_win_on_discard(s: State, seat: int, counts: list[int], tile: int) -> bool:
    """一花起胡 (§J4): a win on a discard needs a 花 or a 番."""
    got = score(s, seat, counts, tile, "dian_pao")
    return got is not None and (got.hua_total > 0 or got.fan_total > 0)


def _chows(s: State, seat: int, tile: int) -> tuple[tuple[int, int], ...]:
    """The two-tiles-from-hand runs ``seat`` may chow ``tile`` with (§J3)."""
    if tile >= NUM_KINDS:
        return ()
    rank = tile % 9
    hand = s.hands[seat]
    runs = []
    for lo in (rank - 2, rank - 1, rank):
        if 0 <= lo and lo + 2 <= 8:
            pair = [tile - rank + r for r in (lo, lo + 1, lo + 2) if r != rank]
            if all(hand[k] for k in pair):
                runs.append((pair[0], pair[1]))
    return tuple(runs)


def _open_window(s: State, discarder: int, tile: int, rob: bool) -> None:
    options: dict[int, tuple[str, ...]] = {}
    chows: dict[int, tuple[tuple[int, int], ...]] = {}
    for o in _others(s, discarder):
        counts = s.hands[o]
        kinds: list[str] = []
        if not s.guo_hu[o]:
            counts[tile] += 1
            if _complete(s, o, counts) and (rob or _may_win_on_discard(s, o, counts, tile)):
                kinds.append("win")
            counts[tile] -= 1
        if not rob and s.wall_count > 0:
            if counts[tile] == 3:
                kinds.append("kong")
            if counts[tile] >= 2:
                kinds.append("pong")
            if s.options.chow and o == (discarder + 1) % s.players:
                runs = _chows(s, o, tile)
                if runs:
                    kinds.append("chow")
                    chows[o] = runs
        if kinds:
            options[o] = tuple(kinds)
    # The window opens even when nobody can claim, so it never tells whether someone could.
    s.phase = "rob" if rob else "claim"
    s.claim_options, s.chow_options, s.claim_answers = options, chows, {}


def _turn_actions(s: State, seat: int) -> list[Action]:
    counts = s.hands[seat]
    actions: list[Action] = []
    if s.may_self_draw and _complete(s, seat, counts):
        actions.append(Action("self_draw"))
    if s.wall_count > 0:
        pongs = {m.tiles[0] for m in s.melds[seat] if m.kind == "pong"}
        for k in range(HAND_KINDS):
            if counts[k] == 4 or (counts[k] and k in pongs):
                actions.append(Action("kong", tile=tile_name(k)))
    for k in range(HAND_KINDS):
        if counts[k]:
            actions.append(Action("discard", tile=tile_name(k)))
    return actions


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, in a stable order; empty if it owes none.

    Turn: ``self_draw`` (only with a tile drawn this turn), ``kong`` TILE (concealed or
    added), ``discard`` TILE. Claim window: ``win`` / ``kong`` / ``pong`` / ``chow`` (one per
    run, ``tiles`` = the two from hand) and ``pass``, for a seat offered a claim that has not
    answered yet, while the window is open. Rob window (§J7 抢杠): ``win`` and ``pass``.
    """
    if not 0 <= seat < state.players or state.ended:
        return []
    if state.phase == "turn":
        return _turn_actions(state, seat) if seat == state.turn else []
    if seat not in state.claim_options or seat in state.claim_answers:
        return []
    out: list[Action] = []
    for kind in state.claim_options[seat]:
        if kind == "chow":
            out += [
                Action("chow", tiles=(tile_name(a), tile_name(b)))
                for a, b in state.chow_options[seat]
            ]
        else:
            out.append(Action(kind))
    return [*out, Action("pass")]


def acting_seats(state: State) -> list[int]:
    """Seats that owe an answer now (the turn seat, or claimants that have not answered)."""
    return [s for s in range(state.players) if legal_actions(state, s)]


def prompt_kind(state: State) -> str:
    """``"turn"``, ``"claim"`` (also for robbing a kong) or ``"ended"``."""
    return "claim" if state.phase == "rob" else state.phase


def default_action(state: State, seat: int) -> Action:
    """What the server plays for a seat that timed out (托管): pass a claim; on its turn win by
    self-draw if it can, else discard the drawn tile (or the last tile of the hand).

    Raises:
        IllegalAction: code ``not_your_turn`` if the seat owes no action.
    """
    legal = legal_actions(state, seat)
    if not legal:
        raise IllegalAction("not_your_turn", "this seat has nothing to do now")
    if state.phase in ("claim", "rob"):
        return Action("pass")
    if Action("self_draw") in legal:
        return Action("self_draw")
    drawn = state.drawn[seat]
    if drawn is not None:
        return Action("discard", tile=tile_name(drawn))
    return [a for a in legal if a.kind == "discard"][-1]


# ---------------------------------------------------------------------------- apply


def apply(
    state: State, seat: int, action: Action, legal: Sequence[Action] | None = None
) -> tuple[State, list[Event]]:
    """Apply ``seat``'s ``action``; return the new state and its events. ``legal``: ``seat``'s
    legal actions in ``state`` if the caller has them (a room computes them once per state),
    else computed here.

    Raises:
        IllegalAction: ``hand_over`` after the end, ``not_your_turn`` if the seat owes no
            action now, ``illegal_action`` if it may act but not like this. The given state
            is never modified.
    """
    if state.ended:
        raise IllegalAction("hand_over", "the hand is over")
    if legal is None:
        legal = legal_actions(state, seat)
    if not legal:
        raise IllegalAction("not_your_turn", f"seat {seat} has nothing to do now")
    if action not in legal:
        raise IllegalAction("illegal_action", f"{_describe(action)} is not allowed now")
    s = state.clone()
    events: list[Event] = []
    if s.phase == "turn":
        if action.kind == "self_draw":
            s.win_kind = "gang_kai" if s.after_kong else "zi_mo"
            s.win_tile = s.drawn[seat]
            _end_win(s, [seat], None, events)
        elif action.kind == "kong":
            _turn_kong(s, seat, tile_index(action.tile or ""), events)
        else:
            _discard(s, seat, tile_index(action.tile or ""), events)
    else:
        s.claim_answers[seat] = action
        if "win" in s.claim_options[seat] and action.kind != "win":
            s.guo_hu[seat] = True  # 过胡 (guiyang.md §3, as §J4 applies it)
        # No event: an answer must not tell the others that this seat could claim.
    if s.ended:
        events.append({"type": "hand_end", "settlement": settle(s)})
    return s, events


def _describe(action: Action) -> str:
    return " ".join([action.kind, action.tile or "", *action.tiles]).strip()


def _others(s: State, seat: int) -> list[int]:
    return [(seat + i) % s.players for i in range(1, s.players)]


def _huang_zhuang(s: State, events: list[Event]) -> None:
    s.phase = "ended"
    s.result = "huang_zhuang"
    s.drawn = [None] * s.players
    s.claim_options, s.chow_options, s.claim_answers = {}, {}, {}
    events.append({"type": "huang_zhuang"})


def _draw(s: State, seat: int, events: list[Event], from_back: bool = False) -> None:
    """Start ``seat``'s turn with a draw (flowers replaced at once, §J2); an empty wall ends
    the hand (黄庄)."""
    s.turn = seat
    s.phase = "turn"
    s.claim_options, s.chow_options, s.claim_answers = {}, {}, {}
    s.drawn = [None] * s.players
    if s.wall_count == 0:
        _huang_zhuang(s, events)
        return
    tile = _take(s, from_back)
    events.append(
        {
            "type": "draw",
            "seat": seat,
            "tile": tile_name(tile),
            "from_back": from_back,
            "wall_count": s.wall_count,
            "_private": ["tile"],
        }
    )
    s.may_self_draw = True
    s.after_kong = from_back
    if is_flower(tile):
        s.after_kong = False  # a win on a flower's replacement is a plain self-draw (§J2)
        _lay_flower(s, seat, tile, events)
        return
    s.hands[seat][tile] += 1
    s.drawn[seat] = tile


def _end_win(s: State, winners: list[int], loser: int | None, events: list[Event]) -> None:
    s.phase = "ended"
    s.result = "win"
    s.winners = winners
    s.loser = loser
    s.claim_options, s.chow_options, s.claim_answers = {}, {}, {}
    events.append(
        {
            "type": "win",
            "winners": winners,
            "kind": s.win_kind,
            "from": loser,
            "tile": tile_name(s.win_tile) if s.win_tile is not None else None,
        }
    )


def _turn_kong(s: State, seat: int, tile: int, events: list[Event]) -> None:
    counts = s.hands[seat]
    s.drawn[seat] = None
    if counts[tile] == 4:
        counts[tile] = 0
        s.melds[seat].append(Meld("concealed_kong", (tile,) * 4))
        events.append(
            {"type": "kong", "seat": seat, "kind": "concealed_kong", "tile": tile_name(tile)}
        )
        _draw(s, seat, events, from_back=True)
        return
    counts[tile] -= 1
    s.rob_tile = tile
    s.last_discard = None
    events.append(
        {"type": "kong_declared", "seat": seat, "kind": "added_kong", "tile": tile_name(tile)}
    )
    _open_window(s, seat, tile, rob=True)


def _discard(s: State, seat: int, tile: int, events: list[Event]) -> None:
    s.hands[seat][tile] -= 1
    s.discards[seat].append(Discard(tile))
    s.guo_hu[seat] = False  # a pass-lock lasts until the seat's own next discard
    s.after_kong = False
    s.drawn = [None] * s.players
    s.last_discard = (seat, tile)
    events.append({"type": "discard", "seat": seat, "tile": tile_name(tile)})
    _open_window(s, seat, tile, rob=False)


def _decision(s: State) -> tuple[str, list[int]] | None:
    """The outcome of the open window once it no longer depends on an answer still owed, else
    None: win (every claimed win, 一炮多响) > kong = pong > chow > pass (§J3)."""
    origin = s.turn if s.phase == "rob" else (s.last_discard or (0, 0))[0]
    order = [o for o in _others(s, origin) if o in s.claim_options]
    answers = s.claim_answers
    win_seats = [o for o in order if "win" in s.claim_options[o]]
    if any(o not in answers for o in win_seats):
        return None
    winners = [o for o in win_seats if answers[o].kind == "win"]
    if winners:
        return "win", winners
    for rank in (("kong", "pong"), ("chow",)):
        for o in order:
            if set(rank) & set(s.claim_options[o]):
                if o not in answers:
                    return None
                if answers[o].kind in rank:
                    return answers[o].kind, [o]
    return "pass", []


def claims_decided(state: State) -> bool:
    """True while a claim or rob window is open and its outcome no longer depends on an
    answer still owed; the caller then closes it with `resolve_claims` (answers from seats
    still owing one are accepted until then, and change nothing)."""
    return state.phase in ("claim", "rob") and _decision(state) is not None


def resolve_claims(state: State) -> tuple[State, list[Event]]:
    """Close a decided claim or rob window: the win(s), the kong, pong or chow, or the next
    draw. Raises `IllegalAction` (code ``window_open``) unless `claims_decided`; the given
    state is never modified."""
    if not claims_decided(state):
        raise IllegalAction("window_open", "no decided claim window to close")
    s = state.clone()
    events: list[Event] = []
    decision = _decision(s)
    assert decision is not None
    what, seats = decision
    if s.phase == "rob":
        robbed, tile = s.turn, s.rob_tile
        assert tile is not None
        s.rob_tile = None
        if what == "win":
            s.win_kind, s.win_tile = "qiang_gang", tile
            for w in seats:
                s.hands[w][tile] += 1
            _end_win(s, seats, robbed, events)
        else:
            s.melds[robbed] = [
                Meld("added_kong", (tile,) * 4, m.claimed, m.from_seat)
                if m.kind == "pong" and m.tiles[0] == tile
                else m
                for m in s.melds[robbed]
            ]
            events.append(
                {"type": "kong", "seat": robbed, "kind": "added_kong", "tile": tile_name(tile)}
            )
            _draw(s, robbed, events, from_back=True)
    else:
        _resolve_discard(s, what, seats, events)
    if s.ended:
        events.append({"type": "hand_end", "settlement": settle(s)})
    return s, events


def _resolve_discard(s: State, what: str, seats: list[int], events: list[Event]) -> None:
    assert s.last_discard is not None
    discarder, tile = s.last_discard
    if what == "pass":
        _draw(s, (discarder + 1) % s.players, events)
        return
    river = s.discards[discarder]
    river[-1] = Discard(river[-1].tile, claimed=True)
    if what == "win":
        s.win_kind, s.win_tile = "dian_pao", tile
        for w in seats:
            s.hands[w][tile] += 1
        _end_win(s, seats, discarder, events)
        return
    claimer = seats[0]
    hand = s.hands[claimer]
    s.claim_options, s.chow_options = {}, {}
    answer = s.claim_answers.get(claimer)
    s.claim_answers = {}
    s.turn, s.phase = claimer, "turn"
    s.drawn = [None] * s.players
    s.may_self_draw = False  # no draw after a chow or pong: no self-draw (guiyang.md §3)
    s.after_kong = False
    event: Event = {"type": what, "seat": claimer, "from": discarder, "tile": tile_name(tile)}
    if what == "chow":
        assert answer is not None
        pair = [tile_index(t) for t in answer.tiles]
        for k in pair:
            hand[k] -= 1
        run = tuple(sorted([*pair, tile]))
        s.melds[claimer].append(Meld("chow", run, tile, discarder))
        event["tiles"] = [tile_name(k) for k in run]
    elif what == "pong":
        hand[tile] -= 2
        s.melds[claimer].append(Meld("pong", (tile,) * 3, tile, discarder))
    else:
        hand[tile] -= 3
        s.melds[claimer].append(Meld("exposed_kong", (tile,) * 4, tile, discarder))
        event = {**event, "type": "kong", "kind": "exposed_kong"}
    events.append(event)
    if what == "kong":
        _draw(s, claimer, events, from_back=True)


# ---------------------------------------------------------------------------- views


def waits(state: State, seat: int) -> list[int]:
    """Kinds that would complete the seat's 13 - 3 * melds concealed tiles (less those whose
    four copies it holds itself); empty at any other size."""
    counts = state.hands[seat]
    if sum(counts) != 13 - 3 * len(state.melds[seat]):
        return []
    return _waits(counts, state.melds[seat])


def _with(state: State, seat: int, tile: int) -> list[int]:
    """``seat``'s concealed counts with one more ``tile`` (a copy)."""
    counts = list(state.hands[seat])
    counts[tile] += 1
    return counts


def _unseen(state: State, seat: int) -> list[int]:
    unseen = [4 - c for c in state.hands[seat]]
    for s in range(state.players):
        for m in state.melds[s]:
            for k in m.tiles:
                unseen[k] -= 1
        for d in state.discards[s]:
            if not d.claimed:
                unseen[d.tile] -= 1
    return [max(0, u) for u in unseen]


def view(state: State, seat: int | None) -> dict[str, object]:
    """The state as ``seat`` sees it (None = spectator), JSON-able (docs/protocol.md).

    Everybody's melds, flowers, rivers and concealed counts; the seat's own ``hand`` (without
    the drawn tile), ``drawn`` and ``waits`` (``{"tile", "unseen", "self_draw_only"}``: the
    copies this seat cannot see, and whether 一花起胡 (§J4) leaves it no win on a discard of
    it: no 花 and no 番 with it); never another seat's concealed tiles or the wall order
    before the end, when ``settlement`` reveals all.
    """
    seats = [
        {
            "seat": s,
            "concealed_count": sum(state.hands[s]),
            "melds": [m.to_dict() for m in state.melds[s]],
            "flowers": [tile_name(f) for f in state.flowers[s]],
            "discards": [tile_name(d.tile) for d in state.discards[s]],
            "claimed": [i for i, d in enumerate(state.discards[s]) if d.claimed],
        }
        for s in range(state.players)
    ]
    out: dict[str, object] = {
        "game": "jintan",
        "phase": state.phase,
        "players": state.players,
        "dealer": state.dealer,
        "dealer_streak": state.dealer_streak,
        "turn": state.turn,
        "wall_count": state.wall_count,
        "seed_hash": state.seed_hash,
        "seed": state.seed if state.ended else None,
        "dice": list(state.dice) if state.dice is not None else None,
        "seats": seats,
        "last_discard": (
            {"seat": state.last_discard[0], "tile": tile_name(state.last_discard[1])}
            if state.last_discard and state.phase == "claim"
            else None
        ),
        "robbing": tile_name(state.rob_tile)
        if state.phase == "rob" and state.rob_tile is not None
        else None,
        "river_last": river_last(state.last_discard, state.discards),
        # the deal's flower replacements, in order (§J2): who laid which flower (the tiles
        # drawn for them stay their seats' own)
        "deal_flowers": [
            {"seat": e["seat"], "tile": e["tile"]}
            for e in state.opening_events
            if e["type"] == "flower"
        ],
    }
    if seat is not None and 0 <= seat < state.players:
        counts = list(state.hands[seat])
        drawn = state.drawn[seat]
        if drawn is not None:
            counts[drawn] -= 1
        out["hand"] = [tile_name(k) for k in range(HAND_KINDS) for _ in range(counts[k])]
        out["drawn"] = tile_name(drawn) if drawn is not None else None
        seat_waits = waits(state, seat)
        unseen = _unseen(state, seat) if seat_waits else []  # (counted only for a ready hand)
        # a 花 already laid (a flower, an honour pong, a kong) lets every wait win on a discard
        laid_hua = bool(seat_waits) and bool(hua_items(state, seat, None, None, False))
        out["waits"] = [
            {
                "tile": tile_name(k),
                "unseen": unseen[k],
                "self_draw_only": not laid_hua
                and not _may_win_on_discard(state, seat, _with(state, seat, k), k),
            }
            for k in seat_waits
        ]
    if state.ended:
        out["settlement"] = settle(state)
    return out


assert FIRST_FLOWER == HAND_KINDS  # flowers follow the 34 kinds a hand can hold
