"""The Guiyang rules, case by case, with the exact points of spec/guiyang.md.

Every scenario is built with `tests.rules.scenario`: the hands that matter are written out,
the other seats hold scattered filler tiles (never ready, never able to claim), the wall's
front is given in draw order and the tile turned for 翻牌鸡 is the next one. Unless a test
says otherwise the turned tile is 5s, so 6s is the turned chicken and nobody in R holds it.
"""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from server.rules import guiyang
from server.rules.guiyang import Action, GuiyangOptions, IllegalAction, State
from server.rules.tiles import tile_name
from tests.rules.scenario import build, by_reason, drain, legal, payments, play, settle

# Seat 1's standard hand: 平胡, waits 1p / 4p, no chicken, no pair that the others discard.
W = "123m 456m 789m 23p 55s"
PASS = ("pass", None, False)
WIN = ("win", None, False)
PONG = ("pong", None, False)
KONG = ("kong", None, False)
SELF_DRAW = ("self_draw", None, False)

# One round: the dealer discards 9m, then seats 1, 2, 3 and 0 each discard what they draw.
ROUND = [
    [0, "discard", "9m"],
    [1, "discard_drawn"],
    [2, "discard_drawn"],
    [3, "discard_drawn"],
    [0, "discard_drawn"],
]


def zimo(
    w: str = W,
    win: str = "4p",
    turned: str = "5s",
    draws: str = "8p 8p 8p 8p",
    hands: list[str | None] | None = None,
    **options: object,
) -> dict:
    """Seat 1 holds ``w``, discards its first draw, and self-draws ``win`` on its second."""
    state = build(hands or ["9m +", w, None, None], f"{draws} {win} {turned}", **options)
    return settle(play(state, [*ROUND, [1, "self_draw"]]))


def each_pays(settlement: dict, winner: int, points: int, reason: str = "hu") -> None:
    n = len(settlement["deltas"])
    assert by_reason(settlement, reason) == {(p, winner): points for p in range(n) if p != winner}


def fresh(state: State) -> State:
    return copy.deepcopy(state)


# ---------------------------------------------------------------------------- §8.1 self-draw


def test_self_draw_ping_hu_every_other_seat_pays_one_plus_one() -> None:
    s = zimo()
    assert s["result"] == "win" and s["winners"] == [1]
    assert s["hand_types"] == {"1": "ping_hu"}
    each_pays(s, 1, 2)
    assert s["deltas"] == [-2, 6, -2, -2]
    assert s["ready"] == [1]
    assert s["next_dealer"] == 1


def test_self_draw_has_no_extra_in_yi_kou_san() -> None:
    s = zimo(scoring="yi_kou_san")
    each_pays(s, 1, 3)  # 平胡 3, 自摸 +0
    assert s["deltas"] == [-3, 9, -3, -3]


def test_self_draw_in_lian_zhuang_the_dealer_pays_plus_streak() -> None:
    s = settle(
        play(
            build(["9m +", W, None, None], "8p 8p 8p 8p 4p 5s", scoring="lian_zhuang", streak=2),
            [*ROUND, [1, "self_draw"]],
        )
    )
    assert payments(s) == {(0, 1, "hu"): 2 + 2, (2, 1, "hu"): 2, (3, 1, "hu"): 2}
    assert s["deltas"] == [-4, 8, -2, -2]


def test_dealer_self_draw_in_lian_zhuang_every_payer_adds_the_streak() -> None:
    state = build([None, W + " 9p", None, None], "8p 8p 8p 4p 5s", dealer=1, streak=3,
                  scoring="lian_zhuang")
    actions = [[1, "discard", "9p"], [2, "discard_drawn"], [3, "discard_drawn"],
               [0, "discard_drawn"], [1, "self_draw"]]
    s = settle(play(state, actions))
    each_pays(s, 1, 2 + 3)
    assert s["deltas"] == [-5, 15, -5, -5]
    assert s["next_dealer"] == 1  # the dealer keeps the deal by winning (§10.3)


def test_lian_zhuang_on_a_discard_only_between_dealer_and_another_seat() -> None:
    dd = "111m 222p 333s 44m 55p"  # 大对子, waits 4m / 5p
    s = settle(
        play(
            build(["4m +", dd, None, None], "5s", scoring="lian_zhuang", streak=2),
            [[0, "discard", "4m"], [1, "win"]],
        )
    )
    assert payments(s) == {(0, 1, "hu"): 5 + 2}
    s = settle(
        play(
            build(["9m +", dd, None, None], "8p 4m 5s", scoring="lian_zhuang", streak=2),
            [[0, "discard", "9m"], [1, "discard_drawn"], [2, "discard_drawn"], [1, "win"]],
        )
    )
    assert payments(s) == {(2, 1, "hu"): 5}  # 其他玩家点炮时庄家不用额外赔付


# ---------------------------------------------------------------------------- §7 通行证


def test_ping_hu_on_a_discard_without_dou_is_refused() -> None:
    # 123m 456m 789m 44p 55s + 4p is complete (平胡), but there is no 豆 and no report.
    state = build(["4p +", "123m 456m 789m 44p 55s", None, None])
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    assert state.phase == "claim"
    assert legal(state, 1) == {PONG, PASS}
    before = fresh(state)
    with pytest.raises(IllegalAction):
        guiyang.apply(state, 1, Action("win"))
    assert state == before


def test_ping_hu_without_dou_cannot_even_be_claimed() -> None:
    state, _ = guiyang.apply(build(["4p +", W, None, None]), 0, Action("discard", tile="4p"))
    # Nobody may claim: seat 1 draws at once.
    assert state.phase == "turn" and state.turn == 1


DOU_VALUES = {"standard": (2, 3, 1), "all_three": (3, 3, 3)}  # 闷豆, 转弯豆, 明豆


@pytest.mark.parametrize("dou_values", list(DOU_VALUES))
def test_men_dou_allows_ping_hu_on_a_discard_and_is_paid_by_everyone(dou_values: str) -> None:
    men = DOU_VALUES[dou_values][0]
    state = build(
        ["9m +", "123m 456m 23p 5s 7777s", None, None], "8p 4p 5s", "5s", dou_values=dou_values
    )
    actions = [
        [0, "discard", "9m"],
        [1, "kong", "7s"],  # 闷豆; the replacement 5s comes from the back
        [1, "discard", "8p"],
        [2, "discard_drawn"],  # 4p
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["winners"] == [1] and s["hand_types"] == {"1": "ping_hu"}
    assert by_reason(s, "hu") == {(2, 1): 1}
    each_pays(s, 1, men, "dou")
    assert s["deltas"] == [-men, 1 + 3 * men, -1 - men, -men]


@pytest.mark.parametrize("dou_values", list(DOU_VALUES))
def test_ming_dou_allows_ping_hu_on_a_discard_and_the_discarder_pays(dou_values: str) -> None:
    ming = DOU_VALUES[dou_values][2]
    state = build(
        ["7s +", "123m 456m 23p 5s 777s 9p", None, None], "4p 5s", "5s", dou_values=dou_values
    )
    actions = [
        [0, "discard", "7s"],
        [1, "kong"],  # 明豆 from seat 0
        [1, "discard", "9p"],
        [2, "discard_drawn"],  # 4p
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["winners"] == [1]
    assert payments(s) == {(2, 1, "hu"): 1, (0, 1, "dou"): ming}
    assert s["deltas"] == [-ming, 1 + ming, -1, 0]


@pytest.mark.parametrize("dou_values", list(DOU_VALUES))
def test_zhuan_wan_dou_allows_ping_hu_on_a_discard(dou_values: str) -> None:
    zhuan = DOU_VALUES[dou_values][1]
    state = build(
        ["7s +", "77s 123m 456m 23p 5s 9p 9s", None, None],
        "8p 8p 8p 7s 4p 5s",
        "5s",
        dou_values=dou_values,
    )
    actions = [
        [0, "discard", "7s"],
        [1, "pong"],
        [1, "discard", "9p"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "kong", "7s"],  # 转弯豆 on the pong; nobody can rob 7s
        [1, "discard", "9s"],
        [2, "discard_drawn"],  # 4p
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["winners"] == [1] and s["hand_types"] == {"1": "ping_hu"}
    assert by_reason(s, "hu") == {(2, 1): 1}
    each_pays(s, 1, zhuan, "dou")
    assert s["deltas"] == [-zhuan, 1 + 3 * zhuan, -1 - zhuan, -zhuan]


def test_da_dui_zi_wins_on_a_discard_without_dou() -> None:
    s = settle(
        play(
            build(["4m +", "111m 222p 333s 44m 55p", None, None], "5s"),
            [[0, "discard", "4m"], [1, "win"]],
        )
    )
    assert s["hand_types"] == {"1": "da_dui_zi"}
    assert payments(s) == {(0, 1, "hu"): 5}
    assert s["deltas"] == [-5, 5, 0, 0]


def test_winner_with_soft_report_wins_ping_hu_on_a_discard_plus_ten() -> None:
    state = build(["9m +", "123m 456m 789m 23p 5s 9s", None, None], "5s 4p 5s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard", "9s", {"bao_ting": True}],  # drew 5s: 123m 456m 789m 23p 55s
        [2, "discard_drawn"],  # 4p
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["hand_types"] == {"1": "ping_hu"}
    assert payments(s) == {(2, 1, "hu"): 1 + 10}  # 软报 +10 (§8.5)
    assert s["deltas"] == [0, 11, -11, 0]


def test_soft_report_self_draw_every_payer_adds_ten() -> None:
    state = build(["9m +", "123m 456m 789m 23p 5s 9s", None, None], "5s 8p 8p 8p 4p 5s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard", "9s", {"bao_ting": True}],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    each_pays(s, 1, 1 + 1 + 10)
    assert s["deltas"] == [-12, 36, -12, -12]


def test_sha_bao_discarder_with_report_lets_ping_hu_win_and_pays_ten_more() -> None:
    # Seat 2 reports on its first discard (waits 9s), later must discard its drawn 4p.
    state = build(
        ["9m +", W, "234m 567m 345p 678p 8s", None], "9p 9s 9p 9p 9p 4p 2s"
    )
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "discard", "8s", {"bao_ting": True}],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["winners"] == [1] and s["hand_types"] == {"1": "ping_hu"}
    assert s["ready"] == [1, 2]
    assert payments(s) == {(2, 1, "hu"): 1, (2, 1, "sha_bao"): 10}
    assert s["deltas"] == [0, 11, -11, 0]


# ---------------------------------------------------------------------------- §8.3 after a kong


@pytest.mark.parametrize(
    ("scoring", "each"), [("yi_kou_er", 1 + 1 + 1), ("yi_kou_san", 3 + 0 + 1)]
)
def test_gang_kai_is_a_self_draw_plus_one(scoring: str, each: int) -> None:
    state = build(
        ["9m +", "123m 456m 23p 55s 777s", None, None], "8p 8p 8p 8p 7s 5s", "4p",
        scoring=scoring,
    )
    s = settle(play(state, [*ROUND, [1, "kong", "7s"], [1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai"
    each_pays(s, 1, each)
    each_pays(s, 1, 2, "dou")  # the 闷豆 itself
    assert s["deltas"] == [-each - 2, 3 * (each + 2), -each - 2, -each - 2]


def test_re_pao_adds_one_and_burns_the_kong_maker() -> None:
    # Seat 2: 闷豆 6s, replacement 9s, then discards 4p (ready on 4p: 234m 567m 35p 99s).
    # Turned 8s makes 9s a chicken: burned seat 2 would have collected 豆 and chickens.
    state = build(
        ["9m +", W, "6666s 234m 567m 35p 9s", None], "8p 4p 8s", "9s"
    )
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "re_pao" and s["winners"] == [1]
    assert s["burned"] == [2]
    assert 2 in s["ready"]
    assert s["turned"] == "8s" and set(s["chickens"]) == {"1s", "9s"}
    assert payments(s) == {(2, 1, "hu"): 1 + 1}  # no 豆, no 鸡 for seat 2
    assert s["deltas"] == [0, 2, -2, 0]


# ---------------------------------------------------------------------------- §8.4 抢杠

ROB = [
    [0, "discard", "4p"],
    [2, "pong"],
    [2, "discard", "9m"],
    [3, "discard_drawn"],
    [0, "discard_drawn"],
    [1, "discard_drawn"],
    [2, "kong", "4p"],  # 转弯豆: seat 1 (W, waits 1p / 4p) may rob it
]


@pytest.mark.parametrize(("scoring", "value"), [("yi_kou_er", 1 + 1), ("yi_kou_san", 3)])
def test_qiang_gang_robbed_seat_pays_n_minus_one_times_the_self_draw(
    scoring: str, value: int
) -> None:
    state = build(["4p +", W, "44p 9m +", None], "8p 8p 8p 4p 5s", scoring=scoring)
    state = play(state, ROB[:-1])
    state, _ = guiyang.apply(state, 2, Action("kong", tile="4p"))
    assert state.phase == "rob"
    assert legal(state, 1) == {WIN, PASS}  # 平胡 without 豆 may rob (§7)
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [1]
    assert s["burned"] == [2]
    assert payments(s) == {(2, 1, "hu"): value * 3}
    assert s["deltas"] == [0, 3 * value, -3 * value, 0]
    # The robbed kong is cancelled: seat 2 keeps a pong, which is no 豆.
    assert [m.kind for m in state.melds[2]] == ["pong"]


def test_qiang_gang_three_players_pays_two_times() -> None:
    # 三丁拐: seat 1 voids s and holds none; the robbed seat pays (3 - 1) x (1 + 1).
    state = build(["4p +", "123m 456m 789m 23p 55p", "44p 9m +"], "8p 8p 4p 5s", players=3)
    actions = [
        [0, "ding_que", "s"],
        [1, "ding_que", "s"],
        [2, "ding_que", "s"],
        [0, "discard", "4p"],
        [2, "pong"],
        [2, "discard", "9m"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "kong", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "qiang_gang" and s["burned"] == [2]
    assert by_reason(s, "hu") == {(2, 1): 2 * 2}
