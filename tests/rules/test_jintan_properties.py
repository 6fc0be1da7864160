"""Property tests for Jintan (hypothesis, plus a seeded sweep): the 144 tiles are conserved,
every settlement sums to zero with integer, reasoned lines, replays are deterministic, views
hide other seats' concealed tiles and the wall; and the hand analysis over honours agrees with
a brute-force search."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import jintan
from server.rules.hand import completing_tiles, is_complete, shanten
from server.rules.jintan import Action, JintanOptions, State
from server.rules.jintan.bot import choose_action
from server.rules.tiles import NUM_KINDS, parse_tiles, tile_name, to_counts

options_strategy = st.builds(
    JintanOptions,
    base=st.integers(1, 20),
    flower_value=st.integers(0, 10),
    chow=st.booleans(),
)
hands_settings = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def play_hand(
    options: JintanOptions, seed: str, policy: int, dealer: int = 0
) -> Iterator[tuple[State, int, Action | None, State, list[dict]]]:
    """Deal and play to the end: a random legal action a third of the time, else the bot's.
    Yields (before, seat, action, after, events); seat -1 where a decided window is closed."""
    rng = random.Random(policy)
    state = jintan.deal(options, seed, dealer)
    while not state.ended:
        if jintan.claims_decided(state) and rng.random() < 0.7:
            after, events = jintan.resolve_claims(state)
            yield state, -1, None, after, events
            state = after
            continue
        acting = jintan.acting_seats(state)
        if not acting:
            after, events = jintan.resolve_claims(state)
            yield state, -1, None, after, events
            state = after
            continue
        seat = rng.choice(acting)
        legal = jintan.legal_actions(state, seat)
        action = rng.choice(legal) if rng.random() < 0.33 else choose_action(state, seat)
        after, events = jintan.apply(state, seat, action)
        yield state, seat, action, after, events
        state = after


def tile_total(state: State) -> int:
    """Hands + flowers + melds + unclaimed discards + wall (+ a tile being robbed), the
    winning tile of several winners counted once."""
    held = sum(sum(h) for h in state.hands) + sum(len(f) for f in state.flowers)
    melded = sum(len(m.tiles) for melds in state.melds for m in melds)
    river = sum(1 for d in state.discards for x in d if not x.claimed)
    robbing = 1 if state.phase == "rob" else 0
    shared = max(0, len(state.winners) - 1)
    return held + melded + river + state.wall_count + robbing - shared


def check_settlement(state: State) -> dict:
    s = jintan.settle(state)
    assert s is not None and sum(s["deltas"]) == 0
    per_seat = [0] * 4
    for line in s["payments"]:
        assert isinstance(line["points"], int) and line["points"] > 0
        assert line["reason"] == "hu" and line["to"] in s["winners"]
        d = line["detail"]
        unit = d["base"] + d["hua_total"] * d["flower_value"]
        each = unit * 2 ** min(d["fan_total"], 2)
        assert line["points"] == (3 * each if d["win"] == "qiang_gang" else each)
        assert d["capped"] == (d["fan_total"] > 2)
        per_seat[line["from"]] -= line["points"]
        per_seat[line["to"]] += line["points"]
    assert per_seat == s["deltas"]
    if s["result"] == "huang_zhuang":
        assert s["payments"] == [] and s["next_dealer"] == state.dealer
    return s


@hands_settings
@given(options=options_strategy, seed=st.text(min_size=1, max_size=12), policy=st.integers())
def test_tiles_conserved_and_settlement_zero_sum(
    options: JintanOptions, seed: str, policy: int
) -> None:
    state = jintan.deal(options, seed, policy % 4)
    assert tile_total(state) == 144
    for _, _, _, after, _ in play_hand(options, seed, policy, policy % 4):
        assert tile_total(after) == 144
        state = after
    assert state.ended
    check_settlement(state)


@hands_settings
@given(seed=st.text(min_size=1, max_size=12), policy=st.integers())
def test_replay_is_deterministic(seed: str, policy: int) -> None:
    """Options + seed + the action list give the same events and settlement again."""
    options = JintanOptions()
    log: list[tuple[int, Action | None]] = []
    events: list[dict] = []
    final: State | None = None
    for _, seat, action, after, new in play_hand(options, seed, policy):
        log.append((seat, action))
        events += new
        final = after
    assert final is not None
    state = jintan.deal(options, seed)
    again: list[dict] = []
    for seat, action in log:
        if action is None:
            state, new = jintan.resolve_claims(state)
        else:
            state, new = jintan.apply(state, seat, Action.from_dict(action.to_dict()))
        again += new
    assert json.dumps(again) == json.dumps(events)
    assert jintan.settle(state) == jintan.settle(final)


@hands_settings
@given(seed=st.text(min_size=1, max_size=12), policy=st.integers())
def test_views_and_events_hide_other_seats_tiles_and_the_wall(seed: str, policy: int) -> None:
    state = jintan.deal(JintanOptions(), seed)
    steps = [(state, state.opening_events)]
    steps += [
        (after, events) for _, _, _, after, events in play_hand(JintanOptions(), seed, policy)
    ]
    for after, events in steps:
        for seat in (0, 1, 2, 3, None):
            v = jintan.view(after, seat)
            assert "wall" not in v
            for other in v["seats"]:  # type: ignore[attr-defined]
                assert set(other) == {
                    "seat",
                    "concealed_count",
                    "melds",
                    "flowers",
                    "discards",
                    "claimed",
                }
            if not after.ended:
                assert v["seed"] is None and "settlement" not in v
            if seat is None:
                assert "hand" not in v and "drawn" not in v
            for e in events:
                seen = jintan.project_event(e, seat)
                assert "_private" not in seen
                if e["type"] == "draw" and e["seat"] != seat:
                    assert "tile" not in seen


def test_sweep_of_bot_hands(full_size: int) -> None:
    """Seeded bot hands: conserved, zero-sum; wins of several kinds occur."""
    kinds: set[str] = set()
    for n in range(max(60, full_size // 5)):
        state = jintan.deal(JintanOptions(), f"sweep-{n}", n % 4)
        for _, _, _, after, _ in play_hand(JintanOptions(), f"sweep-{n}", n, n % 4):
            state = after
        assert tile_total(state) == 144
        s = check_settlement(state)
        kinds.add(str(s["win_kind"]))
    assert {"zi_mo", "dian_pao"} <= kinds


# ---------------------------------------------------------------------------- hand analysis


@cache
def _brute_complete(counts: tuple[int, ...], sets: int, pair: bool) -> bool:
    """Depth-first: the first held kind is a pair, a triplet or the start of a run."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return sets == 0 and pair
    c = list(counts)
    if c[i] >= 2 and not pair:
        c[i] -= 2
        if _brute_complete(tuple(c), sets, True):
            return True
        c[i] += 2
    if sets and c[i] >= 3:
        c[i] -= 3
        if _brute_complete(tuple(c), sets - 1, pair):
            return True
        c[i] += 3
    if sets and i < NUM_KINDS and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        if _brute_complete(tuple(c), sets - 1, pair):
            return True
    return False


def brute_is_complete(counts: list[int], melds: int) -> bool:
    if sum(counts) != 14 - 3 * melds:
        return False
    standard = _brute_complete(tuple(counts), 4 - melds, False)
    pairs = melds == 0 and all(c % 2 == 0 for c in counts)
    return standard or pairs


@st.composite
def hands(draw: st.DrawFn) -> tuple[list[int], int]:
    """A concealed part for ``melds`` melds: built from random sets and a pair (often
    complete), or random tiles; sometimes one tile short (a hand that may be ready)."""
    melds = draw(st.integers(0, 4))
    counts = [0] * 34
    if draw(st.booleans()):
        for _ in range(4 - melds):
            if draw(st.booleans()):
                k = draw(st.integers(0, 33))
                counts[k] += 3
            else:
                k = draw(st.integers(0, 2)) * 9 + draw(st.integers(0, 6))
                for d in range(3):
                    counts[k + d] += 1
        counts[draw(st.integers(0, 33))] += 2
    else:
        for k in draw(
            st.lists(st.integers(0, 33), min_size=14 - 3 * melds, max_size=14 - 3 * melds)
        ):
            counts[k] += 1
    if draw(st.booleans()):
        held = [k for k in range(34) if counts[k]]
        counts[draw(st.sampled_from(held))] -= 1
    if any(c > 4 for c in counts):
        counts = [min(c, 4) for c in counts]
    return counts, melds


@settings(max_examples=800, deadline=None)
@given(hand=hands())
def test_win_check_waits_and_shanten_agree_with_a_brute_force_search(
    hand: tuple[list[int], int],
) -> None:
    counts, melds = hand
    n = 14 - 3 * melds
    total = sum(counts)
    if total == n:
        complete = brute_is_complete(counts, melds)
        assert is_complete(counts, melds) == complete
        assert (shanten(counts, melds) == -1) == complete
    elif total == n - 1:
        want = []
        for k in range(34):
            if counts[k] < 4:
                counts[k] += 1
                if brute_is_complete(counts, melds):
                    want.append(k)
                counts[k] -= 1
        got = completing_tiles(counts, melds)
        assert got == want, ([tile_name(k) for k in got], [tile_name(k) for k in want])
        if want:
            assert shanten(counts, melds) == 0


@settings(max_examples=400, deadline=None)
@given(
    tiles=st.lists(st.integers(0, 33), min_size=13, max_size=13).filter(
        lambda ks: all(ks.count(k) <= 4 for k in ks)
    )
)
def test_shanten_with_honours_agrees_with_the_mahjong_package(tiles: list[int]) -> None:
    """The Riichi hand calculator (PyPI ``mahjong``) as the reference on 13-tile hands.

    Its seven pairs must be seven different kinds, ours may count four equal tiles as two
    pairs (guiyang.md §6.1, jintan.md §J4): so ours is never higher, and equal on hands that
    hold no kind three or four times (then no two of ours can be the same kind either).
    Its regular hand also counts a shape waiting only on a fifth copy of a kind as not
    ready, ours counts the shape (`test_a_shape_waiting_on_a_fifth_copy`): equal to it on
    hands that hold no kind four times."""
    from mahjong.shanten import Shanten

    counts = [tiles.count(k) for k in range(34)]
    reference = Shanten().calculate_shanten(counts, use_kokushi=False)
    ours = shanten(counts)
    assert ours <= reference
    if max(counts) <= 2:
        assert ours == reference
    if max(counts) <= 3:
        assert ours == min(
            Shanten().calculate_shanten_for_regular_hand(counts), _our_seven_pairs(counts)
        )


def test_a_shape_waiting_on_a_fifth_copy() -> None:
    """1111m 33m 44m 55m 678m: ready in shape (111m 345m 345m 678m + 1m), its one wait the
    fifth 1m. `shanten` counts the shape: 0, one tile from complete, as the bots and the 听牌
    hints' first check read it; `completing_tiles` leaves the wait out (none can be drawn),
    so the hand has no waits and is not ready. The ``mahjong`` package counts it 1."""
    from mahjong.shanten import Shanten

    counts = to_counts(parse_tiles("1111m 334455678m"), 34)
    assert shanten(counts) == 0
    assert completing_tiles(counts, 0) == []
    assert Shanten().calculate_shanten_for_regular_hand(counts) == 1


def _our_seven_pairs(counts: list[int]) -> int:
    """Seven pairs where four equal tiles are two pairs: 6 - pairs."""
    return 6 - min(sum(c // 2 for c in counts), 7)
