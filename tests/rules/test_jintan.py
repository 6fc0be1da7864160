"""Jintan rules case by case (spec/jintan.md), with the exact points of the spec.

Defaults: 底数 10, 花分值 5, so a hand is worth (10 + 5 × 花) × 2^番, capped at ×4. Scenarios come
from `jintan_scenario.build`: seat 1 usually holds the hand under test, the dealer discards a
tile nobody wants, and filler seats can neither claim nor win.
"""

from __future__ import annotations

import pytest

from server.rules import jintan
from server.rules.jintan import Action, IllegalAction, JintanOptions, Meld
from server.rules.tiles import parse_tiles, tile_index, to_counts
from tests.rules.jintan_scenario import build, close_window, legal, payments, play, settle

JI = "123m 456m 789m 23p 55s"  # waits 1p / 4p: no 花, no 番 (鸡胡)


def counts(text: str) -> list[int]:
    return to_counts(parse_tiles(text), 34)


def scored(
    concealed: str,
    win: str,
    kind: str = "zi_mo",
    melds: list[Meld] | None = None,
    flowers: str = "",
) -> jintan.Score:
    """Seat 1's score with ``concealed`` tiles (the winning tile ``win`` included)."""
    state = build([None, None, None, None])
    state.melds[1] = list(melds or [])
    state.flowers[1] = [tile_index(f) for f in parse_tiles(flowers)]
    got = jintan.score(state, 1, counts(concealed), tile_index(win), kind)
    assert got is not None, "not a winning hand"
    return got


def meld(kind: str, tile: str) -> Meld:
    k = tile_index(tile)
    size = 3 if kind == "pong" else 4
    return Meld(kind, (k,) * size, None if kind == "concealed_kong" else k, 0)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- §J5 花


@pytest.mark.parametrize(
    ("concealed", "win", "kind", "melds", "flowers", "hua", "points"),
    [
        ("123m 456m 789m 123p 55s", "3p", "zi_mo", [], "", 0, 10),
        ("123m 456m 789m 123p 55s", "3p", "zi_mo", [], "1f 5f", 2, 20),
        ("123m 456m 789m 55s", "9m", "zi_mo", [meld("pong", "5z")], "", 1, 15),
        ("123m 456m 789m 555z 55s", "9m", "zi_mo", [], "", 2, 20),  # concealed triplet
        ("123m 456m 789m 555z 55s", "5z", "dian_pao", [], "", 1, 15),  # completed by a discard
        ("123m 456m 789m 55s", "9m", "zi_mo", [meld("exposed_kong", "5z")], "", 3, 25),
        ("123m 456m 789m 55s", "9m", "zi_mo", [meld("added_kong", "5z")], "", 3, 25),
        ("123m 456m 789m 55s", "9m", "zi_mo", [meld("concealed_kong", "5z")], "", 4, 30),
        ("123m 456m 789p 55s", "9p", "zi_mo", [meld("exposed_kong", "2s")], "", 1, 15),
        ("123m 456m 789p 55s", "9p", "zi_mo", [meld("added_kong", "2s")], "", 1, 15),
        ("123m 456m 789p 55s", "9p", "zi_mo", [meld("concealed_kong", "2s")], "", 2, 20),
        ("123m 456m 789p 55s", "9p", "zi_mo", [meld("pong", "2s")], "", 0, 10),  # number pong
    ],
)
def test_hua_count_of_each_row(
    concealed: str, win: str, kind: str, melds: list[Meld], flowers: str, hua: int, points: int
) -> None:
    s = scored(concealed, win, kind, melds, flowers)
    assert s.hua_total == hua
    assert s.points == points


def test_hua_breakdown_names_each_item() -> None:
    s = scored("123m 456m 555z 55s", "3m", melds=[meld("concealed_kong", "2s")], flowers="3f")
    assert set(s.hua) == {
        ("flower", "3f", 1),
        ("concealed_kong", "2s", 2),
        ("honour_concealed_triplet", "5z", 2),
    }


# ---------------------------------------------------------------------------- §J6 番


@pytest.mark.parametrize(
    ("concealed", "win", "melds", "fan", "hua", "points", "capped"),
    [
        ("123m 456m 789m 234m 11z", "4m", [], {"hun_yi_se"}, 0, 20, False),
        ("123m 456m 789m 234m 55m", "4m", [], {"qing_yi_se"}, 0, 40, False),
        ("111m 222p 333s 444m 55p", "4m", [], {"dui_dui_hu"}, 0, 20, False),
        ("11m 22m 33p 44p 55s 66s 77s", "7s", [], {"qi_dui"}, 0, 40, False),
        # 混一色对对胡 = 2 番 (the concealed honour triplet adds 2 花)
        ("111m 222m 999m 11z 555z", "9m", [], {"hun_yi_se", "dui_dui_hu"}, 2, 80, False),
        # all honours is 混一色 too: + 对对胡; four concealed honour triplets = 8 花
        ("111z 222z 333z 444z 55z", "4z", [], {"hun_yi_se", "dui_dui_hu"}, 8, 200, False),
        # 七对 + 清一色 = 4 番: capped at ×4
        ("11m 22m 33m 44m 55m 66m 99m", "9m", [], {"qi_dui", "qing_yi_se"}, 0, 40, True),
        # 七对 + 混一色 = 3 番: capped
        ("11m 22m 44m 55m 77m 11z 22z", "2z", [], {"qi_dui", "hun_yi_se"}, 0, 40, True),
        # 独吊: the only wait was 5s, and it completes the pair
        ("123m 456m 789m 123p 55s", "5s", [], {"du_diao"}, 0, 20, False),
        # the winning 2p completes the pair, but 1112p also waited on 3p: no 独吊
        ("123m 456m 789m 111p 22p", "2p", [], set(), 0, 10, False),
        ("123m 456m 789p 55s", "5s", [meld("pong", "2s")], {"du_diao"}, 0, 20, False),
    ],
)
def test_fan_of_each_pattern(
    concealed: str, win: str, melds: list[Meld], fan: set[str], hua: int, points: int, capped: bool
) -> None:
    s = scored(concealed, win, melds=melds)
    assert set(s.fan) == fan
    assert s.hua_total == hua
    assert s.points == points
    assert s.capped == capped


def test_du_diao_is_never_counted_on_seven_pairs() -> None:
    s = scored("11m 22m 33p 44p 55s 66s 77z", "7z")
    assert set(s.fan) == {"qi_dui"}


def test_gang_kai_adds_one_fan_and_a_chow_is_no_dui_dui_hu() -> None:
    s = scored(
        "123m 444p 55s", "5s", "gang_kai", [meld("pong", "2s"), meld("concealed_kong", "9m")]
    )
    assert "dui_dui_hu" not in s.fan and "gang_kai" in s.fan
    chow = Meld("chow", tuple(tile_index(t) for t in ("1p", "2p", "3p")), tile_index("1p"), 0)
    s = scored("111m 444p 999s 55s", "5s", melds=[chow])
    assert "dui_dui_hu" not in s.fan


def test_the_cap_is_four_times_the_unit() -> None:
    # 2 flowers, 七对 + 清一色 (4 番): (10 + 2 × 5) × 4 = 80, not × 16
    s = scored("11m 22m 33m 44m 55m 66m 99m", "9m", flowers="1f 2f")
    assert (s.unit, s.fan_total, s.points, s.cap, s.capped) == (20, 4, 80, 80, True)


def test_base_and_flower_value_are_options() -> None:
    state = build([None, None, None, None], base=2, flower_value=1)
    state.flowers[1] = [tile_index("1f")]
    s = jintan.score(state, 1, counts("123m 456m 789m 234m 55m"), tile_index("5m"), "zi_mo")
    assert s is not None and s.points == (2 + 1) * 4


# ---------------------------------------------------------------------------- §J7 payments


def test_ji_hu_self_draw_each_pays_the_points() -> None:
    s = settle(
        play(build(["5z +", JI, None, None], "4p"), [[0, "discard", "5z"], [1, "self_draw"]])
    )
    assert s["winners"] == [1] and s["win_kind"] == "zi_mo"
    assert payments(s) == {(0, 1): 10, (2, 1): 10, (3, 1): 10}
    assert s["deltas"] == [-10, 30, -10, -10] and s["next_dealer"] == 1
    (detail,) = {str(p["detail"]) for p in s["payments"]}
    assert "'fan': []" in detail and "'hua_total': 0" in detail and "'capped': False" in detail


@pytest.mark.parametrize(
    ("dealt", "back", "each", "hua"),
    [
        ("123m 456m 789m 123p 55s", "", 10, 0),  # 鸡胡: (10 + 0) × 1
        ("123m 456m 789m 123p 5s 1f", "5s", 15, 1),  # the flower's replacement completes it
        ("123m 456p 789s 555z 66s", "", 20, 2),  # a concealed honour triplet: 2 花, 10 + 2 × 5
    ],
)
def test_the_dealers_dealt_14_win_as_a_self_draw(
    dealt: str, back: str, each: int, hua: int
) -> None:
    # Guiyang §3 as §J applies it: the dealer's dealt 14 count as drawn this turn; they won
    # on no one tile, so no 独吊 (decided here; the spec names no winning tile for them).
    state = build([dealt, None, None, None], back=back)
    assert ("self_draw", None, ()) in legal(state, 0)
    assert jintan.default_action(state, 0) == Action("self_draw")
    s = settle(play(state, [[0, "self_draw"]]))
    assert s["winners"] == [0] and s["win_kind"] == "zi_mo" and s["next_dealer"] == 0
    assert payments(s) == {(1, 0): each, (2, 0): each, (3, 0): each}
    assert s["deltas"] == [3 * each, -each, -each, -each]
    assert {p["detail"]["hua_total"] for p in s["payments"]} == {hua}
    assert {(p["detail"]["tile"], str(p["detail"]["fan"])) for p in s["payments"]} == {(None, "[]")}


def test_yi_hua_qi_hu_no_flower_no_fan_cannot_win_on_a_discard() -> None:
    state = play(build(["4p +", JI, None, None]), [[0, "discard", "4p"]])
    assert ("win", None, ()) not in legal(state, 1)
    with pytest.raises(IllegalAction):
        jintan.apply(state, 1, Action("win"))


def test_one_flower_wins_on_a_discard_and_the_discarder_pays() -> None:
    state = build(["4p +", "123m 456m 789m 23p 5s 1f", None, None], back="5s")
    assert state.flowers[1] == [tile_index("1f")]
    s = settle(play(state, [[0, "discard", "4p"], [1, "win"]]))
    assert s["win_kind"] == "dian_pao" and payments(s) == {(0, 1): 15}
    assert s["deltas"] == [-15, 15, 0, 0]


def test_a_fan_is_enough_to_win_on_a_discard() -> None:
    # 对对胡 + 独吊 on the dealer's 5z: 2 番, no 花: 10 × 4 from the discarder
    state = build(["5z +", "111m 222p 333s 444m 5z", None, None])
    s = settle(play(state, [[0, "discard", "5z"], [1, "win"]]))
    assert set(s["payments"][0]["detail"]["fan"]) == {"dui_dui_hu", "du_diao"}
    assert s["deltas"] == [-40, 40, 0, 0]


def test_gang_kai_pays_as_a_self_draw_with_one_more_fan() -> None:
    # Seat 1 draws 9s, konged 2222m (2 花), the replacement 1z makes 111z (2 花): 杠开 1 番.
    state = build(["5z +", "2222m 345p 678s 11z 9s", None, None], "9s", "1z")
    s = settle(play(state, [[0, "discard", "5z"], [1, "kong", "2m"], [1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai"
    assert s["payments"][0]["detail"]["fan"] == ["gang_kai"]
    assert s["deltas"] == [-60, 180, -60, -60]


def test_qiang_gang_each_robber_is_paid_three_times_by_the_robbed_seat() -> None:
    # Seat 2 pongs the dealer's 5m holding three and adds the fourth at once; seats 3 and 1
    # both wait on 5m (鸡胡, no 花: robbing needs none) and rob it.
    state = build(["5m +", "46m 123p 456p 789p 11s", "555m +", "46m 123s 456s 789s 99p"], back="8s")
    state = play(state, [[0, "discard", "5m"], [2, "pong"], [2, "kong", "5m"]])
    assert state.phase == "rob"
    s = settle(play(state, [[3, "win"], [1, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [3, 1]
    assert payments(s) == {(2, 3): 30, (2, 1): 30}
    assert s["deltas"] == [0, 30, -60, 30]


def test_several_winners_of_one_discard_each_win_and_the_dealer_keeps_the_deal() -> None:
    state = build(
        ["1f 5z 123m 456m 789m 23p 5s", None, "2f 123s 456s 789s 23p 5m", None],
        "4p",
        "5s 5m",
    )
    s = settle(play(state, [[0, "discard", "5z"], [1, "discard_drawn"], [2, "win"], [0, "win"]]))
    assert s["winners"] == [2, 0]
    assert payments(s) == {(1, 2): 15, (1, 0): 15}
    assert s["deltas"] == [15, -30, 15, 0]
    assert s["next_dealer"] == 0


def test_an_exhausted_hand_pays_nothing_and_the_dealer_keeps_the_deal() -> None:
    # Filler hands only: nobody can claim or win; each seat discards what it draws.
    state = build([None, None, "5z +", None], dealer=2)
    while not state.ended:
        state = close_window(state)
        if not state.ended:
            state, _ = jintan.apply(state, state.turn, jintan.default_action(state, state.turn))
    s = settle(state)
    assert s["result"] == "huang_zhuang" and s["deltas"] == [0, 0, 0, 0]
    assert s["payments"] == [] and s["next_dealer"] == 2


# ---------------------------------------------------------------------------- §J2 flowers


def test_flowers_are_replaced_at_the_deal_seat_by_seat_from_the_dealer() -> None:
    # Dealer 1, then 2, 3, 0. Replacements come from the back in this order: 8s 5f 5z 6z 7z.
    state = build(["3f 4f +", "1f +", None, "2f +"], back="8s 5f 5z 6z 7z", dealer=1)
    order = [(e["type"], e["seat"], e["tile"]) for e in state.opening_events]
    assert order == [
        ("flower", 1, "1f"),
        ("draw", 1, "8s"),
        ("flower", 3, "2f"),
        ("draw", 3, "5f"),  # a flower again: laid open and replaced before the next seat
        ("flower", 3, "5f"),
        ("draw", 3, "5z"),
        ("flower", 0, "3f"),
        ("draw", 0, "6z"),
        ("flower", 0, "4f"),
        ("draw", 0, "7z"),
    ]
    assert [len(f) for f in state.flowers] == [2, 1, 0, 2]
    assert [sum(h) for h in state.hands] == [13, 14, 13, 13]
    # every seat sees the flowers; only the drawing seat sees its replacement tile
    e = next(e for e in state.opening_events if e["type"] == "draw")
    assert jintan.project_event(e, 1)["tile"] == "8s"
    assert "tile" not in jintan.project_event(e, 0)
    assert jintan.view(state, 0)["seats"][3]["flowers"] == ["2f", "5f"]  # type: ignore[index]


def test_a_flower_drawn_in_play_is_replaced_from_the_back_at_once() -> None:
    state = build(["5z +", JI, None, None], "6f", "4p")
    state = play(state, [[0, "discard", "5z"]])
    state = close_window(state)
    assert state.flowers[1] == [tile_index("6f")]
    assert state.drawn[1] == tile_index("4p")
    # a win on a flower's replacement is a plain self-draw, here with its 1 花
    s = settle(play(state, [[1, "self_draw"]]))
    assert s["win_kind"] == "zi_mo" and s["deltas"] == [-15, 45, -15, -15]


def test_eight_flowers_win_at_once_at_the_cap() -> None:
    # Seat 1 holds seven flowers (replaced at the deal), then draws the eighth.
    state = build(["5z +", "1234567f 123m 456m", None, None], "8f", "9m 9m 9p 9p 9s 9s 7z")
    assert len(state.flowers[1]) == 7 and not state.ended
    state = close_window(play(state, [[0, "discard", "5z"]]))
    s = settle(state)
    assert s["win_kind"] == "ba_hua" and s["winners"] == [1]
    assert payments(s) == {(0, 1): 200, (2, 1): 200, (3, 1): 200}  # (10 + 8 × 5) × 4
    assert s["next_dealer"] == 1
    assert all(p["detail"]["capped"] for p in s["payments"])  # paid at the cap


def test_eight_flowers_at_the_deal_end_the_hand_before_any_move() -> None:
    state = build(["5z +", None, "1234567f 123m 456p", None], back="8f")
    assert state.ended and jintan.acting_seats(state) == []
    s = settle(state)
    assert s["deltas"] == [-200, -200, 600, -200] and s["next_dealer"] == 1


# ---------------------------------------------------------------------------- §J3 chow


def test_chow_only_from_the_previous_seat_with_a_choice_of_runs() -> None:
    state = build(["3m +", "245m 258p 369s 1234z", "12m +", None])
    state = play(state, [[0, "discard", "3m"]])
    chows = {a.tiles for a in jintan.legal_actions(state, 1) if a.kind == "chow"}
    assert chows == {("2m", "4m"), ("4m", "5m")}
    assert not any(a.kind == "chow" for a in jintan.legal_actions(state, 2))
    state = play(state, [[1, "chow", "4m5m"]])
    assert state.turn == 1 and state.melds[1][0].tiles == tuple(map(tile_index, ("3m", "4m", "5m")))
    assert state.hands[1][tile_index("2m")] == 1
    assert not any(a.kind == "self_draw" for a in jintan.legal_actions(state, 1))


def test_pong_beats_a_chow_answered_first() -> None:
    state = build(["3m +", "245m 258p 369s 1234z", "33m +", None])
    state = play(state, [[0, "discard", "3m"], [1, "chow", "2m4m"]])
    assert not jintan.claims_decided(state)  # seat 2 may still pong
    state = play(state, [[2, "pong"]])
    assert state.turn == 2 and state.melds[2][0].kind == "pong" and not state.melds[1]


def test_without_the_chow_option_nobody_chows() -> None:
    state = build(["3m +", "245m 258p 369s 1234z", None, None], chow=False)
    state, _ = jintan.apply(state, 0, Action("discard", tile="3m"))
    assert state.phase == "claim" and state.claim_options == {}
    assert legal(state, 1) == set()


def test_no_self_draw_right_after_a_chow_or_pong() -> None:
    state = build(["3m +", "12m 456m 789m 123p 55s", None, None])
    state = play(state, [[0, "discard", "3m"], [1, "chow", "1m2m"]])
    assert jintan.waits(state, 1) == [] and state.phase == "turn"
    assert ("self_draw", None, ()) not in legal(state, 1)


def test_chow_tiles_must_be_two_tiles_from_hand() -> None:
    for bad in (
        {"kind": "chow"},
        {"kind": "chow", "tiles": "4m"},
        {"kind": "chow", "tiles": "1f2f"},
    ):
        with pytest.raises(IllegalAction) as exc:
            Action.from_dict(bad)
        assert exc.value.code == "bad_action"
    state = play(build(["3m +", "245m 258p 369s 1234z", None, None]), [[0, "discard", "3m"]])
    with pytest.raises(IllegalAction) as exc:
        jintan.apply(state, 1, Action.from_dict({"kind": "chow", "tiles": ["1m", "2m"]}))
    assert exc.value.code == "illegal_action"


# ---------------------------------------------------------------------------- §J4 过胡


def test_guo_hu_a_passed_win_locks_discard_wins_until_the_own_next_discard() -> None:
    # Seat 1 (one flower) passes the dealer's 4p; seat 2 then discards 1p: no win offered.
    state = build(["4p +", "123m 456m 789m 23p 5s 1f", "1p +", None], "7z 1p", "5s")
    state = play(state, [[0, "discard", "4p"], [1, "pass"]])
    state = close_window(state)
    assert state.guo_hu[1]
    state = play(state, [[1, "discard", "7z"], [2, "discard", "1p"]])
    assert ("win", None, ()) in legal(state, 1)  # its own discard lifted the lock


def test_a_self_draw_is_not_locked_by_guo_hu() -> None:
    state = build(["4p +", "123m 456m 789m 23p 5s 1f", None, None], "1p", "5s")
    state = close_window(play(state, [[0, "discard", "4p"], [1, "pass"]]))
    assert state.guo_hu[1] and state.drawn[1] == tile_index("1p")
    assert ("self_draw", None, ()) in legal(state, 1)


# ---------------------------------------------------------------------------- interface


def test_options_validate_and_default() -> None:
    assert JintanOptions().model_dump()["base"] == 10
    assert JintanOptions().flower_value == 5 and JintanOptions().chow is True
    from pydantic import ValidationError

    for key, value in [("base", 0), ("flower_value", -1), ("chow", "maybe"), ("players", 3)]:
        with pytest.raises(ValidationError) as exc:
            JintanOptions(**{key: value})
        assert key in str(exc.value)


def test_deal_is_determined_by_the_seed() -> None:
    a = jintan.deal(JintanOptions(), "s-1", dealer=3)
    b = jintan.deal(JintanOptions(), "s-1", dealer=3)
    assert a == b and a.seed_hash == jintan.seed_hash("s-1")
    held = sum(sum(h) for h in a.hands) + sum(len(f) for f in a.flowers)
    assert held + a.wall_count == 144
    assert jintan.view(a, 0)["seed"] is None
