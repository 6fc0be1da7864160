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
from server.rules.hand import is_complete
from server.rules.replay import close_window
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
    state = build(
        [None, W + " 9p", None, None], "8p 8p 8p 4p 5s", dealer=1, streak=3, scoring="lian_zhuang"
    )
    actions = [
        [1, "discard", "9p"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
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
    # Nobody may claim: the window is decided at once, and closing it gives seat 1 its draw.
    assert guiyang.acting_seats(state) == [] and guiyang.claims_decided(state)
    state = close_window(state)
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
    state = build(["9m +", W, "234m 567m 345p 678p 8s", None], "9p 9s 9p 9p 9p 4p 2s")
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


def test_soft_report_winner_on_the_dealers_discard_under_lian_zhuang() -> None:
    # Seat 1 reports on its first discard (waits 1p / 4p) and wins 平胡 on the dealer's 4p.
    state = build(
        ["4p 9m +", "123m 456m 789m 23p 5s 9s", None, None],
        "5s 8p 8p 8p 5s",
        scoring="lian_zhuang",
        streak=2,
    )
    actions = [
        [0, "discard", "9m"],
        [1, "discard", "9s", {"bao_ting": True}],  # drew 5s: 123m 456m 789m 23p 55s
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "dian_pao" and s["hand_types"] == {"1": "ping_hu"}
    assert payments(s) == {(0, 1, "hu"): 1 + 10 + 2}  # §9.1: 平胡 1 + 软报 10 (§8.5) + N 2
    assert s["deltas"] == [-13, 13, 0, 0]
    assert s["next_dealer"] == 1


def test_soft_reported_winner_on_a_soft_reported_discarder_ruan_bao_and_sha_bao() -> None:
    # Both report on their first discard: seat 1 (waits 1p / 4p) and seat 2 (waits 9s); seat
    # 2 must discard its drawn 4p and seat 1 wins on it. §9.1: 平胡 1 + 软报 10 (§8.5) in the
    # hu payment; §8.5 杀报: seat 2 pays 10 more, a separate payment. R = {1, 2}; turned 2s:
    # 3s, held by neither. Deltas: 1: 11 + 10 = 21; 2: -21.
    state = build(
        ["9m +", "123m 456m 789m 23p 5s 9s", "234m 567m 345p 678p 8s", None],
        "5s 9s 8p 8p 8p 4p 2s",
    )
    actions = [
        [0, "discard", "9m"],
        [1, "discard", "9s", {"bao_ting": True}],  # drew 5s: 123m 456m 789m 23p 55s
        [2, "discard", "8s", {"bao_ting": True}],  # drew 9s: 234m 567m 345p 678p 9s
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],  # 4p
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "dian_pao" and s["winners"] == [1] and s["ready"] == [1, 2]
    assert payments(s) == {(2, 1, "hu"): 1 + 10, (2, 1, "sha_bao"): 10}
    assert s["deltas"] == [0, 21, -21, 0]


def test_sha_bao_two_winners_with_the_dealer_under_lian_zhuang() -> None:
    # 连庄 N=2, dealer seat 3. Seat 2 reports (waits 9s) and must discard its drawn 4p;
    # seats 1 (waits 1p / 4p) and 3 (the dealer, waits 4p / 7p) both win 平胡 on it (杀报).
    state = build(
        [None, W, "234m 567m 345p 678p 8s", "123m 456m 789m 56p 99s 9p"],
        "8p 8p 9s 8p 7s 7s 4p 2s",
        dealer=3,
        streak=2,
        scoring="lian_zhuang",
    )
    actions = [
        [3, "discard", "9p"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard", "8s", {"bao_ting": True}],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],  # 4p
        [1, "win"],
        [3, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "dian_pao" and sorted(s["winners"]) == [1, 3]
    assert s["hand_types"] == {"1": "ping_hu", "3": "ping_hu"}
    assert s["ready"] == [1, 2, 3]
    assert payments(s) == {
        (2, 1, "hu"): 1,  # §8.2: 平胡 1 from the discarder
        (2, 3, "hu"): 1 + 2,  # §10.2: the dealer is paid, +N 2
        (2, 1, "sha_bao"): 10,  # §8.5: 10 to each winner, no +N (rules-decisions)
        (2, 3, "sha_bao"): 10,
    }
    assert s["deltas"] == [0, 11, -24, 13]
    assert s["next_dealer"] == 3  # §10.3: first winner from the dealer's seat: the dealer


# ---------------------------------------------------------------------------- §8.3 after a kong


@pytest.mark.parametrize(("scoring", "each"), [("yi_kou_er", 1 + 1 + 1), ("yi_kou_san", 3 + 0 + 1)])
def test_gang_kai_is_a_self_draw_plus_one(scoring: str, each: int) -> None:
    state = build(
        ["9m +", "123m 456m 23p 55s 777s", None, None],
        "8p 8p 8p 8p 7s 5s",
        "4p",
        scoring=scoring,
    )
    s = settle(play(state, [*ROUND, [1, "kong", "7s"], [1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai"
    each_pays(s, 1, each)
    each_pays(s, 1, 2, "dou")  # the 闷豆 itself
    assert s["deltas"] == [-each - 2, 3 * (each + 2), -each - 2, -each - 2]


def test_re_pao_with_two_winners_pays_each_one_more_and_burns_once() -> None:
    # §8.3 with multiple_winners: seat 2 kongs 6s, then discards 4p; seats 1 and 3 both win
    # on it: each 平胡 1 + 热炮 1 from seat 2 alone, which is burned once (its chickens
    # and 豆 pay nothing); the next dealer is the first winner from the dealer (§10.3).
    w3 = "123m 456m 789m 56p 99s"
    state = build(["9m +", W, "6666s 234m 567m 35p 9s", w3], "8p 4p 8s", "9s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "4p"],
        [1, "win"],
        [3, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "re_pao" and s["winners"] == [3, 1]
    assert by_reason(s, "hu") == {(2, 1): 2, (2, 3): 2}
    assert s["burned"] == [2] and s["next_dealer"] == 1
    assert s["deltas"] == [-2, 0, -6, 8]


def test_re_pao_adds_one_and_burns_the_kong_maker() -> None:
    # Seat 2: 闷豆 6s, replacement 9s, then discards 4p (ready on 4p: 234m 567m 35p 99s).
    # Turned 8s makes 9s a chicken: burned seat 2 would have collected 豆 and chickens.
    state = build(["9m +", W, "6666s 234m 567m 35p 9s", None], "8p 4p 8s", "9s")
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


@pytest.mark.parametrize(
    ("scoring", "streak", "value"),
    [
        ("lian_zhuang", 3, 1 + 1 + 3),  # §9.1: 平胡 1 + 热炮 1 + N 3 (the dealer pays)
        ("yi_kou_san", 1, 3 + 1),  # 平胡 3 + 热炮 1, no streak
    ],
)
def test_re_pao_by_the_dealer(scoring: str, streak: int, value: int) -> None:
    # The dealer makes a 闷豆 of 6s on its dealt 14, draws 9s from the back and discards 4p
    # (ready on 4p: 234m 567m 35p 99s); seat 1 wins. Turned 8s makes the dealer's 9s a
    # chicken, but the dealer is burned (§9.5): no 豆 and no chicken for it.
    state = build(
        ["6666s 234m 567m 35p 9s 4p", W, None, None],
        "8s",
        "9s",
        scoring=scoring,
        streak=streak,
    )
    s = settle(play(state, [[0, "kong", "6s"], [0, "discard", "4p"], [1, "win"]]))
    assert s["win_kind"] == "re_pao" and s["winners"] == [1]
    assert s["burned"] == [0] and s["ready"] == [0, 1]
    assert s["turned"] == "8s" and "9s" in s["chickens"]
    assert payments(s) == {(0, 1, "hu"): value}
    assert s["deltas"] == [-value, value, 0, 0]
    assert s["next_dealer"] == 1


def test_gang_kai_under_lian_zhuang_the_dealer_adds_the_streak() -> None:
    state = build(
        ["9m +", "123m 456m 23p 55s 777s", None, None],
        "8p 8p 8p 8p 7s 5s",
        "4p",
        scoring="lian_zhuang",
        streak=2,
    )
    s = settle(play(state, [*ROUND, [1, "kong", "7s"], [1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai" and s["winners"] == [1]
    assert payments(s) == {
        (0, 1, "hu"): 1 + 1 + 1 + 2,  # §8.3: 平胡 1 + 自摸 1 + 杠开 1, + N 2 (§10.2)
        (2, 1, "hu"): 1 + 1 + 1,
        (3, 1, "hu"): 1 + 1 + 1,
        **{(p, 1, "dou"): 2 for p in (0, 2, 3)},  # §9.2: 闷豆 2 from each other seat
    }
    assert s["deltas"] == [-7, 17, -5, -5]
    assert s["next_dealer"] == 1


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


def test_two_seats_rob_one_kong_each_paid_by_the_robbed_seat() -> None:
    # §8.4 with multiple_winners: seats 1 and 3 both wait on 4p; each is paid (4 - 1) x
    # (平胡 1 + 自摸 1) by the robbed seat alone, which is burned once; the next dealer is
    # the first winner from the dealer's seat (§10.3).
    state = build(["4p +", W, "44p 9m +", "123m 456m 789m 56p 99s"], "8p 8p 8p 4p 5s")
    s = settle(play(state, [*ROB, [1, "win"], [3, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [3, 1]
    assert payments(s) == {(2, 1, "hu"): 6, (2, 3, "hu"): 6}
    assert s["deltas"] == [0, 6, -12, 6]
    assert s["burned"] == [2] and s["next_dealer"] == 1


def test_qiang_gang_under_lian_zhuang_is_n_minus_one_self_draws_of_the_robbed_seat() -> None:
    # §9.1: "For 抢杠 the robbed seat pays (n-1) times the self-draw value it would itself
    # have paid": a streak of 2 adds to what the dealer pays, and the robbed seat (not the
    # dealer) would have paid 平胡 1 + 自摸 1, so 3 x 2 = 6. (§8.4's "pays what all the
    # other seats would have paid" reads 2 + 4 + 2 = 8 here: the spec's two sentences
    # disagree when the dealer is a third party; the engine follows §9.1.)
    state = build(["4p +", W, "44p 9m +", None], "8p 8p 8p 4p 5s", scoring="lian_zhuang", streak=2)
    s = settle(play(state, [*ROB, [1, "win"]]))
    assert s["win_kind"] == "qiang_gang"
    assert payments(s) == {(2, 1, "hu"): 6}
    assert s["deltas"] == [0, 6, -6, 0]


W_1S = "123m 456m 789m 23s 55p"  # 平胡, waits 1s / 4s


def rob_the_first_1s(dealer: str, robbed: str) -> dict:
    """The dealer discards the hand's first 1s, seat 2 pongs it (责任鸡) and discards 9s or
    9m, later draws the fourth 1s and adds the kong; seat 1 (W_1S) robs it. Turned 5s."""
    state = build([dealer, W_1S, robbed, None], "8p 8p 8p 1s 5s")
    actions = [
        [0, "discard", "1s"],
        [2, "pong"],
        [2, "discard", "9s" if "9s" in robbed else "9m"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "kong", "1s"],
    ]
    state = play(state, actions)
    assert state.phase == "rob"
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [1]
    assert s["hand_types"] == {"1": "ping_hu"} and s["burned"] == [2]
    assert s["next_dealer"] == 1
    return s


def test_qiang_gang_of_the_ze_ren_1s_nobody_else_ready() -> None:
    s = rob_the_first_1s("1s +", "11s 9m +")
    assert s["ready"] == [1]
    assert payments(s) == {
        (2, 1, "hu"): 3 * (1 + 1),  # §8.4: 3 x (平胡 1 + 自摸 1)
        # §9.3: the robbed 1s is the winner's chicken, 1 from each other seat; seat 2 (not
        # in R) also pays 3 for the three 1s of its pong (包鸡); no 责任鸡, neither is in R.
        (0, 1, "ji"): 1,
        (2, 1, "ji"): 1 + 3,
        (3, 1, "ji"): 1,
    }
    assert s["deltas"] == [-1, 12, -10, -1]


def test_qiang_gang_of_the_ze_ren_1s_the_robbed_ready_seat_is_burned() -> None:
    # Seat 2 keeps its pong (the kong is cancelled) and is ready on 5p: in R, but burned
    # (§9.5): its three 1s and the 责任鸡 the dealer owes it are void; what it pays stands.
    s = rob_the_first_1s("1s +", "11s 123m 456m 789m 5p 9s")
    assert s["ready"] == [1, 2]
    assert payments(s) == {
        (2, 1, "hu"): 3 * (1 + 1),  # §8.4
        **{(p, 1, "ji"): 1 for p in (0, 2, 3)},  # §9.3: the winner's 1s
    }
    assert s["deltas"] == [-1, 9, -7, -1]


def test_qiang_gang_of_the_ze_ren_1s_the_discarder_ready() -> None:
    # The dealer discarded the first 1s and is ready (123m 456m 789m 23p 55p); seat 2 is not.
    s = rob_the_first_1s("1s 123m 456m 789m 23p 55p", "11s 9m +")
    assert s["ready"] == [0, 1]
    assert payments(s) == {
        (2, 1, "hu"): 3 * (1 + 1),  # §8.4
        (0, 1, "ji"): 1,  # §9.3 item 1: the winner's 1s
        (2, 1, "ji"): 1 + 3,  # item 1, + item 2: 包鸡 of the pong's three 1s
        (3, 1, "ji"): 1,
        (2, 0, "ji"): 3,  # item 2: 包鸡 to each seat in R
        (2, 0, "ze_ren_ji"): 2,  # item 3: the claimer is not in R, the discarder is
    }
    assert s["deltas"] == [4, 12, -15, -1]


# ---------------------------------------------------------------------------- §8.5 硬报


def test_ying_bao_dealer_dealt_hand_wins() -> None:
    state = build(["123m 456m 789m 234p 55s", None, None, None], "5s")
    assert SELF_DRAW in legal(state, 0)
    s = settle(play(state, [[0, "self_draw"]]))
    assert payments(s) == {
        **{(p, 0, "hu"): 2 for p in (1, 2, 3)},
        **{(p, 0, "ying_bao"): 20 for p in (1, 2, 3)},
    }
    assert s["deltas"] == [66, -22, -22, -22]


def test_ying_bao_non_dealer_first_draw() -> None:
    s = settle(
        play(build(["9m +", W, None, None], "4p 5s"), [[0, "discard", "9m"], [1, "self_draw"]])
    )
    each_pays(s, 1, 2)
    each_pays(s, 1, 20, "ying_bao")
    assert s["deltas"] == [-22, 66, -22, -22]


def test_no_ying_bao_after_a_kong_on_the_first_draw() -> None:
    # §5: 硬报 needs "no meld made"; a 闷豆 is a meld. This is 杠开 with the 闷豆 paid.
    state = build(["9m +", "123m 456m 23p 55s 777s", None, None], "7s 5s", "4p")
    s = settle(play(state, [[0, "discard", "9m"], [1, "kong", "7s"], [1, "self_draw"]]))
    assert by_reason(s, "ying_bao") == {}
    each_pays(s, 1, 3)
    each_pays(s, 1, 2, "dou")
    assert s["deltas"] == [-5, 15, -5, -5]


def test_no_ying_bao_on_a_later_draw() -> None:
    assert by_reason(zimo(), "ying_bao") == {}


# ---------------------------------------------------------------------------- §5 软报


def test_soft_report_refused_when_not_ready() -> None:
    state = play(build(["9m +", None, None, None]), [[0, "discard", "9m"]])
    assert state.turn == 1 and state.drawn[1] is not None
    assert not any(a.bao_ting for a in guiyang.legal_actions(state, 1))
    tile = tile_name(state.drawn[1])
    before = fresh(state)
    with pytest.raises(IllegalAction):
        guiyang.apply(state, 1, Action("discard", tile=tile, bao_ting=True))
    assert state == before


def test_soft_report_offered_exactly_for_discards_that_leave_the_hand_ready() -> None:
    state = play(build(["9m +", "123m 456m 789m 23p 5s 9s", None, None], "5s"), ROUND[:1])
    reports = {a.tile for a in guiyang.legal_actions(state, 1) if a.bao_ting}
    # Only discarding 9s leaves a ready hand: 123m 456m 789m 23p 55s.
    assert reports == {"9s"}
    for tile in reports:
        after, _ = guiyang.apply(state, 1, Action("discard", tile=tile, bao_ting=True))
        assert guiyang.is_ready(after, 1)


def test_soft_report_refused_after_a_meld() -> None:
    state = build(["5p +", "123m 456m 789m 2p 55p 9s", None, None])
    state = play(state, [[0, "discard", "5p"], [1, "pong"]])
    assert state.turn == 1 and state.melds[1]
    assert ("discard", "9s", False) in legal(state, 1)
    assert ("discard", "9s", True) not in legal(state, 1)
    with pytest.raises(IllegalAction):
        guiyang.apply(state, 1, Action("discard", tile="9s", bao_ting=True))
    after, _ = guiyang.apply(state, 1, Action("discard", tile="9s"))
    assert guiyang.is_ready(after, 1)  # ready, yet it may not report


def test_soft_report_only_on_the_first_discard() -> None:
    state = build(["9m +", "123m 456m 789m 23p 5s 9s", None, None], "8p 8p 8p 8p 5s")
    state = play(state, ROUND)  # seat 1's first discard was its 8p, without a report
    assert state.turn == 1 and tile_name(state.drawn[1]) == "5s"
    assert ("discard", "9s", False) in legal(state, 1)
    assert ("discard", "9s", True) not in legal(state, 1)
    with pytest.raises(IllegalAction):
        guiyang.apply(state, 1, Action("discard", tile="9s", bao_ting=True))


def test_after_a_soft_report_no_pong_no_kong_and_only_the_drawn_tile() -> None:
    state = build(["9m +", "111m 456m 789m 23p 5s 9s", None, None], "5s 5s 8p 8p 1m 5s")
    state = play(
        state,
        [[0, "discard", "9m"], [1, "discard", "9s", {"bao_ting": True}]],
    )
    assert state.bao_ting[1]
    state, _ = guiyang.apply(state, 2, Action("discard", tile="5s"))
    # Seat 1 holds 55s but may not pong: nobody has a claim, seat 3 draws.
    assert guiyang.acting_seats(state) == []
    state = close_window(state)
    assert state.phase == "turn" and state.turn == 3
    state = play(state, [[3, "discard_drawn"], [0, "discard_drawn"]])
    assert state.turn == 1 and tile_name(state.drawn[1]) == "1m"
    # Four 1m in hand, but no kong; only the drawn tile may be discarded.
    assert legal(state, 1) == {("discard", "1m", False)}
    with pytest.raises(IllegalAction):
        guiyang.apply(state, 1, Action("discard", tile="5s"))
    with pytest.raises(IllegalAction):
        guiyang.apply(state, 1, Action("kong", tile="1m"))


def test_after_a_soft_report_a_drawn_winning_tile_may_be_won_or_discarded() -> None:
    state = build(["9m +", "123m 456m 789m 23p 5s 9s", None, None], "5s 8p 8p 8p 4p")
    state = play(
        state,
        [
            [0, "discard", "9m"],
            [1, "discard", "9s", {"bao_ting": True}],
            [2, "discard_drawn"],
            [3, "discard_drawn"],
            [0, "discard_drawn"],
        ],
    )
    assert legal(state, 1) == {SELF_DRAW, ("discard", "4p", False)}


# ---------------------------------------------------------------------------- §9.2 豆


def test_no_dou_for_a_seat_that_is_not_ready() -> None:
    # Seat 2 (filler, never ready) makes a 闷豆; seat 1 self-draws.
    state = build(["9m +", W, "7777s +", None], "8p 8p 8p 8p 4p 5s", "3s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "7s"],
        [2, "discard", "3s"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert 2 not in s["ready"]
    assert by_reason(s, "dou") == {}
    assert s["deltas"] == [-2, 6, -2, -2]


def test_huang_zhuang_settles_no_dou_and_no_chickens() -> None:
    # Seat 2 makes a 闷豆 and is ready (waits 1p / 4p) holding 11s; nobody wins.
    state = build(["9m +", None, "7777s 123m 456m 23p 1s", None], "8p 8p", "1s")
    state = play(
        state,
        [[0, "discard", "9m"], [1, "discard_drawn"], [2, "kong", "7s"], [2, "discard", "8p"]],
    )
    s = settle(drain(state))
    assert s["result"] == "huang_zhuang"
    assert s["ready"] == [2]
    assert payments(s) == {(p, 2, "cha_jiao"): 1 for p in (0, 1, 3)}
    assert s["turned"] is None
    assert not any(p["reason"] in ("dou", "ji") for p in s["payments"])
    assert s["deltas"] == [-1, -1, 3, -1]


# ---------------------------------------------------------------------------- §9.3 chickens

W11 = "123m 456m 789m 23p 11s"  # W with 幺鸡 as its pair


def test_yao_ji_every_other_seat_pays_each_1s() -> None:
    s = zimo(W11)
    assert set(s["chickens"]) == {"1s", "6s"} and s["turned"] == "5s"
    each_pays(s, 1, 2, "ji")  # two 1s, 1 each
    assert s["deltas"] == [-4, 12, -4, -4]


@pytest.mark.parametrize(
    ("win", "turned", "chicken"),
    [("4p", "4m", "5m"), ("1p", "9p", "1p")],  # 9 wraps to 1
)
def test_fan_pai_ji_the_next_tile_of_the_turned_suit(win: str, turned: str, chicken: str) -> None:
    s = zimo(win=win, turned=turned)
    assert s["turned"] == turned and set(s["chickens"]) == {"1s", chicken}
    each_pays(s, 1, 1, "ji")
    assert s["deltas"] == [-3, 9, -3, -3]


def test_no_turned_chicken_when_the_wall_is_empty() -> None:
    # Seat 2 waits on 5s with 大对子 and holds three 1s; seat 3 draws the last tile, 5s.
    state = build(["9m +", "55s 1s +", "111s 222p 333s 444m 5s", None], back="5s")
    state = drain(play(state, [[0, "discard", "9m"]]), keep=0)
    assert state.wall_count == 0 and state.turn == 3 and tile_name(state.drawn[3]) == "5s"
    state, _ = guiyang.apply(state, 3, Action("discard", tile="5s"))
    # Empty wall: only a win may be claimed (§2), seat 1's pair of 5s gives no pong.
    assert legal(state, 1) == set()
    assert legal(state, 2) == {WIN, PASS}
    s = settle(play(state, [[2, "win"]]))
    assert s["turned"] is None and s["chickens"] == ["1s"]
    assert payments(s) == {
        (3, 2, "hu"): 5,
        **{(p, 2, "ji"): 3 for p in (0, 1, 3)},
    }
    assert s["deltas"] == [-3, -3, 14, -8]


@pytest.mark.parametrize(
    ("turned", "yao_bai_ji", "chickens", "each"),
    [
        ("5m", False, {"1s", "6m"}, 1),
        ("5m", True, {"1s", "4m", "6m"}, 2),  # 摇摆鸡: both neighbours
        ("9m", True, {"1s", "8m", "1m"}, 2),  # 9m: 8m and 1m
    ],
)
def test_yao_bai_ji(turned: str, yao_bai_ji: bool, chickens: set[str], each: int) -> None:
    s = zimo(turned=turned, yao_bai_ji=yao_bai_ji)
    assert set(s["chickens"]) == chickens
    each_pays(s, 1, each, "ji")
    assert s["deltas"] == [-2 - each, 3 * (2 + each), -2 - each, -2 - each]


@pytest.mark.parametrize(
    ("turned", "yao_bai_ji", "per_1s"),
    [
        ("9s", False, 2),  # turned 9s: 1s is also the turned chicken, 金鸡
        ("2s", True, 2),  # 摇摆鸡 on 2s: 1s and 3s, 金鸡
        ("2s", False, 1),  # without 摇摆鸡 2s turns 3s only: no 金鸡
        ("8s", True, 1),  # 摇摆鸡 on 8s: 7s and 9s
    ],
)
def test_jin_ji_doubles_every_yao_ji(turned: str, yao_bai_ji: bool, per_1s: int) -> None:
    s = zimo(W11, turned=turned, yao_bai_ji=yao_bai_ji)
    each_pays(s, 1, 2 * per_1s, "ji")  # W11 holds two 1s
    assert s["deltas"][1] == 3 * (2 + 2 * per_1s)


@pytest.mark.parametrize(("turned", "value"), [("5s", 2), ("9s", 4)])
def test_chong_feng_ji_of_a_seat_not_ready_is_paid_to_each_ready_seat(
    turned: str, value: int
) -> None:
    s = zimo(draws="8p 1s 8p 8p", turned=turned)  # seat 2 discards the first 1s, unclaimed
    assert by_reason(s, "chong_feng_ji") == {(2, 1): value}
    assert by_reason(s, "ji") == {}
    assert s["deltas"] == [-2, 6 + value, -2 - value, -2]


@pytest.mark.parametrize("man_tang_ji", [True, False])
def test_chong_feng_ji_of_a_ready_seat_is_worth_two_not_one_plus_two(man_tang_ji: bool) -> None:
    s = zimo(draws="1s 8p 8p 8p", man_tang_ji=man_tang_ji)  # the winner discarded it
    each_pays(s, 1, 2, "chong_feng_ji")
    assert by_reason(s, "ji") == {}
    assert s["deltas"] == [-4, 12, -4, -4]


def test_a_first_1s_that_is_won_on_is_a_plain_chicken_of_the_winner() -> None:
    # Seat 1 holds a 大对子 waiting on 1s and 5p; the dealer's first 1s completes it.
    state = build(["1s +", "111m 222p 333s 11s 55p", None, None], "5s")
    s = settle(play(state, [[0, "discard", "1s"], [1, "win"]]))
    assert s["hand_types"] == {"1": "da_dui_zi"}
    assert by_reason(s, "chong_feng_ji") == {} and by_reason(s, "ze_ren_ji") == {}
    each_pays(s, 1, 3, "ji")  # three 1s in the winner's hand
    assert s["deltas"] == [-5 - 3, 5 + 9, -3, -3]


def test_two_winners_of_the_first_1s_each_count_it_as_a_chicken() -> None:
    # 一炮多响 on the dealer's first discard, a 1s: seats 1 and 2 both win 大对子 on it.
    # rules-decisions (一炮多响: the winning tile): each winner holds the won 1s, so it is
    # among each one's chickens; won on, it is neither 冲锋鸡 nor 责任鸡 (§9.3).
    state = build(["1s +", "222m 333p 444s 55m 11s", "666m 777p 888s 999m 1s", None], "5s")
    s = settle(play(state, [[0, "discard", "1s"], [1, "win"], [2, "win"]]))
    assert sorted(s["winners"]) == [1, 2]
    assert s["hand_types"] == {"1": "da_dui_zi", "2": "da_dui_zi"}
    assert s["ready"] == [1, 2]
    assert payments(s) == {
        (0, 1, "hu"): 5,  # §8.2: 大对子 5 from the discarder, to each winner
        (0, 2, "hu"): 5,
        **{(p, 1, "ji"): 2 + 1 for p in (0, 2, 3)},  # §9.3: its 11s and the won 1s
        **{(p, 2, "ji"): 1 + 1 for p in (0, 1, 3)},  # its 1s and the won 1s
    }
    assert s["deltas"] == [-5 - 5 - 3 - 2, 5 + 9 - 2, 5 + 6 - 3, -3 - 2]
    assert s["next_dealer"] == 1  # §10.3: the first winner from the dealer's seat


@pytest.mark.parametrize(("turned", "jin"), [("5s", False), ("9s", True)])
def test_ze_ren_ji_claimer_ready_the_discarder_pays(turned: str, jin: bool) -> None:
    # Seat 1 pongs the dealer's first 1s and self-draws 2p (single wait).
    state = build(["1s 9m +", "11s 123m 456m 789m 2p 5p", None, None], f"8p 8p 8p 2p {turned}")
    actions = [
        [0, "discard", "1s"],
        [1, "pong"],
        [1, "discard", "5p"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    per_1s = 2 if jin else 1
    ze_ren = 4 if jin else 2
    assert by_reason(s, "ze_ren_ji") == {(0, 1): ze_ren}
    each_pays(s, 1, 3 * per_1s, "ji")  # the three 1s of the pong are seat 1's chickens
    each_pays(s, 1, 2)
    assert s["deltas"][1] == 3 * (2 + 3 * per_1s) + ze_ren
    assert s["deltas"][0] == -2 - 3 * per_1s - ze_ren


def test_ze_ren_ji_claimer_not_ready_pays_the_ready_discarder() -> None:
    # Seat 1 (W) discards the first 1s, seat 2 (not ready) pongs it; seat 1 self-draws.
    state = build(["9m +", W, "11s 9p +", None], "1s 8p 8p 4p 5s")
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
    assert by_reason(s, "ze_ren_ji") == {(2, 1): 2}
    assert by_reason(s, "ji") == {(2, 1): 3}  # 包鸡 for the three 1s in seat 2's pong
    assert s["deltas"] == [-2, 11, -7, -2]


def test_ze_ren_ji_neither_ready_nothing() -> None:
    # The dealer discards the first 1s, seat 2 pongs it; neither is ready; seat 1 wins.
    state = build(["1s 9m +", W, "11s 9p +", None], "8p 8p 8p 8p 3s 3s 4p 5s")
    actions = [
        [0, "discard", "1s"],
        [2, "pong"],
        [2, "discard", "9p"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert by_reason(s, "ze_ren_ji") == {}
    assert by_reason(s, "chong_feng_ji") == {}
    assert by_reason(s, "ji") == {(2, 1): 3}
    assert s["deltas"] == [-2, 9, -5, -2]


@pytest.mark.parametrize(("man_tang_ji", "each"), [(True, 1), (False, 0)])
def test_man_tang_ji_counts_the_ready_seats_unclaimed_discards(
    man_tang_ji: bool, each: int
) -> None:
    # Turned 7p: 8p is a chicken; seat 1 discarded one 8p and holds none.
    s = zimo(turned="7p", man_tang_ji=man_tang_ji)
    assert "8p" in s["chickens"]
    assert by_reason(s, "ji") == ({(p, 1): 1 for p in (0, 2, 3)} if each else {})
    # each line says the chicken lies in the river (a player looks for it in the hand)
    assert all(p["detail"]["at"] == "river" for p in s["payments"] if p["reason"] == "ji")
    assert s["deltas"] == [-2 - each, 6 + 3 * each, -2 - each, -2 - each]


@pytest.mark.parametrize("man_tang_ji", [True, False])
def test_bao_ji_a_seat_not_ready_pays_for_its_open_yao_ji(man_tang_ji: bool) -> None:
    # Seat 2 discards the first 1s, seat 3 (not ready) pongs it; the dealer discards the
    # last 1s. Concealed chickens of seats not ready (seat 2's 6s, turned 5s) cost nothing.
    state = build(["9m +", W, None, "11s 9p +"], "8p 1s 1s 4p 5s", man_tang_ji=man_tang_ji)
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "pong"],
        [3, "discard", "9p"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert by_reason(s, "ji") == {(3, 1): 3, (0, 1): 1}
    assert by_reason(s, "ze_ren_ji") == {}  # neither seat 2 nor seat 3 is ready
    assert s["deltas"] == [-3, 10, -2, -5]


def test_bao_ji_is_paid_to_every_ready_seat_and_ready_seats_pay_each_other() -> None:
    # Seat 3 is ready (waits 6s) but does not win; seat 2 (not ready) discarded the first
    # 1s (冲锋鸡, 包鸡 to both ready seats). Seat 3 holds a 6s chicken: everyone pays it.
    state = build(["9m +", W, None, "234m 678m 345p 567p 6s"], "8p 1s 9s 8p 4p 5s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "discard", "9s"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1, 3]
    assert by_reason(s, "chong_feng_ji") == {(2, 1): 2, (2, 3): 2}
    assert by_reason(s, "ji") == {(0, 3): 1, (1, 3): 1, (2, 3): 1}
    each_pays(s, 1, 2)
    assert s["deltas"] == [-3, 6 + 2 - 1, -2 - 4 - 1, -2 + 2 + 3]


def test_bao_ji_for_the_1s_of_a_men_dou_of_a_seat_not_ready() -> None:
    # Seat 2 (not ready) makes a 闷豆 of its four 1s; seat 1 self-draws 4p.
    state = build(["9m +", W, "1111s +", None], "8p 8p 9m 8p 4p 5s", "3p")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "1s"],
        [2, "discard_drawn"],  # the replacement 3p
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert payments(s) == {
        **{(p, 1, "hu"): 1 + 1 for p in (0, 2, 3)},  # §8.1: 平胡 1 + 自摸 1
        (2, 1, "ji"): 4,  # §9.3 item 2: 4 x 1s in a meld of a seat not in R; no 豆 (§9.2)
    }
    assert s["deltas"] == [-2, 10, -6, -2]
    assert s["next_dealer"] == 1


# ---------------------------------------------------------------------------- §3 claims

DD_2 = "111m 222p 333s 555m 4p"  # 大对子, single wait on 4p
DD_3 = "666m 777p 888s 999m 4p"  # 大对子, single wait on 4p


def test_win_beats_pong_and_a_pong_waits_for_the_seat_that_could_win() -> None:
    state = build(["4p +", None, "44p +", DD_2.replace("555m", "555s")], "5s")
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    assert legal(state, 2) == {PONG, PASS}
    assert legal(state, 3) == {WIN, PASS}
    state, _ = guiyang.apply(state, 2, Action("pong"))
    assert state.phase == "claim" and not state.melds[2]  # not resolved yet
    won = settle(play(state, [[3, "win"]]))
    assert won["winners"] == [3]
    assert won["deltas"] == [-5, 0, 0, 5]


def test_pong_resolves_once_the_seat_that_could_win_passes() -> None:
    state = build(["4p +", None, "44p +", DD_2.replace("555m", "555s")], "5s")
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    state, _ = guiyang.apply(state, 2, Action("pong"))
    assert not guiyang.claims_decided(state)  # seat 3 could still win on the 4p
    state, _ = guiyang.apply(state, 3, Action("pass"))
    assert guiyang.claims_decided(state)
    state = close_window(state)
    # The claimer discards next, without drawing.
    assert state.phase == "turn" and state.turn == 2 and state.drawn[2] is None
    assert [(m.kind, tile_name(m.tile), m.from_seat) for m in state.melds[2]] == [("pong", "4p", 0)]
    assert sum(state.hands[2]) == 11
    tile = next(a.tile for a in guiyang.legal_actions(state, 2) if a.kind == "discard")
    state, _ = guiyang.apply(state, 2, Action("discard", tile=tile))
    state = close_window(state)  # nobody claims
    assert state.turn == 3  # play continues from the claimer


def test_win_beats_a_kong_answered_first() -> None:
    # §3: win > kong. Seat 2 holds three 7p and claims the exposed kong first; seat 3 (清一色,
    # 123p 456p 999p 55p 68p, waits 7p) wins: 10 from the discarder (§6.2, §8.2), and seat 2
    # keeps its three 7p.
    state = build(["7p +", None, "777p +", "123p 456p 999p 55p 68p"], "5s")
    state, _ = guiyang.apply(state, 0, Action("discard", tile="7p"))
    assert legal(state, 2) == {KONG, PONG, PASS}
    state, _ = guiyang.apply(state, 2, Action("kong"))
    assert state.phase == "claim" and not guiyang.claims_decided(state)
    s = settle(play(state, [[3, "win"]]))
    assert s["winners"] == [3] and not state.melds[2] and state.hands[2][15] == 3  # 7p
    assert s["hand_types"] == {"3": "qing_yi_se"}
    assert payments(s) == {(0, 3, "hu"): 10}
    assert s["deltas"] == [-10, 0, 0, 10]


def two_winners(multiple_winners: bool, answers: list[list]) -> dict:
    state = build(["4p +", None, DD_2, DD_3], "4s", multiple_winners=multiple_winners)
    return settle(play(state, [[0, "discard", "4p"], *answers]))


def test_multiple_winners_every_claimed_win_stands() -> None:
    s = two_winners(True, [[3, "win"], [2, "win"]])
    assert s["winners"] == [2, 3]
    assert payments(s) == {(0, 2, "hu"): 5, (0, 3, "hu"): 5}
    assert s["deltas"] == [-10, 0, 5, 5]
    assert s["next_dealer"] == 2


@pytest.mark.parametrize(
    ("answers", "winner"),
    [
        ([[3, "win"], [2, "win"]], 2),  # seat 2 is first after the discarder
        ([[2, "win"], [3, "win"]], 2),  # §3: seat 3's answer after the decision is accepted
        ([[3, "win"], [2, "pass"]], 3),
        ([[2, "pass"], [3, "win"]], 3),
    ],
)
def test_multiple_winners_off_first_in_turn_order_from_the_discarder(
    answers: list[list], winner: int
) -> None:
    s = two_winners(False, answers)
    assert s["winners"] == [winner]
    assert payments(s) == {(0, winner, "hu"): 5}


def test_multiple_winners_off_a_later_win_waits_for_the_earlier_seat() -> None:
    state = build(["4p +", None, DD_2, DD_3], "4s", multiple_winners=False)
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    state, _ = guiyang.apply(state, 3, Action("win"))
    assert state.phase == "claim" and not state.ended


def discard_of_seat_2(multiple_winners: bool = True) -> dict:
    """Dealer 0; seat 2 discards 4p; seats 3 and 1 both claim the win, 3 first."""
    state = build(["9m +", DD_2, None, DD_3], "8p 4p 4s", multiple_winners=multiple_winners)
    actions = [[0, "discard", "9m"], [1, "discard_drawn"], [2, "discard_drawn"], [3, "win"]]
    state = play(state, actions)
    return settle(state if state.ended else play(state, [[1, "win"]]))


def test_two_winners_next_dealer_is_the_first_from_the_dealers_seat() -> None:
    s = discard_of_seat_2()
    assert sorted(s["winners"]) == [1, 3]
    assert payments(s) == {(2, 1, "hu"): 5, (2, 3, "hu"): 5}
    assert s["next_dealer"] == 1  # from the dealer (0): 1 before 3; from the discarder: 3


def test_multiple_winners_off_counts_from_the_discarder_not_the_dealer() -> None:
    s = discard_of_seat_2(multiple_winners=False)
    assert s["winners"] == [3]
    assert s["next_dealer"] == 3


def test_three_winners_the_discarder_deals_next() -> None:
    state = build([None, DD_2, DD_3, "222m 333p 444s 777m 4p 9p"], "4p 5p", dealer=3)
    actions = [[3, "discard", "9p"], [0, "discard_drawn"], [1, "win"], [2, "win"], [3, "win"]]
    s = settle(play(state, actions))
    assert sorted(s["winners"]) == [1, 2, 3]
    assert payments(s) == {(0, w, "hu"): 5 for w in (1, 2, 3)}
    assert s["deltas"] == [-15, 5, 5, 5]
    assert s["next_dealer"] == 0


def test_guo_hu_passing_a_win_locks_discard_wins_until_own_next_discard() -> None:
    state = build(["4p +", None, DD_2, None], "4p 3s 4p 5s")
    state = play(state, [[0, "discard", "4p"], [2, "pass"], [1, "discard_drawn"]])
    # Seat 1 discarded the other 4p: seat 2 is locked, nobody could claim, seat 2 drew.
    assert state.phase == "turn" and state.turn == 2
    s = settle(play(state, [[2, "discard_drawn"], [3, "discard_drawn"], [2, "win"]]))
    assert s["winners"] == [2] and payments(s) == {(3, 2, "hu"): 5}


def test_guo_hu_does_not_lock_self_draw() -> None:
    state = build(["4p +", None, DD_2, None], "8p 4p 5s")
    state = play(state, [[0, "discard", "4p"], [2, "pass"], [1, "discard_drawn"]])
    assert state.turn == 2 and SELF_DRAW in legal(state, 2)
    s = settle(play(state, [[2, "self_draw"]]))
    each_pays(s, 2, 5 + 1)


def test_guo_hu_passing_a_robbable_kong_locks_too() -> None:
    # Seat 1 pongs 4p and later adds the kong; seat 2 (W: 1p / 4p) passes the rob. Seat 1's
    # discard of 1p right after the kong would be a 热炮 win, but seat 2 is locked.
    state = build(["4p +", "44p 9m +", W, None], "8p 8p 8p 4p", "1p")
    actions = [
        [0, "discard", "4p"],
        [1, "pong"],
        [1, "discard", "9m"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "kong", "4p"],
    ]
    state = play(state, actions)
    assert state.phase == "rob" and legal(state, 2) == {WIN, PASS}
    state = play(state, [[2, "pass"], [1, "discard", "1p"]])
    assert state.phase == "turn" and state.turn == 2


def test_without_the_lock_the_same_discard_after_a_kong_is_a_re_pao_win() -> None:
    # Control for the test above: a 闷豆 cannot be robbed, so seat 2 is not locked.
    state = build(["9m +", "4444p +", W, None], "8p", "1p")
    state = play(state, [[0, "discard", "9m"], [1, "kong", "4p"], [1, "discard", "1p"]])
    assert legal(state, 2) == {WIN, PASS}


def test_concealed_and_exposed_kongs_cannot_be_robbed() -> None:
    # Seat 2 (W) waits on 1p; seat 1 kongs 1p, first from the dealer's discard, then
    # (another build) with four in hand.
    state = build(["1p +", "111p 9m +", W, None], "", "5s")
    state = play(state, [[0, "discard", "1p"], [1, "kong"]])
    assert state.phase == "turn" and state.turn == 1 and state.melds[1][0].kind == "ming_dou"
    state = build(["9m +", "1111p +", W, None], "8p", "5s")
    state = play(state, [[0, "discard", "9m"], [1, "kong", "1p"]])
    assert state.phase == "turn" and state.turn == 1 and state.melds[1][0].kind == "men_dou"


def pass_pong(pass_pong_lock: bool, wall: str, after: list[list]) -> State:
    state = build(["5s +", None, "55s 77s +", None], wall, pass_pong_lock=pass_pong_lock)
    return play(state, [[0, "discard", "5s"], [2, "pass"], *after])


@pytest.mark.parametrize("lock", [True, False])
def test_pass_pong_lock_blocks_the_same_kind_until_own_next_discard(lock: bool) -> None:
    state = pass_pong(lock, "5s", [[1, "discard_drawn"]])
    if lock:
        assert state.phase == "turn" and state.turn == 2  # no pong was offered
    else:
        assert legal(state, 2) == {PONG, PASS}


def test_pass_pong_lock_is_per_tile_kind() -> None:
    state = pass_pong(True, "7s", [[1, "discard_drawn"]])
    assert legal(state, 2) == {PONG, PASS}


def test_pass_pong_lock_ends_with_own_next_discard() -> None:
    state = pass_pong(
        True, "8p 8p 5s", [[1, "discard_drawn"], [2, "discard_drawn"], [3, "discard_drawn"]]
    )
    assert state.last_discard is not None and tile_name(state.last_discard[1]) == "5s"
    assert legal(state, 2) == {PONG, PASS}


def test_no_pong_or_kong_claim_when_the_wall_is_empty() -> None:
    # Seat 1 holds three 5s; seat 3 draws the last tile, 5s, and discards it: no claim.
    state = build(["9m +", "555s +", None, None], back="5s")
    state = drain(play(state, [[0, "discard", "9m"]]), keep=0)
    assert state.turn == 3 and tile_name(state.drawn[3]) == "5s"
    state, _ = guiyang.apply(state, 3, Action("discard", tile="5s"))
    assert guiyang.acting_seats(state) == []  # seat 1's three 5s may not claim
    state = close_window(state)
    assert state.ended and state.result == "huang_zhuang"  # seat 0 had to draw


def test_no_self_kong_when_the_wall_is_empty() -> None:
    state = drain(play(build(["9m +", None, None, "777m +"], back="7m"), ROUND[:1]), keep=0)
    assert state.turn == 3 and tile_name(state.drawn[3]) == "7m"
    assert ("kong", "7m", False) not in legal(state, 3)
    # Control: with tiles left, the same four 7m give a kong.
    state = play(build(["9m +", None, None, "777m +"], "8p 8p 7m"), ROUND[:3])
    assert state.turn == 3 and ("kong", "7m", False) in legal(state, 3)


# §3: claim answers in any order; a decided window stays open to the seats it offered a claim.


def test_a_later_seats_win_after_the_decision_is_accepted_and_loses() -> None:
    state = build(["4p +", None, DD_2, DD_3], "4s", multiple_winners=False)
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    state, _ = guiyang.apply(state, 2, Action("win"))
    assert guiyang.claims_decided(state)  # seat 2 is first from the discarder: it wins
    assert legal(state, 3) == {WIN, PASS}  # but the window is open: seat 3 may still answer
    assert guiyang.acting_seats(state) == [3]
    state, events = guiyang.apply(state, 3, Action("win"))
    assert events == [] and state.claim_answers == {2: "win", 3: "win"}
    assert guiyang.legal_actions(state, 3) == []  # one answer per seat
    s = settle(close_window(state))
    assert s["winners"] == [2] and s["hand_types"] == {"2": "da_dui_zi"}
    assert payments(s) == {(0, 2, "hu"): 5}
    assert s["deltas"] == [-5, 0, 5, 0]


def test_a_decided_window_closes_without_the_answers_still_owed() -> None:
    state = build(["4p +", None, DD_2, DD_3], "4s", multiple_winners=False)
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    state, _ = guiyang.apply(state, 2, Action("win"))
    state, events = guiyang.resolve_claims(state)  # seat 3 never answered
    assert state.ended and state.winners == [2]
    assert [e["type"] for e in events] == ["win", "hand_end"]


def test_a_pong_after_the_win_decided_the_window_is_accepted_and_loses() -> None:
    state = build(["4p +", None, "44p +", DD_3], "5s")
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    state, _ = guiyang.apply(state, 3, Action("win"))
    assert guiyang.claims_decided(state) and legal(state, 2) == {PONG, PASS}
    state, events = guiyang.apply(state, 2, Action("pong"))
    assert events == []
    s = settle(close_window(state))
    assert s["winners"] == [3] and not state.melds[2]
    assert s["deltas"] == [-5, 0, 0, 5]


@pytest.mark.parametrize("multiple_winners", [False, True])
def test_two_wins_in_either_order_give_the_same_outcome(multiple_winners: bool) -> None:
    outcomes = [
        two_winners(multiple_winners, answers)
        for answers in ([[2, "win"], [3, "win"]], [[3, "win"], [2, "win"]])
    ]
    assert outcomes[0] == outcomes[1]
    if multiple_winners:
        assert outcomes[0]["winners"] == [2, 3] and outcomes[0]["deltas"] == [-10, 0, 5, 5]
    else:
        assert outcomes[0]["winners"] == [2] and outcomes[0]["deltas"] == [-5, 0, 5, 0]


# §3: a self-draw needs a tile drawn in this turn; right after a pong there is none.

DD_PAIRS = "11m 22m 333p 444p 555s"  # waits on 1m / 2m (双碰); won on 1m: 大对子
PH_PAIRS = "123m 456m 789m 44p 55s"  # waits on 4p / 5s; won on 4p: 平胡


@pytest.mark.parametrize(("hand", "tile"), [(DD_PAIRS, "1m"), (PH_PAIRS, "4p")])
def test_no_self_draw_right_after_a_pong(hand: str, tile: str) -> None:
    state = play(build([f"{tile} +", None, hand, None], "5s"), [[0, "discard", tile], [2, "pong"]])
    assert state.phase == "turn" and state.turn == 2 and state.drawn[2] is None
    # The rest of the hand is complete: a self-draw would have been a win.
    assert is_complete(state.hands[2], len(state.melds[2]))
    assert SELF_DRAW not in legal(state, 2)
    assert {kind for kind, _, _ in legal(state, 2)} == {"discard"}
    before = fresh(state)
    with pytest.raises(IllegalAction) as refused:
        guiyang.apply(state, 2, Action("self_draw"))
    assert refused.value.code == "illegal_action"
    assert state == before
    # On a timeout the seat discards (托管 never "self-draws" here either).
    assert guiyang.default_action(state, 2).kind == "discard"


def test_the_hand_a_claimed_tile_completes_wins_on_the_discard_where_allowed() -> None:
    # 大对子 (§7: above 平胡) may win on the discard: 5 from the discarder only, not a
    # self-draw's 5 + 1 from every seat.
    state = play(build(["1m +", None, DD_PAIRS, None], "5s"), [[0, "discard", "1m"]])
    assert legal(state, 2) == {WIN, PONG, PASS}
    s = settle(play(state, [[2, "win"]]))
    assert s["winners"] == [2] and s["hand_types"] == {"2": "da_dui_zi"}
    assert payments(s) == {(0, 2, "hu"): 5}
    assert s["deltas"] == [-5, 0, 5, 0]


def test_a_ping_hu_the_claimed_tile_completes_may_only_pong() -> None:
    # §7: 平胡 without 豆 or report may not win on the discard; pong and discard it is.
    state = play(build(["4p +", None, PH_PAIRS, None], "5s"), [[0, "discard", "4p"]])
    assert legal(state, 2) == {PONG, PASS}


def test_self_draw_after_a_pong_and_a_kong_on_the_replacement_tile() -> None:
    # Control: after the pong a concealed kong draws a replacement, so a self-draw (杠开)
    # is a tile drawn in this turn.
    hand = "11m 2222m 333p 444p 5s"
    state = build(["1m +", None, hand, None], "8p", "5s")
    state = play(state, [[0, "discard", "1m"], [2, "pong"]])
    assert SELF_DRAW not in legal(state, 2)
    state = play(state, [[2, "kong", "2m"]])
    assert tile_name(state.drawn[2]) == "5s" and SELF_DRAW in legal(state, 2)
    s = settle(play(state, [[2, "self_draw"]]))
    assert s["winners"] == [2] and state.after_kong


# ---------------------------------------------------------------------------- §11 三丁拐 / 二丁拐

# Dealer voids m but keeps 2m 7m; seat 1 voids s and never had one (原缺); seat 2 voids p
# but keeps 5p.
VOID_M = "27m 2468p 2468s 9p 37s 9s"
W_NO_S = "123m 456m 789m 23p 55p"
VOID_P = "5p 13579m 2468s 789s"


def test_ding_que_is_hidden_until_everybody_has_chosen() -> None:
    state = build([VOID_M, W_NO_S, VOID_P], players=3)
    assert state.phase == "ding_que"
    choices = guiyang.legal_actions(state, 0)
    assert {a.kind for a in choices} == {"ding_que"} and {a.suit for a in choices} == set("mps")
    with pytest.raises(IllegalAction):  # the dealer may not discard before 定缺
        guiyang.apply(state, 0, Action("discard", tile="9s"))
    state, events = guiyang.apply(state, 0, Action("ding_que", suit="m"))
    (chosen,) = events
    assert guiyang.project_event(chosen, 0)["suit"] == "m"
    assert "suit" not in guiyang.project_event(chosen, 1)
    assert "suit" not in guiyang.project_event(chosen, None)
    assert guiyang.view(state, 1)["seats"][0]["ding_que"] is None
    assert guiyang.view(state, 1)["seats"][0]["ding_que_chosen"] is True
    assert guiyang.view(state, 0)["seats"][0]["ding_que"] == "m"
    assert guiyang.legal_actions(state, 0) == []  # chosen once, for good
    state, _ = guiyang.apply(state, 1, Action("ding_que", suit="s"))
    assert guiyang.view(state, 2)["seats"][1]["ding_que"] is None
    state, events = guiyang.apply(state, 2, Action("ding_que", suit="p"))
    reveal = [e for e in events if e["type"] == "ding_que_reveal"]
    assert reveal and reveal[0]["suits"] == ["m", "s", "p"]
    assert state.phase == "turn" and state.turn == 0
    assert [s["ding_que"] for s in guiyang.view(state, 2)["seats"]] == ["m", "s", "p"]


def test_no_ding_que_with_four_players() -> None:
    assert build([None] * 4).phase == "turn"


def test_cha_que_and_yuan_que_three_players() -> None:
    state = build([VOID_M, W_NO_S, VOID_P], "8p 8p 8p 4p 5s", players=3)
    actions = [
        [0, "ding_que", "m"],
        [1, "ding_que", "s"],
        [2, "ding_que", "p"],
        [0, "discard", "9s"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert payments(s) == {
        (0, 1, "hu"): 2,
        (2, 1, "hu"): 2,
        (0, 1, "cha_que"): 2,  # 2m 7m
        (2, 1, "cha_que"): 1,  # 5p
        (0, 1, "yuan_que"): 3,
        (2, 1, "yuan_que"): 3,
    }
    assert s["deltas"] == [-7, 13, -6]


def test_two_players() -> None:
    state = build([VOID_M, W_NO_S], "8p 8p 4p 5s", players=2)
    actions = [
        [0, "ding_que", "m"],
        [1, "ding_que", "s"],
        [0, "discard", "9s"],
        [1, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert payments(s) == {(0, 1, "hu"): 2, (0, 1, "cha_que"): 2, (0, 1, "yuan_que"): 3}
    assert s["deltas"] == [-7, 7]
    assert s["next_dealer"] == 1


def test_three_players_under_lian_zhuang_only_the_win_payment_adds_the_streak() -> None:
    state = build(
        [VOID_M, W_NO_S, VOID_P], "8p 8p 8p 4p 5s", players=3, scoring="lian_zhuang", streak=2
    )
    actions = [
        [0, "ding_que", "m"],
        [1, "ding_que", "s"],
        [2, "ding_que", "p"],
        [0, "discard", "9s"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert payments(s) == {
        (0, 1, "hu"): 1 + 1 + 2,  # §8.1: 平胡 1 + 自摸 1, + N 2 from the dealer (§10.2)
        (2, 1, "hu"): 1 + 1,
        (0, 1, "cha_que"): 2,  # §9.4: 2m 7m; not a win payment, no +N
        (2, 1, "cha_que"): 1,  # 5p
        (0, 1, "yuan_que"): 3,  # §9.4: seat 1 never held an s
        (2, 1, "yuan_que"): 3,
    }
    assert s["deltas"] == [-9, 15, -6]
    assert s["next_dealer"] == 1


def choose(state: State, *suits: str) -> State:
    return play(state, [[seat, "ding_que", suit] for seat, suit in enumerate(suits)])


def test_a_seat_holding_its_void_suit_is_not_ready_and_cannot_win() -> None:
    hand = "55m 123p 456p 789p 23s"  # complete shape on 1s / 4s, but holds 55m
    voided = choose(build(["9m +", hand, None], "4s", players=3), "s", "m", "s")
    assert not guiyang.is_ready(voided, 1) and guiyang.waits(voided, 1) == []
    voided = play(voided, [[0, "discard", "9m"]])
    assert voided.turn == 1 and SELF_DRAW not in legal(voided, 1)
    # Control: with four players (no void suit) the same hand is ready and wins.
    control = build(["9m +", hand, None, None], "4s")
    assert guiyang.is_ready(control, 1)
    assert SELF_DRAW in legal(play(control, [[0, "discard", "9m"]]), 1)


@pytest.mark.parametrize(("void", "claims"), [("m", set()), ("s", {KONG, PONG, PASS})])
def test_no_pong_or_kong_of_the_void_suit(void: str, claims: set) -> None:
    state = choose(build(["7m +", None, "777m +"], players=3), "s", "s", void)
    state, _ = guiyang.apply(state, 0, Action("discard", tile="7m"))
    assert legal(state, 2) == claims


@pytest.mark.parametrize(("void", "kong"), [("m", False), ("p", True)])
def test_no_self_kong_of_the_void_suit(void: str, kong: bool) -> None:
    state = choose(build(["9m +", "7777m +", None], "8p", players=3), "s", void, "s")
    state = play(state, [[0, "discard", "9m"]])
    assert (("kong", "7m", False) in legal(state, 1)) is kong


# ---------------------------------------------------------------------------- §12 黄庄 and 查叫

QD = "11m 33p 77s 88m 99p 22s 7p"  # 七对, waits 7p: ready value 7
W9 = "123m 456m 789m 23p 99s"  # 平胡, waits 1p / 4p: ready value 1
DDR = "222m 3m 444p 555s 666s"  # waits 1m 3m 4m: ready value 5 (3m: 大对子)
R2 = "456p 789p 567s 88p 34s"  # 平胡, waits 2s / 5s: ready value 1


def exhaust(hands: list[str | None], **options: object) -> dict:
    """The dealer (seat 0, 14 tiles) discards 5m, then everybody discards what it draws."""
    state = build(hands, **options)
    return settle(drain(play(state, [[0, "discard", "5m"]])))


def test_huang_zhuang_nobody_ready_no_payments_dealer_keeps() -> None:
    s = exhaust(["5m +", None, None, None])
    assert s["result"] == "huang_zhuang" and s["ready"] == []
    assert s["payments"] == [] and s["deltas"] == [0, 0, 0, 0]
    assert s["next_dealer"] == 0


def test_huang_zhuang_nobody_ready_another_dealer_keeps() -> None:
    state = build([None, None, "5m +", None], dealer=2)
    s = settle(drain(play(state, [[2, "discard", "5m"]])))
    assert s["ready"] == [] and s["next_dealer"] == 2


def test_huang_zhuang_everybody_ready_no_payments_dealer_keeps() -> None:
    s = exhaust([QD + " 5m", W9, R2, DDR])
    assert s["ready"] == [0, 1, 2, 3]
    assert s["payments"] == [] and s["deltas"] == [0, 0, 0, 0]
    assert s["next_dealer"] == 0


@pytest.mark.parametrize(("scoring", "streak"), [("yi_kou_er", 0), ("lian_zhuang", 2)])
def test_huang_zhuang_all_but_one_ready_that_one_deals(scoring: str, streak: int) -> None:
    s = exhaust([QD + " 5m", W9, None, DDR], scoring=scoring, streak=max(streak, 1))
    assert s["ready"] == [0, 1, 3]
    assert payments(s) == {
        (2, 0, "cha_jiao"): 7 + streak,  # +N: the dealer is paid (§10.2)
        (2, 1, "cha_jiao"): 1,
        (2, 3, "cha_jiao"): 5,
    }
    assert s["deltas"] == [7 + streak, 1, -13 - streak, 5]
    assert s["next_dealer"] == 2
    # DDR waits 1m (平胡), 3m (大对子) and 4m: the best, 大对子, is its value
    kinds = {p["to"]: p["detail"]["ready_type"] for p in s["payments"]}
    assert kinds == {0: "qi_dui", 1: "ping_hu", 3: "da_dui_zi"}


def test_huang_zhuang_dealer_ready_keeps_the_deal() -> None:
    s = exhaust([QD + " 5m", W9, None, None])
    assert s["ready"] == [0, 1]
    assert payments(s) == {
        (2, 0, "cha_jiao"): 7,
        (3, 0, "cha_jiao"): 7,
        (2, 1, "cha_jiao"): 1,
        (3, 1, "cha_jiao"): 1,
    }
    assert s["deltas"] == [14, 2, -8, -8]
    assert s["next_dealer"] == 0
    # each line names the hand its value is of (shown with 查叫)
    kinds = {(p["from"], p["to"]): p["detail"]["ready_type"] for p in s["payments"]}
    assert kinds == {(2, 0): "qi_dui", (3, 0): "qi_dui", (2, 1): "ping_hu", (3, 1): "ping_hu"}


@pytest.mark.parametrize(("scoring", "streak"), [("yi_kou_er", 0), ("lian_zhuang", 3)])
def test_huang_zhuang_otherwise_the_dealers_next_seat_deals(scoring: str, streak: int) -> None:
    s = exhaust(["5m +", W9, None, DDR], scoring=scoring, streak=max(streak, 1))
    assert s["ready"] == [1, 3]
    assert payments(s) == {
        (0, 1, "cha_jiao"): 1 + streak,  # +N: the dealer pays (§10.2)
        (0, 3, "cha_jiao"): 5 + streak,
        (2, 1, "cha_jiao"): 1,
        (2, 3, "cha_jiao"): 5,
    }
    assert s["deltas"] == [-6 - 2 * streak, 2 + streak, -6, 10 + streak]
    assert s["next_dealer"] == 1


@pytest.mark.parametrize(
    ("scoring", "streak", "expected", "deltas"),
    [
        (
            "lian_zhuang",
            3,
            # §12: each seat not ready pays each ready seat its ready value (大对子 5,
            # 平胡 1); + N 3 when the dealer pays (§10.2)
            {(0, 1): 5 + 3, (0, 2): 1 + 3, (3, 1): 5, (3, 2): 1},
            [-12, 13, 5, -6],
        ),
        (
            "yi_kou_san",
            1,
            {(0, 1): 8, (0, 2): 3, (3, 1): 8, (3, 2): 3},  # §6.2 一扣三: 大对子 8, 平胡 3
            [-11, 16, 6, -11],
        ),
    ],
)
def test_huang_zhuang_with_a_men_dou_two_ready_values(
    scoring: str, streak: int, expected: dict, deltas: list[int]
) -> None:
    # Seat 1 is ready for 大对子 (waits 4m / 5p); seat 2 makes a 闷豆 of 6s and is ready
    # for 平胡 (123m 456m 78p 99s, waits 6p / 9p). The dealer and seat 3 are not ready.
    state = build(
        ["9m +", "111m 222p 333s 44m 55p", "6666s 123m 456m 78p 9s", None],
        "8p 9s",
        "3m",
        scoring=scoring,
        streak=streak,
    )
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],  # drew 9s; the replacement is 3m
        [2, "discard_drawn"],
    ]
    state = play(state, actions)
    assert [m.kind for m in state.melds[2]] == ["men_dou"]
    s = settle(drain(state))
    assert s["result"] == "huang_zhuang" and s["ready"] == [1, 2]
    assert payments(s) == {(f, t, "cha_jiao"): p for (f, t), p in expected.items()}  # no 豆
    assert s["deltas"] == deltas
    assert s["next_dealer"] == 1  # §12: the dealer is not ready: its next seat deals


def test_huang_zhuang_cha_que_applies() -> None:
    state = build([VOID_M, W_NO_S, VOID_P], players=3)
    state = play(state, [[0, "ding_que", "m"], [1, "ding_que", "s"], [2, "ding_que", "p"]])
    s = settle(drain(play(state, [[0, "discard", "9s"]])))
    assert s["result"] == "huang_zhuang" and s["ready"] == [1]
    assert by_reason(s, "cha_jiao") == {(0, 1): 1, (2, 1): 1}
    assert by_reason(s, "cha_que") == {(0, 1): 2, (2, 1): 1}


def test_huang_zhuang_three_players_under_lian_zhuang() -> None:
    state = build([VOID_M, W_NO_S, VOID_P], players=3, scoring="lian_zhuang", streak=2)
    state = play(state, [[0, "ding_que", "m"], [1, "ding_que", "s"], [2, "ding_que", "p"]])
    s = settle(drain(play(state, [[0, "discard", "9s"]])))
    assert s["result"] == "huang_zhuang" and s["ready"] == [1]
    assert payments(s) == {
        (0, 1, "cha_jiao"): 1 + 2,  # §12: ready value 1, + N 2 from the dealer (§10.2)
        (2, 1, "cha_jiao"): 1,
        (0, 1, "cha_que"): 2,  # §9.4: 2m 7m, 1 each; no +N (not a win payment)
        (2, 1, "cha_que"): 1,  # 5p
    }
    assert s["deltas"] == [-5, 7, -2]
    assert s["next_dealer"] == 1  # §12: dealer not ready, not all but one: the next seat


# ---------------------------------------------------------------------------- §14 options


def test_option_defaults() -> None:
    o = GuiyangOptions()
    assert o.model_dump() == {
        "players": 4,
        "scoring": "yi_kou_er",
        "yao_bai_ji": False,
        "man_tang_ji": True,
        "fan_table": "standard",
        "dou_values": "standard",
        "multiple_winners": True,
        "pass_pong_lock": False,
        "wu_gu_ji": False,
        "ben_ji": False,
        "xing_qi_ji": False,
        "chui_feng_ji": False,
        "time_zone": "Asia/Shanghai",
        "base_points": 1,
        "hands": 8,
        "claim_seconds": 10,
        "turn_seconds": 20,
        "bank_seconds": 20,
    }


def test_scoring_checkboxes_exclude_each_other() -> None:
    with pytest.raises(ValidationError) as exc:
        GuiyangOptions(**{"lian_zhuang": True, "yi_kou_san": True})
    assert "lian_zhuang" in str(exc.value) and "yi_kou_san" in str(exc.value)
    assert GuiyangOptions(**{"lian_zhuang": True}).scoring == "lian_zhuang"
    assert GuiyangOptions(**{"yi_kou_san": True, "lian_zhuang": False}).scoring == "yi_kou_san"
    assert GuiyangOptions(**{"yi_kou_san": False, "lian_zhuang": False}).scoring == "yi_kou_er"
    with pytest.raises(ValidationError):
        GuiyangOptions(**{"scoring": "yi_kou_er", "lian_zhuang": True})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("players", 5),
        ("players", 1),
        ("players", "four"),
        ("scoring", "yi_kou_si"),
        ("yao_bai_ji", "maybe"),
        ("man_tang_ji", 2),
        ("fan_table", "apps"),
        ("dou_values", "all"),
        ("multiple_winners", "sometimes"),
        ("pass_pong_lock", [True]),
        ("base_points", 0),
        ("base_points", -3),
        ("base_points", 1.5),
        ("hands", 5),
        ("claim_seconds", 0),
        ("turn_seconds", 0),
        ("no_such_option", 1),
    ],
)
def test_bad_option_values_are_refused_naming_the_option(key: str, value: object) -> None:
    with pytest.raises(ValidationError) as exc:
        GuiyangOptions(**{key: value})
    assert key in str(exc.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("players", 3),
        ("players", 2),
        ("hands", 4),
        ("hands", 16),
        ("base_points", 5),
        ("claim_seconds", 30),
        ("turn_seconds", 60),
    ],
)
def test_good_option_values_are_accepted(key: str, value: object) -> None:
    assert getattr(GuiyangOptions(**{key: value}), key) == value


@pytest.mark.parametrize(
    ("options", "each"),
    [
        ({}, 7 + 1),
        ({"fan_table": "app"}, 10 + 1),
        ({"scoring": "yi_kou_san"}, 12),
        ({"scoring": "yi_kou_san", "fan_table": "app"}, 12),  # the 一扣三 column is unchanged
    ],
)
def test_fan_table_changes_what_is_paid(options: dict, each: int) -> None:
    s = zimo("11m 33p 77s 88m 99p 22s 7p", win="7p", draws="3s 3s 3s 3s", **options)
    assert s["hand_types"] == {"1": "qi_dui"}
    each_pays(s, 1, each)


@pytest.mark.parametrize(
    ("options", "value"),
    [({}, 17), ({"fan_table": "app"}, 20), ({"scoring": "yi_kou_san"}, 24)],  # §6.2 清单吊
)
def test_qing_dan_diao_four_pongs_of_one_suit_and_the_pair_won_on_a_discard(
    options: dict, value: int
) -> None:
    # Seat 1 pongs 2m (the dealer's), then 3m, 4m and 6m (seat 2's draws), discarding its
    # four odd tiles; left with 7m alone, it wins on seat 2's 7m (not 平胡: §7 allows it).
    state = build(
        ["2m +", "22m 33m 44m 66m 7m 9p 9s 5p 5s", None, None], "3m 4m 6m 7m 5s", **options
    )
    actions: list[list] = [[0, "discard", "2m"]]
    for odd in ("9p", "9s", "5p", "5s"):
        actions += [[1, "pong"], [1, "discard", odd], [2, "discard_drawn"]]
    state = play(state, actions)
    assert [m.kind for m in state.melds[1]] == ["pong"] * 4
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "dian_pao" and s["hand_types"] == {"1": "qing_dan_diao"}
    assert payments(s) == {(2, 1, "hu"): value}  # §8.2: only the discarder pays
    assert s["deltas"] == [0, value, -value, 0]
    assert s["next_dealer"] == 1


def scenario_ze_ren(**options: object) -> dict:
    state = build(["1s 9m +", "11s 123m 456m 789m 2p 5p", None, None], "8p 8p 8p 2p 9s", **options)
    actions = [
        [0, "discard", "1s"],
        [1, "pong"],
        [1, "discard", "5p"],
        *ROUND[2:],
        [1, "self_draw"],
    ]
    return settle(play(state, actions))


def scenario_dou_and_chong_feng(**options: object) -> dict:
    # Seat 1 makes a 闷豆 and wins 平胡 on seat 2's 4p; seat 2 discarded the first 1s.
    state = build(
        ["9m +", "123m 456m 23p 5s 7777s", "1s +", None], "8p 3s 3s 3s 3s 4p 5s", "5s", **options
    )
    actions = [
        [0, "discard", "9m"],
        [1, "kong", "7s"],
        [1, "discard", "8p"],
        [2, "discard", "1s"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [1, "win"],
    ]
    return settle(play(state, actions))


def scenario_sha_bao(**options: object) -> dict:
    state = build(["9m +", W, "234m 567m 345p 678p 8s", None], "9p 9s 9p 9p 9p 4p 2s", **options)
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
    return settle(play(state, actions))


def scenario_ying_bao(**options: object) -> dict:
    state = build(["123m 456m 789m 234p 55s", None, None, None], "5s", **options)
    return settle(play(state, [[0, "self_draw"]]))


def scenario_qiang_gang(**options: object) -> dict:
    state = build(["4p +", W, "44p 9m +", None], "8p 8p 8p 4p 5s", **options)
    return settle(play(state, [*ROB, [1, "win"]]))


def scenario_void(**options: object) -> dict:
    state = build([VOID_M, W_NO_S, VOID_P], "8p 8p 8p 4p 5s", players=3, **options)
    actions = [
        [0, "ding_que", "m"],
        [1, "ding_que", "s"],
        [2, "ding_que", "p"],
        [0, "discard", "9s"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    return settle(play(state, actions))


def scenario_cha_jiao(**options: object) -> dict:
    return exhaust(["5m +", W9, None, DDR], **options)


SCENARIOS = {
    "ze_ren": (scenario_ze_ren, {"hu", "ji", "ze_ren_ji"}),
    "dou_chong_feng": (scenario_dou_and_chong_feng, {"hu", "dou", "chong_feng_ji"}),
    "sha_bao": (scenario_sha_bao, {"hu", "sha_bao"}),
    "ying_bao": (scenario_ying_bao, {"hu", "ying_bao"}),
    "qiang_gang": (scenario_qiang_gang, {"hu"}),
    "void": (scenario_void, {"hu", "cha_que", "yuan_que"}),
    "cha_jiao": (scenario_cha_jiao, {"cha_jiao"}),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("scoring", ["yi_kou_er", "lian_zhuang"])
def test_base_points_multiplies_every_payment(name: str, scoring: str) -> None:
    run, reasons = SCENARIOS[name]
    one = run(scoring=scoring, streak=2)
    three = run(scoring=scoring, streak=2, base_points=3)
    assert {p["reason"] for p in one["payments"]} == reasons
    assert payments(three) == {k: 3 * v for k, v in payments(one).items()}
    assert three["deltas"] == [3 * d for d in one["deltas"]]


# ---------------------------------------------------------------------------- refusals


def refused(state: State, seat: int, action: Action, code: str) -> None:
    before = fresh(state)
    with pytest.raises(IllegalAction) as exc:
        guiyang.apply(state, seat, action)
    assert exc.value.code == code
    assert state == before  # nothing changed


def test_wrong_turn_is_refused() -> None:
    state = build(["9m +", None, None, None])
    refused(state, 1, Action("discard", tile="2m"), "not_your_turn")
    refused(state, 7, Action("discard", tile="2m"), "not_your_turn")


def test_discarding_a_tile_not_held_is_refused() -> None:
    state = build(["9m +", None, None, None])
    assert state.hands[0][18] == 0  # no 1s
    refused(state, 0, Action("discard", tile="1s"), "illegal_action")


def test_pong_without_two_is_refused() -> None:
    state = build(["4p +", None, None, DD_2], "5s")
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    assert legal(state, 3) == {WIN, PASS}  # one 4p: it may win, not pong
    refused(state, 3, Action("pong"), "illegal_action")
    refused(state, 3, Action("kong"), "illegal_action")
    refused(state, 1, Action("pong"), "not_your_turn")  # seat 1 may not claim at all


def test_win_without_a_complete_hand_is_refused() -> None:
    state = build(["9m +", None, None, None])
    refused(state, 0, Action("self_draw"), "illegal_action")
    state = build(["4p +", None, "44p +", None])
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    refused(state, 2, Action("win"), "illegal_action")


def test_kong_of_a_tile_not_held_four_times_is_refused() -> None:
    state = build(["999m +", None, None, None])
    refused(state, 0, Action("kong", tile="9m"), "illegal_action")


def test_actions_after_the_end_are_refused() -> None:
    state = play(build(["123m 456m 789m 234p 55s", None, None, None], "5s"), [[0, "self_draw"]])
    refused(state, 1, Action("discard", tile="2m"), "hand_over")


@pytest.mark.parametrize(
    "data",
    [
        "discard",
        {},
        {"kind": "chow"},
        {"kind": "discard", "tile": "0m"},
        {"kind": "discard", "tile": "1m2m"},
        {"kind": "ding_que", "suit": "z"},
        {"kind": "discard", "tile": "1m", "bao_ting": "yes"},
        {"kind": "discard", "tile": "1m", "extra": 1},
    ],
)
def test_malformed_actions_are_refused(data: object) -> None:
    with pytest.raises(IllegalAction) as exc:
        Action.from_dict(data)
    assert exc.value.code == "bad_action"


def test_new_hand_refuses_tiles_that_are_not_the_108() -> None:
    good = build([None] * 4)
    hands = [[tile_name(k) for k in range(27) for _ in range(h[k])] for h in good.hands]
    wall = [tile_name(k) for k in good.wall]
    with pytest.raises(ValueError):
        guiyang.new_hand(GuiyangOptions(), hands, wall[1:])  # 107 tiles
    other = next(t for t in wall if t != wall[0])
    with pytest.raises(ValueError):
        guiyang.new_hand(GuiyangOptions(), hands, [*wall[1:], other])  # five of a kind
    with pytest.raises(ValueError):
        guiyang.new_hand(GuiyangOptions(), [hands[1], hands[0], *hands[2:]], wall)  # dealer 13


# ---------------------------------------------------------------------------- timeouts


def test_claim_timeout_is_a_pass() -> None:
    # §3: "answered or timed out (timeout = pass)", even for a seat that could win.
    state = build(["4p +", None, "44p +", DD_2.replace("555m", "555s")], "5s")
    state, _ = guiyang.apply(state, 0, Action("discard", tile="4p"))
    assert guiyang.default_action(state, 3) == Action("pass")
    assert guiyang.default_action(state, 2) == Action("pass")


def test_rob_timeout_is_a_pass() -> None:
    state = play(build(["4p +", W, "44p 9m +", None], "8p 8p 8p 4p 5s"), ROB)
    assert state.phase == "rob"
    assert guiyang.default_action(state, 1) == Action("pass")


def test_soft_report_timeout_discards_the_drawn_tile_even_a_winning_one() -> None:
    # §5: "the client offers 胡 or the discard; on timeout the server discards it".
    state = build(["9m +", "123m 456m 789m 23p 5s 9s", None, None], "5s 8p 8p 8p 4p")
    state = play(
        state,
        [[0, "discard", "9m"], [1, "discard", "9s", {"bao_ting": True}], *ROUND[2:]],
    )
    assert SELF_DRAW in legal(state, 1)
    assert guiyang.default_action(state, 1) == Action("discard", tile="4p")


def test_ding_que_timeout_voids_the_shortest_suit() -> None:
    state = build([VOID_M, W_NO_S, VOID_P], players=3)
    assert guiyang.default_action(state, 0) == Action("ding_que", suit="m")  # 2m 7m
    assert guiyang.default_action(state, 1) == Action("ding_que", suit="s")  # none
    assert guiyang.default_action(state, 2) == Action("ding_que", suit="p")  # 5p


# ---------------------------------------------------------------------------- §2, §13 deal


def test_deal_is_determined_by_the_seed_and_publishes_its_hash() -> None:
    import hashlib

    a = guiyang.deal(GuiyangOptions(), "seed-1", dealer=2)
    b = guiyang.deal(GuiyangOptions(), "seed-1", dealer=2)
    c = guiyang.deal(GuiyangOptions(), "seed-2", dealer=2)
    assert a == b and a.wall != c.wall
    assert a.seed_hash == hashlib.sha256(b"seed-1").hexdigest()
    assert [sum(h) for h in a.hands] == [13, 13, 14, 13]
    assert a.wall_count == 108 - 53 and a.turn == 2
    assert guiyang.view(a, 0)["seed"] is None


def test_the_deal_rolls_two_dice_from_the_shuffles_generator() -> None:
    # §2: "rolls two dice from the same generator and shows them": the two rolls after the
    # shuffle of the 108 tiles, in every view (spectators too); a fixture's hand, dealt from
    # given tiles with no seed, has none.
    import random

    from server.rules.dealing import roll_dice

    rng = random.Random("seed-1")
    rng.shuffle(list(range(108)))
    want = (rng.randint(1, 6), rng.randint(1, 6))
    state = guiyang.deal(GuiyangOptions(), "seed-1", dealer=2)
    assert state.dice == want == roll_dice("seed-1", 108)
    assert all(guiyang.view(state, seat)["dice"] == list(want) for seat in (0, 2, None))
    rolls = {roll_dice(f"seed-{i}", 108) for i in range(200)}
    assert {d for pair in rolls for d in pair} == set(range(1, 7)) and len(rolls) > 20
    assert build([None] * 4).dice is None and guiyang.view(build([None] * 4), 0)["dice"] is None


@pytest.mark.parametrize(("players", "dealer"), [(4, 2), (3, 1), (2, 0)])
def test_the_deal_follows_the_table_custom(players: int, dealer: int) -> None:
    # §2: "4 tiles x 3 rounds, then 1 each, the dealer 1 more", seat by seat from the dealer,
    # from the front of the shuffled tiles; the rest is the wall in draw order. Labelled
    # tiles show where each seat's tiles come from in the shuffle.
    import random

    from server.rules.dealing import shuffle_and_deal

    labels = [f"t{i}" for i in range(108)]
    shuffled = list(labels)
    random.Random("custom").shuffle(shuffled)
    hands, wall = shuffle_and_deal(labels, "custom", players, dealer)
    for i in range(players):
        seat = (dealer + i) % players
        taken = [
            p for r in range(3) for p in range(4 * (r * players + i), 4 * (r * players + i) + 4)
        ]
        taken.append(12 * players + i)
        if seat == dealer:
            taken.append(13 * players)
        assert hands[seat] == [shuffled[p] for p in taken]
    assert [len(h) for h in hands] == [14 if s == dealer else 13 for s in range(players)]
    assert wall == shuffled[13 * players + 1 :]


def test_kong_replacement_comes_from_the_back_of_the_wall() -> None:
    state = build(["9m +", "7777s +", None, None], "8p", "3s")
    state = play(state, [[0, "discard", "9m"], [1, "kong", "7s"]])
    assert tile_name(state.drawn[1]) == "3s"
    assert state.front == 1 and state.back == len(state.wall) - 1


# ---------------------------------------------------------------------------- §9.5 burned


def test_burned_seat_still_pays_its_chong_feng_ji() -> None:
    # The robbed seat (not ready) discarded the first 1s: its 冲锋鸡 to the winner stands.
    state = build(["4p +", W, "44p 1s +", None], "8p 8p 8p 4p 5s")
    actions = [a if a[:2] != [2, "discard"] else [2, "discard", "1s"] for a in ROB]
    s = settle(play(state, [*actions, [1, "win"]]))
    assert s["burned"] == [2] and 2 not in s["ready"]
    assert payments(s) == {(2, 1, "hu"): 6, (2, 1, "chong_feng_ji"): 2}
    assert s["deltas"] == [0, 8, -8, 0]


def test_burned_ready_seat_collects_no_chong_feng_ji() -> None:
    # 热炮 as above; the dealer (not ready) discarded the first 1s: it pays each seat in R,
    # but the payment to the burned seat 2 is dropped.
    state = build(["1s +", W, "6666s 234m 567m 35p 9s", None], "8p 4p 5s", "9s")
    actions = [
        [0, "discard", "1s"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "4p"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["burned"] == [2] and s["ready"] == [1, 2]
    assert payments(s) == {(2, 1, "hu"): 2, (0, 1, "chong_feng_ji"): 2}
    assert s["deltas"] == [-2, 4, -2, 0]


def test_the_dealer_may_report_on_its_first_discard() -> None:
    state = build(["123m 456m 789m 23p 55s 9s", None, None, None])
    assert ("discard", "9s", True) in legal(state, 0)
    state, _ = guiyang.apply(state, 0, Action("discard", tile="9s", bao_ting=True))
    assert state.bao_ting[0]


def test_a_wait_whose_other_copies_are_in_the_seats_own_pong_is_no_wait() -> None:
    # §6.3: seat 1 pongs 5p holding three, keeps the fourth: 123m 456m 789m 5p + pong 5p
    # would only complete with a fifth 5p, so it is not ready.
    state = build(["5p +", "555p 123m 456m 789m 9s", None, None])
    state = play(state, [[0, "discard", "5p"], [1, "pong"], [1, "discard", "9s"]])
    assert [m.kind for m in state.melds[1]] == ["pong"]
    assert guiyang.waits(state, 1) == [] and not guiyang.is_ready(state, 1)
