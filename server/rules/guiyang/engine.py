"""The Guiyang engine: deal, legal actions, apply, views (spec/guiyang.md §1-§5, §11, §13).

Pure functions over `State`. ``apply`` returns a new state and the events it caused; it
raises `IllegalAction` and changes nothing when the action is not among
``legal_actions(state, seat)``. Draws are implicit: a seat's turn starts with its draw.
Every discard (and every added kong) opens a claim window, even when nobody can claim.
Every seat offered a claim may answer it, in any order, until the caller closes the window
with `resolve_claims`, which it may do as soon as the outcome is decided (`claims_decided`),
even if some offered seats have not answered: their answers could not change it (§3).

Events are JSON-able dicts with a ``type``, all public; parts only one seat may see are
listed under ``"_private"`` (field names, visible to ``event["seat"]`` only), which
`project_event` applies. A claim answer causes no event at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from zoneinfo import ZoneInfo

from ..dealing import roll_dice, seed_hash, shuffle_and_deal
from ..events import river_last
from ..hand import is_complete
from ..tiles import (
    NUM_KINDS,
    TILE_NAMES,
    WU_GU_JI,
    YAO_JI,
    full_set,
    parse_tiles,
    suit_of,
    tile_index,
    tile_name,
)
from .options import GuiyangOptions, hand_type_values
from .scoring import (
    hand_type,
    hand_waits,
    hint_table,
    hint_waits,
    is_ready,
    settle,
)
from .state import Action, Discard, IllegalAction, Meld, State

Event = dict[str, object]
SUIT_LETTERS = "mps"
#: Tiles whose first discard becomes a 冲锋鸡 or 责任鸡 (§9.3; 8p with 乌骨鸡, §9.6).
FIRST_DISCARD_CHICKENS = (YAO_JI, WU_GU_JI)


def new_hand(
    options: GuiyangOptions,
    hands: list[list[str]] | list[str],
    wall: list[str] | str,
    dealer: int = 0,
    dealer_streak: int = 1,
    seed: str | None = None,
    weekday: int | None = None,
) -> State:
    """Start a hand from given starting tiles and wall (fixture form, spec/fixtures.md).

    ``hands[i]`` is seat i's tiles (14 for the dealer, 13 for the others; compact notation
    allowed); ``wall`` the remaining tiles in draw order; ``weekday`` (1 = Monday .. 7 =
    Sunday) the hand's weekday for 星期鸡 (§9.6; None: no 星期鸡 even with the option).
    Raises ``ValueError`` unless they are exactly the 108 tiles and the counts fit
    ``options.players``, or for a weekday outside 1..7.
    """
    n = options.players
    if weekday is not None and weekday not in range(1, 8):
        raise ValueError(f"weekday {weekday!r} is not 1 (Monday) .. 7 (Sunday)")
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
    if sorted([t for h in parsed for t in h] + wall_tiles) != sorted(full_set()):
        raise ValueError("hands and wall are not exactly the 108 tiles")
    counts = [[0] * NUM_KINDS for _ in range(n)]
    for seat, tiles in enumerate(parsed):
        for t in tiles:
            counts[seat][tile_index(t)] += 1
    wall_idx = [tile_index(t) for t in wall_tiles]
    return State(
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
        start_hands=[list(c) for c in counts],
        drawn=[None] * n,
        melds=[() for _ in range(n)],
        discards=[() for _ in range(n)],
        phase="ding_que" if n < 4 else "turn",
        turn=dealer,
        ding_que=[None] * n,
        bao_ting=[False] * n,
        guo_hu=[False] * n,
        pong_locks=[frozenset()] * n,
        weekday=weekday,
    )


def weekday_at(options: GuiyangOptions, timestamp: float) -> int:
    """The weekday (1 = Monday .. 7 = Sunday) of the Unix time ``timestamp`` (seconds) in the
    room's ``time_zone``: the 星期鸡 rank of a hand dealt then (§9.6)."""
    return datetime.fromtimestamp(timestamp, ZoneInfo(options.time_zone)).isoweekday()


def deal(
    options: GuiyangOptions,
    seed: str,
    dealer: int = 0,
    dealer_streak: int = 1,
    weekday: int | None = None,
) -> State:
    """Shuffle the 108 tiles from ``seed`` and deal by the table custom (§2, §13).

    Four tiles a seat for three rounds from the dealer, then one each, then one more for the
    dealer. The same seed always gives the same hand; ``state.seed_hash`` is published.
    ``weekday`` is the deal's weekday for 星期鸡 (`weekday_at`, §9.6), stored with the hand.
    The state's ``dice`` are the two the deal rolls (`roll_dice`), shown in every view.
    """
    tiles = full_set()
    hands, wall = shuffle_and_deal(tiles, seed, options.players, dealer)
    state = new_hand(options, hands, wall, dealer, dealer_streak, seed, weekday)
    state.dice = roll_dice(seed, len(tiles))
    return state


# ---------------------------------------------------------------------------- legality


def _can_win_with(state: State, seat: int, counts: list[int]) -> bool:
    """Shape check for a win: complete (§6.1) and no void-suit tile held (§11)."""
    void = state.ding_que[seat]
    if void is not None and any(counts[void * 9 : void * 9 + 9]):
        return False
    return is_complete(counts, len(state.melds[seat]))


def _may_win_on_discard(state: State, seat: int, discarder: int, counts: list[int]) -> bool:
    """§7 通行证 for a win on a discard (robbing a kong is always allowed)."""
    if state.bao_ting[seat] or state.bao_ting[discarder] or state.discard_after_kong:
        return True
    if any(m.kind != "pong" for m in state.melds[seat]):
        return True
    htype = hand_type(counts, state.melds[seat], hand_type_values(state.options))
    return htype is not None and htype != "ping_hu"


def _claim_options(
    state: State, seat: int, tile: int, discarder: int, rob: bool
) -> tuple[str, ...]:
    """What ``seat`` may claim on ``tile`` (§3, §4, §7, §8.4, §11)."""
    void = state.ding_que[seat]
    if void is not None and suit_of(tile) == void:
        return ()
    counts = state.hands[seat]
    options: list[str] = []
    if not state.guo_hu[seat]:
        counts[tile] += 1
        if _can_win_with(state, seat, counts) and (
            rob or _may_win_on_discard(state, seat, discarder, counts)
        ):
            options.append("win")
        counts[tile] -= 1
    if not rob and state.wall_count > 0 and not state.bao_ting[seat]:
        if counts[tile] == 3:
            options.append("kong")
        if counts[tile] >= 2 and tile not in state.pong_locks[seat]:
            options.append("pong")
    return tuple(options)


def _first_discard(state: State, seat: int) -> bool:
    return not state.discards[seat]


def _drew_this_turn(state: State, seat: int) -> bool:
    """§3: the turn seat holds a tile drawn in this turn (a normal or replacement draw, or
    the dealer's dealt 14 before anyone discarded); right after a pong it holds none."""
    if state.drawn[seat] is not None:
        return True
    return seat == state.dealer and not any(state.discards)


@cache
def _tile_action(kind: str, k: int, bao_ting: bool = False) -> Action:
    """The ``kind`` (discard / kong) action on tile kind ``k``: one shared (frozen) value
    per tile, not a new one for each kind a seat holds at each of its turns."""
    return Action(kind, tile=tile_name(k), bao_ting=bao_ting)


_SELF_DRAW = Action("self_draw")
_CLAIMS = {kind: Action(kind) for kind in ("win", "kong", "pong", "pass")}


def _turn_actions(state: State, seat: int) -> list[Action]:
    counts = state.hands[seat]
    actions: list[Action] = []
    if _drew_this_turn(state, seat) and _can_win_with(state, seat, counts):
        actions.append(_SELF_DRAW)
    void = state.ding_que[seat]
    locked = state.bao_ting[seat]
    if not locked and state.wall_count > 0:
        pongs = {m.tile for m in state.melds[seat] if m.kind == "pong"}
        for k in range(NUM_KINDS):
            if (counts[k] == 4 or (counts[k] and k in pongs)) and suit_of(k) != void:
                actions.append(_tile_action("kong", k))
    drawn = state.drawn[seat]
    kinds = [drawn] if locked and drawn is not None else [k for k in range(NUM_KINDS) if counts[k]]
    may_report = not locked and _first_discard(state, seat) and not state.melds[seat]
    for k in kinds:
        actions.append(_tile_action("discard", k))
        if may_report:
            counts[k] -= 1
            if is_ready(state, seat):
                actions.append(_tile_action("discard", k, True))
            counts[k] += 1
    return actions


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, in a stable order; empty if it owes none.

    Turn phase: ``self_draw`` (only with a tile drawn in this turn, §3: never right after
    a pong), ``kong`` TILE (concealed or added), ``discard`` TILE (and the same with
    ``bao_ting`` where §5 allows it). Claim phase: ``win`` / ``kong`` / ``pong`` and
    ``pass`` for every seat offered a claim that has not answered yet, until the window is
    closed (`resolve_claims`), also once it is decided without that seat (§3: its answer is
    accepted and loses to the higher claim). Rob phase (§8.4): ``win`` and ``pass``, alike.
    定缺 phase (§11): ``ding_que``.
    """
    if not 0 <= seat < state.players:
        return []
    if state.phase == "turn":
        return _turn_actions(state, seat) if seat == state.turn else []
    if state.phase in ("claim", "rob"):
        if seat not in state.claim_options or seat in state.claim_answers:
            return []
        return [_CLAIMS[k] for k in state.claim_options[seat]] + [_CLAIMS["pass"]]
    if state.phase == "ding_que":
        if state.ding_que[seat] is not None:
            return []
        return [Action("ding_que", suit=s) for s in SUIT_LETTERS]
    return []


def acting_seats(state: State) -> list[int]:
    """Seats that may act now: the turn seat, the seats offered a claim that have not
    answered (also in a decided window, until it is closed), the 定缺 choosers."""
    return [s for s in range(state.players) if legal_actions(state, s)]


def prompt_kind(state: State) -> str:
    """``"turn"``, ``"claim"`` (also for robbing a kong), ``"ding_que"`` or ``"ended"``."""
    return "claim" if state.phase == "rob" else state.phase


def default_action(state: State, seat: int) -> Action:
    """What the server plays for a seat that timed out (托管): pass a claim (§3: timeout =
    pass), void the shortest suit, or on its turn win by self-draw if it can (not under 报听:
    §5, the server discards the drawn tile), else discard a tile of its void suit while it
    holds one (§11: as the bots do, so a seat on 托管 is not left paying 查缺; the drawn
    tile if it is one, else the highest), else the drawn tile (or the last tile of the hand).

    Raises:
        IllegalAction: code ``not_your_turn`` if the seat owes no action.
    """
    legal = legal_actions(state, seat)
    if not legal:
        raise IllegalAction("not_your_turn", "this seat has nothing to do now")
    if state.phase in ("claim", "rob"):
        return Action("pass")
    if state.phase == "ding_que":
        counts = state.hands[seat]
        suit = min(range(3), key=lambda s: (sum(counts[s * 9 : s * 9 + 9]), s))
        return Action("ding_que", suit=SUIT_LETTERS[suit])
    if not state.bao_ting[seat] and Action("self_draw") in legal:
        return Action("self_draw")
    drawn = state.drawn[seat]
    void = state.ding_que[seat]
    if void is not None and not state.bao_ting[seat]:
        held = [k for k in range(void * 9, void * 9 + 9) if state.hands[seat][k]]
        if held:
            tile = drawn if drawn is not None and drawn // 9 == void else held[-1]
            action = Action("discard", tile=tile_name(tile))
            if action in legal:
                return action
    if drawn is not None:
        return Action("discard", tile=tile_name(drawn))
    discards = [a for a in legal if a.kind == "discard" and not a.bao_ting]
    return discards[-1]


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
    if s.phase == "ding_que":
        _ding_que(s, seat, action, events)
    elif s.phase == "turn":
        if action.kind == "self_draw":
            _self_draw(s, seat, events)
        elif action.kind == "kong":
            _turn_kong(s, seat, tile_index(action.tile or ""), events)
        else:
            _discard(s, seat, tile_index(action.tile or ""), action.bao_ting, events)
    else:
        _answer(s, seat, action.kind, events)
    if s.ended:
        events.append({"type": "hand_end", "settlement": settle(s)})
    return s, events


def _describe(action: Action) -> str:
    return " ".join(str(v) for v in (action.kind, action.tile, action.suit) if v) + (
        " with 报听" if action.bao_ting else ""
    )


def _ding_que(s: State, seat: int, action: Action, events: list[Event]) -> None:
    s.ding_que[seat] = SUIT_LETTERS.index(action.suit or "")
    events.append(
        {"type": "ding_que_chosen", "seat": seat, "suit": action.suit, "_private": ["suit"]}
    )
    if all(v is not None for v in s.ding_que):
        s.phase = "turn"
        events.append(
            {
                "type": "ding_que_reveal",
                "suits": [SUIT_LETTERS[v] for v in s.ding_que if v is not None],
            }
        )


def _draw(s: State, seat: int, events: list[Event], from_back: bool = False) -> None:
    """Start ``seat``'s turn with a draw; an empty wall ends the hand (黄庄, §2)."""
    s.turn = seat
    s.phase = "turn"
    s.claim_options, s.claim_answers = {}, {}
    if s.wall_count == 0:
        s.phase = "ended"
        s.result = "huang_zhuang"
        s.drawn = [None] * s.players
        events.append({"type": "huang_zhuang"})
        return
    if from_back:
        s.back -= 1
        tile = s.wall[s.back]
    else:
        tile = s.wall[s.front]
        s.front += 1
    s.hands[seat][tile] += 1
    s.drawn = [None] * s.players
    s.drawn[seat] = tile
    s.after_kong = from_back
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


def _self_draw(s: State, seat: int, events: list[Event]) -> None:
    s.ying_bao = not s.discards[seat] and not s.melds[seat]
    s.win_kind = "gang_kai" if s.after_kong else "zi_mo"
    s.win_tile = s.drawn[seat]
    _end_win(s, [seat], None, events)


def _end_win(s: State, winners: list[int], loser: int | None, events: list[Event]) -> None:
    s.phase = "ended"
    s.result = "win"
    s.winners = winners
    s.loser = loser
    s.claim_options, s.claim_answers = {}, {}
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
        s.melds[seat] = (*s.melds[seat], Meld("men_dou", tile))
        events.append({"type": "kong", "seat": seat, "kind": "men_dou", "tile": tile_name(tile)})
        _draw(s, seat, events, from_back=True)
        return
    counts[tile] -= 1
    s.rob_tile = tile
    events.append(
        {"type": "kong_declared", "seat": seat, "kind": "zhuan_wan_dou", "tile": tile_name(tile)}
    )
    options = {
        o: opts for o in _others(s, seat) if (opts := _claim_options(s, o, tile, seat, rob=True))
    }
    # The window opens even when nobody can rob, so it never tells whether someone could.
    s.phase = "rob"
    s.claim_options, s.claim_answers = options, {}
    s.last_discard = None


def _complete_added_kong(s: State, seat: int, events: list[Event]) -> None:
    tile = s.rob_tile
    assert tile is not None
    s.melds[seat] = tuple(
        Meld("zhuan_wan_dou", tile, m.from_seat) if m.kind == "pong" and m.tile == tile else m
        for m in s.melds[seat]
    )
    s.rob_tile = None
    events.append({"type": "kong", "seat": seat, "kind": "zhuan_wan_dou", "tile": tile_name(tile)})
    _draw(s, seat, events, from_back=True)


def _others(s: State, seat: int) -> list[int]:
    """The other seats in turn order after ``seat``."""
    return [(seat + i) % s.players for i in range(1, s.players)]


def _discard(s: State, seat: int, tile: int, bao_ting: bool, events: list[Event]) -> None:
    s.hands[seat][tile] -= 1
    s.discards[seat] = (*s.discards[seat], Discard(tile, bao_ting=bao_ting))
    if bao_ting:
        s.bao_ting[seat] = True
    if tile in FIRST_DISCARD_CHICKENS and tile not in s.first_discards:
        s.first_discards = {**s.first_discards, tile: (seat, len(s.discards[seat]) - 1)}
    s.guo_hu[seat] = False  # §3: a pass-lock lasts until the seat's own next discard
    s.pong_locks[seat] = frozenset()
    s.discard_after_kong = s.after_kong
    s.after_kong = False
    s.drawn = [None] * s.players
    s.last_discard = (seat, tile)
    events.append({"type": "discard", "seat": seat, "tile": tile_name(tile), "bao_ting": bao_ting})
    options = {
        o: opts for o in _others(s, seat) if (opts := _claim_options(s, o, tile, seat, rob=False))
    }
    # The window opens even when nobody can claim, so it never tells whether someone could.
    s.phase = "claim"
    s.claim_options, s.claim_answers = options, {}


def _answer(s: State, seat: int, kind: str, events: list[Event]) -> None:
    """Record a claim answer (§3); `resolve_claims` acts on the window once it is decided."""
    options = s.claim_options[seat]
    s.claim_answers[seat] = kind
    if "win" in options and kind != "win":
        s.guo_hu[seat] = True  # 过胡
    tile = s.rob_tile if s.phase == "rob" else (s.last_discard or (0, 0))[1]
    assert tile is not None  # a rob window always holds its tile
    if kind == "pass" and "pong" in options and s.options.pass_pong_lock:
        s.pong_locks[seat] = s.pong_locks[seat] | {tile}  # 过碰
    # No event: an answer must not show the other seats, even as a gap in the event
    # numbers, that this seat had something to answer (the room tells the seat itself).


def claims_decided(state: State) -> bool:
    """True while a claim or rob window is open and its outcome no longer depends on anyone:
    every seat that could change it has answered (or nobody could claim at all). The caller
    then closes it with `resolve_claims` (the room after its minimum claim time). Until
    then a seat offered a claim that has not answered may still answer (§3); its answer is
    accepted but changes nothing (it loses to the higher claim)."""
    return state.phase in ("claim", "rob") and _claim_decision(state) is not None


def resolve_claims(state: State) -> tuple[State, list[Event]]:
    """Close a decided claim or rob window (§3, §8.4): the win(s), the pong or kong, or the
    next seat's draw (the added kong's replacement draw after a rob window).

    The engine never closes a window by itself, so that a window looks the same to the
    other seats whether or not somebody could claim; the caller (the room, after its
    minimum claim time; a replay, at once) closes it. Raises `IllegalAction` (code
    ``window_open``) unless `claims_decided`; the given state is never modified.
    """
    if not claims_decided(state):
        raise IllegalAction("window_open", "no decided claim window to close")
    s = state.clone()
    events: list[Event] = []
    decision = _claim_decision(s)
    assert decision is not None
    _resolve(s, *decision, events)
    if s.ended:
        events.append({"type": "hand_end", "settlement": settle(s)})
    return s, events


def _resolve(s: State, what: str, seats: list[int], events: list[Event]) -> None:
    tile = s.rob_tile if s.phase == "rob" else (s.last_discard or (0, 0))[1]
    assert tile is not None  # a rob window always holds its tile
    if s.phase == "rob":
        robbed = s.turn
        if what == "win":
            s.win_kind = "qiang_gang"
            s.win_tile = tile
            s.burned = s.burned | {robbed}
            s.rob_tile = None
            for w in seats:
                s.hands[w][tile] += 1
            _end_win(s, seats, robbed, events)
        else:
            _complete_added_kong(s, robbed, events)
        return
    assert s.last_discard is not None
    discarder, tile = s.last_discard
    if what == "pass":
        _draw(s, (discarder + 1) % s.players, events)
        return
    river = s.discards[discarder]
    s.discards[discarder] = (*river[:-1], Discard(river[-1].tile, True, river[-1].bao_ting))
    if s.first_discards.get(tile) == (discarder, len(river) - 1) and what in ("pong", "kong"):
        s.ze_ren = {**s.ze_ren, tile: (seats[0], discarder)}
    if what == "win":
        s.win_kind = "re_pao" if s.discard_after_kong else "dian_pao"
        s.win_tile = tile
        if s.discard_after_kong:
            s.burned = s.burned | {discarder}
        for w in seats:
            s.hands[w][tile] += 1
        _end_win(s, seats, discarder, events)
        return
    claimer = seats[0]
    s.claim_options, s.claim_answers = {}, {}
    s.turn = claimer
    s.phase = "turn"
    s.drawn = [None] * s.players
    if what == "pong":
        s.hands[claimer][tile] -= 2
        s.melds[claimer] = (*s.melds[claimer], Meld("pong", tile, discarder))
        s.after_kong = False
        events.append({"type": "pong", "seat": claimer, "from": discarder, "tile": tile_name(tile)})
    else:
        s.hands[claimer][tile] -= 3
        s.melds[claimer] = (*s.melds[claimer], Meld("ming_dou", tile, discarder))
        events.append(
            {
                "type": "kong",
                "seat": claimer,
                "kind": "ming_dou",
                "from": discarder,
                "tile": tile_name(tile),
            }
        )
        _draw(s, claimer, events, from_back=True)


def _claim_decision(s: State) -> tuple[str, list[int]] | None:
    """The outcome of the open claim window once it is decided, else None (§3).

    Win beats kong and pong; with ``multiple_winners`` every claimed win stands, else the
    first in turn order from the discarder. Nothing resolves while a seat that could still
    claim something of higher or equal rank has not answered. Answers that came after the
    outcome was decided (a later seat's win with ``multiple_winners`` off, a pong after a
    win) do not change it, whatever order they arrived in.
    """
    origin = s.turn if s.phase == "rob" else (s.last_discard or (0, 0))[0]
    order = [o for o in _others(s, origin) if o in s.claim_options]
    win_seats = [o for o in order if "win" in s.claim_options[o]]
    if s.options.multiple_winners:
        if any(o not in s.claim_answers for o in win_seats):
            return None
        winners = [o for o in win_seats if s.claim_answers[o] == "win"]
        if winners:
            return "win", winners
    else:
        for o in win_seats:
            if o not in s.claim_answers:
                return None
            if s.claim_answers[o] == "win":
                return "win", [o]
    for o in order:
        opts = s.claim_options[o]
        if "pong" in opts or "kong" in opts:
            if o not in s.claim_answers:
                return None
            if s.claim_answers[o] in ("pong", "kong"):
                return s.claim_answers[o], [o]
    return "pass", []


# ---------------------------------------------------------------------------- views


def _hand_names(counts: Sequence[int], drawn: int | None) -> list[str]:
    """A concealed hand's tiles in kind order, without the ``drawn`` one."""
    names: list[str] = []
    for k, c in enumerate(counts):
        if c:
            names += (TILE_NAMES[k],) * (c - (k == drawn))
    return names


def _seen(state: State) -> list[int]:
    """Copies of each kind that lie open on the table: in any meld or (unclaimed) river."""
    seen = [0] * NUM_KINDS
    for s in range(state.players):
        for m in state.melds[s]:
            seen[m.tile] += m.size
        for d in state.discards[s]:
            if not d.claimed:
                seen[d.tile] += 1
    return seen


class _Seen:
    """`_seen` of a state, counted at the first look: most views need none (no seat is
    ready, no seat about to discard holds a hand one tile from ready)."""

    __slots__ = ("_counts", "_state")

    def __init__(self, state: State) -> None:
        self._state = state
        self._counts: list[int] | None = None

    def __getitem__(self, kind: int) -> int:
        counts = self._counts
        if counts is None:
            counts = self._counts = _seen(self._state)
        return counts[kind]


class _SeatMemo(dict[tuple[int, int], tuple[object, ...]]):
    """A memo of per-seat parts of the views: one slot per seat of each hand (keyed by the
    id of the hand's wall, which every state of the hand shares and never changes), holding
    the signature its entry was made under (ids of the objects it was made of, which a
    change replaces rather than alters, and the other values it depends on), those objects
    (kept alive, so their ids are not reused while the slot holds them) and the entry.
    Emptied when it reaches `PUBLIC_SEATS_KEPT` slots (ended hands' slots are never taken
    out one by one); ``cache_clear`` as functools' memo tables have."""

    def kept(self, key: tuple[int, int], sig: tuple[object, ...]) -> object | None:
        """The entry of slot ``key`` if it was made under ``sig``, else None."""
        hit = self.get(key)
        return hit[2] if hit is not None and hit[0] == sig else None

    def keep(
        self, key: tuple[int, int], sig: tuple[object, ...], alive: object, entry: object
    ) -> None:
        """Keep ``entry``, made under ``sig`` of the objects ``alive``, in slot ``key``."""
        if len(self) >= PUBLIC_SEATS_KEPT:
            self.clear()
        self[key] = (sig, alive, entry)

    def cache_clear(self) -> None:
        self.clear()


_PUBLIC_SEATS = _SeatMemo()
PUBLIC_SEATS_KEPT = 8192


def _public_seat(state: State, s: int, revealed: bool) -> dict[str, object]:
    """Seat ``s``'s entry of the table every view shows (its melds, river, tile count, 报听
    and 定缺 once all are revealed), made again only when one of them changed: a change of
    the table touches one or two seats, and rivers and melds are tuples that a change
    replaces (`State`), so the same objects mean the same entry. Shared by the views of
    many changes: never to be changed (copy it first)."""
    wall = state.wall
    river = state.discards[s]
    melds = state.melds[s]
    dq = state.ding_que[s]
    count = sum(state.hands[s])
    key = (id(wall), s)
    sig = (id(river), id(melds), count, state.bao_ting[s], dq, revealed)
    hit = _PUBLIC_SEATS.kept(key, sig)
    if hit is not None:
        return hit  # type: ignore[return-value]
    names = TILE_NAMES
    entry: dict[str, object] = {
        "seat": s,
        "concealed_count": count,
        "melds": [m.to_dict() for m in melds],
        "discards": [names[d.tile] for d in river],
        "claimed": [i for i, d in enumerate(river) if d.claimed],
        "bao_ting": state.bao_ting[s],
        "ding_que": SUIT_LETTERS[dq] if dq is not None and revealed else None,
        "ding_que_chosen": dq is not None,
    }
    _PUBLIC_SEATS.keep(key, sig, (wall, river, melds), entry)
    return entry


#: A seat's own part of its view: its concealed tiles' names (without the drawn one), its
#: waits, whether it holds a void-suit tile; and its concealed counts and melds as (tile,
#: size), as `hint_waits` takes them.
OwnPart = tuple[
    tuple[str, ...], tuple[int, ...], bool, tuple[int, ...], tuple[tuple[int, int], ...]
]

_OWN_PARTS = _SeatMemo()


def _own_part(state: State, s: int) -> OwnPart:
    """Seat ``s``'s `OwnPart`, made again only when its concealed tiles, melds, void suit or
    drawn tile changed: a hand is viewed after every change of the table but changes only
    on its own turns. Shared: never to be changed."""
    wall = state.wall
    held = state.hands[s]
    melds = state.melds[s]
    void = state.ding_que[s]
    drawn = state.drawn[s]
    key = (id(wall), s)
    hit = _OWN_PARTS.kept(key, (id(melds), held, void, drawn))
    if hit is not None:
        return hit  # type: ignore[return-value]
    counts = tuple(held)
    shaped = tuple((m.tile, m.size) for m in melds)
    part: OwnPart = (
        tuple(_hand_names(counts, drawn)),
        hand_waits(counts, shaped, void),
        void is not None and any(counts[void * 9 : void * 9 + 9]),
        counts,
        shaped,
    )
    # (a copy of the hand: the slot must not see a later change of the list)
    _OWN_PARTS.keep(key, (id(melds), list(held), void, drawn), (wall, melds), part)
    return part


def view(state: State, seat: int | None, hints: bool = True) -> dict[str, object]:
    """The state as ``seat`` sees it (None = spectator), JSON-able (§13, docs/protocol.md).

    ``hints=False`` leaves out the seat's ``waits`` and ``ting_hints`` (听牌提示): what the
    bot policy asks for, since it reads only its tiles, melds and void suit (the hints are
    for a player's screen and cost a waits search).

    Holds the seat's own ``hand`` (without the drawn tile) and ``drawn``, everybody's melds,
    rivers and concealed counts, and never another seat's concealed tiles or the wall order
    before the end; after the end, ``settlement`` reveals all hands and the seed.
    """
    return views(state, [seat], hints)[0]


def views(state: State, seats: Sequence[int | None], hints: bool = True) -> list[dict[str, object]]:
    """`view` of ``state`` for each of ``seats`` (in order): what a room sends its audiences
    after a change, with the table's public part (every seat's melds, river and counts, the
    open tiles) built once for all of them, each seat's entry kept from earlier calls while
    that seat is unchanged (`_public_seat`): its dicts and lists are shared and must not be
    changed; each view's own top-level dict may."""
    names = TILE_NAMES  # (a local: this runs for every audience after every change)
    revealed = all(v is not None for v in state.ding_que)
    table = [_public_seat(state, s, revealed) for s in range(state.players)]
    common: dict[str, object] = {
        "phase": state.phase,
        "players": state.players,
        "dealer": state.dealer,
        "dealer_streak": state.dealer_streak,
        "turn": state.turn,
        "wall_count": state.wall_count,
        "seed_hash": state.seed_hash,
        "seed": state.seed if state.ended else None,
        "weekday": state.weekday,
        "dice": list(state.dice) if state.dice is not None else None,
    }
    after: dict[str, object] = {  # (after "seats", as the protocol lists them)
        "last_discard": (
            {"seat": state.last_discard[0], "tile": tile_name(state.last_discard[1])}
            if state.last_discard and state.phase == "claim"
            else None
        ),
        "robbing": tile_name(state.rob_tile)
        if state.phase == "rob" and state.rob_tile is not None
        else None,
        "river_last": river_last(state.last_discard, state.discards),
    }
    seen = _Seen(state)
    settlement = settle(state) if state.ended else None
    out = []
    for seat in seats:
        own = seat is not None and 0 <= seat < state.players
        seat_views = table
        if own and not revealed:
            assert seat is not None
            dq = state.ding_que[seat]
            if dq is not None:  # its own 定缺, chosen before all are revealed: its own copy
                seat_views = list(table)
                seat_views[seat] = {**table[seat], "ding_que": SUIT_LETTERS[dq]}
        v: dict[str, object] = {**common, "seats": seat_views, **after}
        if own:
            assert seat is not None
            held = state.hands[seat]
            drawn = state.drawn[seat]
            tiles, seat_waits, void_held, counts, shaped = _own_part(state, seat)
            v["hand"] = list(tiles)
            v["drawn"] = names[drawn] if drawn is not None else None
            if hints:
                v["waits"] = [
                    {"tile": names[k], "unseen": max(0, 4 - held[k] - seen[k])} for k in seat_waits
                ]
            v["void_held"] = void_held
            if hints:
                own_turn = state.phase == "turn" and state.turn == seat
                v["ting_hints"] = (
                    hint_table(hint_waits(counts, shaped, state.ding_que[seat]), held, seen)
                    if own_turn
                    else {}
                )
        if settlement is not None:
            v["settlement"] = settlement
        out.append(v)
    return out
