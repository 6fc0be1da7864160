"""More chicken options (spec/guiyang.md §9.6): 乌骨鸡, 本鸡, 星期鸡, 吹风鸡, with exact points.

Scenarios as in `test_guiyang_rules`: seat 1 holds a 平胡 waiting on 1p / 4p, the dealer
discards 9m, each seat discards what it draws for one round, then seat 1 self-draws (2 from
each other seat for 平胡 + 自摸). The tile after the winning draw is turned for 翻牌鸡.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from server.rules import guiyang
from server.rules.guiyang import GuiyangOptions
from tests.rules.scenario import build, by_reason, payments, play, settle
from tests.rules.test_guiyang_rules import ROUND, W, each_pays, zimo

W8 = "123m 456m 789m 23p 88p"  # seat 1 holds a pair of 8p
W11 = "123m 456m 789m 23p 11s"  # seat 1 holds a pair of 1s
QUIET = "7s 7s 7s 7s"  # draws nobody can use, none a chicken


def chicken(settlement: dict, tile: str) -> dict:
    """The ``chicken_values`` entry of ``tile``."""
    (entry,) = [c for c in settlement["chicken_values"] if c["tile"] == tile]
    return entry


# ---------------------------------------------------------------------------- 乌骨鸡


@pytest.mark.parametrize(
    ("options", "turned", "per_8p", "deltas"),
    [
        ({}, "5s", 0, [-2, 6, -2, -2]),
        ({"wu_gu_ji": True}, "5s", 2, [-6, 18, -6, -6]),
        ({"wu_gu_ji": True}, "7p", 4, [-10, 30, -10, -10]),  # 8p also turned: 金
        ({}, "7p", 1, [-4, 12, -4, -4]),  # a plain turned chicken without the option
        ({"wu_gu_ji": True, "yao_bai_ji": True}, "9p", 4, [-10, 30, -10, -10]),
        ({"wu_gu_ji": True, "yao_bai_ji": True}, "7p", 4, [-10, 30, -10, -10]),
        ({"wu_gu_ji": True, "ben_ji": True}, "8p", 4, [-10, 30, -10, -10]),
        ({"wu_gu_ji": True}, "8p", 2, [-6, 18, -6, -6]),  # turning 8p itself: not without 本鸡
    ],
)
def test_wu_gu_ji_eight_dots_are_worth_two_and_golden_four(
    options: dict, turned: str, per_8p: int, deltas: list[int]
) -> None:
    s = zimo(w=W8, draws=QUIET, turned=turned, **options)
    assert s["turned"] == turned
    each_pays(s, 1, 2)
    if per_8p:
        assert "8p" in s["chickens"]
        assert chicken(s, "8p")["value"] == per_8p
        assert chicken(s, "8p")["jin"] == (per_8p == 4)
        each_pays(s, 1, 2 * per_8p, "ji")
        assert {line["detail"]["tile"] for line in s["payments"] if line["reason"] == "ji"} == {
            "8p"
        }
    else:
        assert by_reason(s, "ji") == {}
    assert s["deltas"] == deltas


def test_wu_gu_ji_facts_name_the_kind_and_golden() -> None:
    s = zimo(w=W8, draws=QUIET, turned="7p", wu_gu_ji=True)
    facts = [line["detail"] for line in s["payments"] if line["reason"] == "ji"]
    want = {"tile": "8p", "kind": "wu_gu_ji", "jin": True, "at": "hand"}  # seat 1's pair
    assert facts and all(f == want for f in facts)
    assert chicken(s, "8p")["kinds"] == ["wu_gu_ji", "fan_pai_ji"]


@pytest.mark.parametrize(
    ("turned", "man_tang_ji", "each"), [("5s", True, 4), ("5s", False, 4), ("7p", True, 8)]
)
def test_wu_gu_chong_feng_ji_of_a_ready_seat_is_worth_four(
    turned: str, man_tang_ji: bool, each: int
) -> None:
    # The winner's first discard is the hand's first 8p, unclaimed: its 乌骨冲锋鸡.
    s = zimo(draws="8p 7s 7s 7s", turned=turned, wu_gu_ji=True, man_tang_ji=man_tang_ji)
    each_pays(s, 1, each, "chong_feng_ji")
    assert by_reason(s, "ji") == {}
    assert {line["detail"]["tile"] for line in s["payments"] if line["reason"] != "hu"} == {"8p"}
    assert s["deltas"] == [-2 - each, 6 + 3 * each, -2 - each, -2 - each]


def test_without_wu_gu_ji_the_first_8p_is_nothing() -> None:
    s = zimo(draws="8p 7s 7s 7s")
    assert payments(s) == {(p, 1, "hu"): 2 for p in (0, 2, 3)}


@pytest.mark.parametrize(("turned", "cfj", "per_8p"), [("5s", 4, 2), ("7p", 8, 4)])
@pytest.mark.parametrize("man_tang_ji", [True, False])
def test_bao_ji_seats_not_ready_pay_for_their_open_8p(
    turned: str, cfj: int, per_8p: int, man_tang_ji: bool
) -> None:
    # Seat 2 discards the first 8p (its 乌骨冲锋鸡), seats 3 and 0 discard one each: none of
    # them is ready, so each pays the ready winner (包鸡), with 手上鸡 too.
    s = zimo(draws="7s 8p 8p 8p", turned=turned, wu_gu_ji=True, man_tang_ji=man_tang_ji)
    assert s["ready"] == [1]
    assert by_reason(s, "chong_feng_ji") == {(2, 1): cfj}
    assert by_reason(s, "ji") == {(3, 1): per_8p, (0, 1): per_8p}
    bao = [line["detail"] for line in s["payments"] if line["reason"] in ("ji", "chong_feng_ji")]
    assert all(d["bao_ji"] and d["tile"] == "8p" for d in bao)
    # each 包鸡 line says the tile lies in the payer's river (the 冲锋鸡 is a discard anyway)
    ji_at = {line["detail"]["at"] for line in s["payments"] if line["reason"] == "ji"}
    assert ji_at == {"river"}
    assert s["deltas"] == [-2 - per_8p, 6 + cfj + 2 * per_8p, -2 - cfj, -2 - per_8p]


@pytest.mark.parametrize(("turned", "per_8p", "ze_ren"), [("5s", 2, 4), ("7p", 4, 8)])
def test_wu_gu_ze_ren_ji_claimer_ready_the_discarder_pays(
    turned: str, per_8p: int, ze_ren: int
) -> None:
    # Seat 1 pongs the dealer's first 8p and self-draws 2s (single wait).
    state = build(
        ["8p 9m +", "88p 123m 456m 789m 2s 5s", None, None],
        f"7s 7s 7s 2s {turned}",
        wu_gu_ji=True,
    )
    actions = [
        [0, "discard", "8p"],
        [1, "pong"],
        [1, "discard", "5s"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert by_reason(s, "ze_ren_ji") == {(0, 1): ze_ren}
    (line,) = [p for p in s["payments"] if p["reason"] == "ze_ren_ji"]
    assert line["detail"] == {"tile": "8p", "kind": "wu_gu_ji", "jin": per_8p == 4}
    each_pays(s, 1, 3 * per_8p, "ji")  # the pong's three 8p are seat 1's chickens
    assert {p["detail"]["at"] for p in s["payments"] if p["reason"] == "ji"} == {"meld"}
    each_pays(s, 1, 2)
    other = -2 - 3 * per_8p
    assert s["deltas"] == [other - ze_ren, -3 * other + ze_ren, other, other]


def test_wu_gu_ze_ren_ji_claimer_not_ready_pays_the_ready_discarder() -> None:
    # Seat 1 (ready) discards the first 8p, seat 2 (not ready) pongs it; seat 1 self-draws.
    state = build(["9m +", W, "88p 9p +", None], "8p 7s 7s 4p 5s", wu_gu_ji=True)
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "pong"],
        [2, "discard", "9p"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert by_reason(s, "ze_ren_ji") == {(2, 1): 4}
    assert by_reason(s, "ji") == {(2, 1): 6}  # 包鸡 for the three 8p of seat 2's pong
    assert s["deltas"] == [-2, 6 + 4 + 6, -2 - 4 - 6, -2]


@pytest.mark.parametrize(("man_tang_ji", "river"), [(True, 2), (False, 0)])
def test_a_later_8p_in_a_ready_seats_river_counts_only_with_man_tang_ji(
    man_tang_ji: bool, river: int
) -> None:
    # The dealer (not ready) discards the first 8p; seat 1 discards the second.
    state = build(
        ["8p +", W, None, None], "8p 7s 7s 7s 4p 5s", wu_gu_ji=True, man_tang_ji=man_tang_ji
    )
    actions = [
        [0, "discard", "8p"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert by_reason(s, "chong_feng_ji") == {(0, 1): 4}
    assert by_reason(s, "ji") == ({(p, 1): river for p in (0, 2, 3)} if river else {})
    assert s["deltas"] == [-6 - river, 10 + 3 * river, -2 - river, -2 - river]


def test_burned_seat_collects_no_wu_gu_chicken_but_its_discarder_still_pays() -> None:
    # 热炮: seat 2 konged 6s and discards 4p, seat 1 wins. The dealer's first 8p is a
    # 乌骨冲锋鸡 of a seat not ready: it pays each seat in R, but not the burned seat 2.
    state = build(["8p +", W, "6666s 234m 567m 35p 9s", None], "7s 4p 8s", "9s", wu_gu_ji=True)
    actions = [
        [0, "discard", "8p"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "re_pao" and s["burned"] == [2] and s["ready"] == [1, 2]
    assert payments(s) == {(2, 1, "hu"): 2, (0, 1, "chong_feng_ji"): 4}
    assert s["deltas"] == [-4, 6, -2, 0]


def test_burned_seat_still_pays_the_winners_wu_gu_chong_feng_ji() -> None:
    # 热炮 again; the winner's own first discard is the first 8p: every other seat pays it 4,
    # the burned seat included (payments from a burned seat stand).
    state = build(["9m +", W, "6666s 234m 567m 35p 9s", None], "8p 4p 8s", "9s", wu_gu_ji=True)
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["burned"] == [2]
    assert by_reason(s, "chong_feng_ji") == {(0, 1): 4, (2, 1): 4, (3, 1): 4}
    assert s["deltas"] == [-4, 14, -6, -4]


# ---------------------------------------------------------------------------- 本鸡


@pytest.mark.parametrize(("ben_ji", "deltas"), [(True, [-4, 12, -4, -4]), (False, [-3, 9, -3, -3])])
def test_ben_ji_the_turned_tile_is_a_chicken_too(ben_ji: bool, deltas: list[int]) -> None:
    s = zimo(turned="4m", ben_ji=ben_ji)  # seat 1 holds 4m and 5m
    assert ("4m" in s["chickens"]) == ben_ji and "5m" in s["chickens"]
    if ben_ji:
        assert chicken(s, "4m") == {"tile": "4m", "value": 1, "kinds": ["ben_ji"], "jin": False}
    assert s["deltas"] == deltas


@pytest.mark.parametrize(("ben_ji", "per_1s"), [(True, 2), (False, 1)])
def test_ben_ji_turning_1s_makes_jin_ji(ben_ji: bool, per_1s: int) -> None:
    s = zimo(w=W11, turned="1s", ben_ji=ben_ji)
    assert chicken(s, "1s")["jin"] == ben_ji
    each_pays(s, 1, 2 * per_1s, "ji")
    assert s["deltas"] == [-2 - 2 * per_1s, 6 + 6 * per_1s, -2 - 2 * per_1s, -2 - 2 * per_1s]


def test_ben_ji_golden_1s_doubles_the_chong_feng_ji() -> None:
    s = zimo(draws="1s 8p 8p 8p", turned="1s", ben_ji=True)  # the winner discarded it
    each_pays(s, 1, 4, "chong_feng_ji")


# ---------------------------------------------------------------------------- 星期鸡


@pytest.mark.parametrize(
    ("options", "weekday", "deltas"),
    [
        ({"xing_qi_ji": True}, 5, [-5, 15, -5, -5]),  # 5m and 55s in seat 1's hand
        ({}, 5, [-2, 6, -2, -2]),
        ({"xing_qi_ji": True}, None, [-2, 6, -2, -2]),
        ({"xing_qi_ji": True}, 3, [-4, 12, -4, -4]),  # 3m and 3p
    ],
)
def test_xing_qi_ji_the_weekdays_rank_is_a_chicken(
    options: dict, weekday: int | None, deltas: list[int]
) -> None:
    state = build(["9m +", W, None, None], "8p 8p 8p 8p 4p 5s", weekday=weekday, **options)
    s = settle(play(state, [*ROUND, [1, "self_draw"]]))
    assert s["weekday"] == weekday
    if options and weekday:
        for suit in "mps":
            assert chicken(s, f"{weekday}{suit}")["kinds"] == ["xing_qi_ji"]
    assert s["deltas"] == deltas


def test_xing_qi_ji_is_never_golden_and_a_tile_counts_once() -> None:
    # Monday: 1m 1p 1s; turned 9s makes 1s a turned chicken (金鸡): 1s is worth 2, once.
    state = build(["9m +", W11, None, None], "8p 8p 8p 8p 4p 9s", weekday=1, xing_qi_ji=True)
    s = settle(play(state, [*ROUND, [1, "self_draw"]]))
    assert chicken(s, "1s") == {
        "tile": "1s",
        "value": 2,
        "kinds": ["yao_ji", "fan_pai_ji", "xing_qi_ji"],
        "jin": True,
    }
    assert chicken(s, "1m")["jin"] is False and chicken(s, "1m")["value"] == 1
    each_pays(s, 1, 2 * 2 + 1, "ji")  # two golden 1s and the 1m of 123m
    assert s["deltas"] == [-7, 21, -7, -7]


def test_weekday_at_uses_the_rooms_time_zone() -> None:
    # Sunday 2026-11-29 20:00 UTC is Monday 04:00 in Shanghai.
    ts = datetime(2026, 11, 29, 20, 0, tzinfo=UTC).timestamp()
    assert guiyang.weekday_at(GuiyangOptions(), ts) == 1
    assert guiyang.weekday_at(GuiyangOptions(time_zone="UTC"), ts) == 7
    assert guiyang.weekday_at(GuiyangOptions(time_zone="America/New_York"), ts) == 7


def test_the_weekday_is_published_with_the_deal_and_validated() -> None:
    state = guiyang.deal(GuiyangOptions(xing_qi_ji=True), "seed", weekday=4)
    assert all(guiyang.view(state, seat)["weekday"] == 4 for seat in (0, 1, None))
    for bad in (0, 8):
        with pytest.raises(ValueError, match="weekday"):
            guiyang.deal(GuiyangOptions(), "seed", weekday=bad)


# ---------------------------------------------------------------------------- 吹风鸡


@pytest.mark.parametrize(
    ("chui_feng_ji", "deltas"), [(True, [-2, 6, -2, -2]), (False, [-4, 12, -4, -4])]
)
def test_chui_feng_ji_a_turned_5p_voids_every_chicken(
    chui_feng_ji: bool, deltas: list[int]
) -> None:
    s = zimo(w=W11, turned="5p", chui_feng_ji=chui_feng_ji)
    assert s["turned"] == "5p" and s["chui_feng"] == chui_feng_ji
    assert (s["chickens"] == []) == chui_feng_ji
    assert s["deltas"] == deltas


def test_chui_feng_ji_voids_chong_feng_bao_ji_and_every_option_but_not_dou() -> None:
    # Seat 2 (not ready) discards the first 1s and seat 3 the first 8p: 冲锋鸡 and 包鸡 are
    # blown away too; the 闷豆 and the win (杠开: 1 + 1 + 1) stand.
    state = build(
        ["9m +", "123m 456m 23p 11s 777s", None, None],
        "8p 1s 8p 8p 7s 5p",
        "4p",
        chui_feng_ji=True,
        wu_gu_ji=True,
        ben_ji=True,
        xing_qi_ji=True,
        weekday=1,
    )
    s = settle(play(state, [*ROUND, [1, "kong", "7s"], [1, "self_draw"]]))
    assert s["turned"] == "5p" and s["chickens"] == [] and s["chicken_values"] == []
    assert {r for (_, _, r) in payments(s)} == {"hu", "dou"}
    assert s["deltas"] == [-5, 15, -5, -5]


def test_chui_feng_ji_leaves_other_turned_tiles_alone() -> None:
    s = zimo(w=W11, turned="4p", chui_feng_ji=True)
    each_pays(s, 1, 2, "ji")


# ---------------------------------------------------------------------------- combined


def test_options_combined_yi_kou_san_base_two_all_three_shou_shang_ji() -> None:
    # 一扣三, 底分 2, 豆 all_three, 手上鸡 (man_tang_ji off), 乌骨鸡 + 摇摆鸡 + 本鸡. The dealer
    # discards the hand's first 8p and later its first 1s, both unclaimed; seat 1 konged
    # seat 3's 7s (明豆) and self-draws 1s: 123m 456m 88p 111s + 7777s, 平胡. Turned 9p:
    # 摇摆鸡 8p and 1p, 本鸡 9p; 8p is a turned chicken too, so every 8p is golden (§9.6).
    state = build(
        ["8p 1s +", "123m 456m 88p 11s 777s", None, "7s +"],
        "3s 3s 3s 4s 4s 4s 1s 9p",
        "5m",
        scoring="yi_kou_san",
        base_points=2,
        dou_values="all_three",
        man_tang_ji=False,
        wu_gu_ji=True,
        yao_bai_ji=True,
        ben_ji=True,
    )
    actions = [
        [0, "discard", "8p"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "discard", "7s"],
        [1, "kong"],  # 明豆; the replacement 5m is discarded
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard", "1s"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "zi_mo" and s["hand_types"] == {"1": "ping_hu"}
    assert s["ready"] == [1] and s["turned"] == "9p"
    assert set(s["chickens"]) == {"1p", "8p", "9p", "1s"}
    assert payments(s) == {
        **{(p, 1, "hu"): 3 * 2 for p in (0, 2, 3)},  # §8.1 一扣三: 平胡 3, no extra; x 底分 2
        (3, 1, "dou"): 3 * 2,  # §9.2 all_three: 明豆 3 from the discarder, x 2
        # §9.3, §9.6: two golden 8p (4 each) and three 1s (1 each) in seat 1's hand, x 2
        **{(p, 1, "ji"): (2 * 4 + 3 * 1) * 2 for p in (0, 2, 3)},
        # §9.3 item 2 (包鸡, with 手上鸡 too): the dealer is not ready; its golden 乌骨冲锋鸡
        # 8 and its 冲锋鸡 2, x 2
        (0, 1, "chong_feng_ji"): (8 + 2) * 2,
    }
    assert s["deltas"] == [-6 - 22 - 20, 18 + 6 + 66 + 20, -6 - 22, -6 - 6 - 22]
    assert s["next_dealer"] == 1


# ---------------------------------------------------------------------------- §14 options


def test_the_chicken_options_are_off_by_default_and_validated() -> None:
    o = GuiyangOptions()
    assert (o.wu_gu_ji, o.ben_ji, o.xing_qi_ji, o.chui_feng_ji) == (False,) * 4
    assert o.time_zone == "Asia/Shanghai"
    for key, value in [
        ("wu_gu_ji", "maybe"),
        ("ben_ji", 3),
        ("xing_qi_ji", [True]),
        ("chui_feng_ji", "sometimes"),
        ("time_zone", "Mars/Olympus"),
        ("time_zone", 8),
    ]:
        with pytest.raises(ValidationError) as exc:
            GuiyangOptions(**{key: value})
        assert key in str(exc.value)
