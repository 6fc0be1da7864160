"""Property tests over random played hands (hypothesis): tile conservation, zero-sum and
burned-seat settlements, replay determinism, and views that hide what they must."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import guiyang
from server.rules.guiyang import Action, GuiyangOptions, State, engine
from server.rules.registry import find_game
from server.rules.replay import open_table
from tests.rules.randplay import play_hand

options_strategy = st.builds(
    GuiyangOptions,
    players=st.sampled_from([4, 3, 2]),
    scoring=st.sampled_from(["yi_kou_er", "yi_kou_san", "lian_zhuang"]),
    yao_bai_ji=st.booleans(),
    man_tang_ji=st.booleans(),
    fan_table=st.sampled_from(["standard", "app"]),
    dou_values=st.sampled_from(["standard", "all_three"]),
    multiple_winners=st.booleans(),
    pass_pong_lock=st.booleans(),
    base_points=st.integers(1, 5),
)
seeds = st.text(min_size=1, max_size=12)
policies = st.integers(0, 2**32)
hands_settings = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def tile_total(state: State) -> int:
    """Tiles in hands + melds + unclaimed discards + the wall (+ a tile being robbed).

    With 一炮多响 every winner holds the one winning tile (docs/rules-decisions.md), so it is
    counted once.
    """
    held = sum(sum(h) for h in state.hands)
    melded = sum(m.size for melds in state.melds for m in melds)
    river = sum(1 for d in state.discards for x in d if not x.claimed)
    robbing = 1 if state.phase == "rob" else 0
    shared = max(0, len(state.winners) - 1)
    return held + melded + river + state.wall_count + robbing - shared


@hands_settings
@given(
    options=options_strategy, seed=st.text(min_size=1, max_size=12), policy=st.integers(0, 2**32)
)
def test_tiles_conserved_and_settlement_zero_sum(
    options: GuiyangOptions, seed: str, policy: int
) -> None:
    last: State | None = None
    for _, _, _, after, _ in play_hand(options, seed, policy, streak=1 + policy % 3):
        assert tile_total(after) == 108
        last = after
    assert last is not None and last.ended
    check_settlement(last)


def check_settlement(state: State) -> dict:
    """Zero-sum, integer, reasoned, burned-seat-respecting settlement of an ended hand."""
    options = state.options
    settlement = guiyang.settle(state)
    assert settlement is not None
    assert sum(settlement["deltas"]) == 0
    per_seat = [0] * options.players
    for line in settlement["payments"]:
        assert isinstance(line["points"], int) and line["points"] > 0
        assert line["points"] % options.base_points == 0
        assert line["reason"]
        per_seat[line["from"]] -= line["points"]
        per_seat[line["to"]] += line["points"]
        # §9.5: a burned seat collects no 豆 and no chickens.
        if line["to"] in settlement["burned"]:
            assert line["reason"] not in ("dou", "ji", "chong_feng_ji", "ze_ren_ji")
    assert per_seat == settlement["deltas"]
    if settlement["result"] == "huang_zhuang":
        assert not any(p["reason"] in ("dou", "ji") for p in settlement["payments"])
    return settlement


@hands_settings
@given(
    options=options_strategy, seed=st.text(min_size=1, max_size=12), policy=st.integers(0, 2**32)
)
def test_replay_is_deterministic(options: GuiyangOptions, seed: str, policy: int) -> None:
    played = list(play_hand(options, seed, policy))
    events = [e for *_, evs in played for e in evs]
    state = guiyang.deal(options, seed)
    replayed = []
    for _, seat, action, _, _ in played:
        if action is None:
            state, evs = guiyang.resolve_claims(state)
        else:
            state, evs = guiyang.apply(state, seat, action)
        replayed.extend(evs)
    assert json.dumps(replayed, sort_keys=True) == json.dumps(events, sort_keys=True)
    assert guiyang.settle(state) == guiyang.settle(played[-1][3])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy, seed=seeds, policy=policies)
def test_late_answers_change_no_decided_window_and_no_self_draw_without_a_draw(
    options: GuiyangOptions, seed: str, policy: int
) -> None:
    """§3: once a window is decided, any answer still accepted from a seat it offered a claim
    closes it to the same events (and settlement); a self-draw is only offered with a tile
    drawn in this turn (never right after a pong)."""
    for before, _, _, _, _ in play_hand(options, seed, policy):
        if guiyang.claims_decided(before):
            _, events = guiyang.resolve_claims(before)
            for seat in guiyang.acting_seats(before):
                for action in guiyang.legal_actions(before, seat):
                    late, answer_events = guiyang.apply(before, seat, action)
                    assert answer_events == [] and guiyang.claims_decided(late)
                    assert guiyang.resolve_claims(late)[1] == events
        elif before.phase == "turn":
            seat = before.turn
            if Action("self_draw") in guiyang.legal_actions(before, seat):
                dealt = seat == before.dealer and not any(before.discards)
                assert before.drawn[seat] is not None or dealt


@settings(max_examples=100, deadline=None)
@given(
    options=options_strategy, seed=st.text(min_size=1, max_size=12), policy=st.integers(0, 2**32)
)
def test_views_and_events_hide_other_seats_and_the_wall(
    options: GuiyangOptions, seed: str, policy: int
) -> None:
    for before, _, action, after, events in play_hand(options, seed, policy):
        if action is not None and before.phase in ("claim", "rob"):
            # A claim answer makes no event at all: none that the others could see, and no
            # gap in the event numbers telling them this seat had something to answer.
            assert events == [], (action, events)
        if after.ended:
            break
        for seat in [*range(options.players), None]:
            v = guiyang.view(after, seat)
            text = json.dumps(v)
            assert "wall" not in {k for k in v if k != "wall_count"}
            assert v["seed"] is None
            if seat is None:
                assert "hand" not in v and "drawn" not in v
            for s in v["seats"]:
                assert set(s) >= {"concealed_count"} and "hand" not in s
            assert "settlement" not in text
            for event in events:
                # Every event reaches every seat and the spectators; only the fields it lists
                # as private are cut, for everybody but its own seat.
                projected = guiyang.project_event(event, seat)
                own = seat is not None and event.get("seat") == seat
                private = event.get("_private", [])
                assert projected == {
                    k: x for k, x in event.items() if k != "_private" and (own or k not in private)
                }
                if event["type"] == "draw":
                    assert ("tile" in projected) == own, (seat, event)
                if event["type"] == "ding_que_chosen":
                    assert ("suit" in projected) == own, (seat, event)
                assert not [k for k in projected if k.startswith("_")], projected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy, seed=seeds, policy=policies)
def test_views_from_the_seat_memo_are_the_views_made_afresh(
    options: GuiyangOptions, seed: str, policy: int
) -> None:
    """`views` reuses a seat's table entry while that seat's river and melds are the same
    objects and its other public values are equal (`engine._public_seat`), and its own part
    while its concealed tiles, melds, void suit and drawn tile are (`engine._own_part`):
    every view of every state equals the one made with both memos emptied, also after a
    replay's open table (which lays the hands open in its own copies of the entries) was
    made of that state."""
    audiences = [*range(options.players), None]
    game = find_game("guiyang")
    for _, _, _, after, _ in play_hand(options, seed, policy):
        reused = engine.views(after, audiences)
        open_table(game, after)
        again = engine.views(after, audiences)
        engine._PUBLIC_SEATS.clear()
        engine._OWN_PARTS.clear()
        assert reused == again == engine.views(after, audiences)
        assert not [s for v in again for s in v["seats"] if "hand" in s]  # type: ignore[union-attr]


SWEEP_HANDS = 1000  # per sweep under --slow (CI)
QUICK_SWEEP_HANDS = 100  # per sweep by default


@pytest.mark.slow
@pytest.mark.parametrize(
    ("players", "scoring"),
    list(itertools.product([4, 3, 2], ["yi_kou_er", "yi_kou_san", "lian_zhuang"])),
)
def test_sweep_of_random_hands(players: int, scoring: str, full_size: bool) -> None:
    """A thousand seeded random hands (a hundred without --slow) per player count and scoring
    mode: conservation, zero-sum, burned seats, and both endings (win and 黄庄) reached."""
    options = GuiyangOptions(players=players, scoring=scoring)
    results: dict[str, int] = {}
    for i in range(SWEEP_HANDS if full_size else QUICK_SWEEP_HANDS):
        last = None
        for _, _, _, after, _ in play_hand(options, f"sweep-{players}-{scoring}-{i}", i):
            last = after
        assert last is not None and tile_total(last) == 108
        settlement = check_settlement(last)
        results[settlement["result"]] = results.get(settlement["result"], 0) + 1
    assert set(results) == {"win", "huang_zhuang"}, results
