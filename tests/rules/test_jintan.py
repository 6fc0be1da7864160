"""Jintan rules case by case (spec/jintan.md), with the exact points of the spec.

Defaults: 底数 10, 花分值 5, so a hand is worth (10 + 5 × 花) × 2^番, capped at ×4. Scenarios come
from `jintan_scenario.build`: seat 1 usually holds the hand under test, the dealer discards a
tile nobody wants, and filler seats can neither claim nor win.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.rules import jintan
from server.rules.jintan import Action, IllegalAction, JintanOptions, Meld, State
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


def play_out(
    state: State, until: Callable[[State], bool] = lambda s: s.ended
) -> tuple[State, list[dict[str, object]]]:
    """Each seat discards what it draws and every claim is passed, until ``until`` (or the end);
    also returns the events, the draws among them."""
    events: list[dict[str, object]] = []
    while not until(state) and not state.ended:
        if state.phase in ("claim", "rob"):
            if jintan.claims_decided(state):
                state, got = jintan.resolve_claims(state)
            else:
                state, got = jintan.apply(state, jintan.acting_seats(state)[0], Action("pass"))
        else:
            state, got = jintan.apply(state, state.turn, jintan.default_action(state, state.turn))
        events += got
    return state, events


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


def test_an_added_kong_counts_as_exposed_and_is_named_as_added() -> None:
    """§J5: a number added kong 1 花, an honour one 3, as exposed kongs; each item says
    ``added_kong`` (the settlement's 补杠, as the meld's tag), not 明杠."""
    s = scored("123m 456m 55s", "3m", melds=[meld("added_kong", "2s"), meld("added_kong", "6z")])
    assert set(s.hua) == {("added_kong", "2s", 1), ("honour_added_kong", "6z", 3)}
    assert s.hua_total == 4


def test_hua_breakdown_names_each_item() -> None:
    s = scored("123m 456m 555z 55s", "3m", melds=[meld("concealed_kong", "2s")], flowers="3f")
    assert set(s.hua) == {
        ("flower", "3f", 1),
        ("concealed_kong", "2s", 2),
        ("honour_concealed_triplet", "5z", 2),
    }


def test_an_honour_triplet_completed_by_the_discard_is_one_hua_and_wins_on_it() -> None:
    # §J5 (decided): 555z completed by the dealer's 5z counts as exposed, 1 花; that 花 is what
    # lets the 鸡胡 shape win on a discard (§J4 一花起胡): (10 + 1 × 5) × 1 = 15 from the dealer.
    state = play(build(["5z +", "123m 456p 789s 55z 66z", None, None]), [[0, "discard", "5z"]])
    assert legal(state, 1) == {("win", None, ()), ("pong", None, ()), ("pass", None, ())}
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "dian_pao" and s["winners"] == [1]
    assert payments(s) == {(0, 1): 15}
    assert s["deltas"] == [-15, 15, 0, 0] and s["next_dealer"] == 1
    (p,) = s["payments"]
    assert p["detail"]["hua_total"] == 1 and p["detail"]["fan"] == []


def test_a_number_triplet_completed_by_the_discard_is_no_hua_and_cannot_win_on_it() -> None:
    # The same shape with number pairs: 555m completed by the dealer's 5m is 0 花 (§J5) and the
    # hand has no 番: no win on the discard (§J4 一花起胡), only the pong.
    state = play(build(["5m +", "123m 456p 789s 55m 88p", None, None]), [[0, "discard", "5m"]])
    assert legal(state, 1) == {("pong", None, ()), ("pass", None, ())}
    with pytest.raises(IllegalAction):
        jintan.apply(state, 1, Action("win"))


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


def test_dui_dui_hu_when_the_triplets_could_also_be_read_as_runs() -> None:
    # §J6: 对对胡 is "standard shape, all triplets/kongs": 111m 222m 333m is also 123m three
    # times, but the hand can be read as all triplets, so it is 对对胡; with the honours it is
    # 混一色 too: 2 番. 花: the concealed 555z, 2 (§J5). (10 + 2 × 5) × 2^2 = 80.
    s = scored("111m 222m 333m 555z 11z", "5z")
    assert set(s.fan) == {"hun_yi_se", "dui_dui_hu"}
    assert (s.hua_total, s.points, s.capped) == (2, 80, False)


def test_seven_pairs_with_four_equal_tiles_self_drawn_pay_qi_dui() -> None:
    # §J4: 1111m are two pairs; the 7z drawn makes 七对 (§J6, 2 番): (10 + 0 × 5) × 2^2 = 40 each
    state = build(["1z +", "1111m 22m 33p 44p 55s 7z", None, None], "7z")
    s = settle(play(state, [[0, "discard", "1z"], [1, "self_draw"]]))
    assert s["win_kind"] == "zi_mo" and s["winners"] == [1]
    assert payments(s) == {(0, 1): 40, (2, 1): 40, (3, 1): 40}
    assert s["deltas"] == [-40, 120, -40, -40] and s["next_dealer"] == 1
    assert {(str(p["detail"]["fan"]), p["detail"]["hua_total"]) for p in s["payments"]} == {
        ("['qi_dui']", 0)
    }


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


@pytest.mark.parametrize(
    ("held", "flower", "flags"),
    [
        ("123m 456p 789s 55z 23s", False, {"1s": True, "4s": True}),  # 鸡胡: no 花, no 番
        ("123m 456p 789s 55z 66z", False, {"5z": False, "6z": False}),  # honour triplet: 1 花
        ("111m 456p 789s 55s 66z", False, {"5s": True, "6z": False}),  # number triplet: 0 花
        ("123m 456p 789s 55z 23s", True, {"1s": False, "4s": False}),  # a flower: 1 花
    ],
)
def test_the_view_marks_the_waits_that_win_by_self_draw_only(
    held: str, flower: bool, flags: dict[str, bool]
) -> None:
    # §J4 一花起胡: a wait that would give no 花 and no 番 on a discard is self-draw only
    state = build(["1z +", held, None, None])
    if flower:
        state.flowers[1] = [tile_index("1f")]
    view = jintan.view(state, 1)
    assert {w["tile"]: w["self_draw_only"] for w in view["waits"]} == flags  # type: ignore[union-attr]
    assert "waits" not in jintan.view(state, None)  # a seat's own: a spectator sees none


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


def test_du_diao_alone_is_a_fan_that_wins_on_a_discard() -> None:
    # §J4 一花起胡: a win on a discard needs a 花 or a 番; 独吊 (§J6, 1 番) is one. Seat 1 has no
    # flower and waits on 5s alone (123m 456m 789m 123p 5s): it wins on the dealer's 5s,
    # (10 + 0 × 5) × 2^1 = 20 from the discarder (§J7).
    state = play(build(["5s +", "123m 456m 789m 123p 5s", None, None]), [[0, "discard", "5s"]])
    assert ("win", None, ()) in legal(state, 1)
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "dian_pao" and s["winners"] == [1]
    assert s["payments"][0]["detail"]["fan"] == ["du_diao"]
    assert payments(s) == {(0, 1): 20}
    assert s["deltas"] == [-20, 20, 0, 0] and s["next_dealer"] == 1


def test_gang_kai_pays_as_a_self_draw_with_one_more_fan() -> None:
    # Seat 1 draws 9s, konged 2222m (2 花), the replacement 1z makes 111z (2 花): 杠开 1 番.
    state = build(["5z +", "2222m 345p 678s 11z 9s", None, None], "9s", "1z")
    s = settle(play(state, [[0, "discard", "5z"], [1, "kong", "2m"], [1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai"
    assert s["payments"][0]["detail"]["fan"] == ["gang_kai"]
    assert s["deltas"] == [-60, 180, -60, -60]


def test_gang_kai_after_an_exposed_kong_claimed_from_a_discard() -> None:
    # Seat 1 kongs the dealer's 2m (number exposed kong, 1 花); the replacement 1z makes a
    # concealed 111z (2 花). §J7 杠开 = self-draw + 1 番: (10 + 3 × 5) × 2 = 50 from each.
    state = build(["2m +", "222m 345p 678s 11z 99s", None, None], back="1z")
    state = play(state, [[0, "discard", "2m"], [1, "kong"]])
    assert [m.kind for m in state.melds[1]] == ["exposed_kong"]
    assert state.drawn[1] == tile_index("1z")
    s = settle(play(state, [[1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai" and s["winners"] == [1]
    assert payments(s) == {(0, 1): 50, (2, 1): 50, (3, 1): 50}
    assert s["deltas"] == [-50, 150, -50, -50] and s["next_dealer"] == 1
    assert {(str(p["detail"]["fan"]), p["detail"]["hua_total"]) for p in s["payments"]} == {
        ("['gang_kai']", 3)
    }


def test_gang_kai_after_an_added_kong_nobody_robbed() -> None:
    # Seat 1 pongs the dealer's 5m, later draws the fourth and adds it (number kong, 1 花);
    # nobody can rob, the replacement 6s completes 678s. §J7 杠开: (10 + 1 × 5) × 2 = 30 each.
    state = build(["5m +", "55m 123p 456p 78s 99s 7z", None, None], "3z 4z 6z 5m", "6s")
    state = play(
        state,
        [
            [0, "discard", "5m"],
            [1, "pong"],
            [1, "discard", "7z"],
            [2, "discard_drawn"],
            [3, "discard_drawn"],
            [0, "discard_drawn"],
        ],
    )
    state, _ = jintan.apply(close_window(state), 1, Action("kong", tile="5m"))
    assert state.phase == "rob" and state.claim_options == {}  # a rob window nobody can use
    state = close_window(state)
    assert [m.kind for m in state.melds[1]] == ["added_kong"]
    s = settle(play(state, [[1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai" and s["winners"] == [1]
    assert payments(s) == {(0, 1): 30, (2, 1): 30, (3, 1): 30}
    assert s["deltas"] == [-30, 90, -30, -30] and s["next_dealer"] == 1
    assert {(str(p["detail"]["fan"]), p["detail"]["hua_total"]) for p in s["payments"]} == {
        ("['gang_kai']", 1)
    }


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


def test_qiang_gang_by_a_robber_with_hua_and_fan_is_paid_three_times_its_points() -> None:
    # Seat 3 gets ready only after the dealer's 5m (draws 6m): 46m 123m 789m 111z 22z, one
    # flower. It robs seat 2's added 5m: 花 1 (flower) + 2 (concealed 111z) = 3, 混一色 1 番,
    # no extra 番 for 抢杠 (§J7): (10 + 3 × 5) × 2 = 50; the robbed seat pays 3 × 50 = 150.
    state = build(["5m +", None, "55m 6z +", "4m 7s 123m 789m 111z 2z 1f"], "6m 3z 4z 5m", "2z")
    state = play(
        state,
        [
            [0, "discard", "5m"],
            [2, "pong"],
            [2, "discard", "6z"],
            [3, "discard", "7s"],
            [0, "discard_drawn"],
            [1, "discard_drawn"],
            [2, "kong", "5m"],
        ],
    )
    assert state.phase == "rob" and legal(state, 3) == {("win", None, ()), ("pass", None, ())}
    s = settle(play(state, [[3, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [3]
    assert payments(s) == {(2, 3): 150}
    assert s["deltas"] == [0, 0, -150, 150] and s["next_dealer"] == 1
    (p,) = s["payments"]
    assert (p["detail"]["hua_total"], p["detail"]["fan"]) == (3, ["hun_yi_se"])


def test_a_concealed_kong_opens_no_rob_window() -> None:
    # Seat 2 (one flower) waits on 5m only; seat 1 kongs its four 5m concealed: nobody may rob
    # it (抢杠 is of an added kong, §J7; guiyang.md §8.4): seat 1 draws its replacement at once.
    state = build(["1z +", "5555m 123p 456p 789s", "46m 123s 456s 789s 9p 1f", None], "7z", "9p 7z")
    state = play(state, [[0, "discard", "1z"]])
    state = close_window(state)
    assert jintan.waits(state, 2) == [tile_index("5m")]
    state, _ = jintan.apply(state, 1, Action("kong", tile="5m"))
    assert state.phase == "turn" and state.turn == 1 and state.claim_options == {}
    assert [m.kind for m in state.melds[1]] == ["concealed_kong"]
    assert state.drawn[1] == tile_index("7z")
    assert legal(state, 2) == set() and not state.guo_hu[2]


def test_a_dealer_who_wins_alone_on_a_discard_keeps_the_deal() -> None:
    # The dealer (one flower) wins on seat 1's 4p: (10 + 1 × 5) × 1 = 15 from seat 1 (§J7);
    # §J8: a winning dealer keeps the deal.
    state = build(["123m 456m 789m 23p 5s 1f 6z", "4p +", None, None], "7z", "5s")
    s = settle(play(state, [[0, "discard", "6z"], [1, "discard", "4p"], [0, "win"]]))
    assert s["win_kind"] == "dian_pao" and s["winners"] == [0]
    assert payments(s) == {(1, 0): 15}
    assert s["deltas"] == [15, -15, 0, 0] and s["next_dealer"] == 0


def test_three_winners_of_one_discard_are_each_paid_by_the_discarder() -> None:
    # 一炮多响 (§J3) on the dealer's 4p. Seats 1 and 2: one flower each, (10 + 1 × 5) = 15;
    # seat 3: three concealed honour triplets, 3 × 2 = 6 花, (10 + 6 × 5) = 40 (§J7: the
    # discarder pays each). §J8: the dealer did not win, so the next seat deals.
    state = build(
        [
            "4p +",
            "123m 456m 789m 23p 5s 1f",
            "123s 456s 789s 23p 5m 2f",
            "111z 222z 333z 23p 77s",
        ],
        back="5s 5m",
    )
    s = settle(play(state, [[0, "discard", "4p"], [1, "win"], [2, "win"], [3, "win"]]))
    assert s["win_kind"] == "dian_pao" and s["winners"] == [1, 2, 3]
    assert payments(s) == {(0, 1): 15, (0, 2): 15, (0, 3): 40}
    assert s["deltas"] == [-70, 15, 15, 40] and s["next_dealer"] == 1


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


def test_a_kong_then_a_flower_then_a_win_on_the_flowers_replacement_is_no_gang_kai() -> None:
    # Seat 1 kongs 2222m; the replacement is a flower (1f), whose replacement 1z completes the
    # hand. §J2 (decided): a win on a flower's replacement is a plain self-draw, not 杠开.
    # 花 2 (concealed number kong) + 2 (concealed 111z) + 1 (1f) = 5, no 番: 10 + 5 × 5 = 35 each.
    state = build(["5z +", "2222m 345p 678s 11z 9s", None, None], "9s", "1f 1z")
    state = play(state, [[0, "discard", "5z"], [1, "kong", "2m"]])
    assert state.flowers[1] == [tile_index("1f")] and state.drawn[1] == tile_index("1z")
    s = settle(play(state, [[1, "self_draw"]]))
    assert s["win_kind"] == "zi_mo" and s["winners"] == [1]
    assert payments(s) == {(0, 1): 35, (2, 1): 35, (3, 1): 35}
    assert s["deltas"] == [-35, 105, -35, -35] and s["next_dealer"] == 1
    assert {(str(p["detail"]["fan"]), p["detail"]["hua_total"]) for p in s["payments"]} == {
        ("[]", 5)
    }


@pytest.mark.parametrize(
    ("hands", "back", "result", "deltas"),
    [
        # seven flowers elsewhere: the dealer's 8f has no replacement: 黄庄, nothing paid
        ([None, "123f +", "45f +", "67f +"], "2z 3z 4z 3z 4z 3z 4z", "huang_zhuang", [0] * 4),
        # the dealer's eighth flower: §J2 wins at once at the cap, (10 + 8 × 5) × 4 = 200 each
        (["1234567f +", None, None, None], "6s 9s 1z 2z 3z 4z 5z", "win", [600, -200, -200, -200]),
    ],
)
def test_a_flower_drawn_as_the_last_tile_of_the_wall(
    hands: list[str | None], back: str, result: str, deltas: list[int]
) -> None:
    # The seven dealt flowers are replaced from the back at the deal; 8f is then the last tile
    # of the wall, drawn by the dealer. Fillers discard what they draw. §J8: the dealer keeps.
    state, events = play_out(build(hands, back=back + " 8f"))
    assert [(e["type"], e.get("seat"), e.get("tile")) for e in events if "seat" in e][-2:] == [
        ("draw", 0, "8f"),
        ("flower", 0, "8f"),
    ]
    assert state.wall_count == 0
    s = settle(state)
    assert s["result"] == result and s["deltas"] == deltas and s["next_dealer"] == 0
    if result == "win":
        assert s["win_kind"] == "ba_hua" and s["winners"] == [0]
        assert payments(s) == {(1, 0): 200, (2, 0): 200, (3, 0): 200}
        assert all(p["detail"]["capped"] for p in s["payments"])
    else:
        assert s["payments"] == [] and state.flowers[0] == [tile_index("8f")]


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


def test_eight_flowers_with_an_open_honour_pong() -> None:
    # §J2: eight flowers win at once, "paid as a self-draw at the cap"; the cap is (底数 + 花数
    # × 花分值) × 4 (§J6) and the winner's 花 (§J5) are its 8 flowers and its exposed honour
    # triplet (1): (10 + 9 × 5) × 4 = 220 from each other seat. Seat 1 holds seven flowers
    # (replaced at the deal), pongs the dealer's 5z, and draws the eighth on its next turn.
    state = build(
        ["5z +", "1234567f 55z 123m 4m", None, None],
        "3z 4z 6z 8f",
        "9m 9p 9s 7z 8m 8p 8s",
    )
    state = play(state, [[0, "discard", "5z"], [1, "pong"], [1, "discard", "7z"]])
    state = play(state, [[2, "discard_drawn"], [3, "discard_drawn"], [0, "discard_drawn"]])
    s = settle(close_window(state))
    assert s["win_kind"] == "ba_hua" and s["winners"] == [1]
    assert s["payments"][0]["detail"]["hua_total"] == 9
    assert payments(s) == {(0, 1): 220, (2, 1): 220, (3, 1): 220}
    assert s["deltas"] == [-220, 660, -220, -220] and s["next_dealer"] == 1


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


@pytest.mark.parametrize(
    ("discard", "held", "chow"),
    [
        ("3z", "1z 2z", False),
        ("5z", "6z 7z", False),
        ("1p", "8m 9m", False),
        ("9m", "1p 2p", False),
        ("7m", "8m 9m", True),  # control: a run of one suit
    ],
)
def test_no_chow_of_honours_or_across_suits(discard: str, held: str, chow: bool) -> None:
    # §J3: a chow is a run, and runs are "three consecutive tiles of one suit" (guiyang.md
    # §6.1): winds and dragons make none, and 8m 9m 1p is no run.
    state = build([f"{discard} +", f"{held} +", None, None])
    state = play(state, [[0, "discard", discard]])
    chows = {a.tiles for a in jintan.legal_actions(state, 1) if a.kind == "chow"}
    assert chows == ({tuple(held.split())} if chow else set())


def test_pong_beats_a_chow_answered_first() -> None:
    state = build(["3m +", "245m 258p 369s 1234z", "33m +", None])
    state = play(state, [[0, "discard", "3m"], [1, "chow", "2m4m"]])
    assert not jintan.claims_decided(state)  # seat 2 may still pong
    state = play(state, [[2, "pong"]])
    assert state.turn == 2 and state.melds[2][0].kind == "pong" and not state.melds[1]


@pytest.mark.parametrize(("seat3", "claim"), [("44p +", "pong"), ("444p +", "kong")])
def test_a_win_beats_a_pong_or_kong_answered_first(seat3: str, claim: str) -> None:
    # §J3: win beats all. Seat 3 claims the dealer's 4p first; seat 2 (one flower) wins on it:
    # (10 + 1 × 5) = 15 from the dealer, and seat 3's claim comes to nothing.
    state = build(["4p +", None, "123m 456m 789m 23p 5s 1f", seat3], back="5s")
    state = play(state, [[0, "discard", "4p"], [3, claim]])
    assert not jintan.claims_decided(state)  # seat 2 may still win
    state = play(state, [[2, "win"]])
    assert state.melds[3] == []  # seat 3 keeps its 4p
    assert state.hands[3][tile_index("4p")] == (2 if claim == "pong" else 3)
    s = settle(state)
    assert s["win_kind"] == "dian_pao" and s["winners"] == [2]
    assert payments(s) == {(0, 2): 15}
    assert s["deltas"] == [-15, 0, 15, 0] and s["next_dealer"] == 1


def test_a_kong_beats_a_chow_answered_first() -> None:
    # §J3: kong beats chow. Seat 1 chows the dealer's 3m first; seat 2 holds 333m and kongs.
    state = build(["3m +", "245m 258p 369s 1234z", "333m +", None])
    state = play(state, [[0, "discard", "3m"], [1, "chow", "2m4m"]])
    assert not jintan.claims_decided(state)  # seat 2 may still kong
    state = play(state, [[2, "kong"]])
    assert state.turn == 2 and [m.kind for m in state.melds[2]] == ["exposed_kong"]
    assert state.melds[1] == [] and state.hands[1][tile_index("2m")] == 1
    assert state.drawn[2] is not None  # the kong's replacement


def _last_tile_5m(seat_with_555m: int) -> State:
    """The dealer waits on 5m only (111m 789m 222z 46m 11z: 2 花, 混一色); the three other 5m are
    held by ``seat_with_555m``; the flowers are dealt (replaced at the deal), so seat 3 draws
    the last tile of the wall, the fourth 5m. Everyone else discards what it draws."""
    hands = [
        "111m 789m 222z 46m 11z 7z",
        "555m +" if seat_with_555m == 1 else None,
        "1234f +",
        "5678f 555m +" if seat_with_555m == 3 else "5678f +",
    ]
    state = build(hands, back="3z 4z 5z 6z 3z 4z 5z 6z 5m")
    state, _ = play_out(state, lambda s: s.phase == "turn" and s.wall_count == 0)
    assert state.turn == 3 and state.drawn[3] == tile_index("5m")
    return state


def test_an_empty_wall_offers_only_the_win_on_a_discard() -> None:
    # guiyang.md §2, which §J applies: with the wall empty a discard may only be claimed for a
    # win. Seat 3 discards the last tile, 5m: the dealer may win (not chow 46m), seat 1 may not
    # pong or kong its 555m. The win: 222z 2 花, 混一色 1 番: (10 + 2 × 5) × 2 = 40 from seat 3.
    state = play(_last_tile_5m(1), [[3, "discard", "5m"]])
    assert legal(state, 0) == {("win", None, ()), ("pass", None, ())}
    assert legal(state, 1) == set() and state.hands[1][tile_index("5m")] == 3
    s = settle(play(state, [[0, "win"]]))
    assert s["win_kind"] == "dian_pao" and payments(s) == {(3, 0): 40}
    assert s["deltas"] == [40, 0, 0, -40] and s["next_dealer"] == 0


def test_no_kong_of_ones_own_with_an_empty_wall() -> None:
    # guiyang.md §2: with the wall empty nobody may kong (no replacement). Seat 3 draws the
    # last tile, its fourth 5m: it may only discard.
    state = _last_tile_5m(3)
    assert state.hands[3][tile_index("5m")] == 4
    assert {kind for kind, _, _ in legal(state, 3)} == {"discard"}


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


def test_passing_a_robbable_kong_sets_the_pass_lock() -> None:
    # guiyang.md §3 as §J4 applies it: passing a robbable kong locks discard wins too. Seat 3
    # (one flower) gets ready on 2m / 5m only after the dealer's 5m (draws 4m); it passes the
    # robbing of seat 2's added 5m, then seat 2 discards 2m: no win offered, only the chow.
    state = build(["5m +", None, "55m 6z +", "3m 7z 123p 456p 789p 1s 2f"], "4m 3z 4z 5m", "1s 2m")
    state = play(
        state,
        [
            [0, "discard", "5m"],
            [2, "pong"],
            [2, "discard", "6z"],
            [3, "discard", "7z"],
            [0, "discard_drawn"],
            [1, "discard_drawn"],
            [2, "kong", "5m"],
        ],
    )
    assert jintan.waits(state, 3) == [tile_index("2m"), tile_index("5m")]
    assert not state.guo_hu[3] and legal(state, 3) == {("win", None, ()), ("pass", None, ())}
    state = play(state, [[3, "pass"]])
    assert state.guo_hu[3]
    state = play(state, [[2, "discard_drawn"]])  # the kong's replacement, 2m
    assert state.last_discard == (2, tile_index("2m"))
    assert legal(state, 3) == {("chow", None, ("3m", "4m")), ("pass", None, ())}


# ---------------------------------------------------------------------------- interface


def test_options_validate_and_default() -> None:
    assert JintanOptions().model_dump()["base"] == 10
    assert JintanOptions().flower_value == 5 and JintanOptions().chow is True
    from pydantic import ValidationError

    for key, value in [("base", 0), ("flower_value", -1), ("chow", "maybe"), ("players", 3)]:
        with pytest.raises(ValidationError) as exc:
            JintanOptions(**{key: value})
        assert key in str(exc.value)


def test_the_deal_rolls_two_dice_after_the_shuffle_of_the_144_tiles() -> None:
    # guiyang.md §2 (which §J applies): the two rolls that follow the shuffle in the same
    # generator, in every view (a spectator's too); a hand dealt from given tiles has none.
    import random

    rng = random.Random("jt-dice")
    rng.shuffle(list(range(144)))
    want = (rng.randint(1, 6), rng.randint(1, 6))
    state = jintan.deal(JintanOptions(), "jt-dice", dealer=1)
    assert state.dice == want
    assert all(jintan.view(state, seat)["dice"] == list(want) for seat in (0, 1, None))
    assert build([None] * 4).dice is None and jintan.view(build([None] * 4), 0)["dice"] is None


def test_deal_is_determined_by_the_seed() -> None:
    a = jintan.deal(JintanOptions(), "s-1", dealer=3)
    b = jintan.deal(JintanOptions(), "s-1", dealer=3)
    assert a == b and a.seed_hash == jintan.seed_hash("s-1")
    held = sum(sum(h) for h in a.hands) + sum(len(f) for f in a.flowers)
    assert held + a.wall_count == 144
    assert jintan.view(a, 0)["seed"] is None


def test_river_last_marks_the_latest_discard_until_it_is_claimed() -> None:
    """The view's public ``river_last`` (docs/protocol.md), as Guiyang's: the discard nobody
    took, for every audience; none once a pong took it."""
    state = build(["4p 9s +", None, None, None], wall="2s")
    assert jintan.view(state, 1)["river_last"] is None
    state = close_window(play(state, [[0, "discard", "9s"]]))
    assert state.phase == "turn" and state.turn == 1
    for seat in (None, 0, 1, 2):
        assert jintan.view(state, seat)["river_last"] == {"seat": 0, "index": 0}
    state = play(build(["4p +", "44p +", None, None]), [[0, "discard", "4p"], [1, "pong"]])
    assert state.melds[1] and jintan.view(state, None)["river_last"] is None
