"""Exact points of Guiyang rules that no other test pins yet (spec/guiyang.md).

Each test gives the arithmetic of its expected numbers from the spec, with the § used, and
asserts every seat's delta (which add up to zero) and the payment lines. Scenarios are built
with `tests.rules.scenario` as in `test_guiyang_rules`: the hands that matter are written
out, filler seats hold scattered tiles (never ready, never able to claim), the wall's front
is given in draw order and the next front tile is the one turned for 翻牌鸡.
"""

from __future__ import annotations

import pytest

from tests.rules.scenario import build, by_reason, drain, legal, payments, play, settle
from tests.rules.test_guiyang_rules import ROB, ROUND, VOID_M, W11, W_NO_S, W, each_pays, zimo

WIN = ("win", None, False)
PASS = ("pass", None, False)


def deltas_are(s: dict, deltas: list[int]) -> None:
    """The settlement's deltas are exactly ``deltas``, and they add up to zero (§9)."""
    assert s["deltas"] == deltas
    assert sum(s["deltas"]) == 0


# ---------------------------------------------------------------------------- 1. 抢杠, 二丁拐

# Dealer 0 voids s (holds 9s, so no 原缺) and discards 4p; seat 1 voids m (holds 9m, likewise)
# and pongs it, discards its 9m; the dealer draws 5p and discards 9s, leaving 123m 456m 789m
# 23p 55p (waits 1p / 4p); seat 1 draws the last 4p, adds the kong and the dealer robs it.
QG2_HANDS: list[str | None] = ["123m 456m 789m 23p 4p 5p 9s", "44p 9m 2358p 2468s 79s"]
QG2_ACTIONS = [
    [0, "ding_que", "s"],
    [1, "ding_que", "m"],
    [0, "discard", "4p"],
    [1, "pong"],
    [1, "discard", "9m"],
    [0, "discard", "9s"],
    [1, "kong", "4p"],
]


@pytest.mark.parametrize(
    ("scoring", "value"),
    [
        # §8.4 / §9.1: the robbed seat pays (n-1) = 1 times the self-draw value it would have
        # paid: 平胡 1 + 自摸 1 (§8.1) = 2.
        ("yi_kou_er", 1 * (1 + 1)),
        # 一扣三: 平胡 3, no self-draw extra (§6.2, §8.1): 1 x 3.
        ("yi_kou_san", 1 * 3),
        # 连庄 streak 2, the winner is the dealer (§10.2): 1 x (1 + 1 + 2).
        ("lian_zhuang", 1 * (1 + 1 + 2)),
    ],
)
def test_qiang_gang_two_players(scoring: str, value: int) -> None:
    state = build(QG2_HANDS, "5p 4p 5s", players=2, scoring=scoring, streak=2)
    state = play(state, QG2_ACTIONS)
    assert state.phase == "rob" and legal(state, 0) == {WIN, PASS}
    s = settle(play(state, [[0, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [0]
    assert s["hand_types"] == {"0": "ping_hu"}
    assert s["burned"] == [1] and s["ready"] == [0]
    # Turned 5s: 6s is the chicken, nobody in R holds one or a 1s; neither seat holds its
    # void suit at the end (no 查缺) and both started with it (no 原缺, §9.4).
    assert payments(s) == {(1, 0, "hu"): value}
    deltas_are(s, [value, -value])
    assert s["next_dealer"] == 0


# ---------------------------------------------------------------------------- 2. §9.5 with 抢杠


def test_qiang_gang_voids_the_robbed_seats_dou_and_chickens() -> None:
    # Seat 2 pongs the dealer's 4p; on its next turn it draws the last 4p, makes a 闷豆 of
    # 7s (replacement 1s: 234m 567m 1s, ready on 1s), then adds the 4p kong; seat 1 (W,
    # waits 1p / 4p) robs it. R = {1, 2}. Turned 4s: 5s is a chicken (W holds 55s).
    # §8.4 / §9.1: seat 2 pays 3 x (平胡 1 + 自摸 1) = 6.
    # §9.3: seat 1's two 5s: every other seat pays 2, the burned seat 2 too (§9.5: "every
    # payment from them stands").
    # §9.5: dropped are seat 2's 闷豆 (2 from each other seat, §9.2) and its 1s (1 from each).
    # Deltas: 0: -2; 1: 6 + 3 x 2 = 12; 2: -6 - 2 = -8; 3: -2.
    state = build(["4p +", W, "44p 7777s 234m 567m 9m", None], "8p 8p 8p 4p 4s", "1s")
    state = play(state, [*ROB[:-1], [2, "kong", "7s"], [2, "kong", "4p"]])
    assert state.phase == "rob" and legal(state, 1) == {WIN, PASS}
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [1]
    assert s["burned"] == [2] and s["ready"] == [1, 2]
    assert [m.kind for m in state.melds[2]] == ["pong", "men_dou"]
    assert set(s["chickens"]) == {"1s", "5s"}
    assert payments(s) == {
        (2, 1, "hu"): 6,
        (0, 1, "ji"): 2,
        (2, 1, "ji"): 2,
        (3, 1, "ji"): 2,
    }
    assert not [p for p in s["payments"] if p["to"] == 2]
    deltas_are(s, [-2, 12, -8, -2])


# ---------------------------------------------------------------------------- 3. 杠开


@pytest.mark.parametrize(
    ("scoring", "each"),
    [("yi_kou_er", 1 + 1 + 1), ("yi_kou_san", 3 + 0 + 1)],  # 平胡 + 自摸 + 杠开 (§8.1, §8.3)
)
def test_gang_kai_after_a_ming_dou(scoring: str, each: int) -> None:
    # Seat 1 kongs the dealer's 7s (明豆) and wins on the replacement 4p (杠开): every other
    # seat pays ``each`` (§8.3: a self-draw plus 1); the 明豆 is paid 1 by its discarder
    # (§9.2). No 硬报: seat 1 made a meld (§5). Turned 5s: 6s, nobody in R holds one.
    # Deltas: 0: -each - 1; 1: 3 x each + 1; 2, 3: -each.
    state = build(["7s +", "123m 456m 23p 55s 777s", None, None], "5s", "4p", scoring=scoring)
    s = settle(play(state, [[0, "discard", "7s"], [1, "kong"], [1, "self_draw"]]))
    assert s["win_kind"] == "gang_kai" and s["hand_types"] == {"1": "ping_hu"}
    each_pays(s, 1, each)
    assert by_reason(s, "dou") == {(0, 1): 1}
    assert payments(s).keys() == {(0, 1, "hu"), (2, 1, "hu"), (3, 1, "hu"), (0, 1, "dou")}
    deltas_are(s, [-each - 1, 3 * each + 1, -each, -each])


@pytest.mark.parametrize(
    ("scoring", "each"),
    [("yi_kou_er", 1 + 1 + 1), ("yi_kou_san", 3 + 0 + 1)],  # 平胡 + 自摸 + 杠开 (§8.1, §8.3)
)
def test_gang_kai_after_a_zhuan_wan_dou(scoring: str, each: int) -> None:
    # Seat 1 pongs the dealer's 7s, later draws the fourth 7s, adds the kong (nobody can rob
    # it) and wins on the replacement 4p: every other seat pays ``each`` for the win and 3
    # for the 转弯豆 (§9.2). Deltas: others -(each + 3); seat 1: 3 x (each + 3).
    state = build(
        ["7s +", "77s 123m 456m 23p 55s 9p", None, None],
        "8p 8p 8p 7s 5s",
        "4p",
        scoring=scoring,
    )
    actions = [
        [0, "discard", "7s"],
        [1, "pong"],
        [1, "discard", "9p"],
        *ROUND[2:4],
        [0, "discard_drawn"],
        [1, "kong", "7s"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "gang_kai" and s["hand_types"] == {"1": "ping_hu"}
    each_pays(s, 1, each)
    each_pays(s, 1, 3, "dou")
    assert {r for (_, _, r) in payments(s)} == {"hu", "dou"}
    deltas_are(s, [-each - 3, 3 * (each + 3), -each - 3, -each - 3])


# ---------------------------------------------------------------------------- 4. 硬报

DEALT_WIN = "123m 456m 789m 234p 55s"  # the dealer's dealt 14 tiles win (平胡)


def test_ying_bao_in_yi_kou_san() -> None:
    # 一扣三: 平胡 3, no self-draw extra (§6.2, §8.1); 硬报 +20 from each other seat (§8.5).
    # Deltas: dealer 3 x (3 + 20) = 69, others -23.
    s = settle(
        play(build([DEALT_WIN, None, None, None], "5s", scoring="yi_kou_san"), [[0, "self_draw"]])
    )
    each_pays(s, 0, 3)
    each_pays(s, 0, 20, "ying_bao")
    assert {r for (_, _, r) in payments(s)} == {"hu", "ying_bao"}
    deltas_are(s, [69, -23, -23, -23])


def test_ying_bao_dealer_in_lian_zhuang() -> None:
    # 连庄 streak 2, the dealer wins: every payer adds +2 to the win payment (§10.2):
    # 平胡 1 + 自摸 1 + 2 = 4 each. 硬报 is a separate payment (§9.1: "硬报 and 杀报 are
    # separate payments"), 20 each, without the streak. Deltas: 3 x 24 = 72, others -24.
    state = build([DEALT_WIN, None, None, None], "5s", scoring="lian_zhuang", streak=2)
    s = settle(play(state, [[0, "self_draw"]]))
    each_pays(s, 0, 1 + 1 + 2)
    each_pays(s, 0, 20, "ying_bao")
    deltas_are(s, [72, -24, -24, -24])


def test_ying_bao_non_dealer_in_lian_zhuang() -> None:
    # Seat 1 wins on its first draw; streak 2: only the dealer adds +2 (§10.2): the dealer
    # pays 2 + 2, the others 2; 硬报 20 from each (§8.5).
    # Deltas: 0: -4 - 20; 1: 4 + 2 + 2 + 60 = 68; 2, 3: -22.
    state = build(["9m +", W, None, None], "4p 5s", scoring="lian_zhuang", streak=2)
    s = settle(play(state, [[0, "discard", "9m"], [1, "self_draw"]]))
    assert by_reason(s, "hu") == {(0, 1): 4, (2, 1): 2, (3, 1): 2}
    each_pays(s, 1, 20, "ying_bao")
    deltas_are(s, [-24, 68, -22, -22])


def test_ying_bao_three_players() -> None:
    # 三丁拐: the dealer (void s, none held: 原缺) wins with its dealt 14 tiles. Seat 1 voids
    # m holding 2m 7m, seat 2 voids p holding 5p: neither can be ready (§11).
    # hu: 平胡 1 + 自摸 1 = 2 each (§8.1); 硬报 20 each (§8.5); 查缺: 2 and 1 (§9.4);
    # 原缺: 3 from each other seat (§9.4). Turned 5s: 6s, the dealer holds none.
    # Deltas: 1: -(2 + 20 + 2 + 3) = -27; 2: -(2 + 20 + 1 + 3) = -26; 0: 53.
    state = build(
        [DEALT_WIN.replace("55s", "55p"), "27m 67899p 234689s", "5p 13579m 2346789s"],
        "5s",
        players=3,
    )
    actions = [[0, "ding_que", "s"], [1, "ding_que", "m"], [2, "ding_que", "p"], [0, "self_draw"]]
    s = settle(play(state, actions))
    assert s["winners"] == [0] and s["ready"] == [0]
    assert payments(s) == {
        (1, 0, "hu"): 2,
        (2, 0, "hu"): 2,
        (1, 0, "ying_bao"): 20,
        (2, 0, "ying_bao"): 20,
        (1, 0, "cha_que"): 2,
        (2, 0, "cha_que"): 1,
        (1, 0, "yuan_que"): 3,
        (2, 0, "yuan_que"): 3,
    }
    deltas_are(s, [53, -27, -26])


def test_ying_bao_two_players() -> None:
    # 二丁拐: the dealer voids p (holds 2p 7p), discards 9s; seat 1 (void s, none held: 原缺)
    # wins on its first draw, 4p. The dealer pays 平胡 1 + 自摸 1 = 2 (§8.1), 硬报 20 (§8.5),
    # 查缺 2 (§9.4) and 原缺 3 (§9.4): 27.
    state = build(["27p 9s 13579m 234688s", "123m 456m 789m 23p 55p"], "4p 5s", players=2)
    actions = [[0, "ding_que", "p"], [1, "ding_que", "s"], [0, "discard", "9s"], [1, "self_draw"]]
    s = settle(play(state, actions))
    assert s["winners"] == [1] and s["ready"] == [1]
    assert payments(s) == {
        (0, 1, "hu"): 2,
        (0, 1, "ying_bao"): 20,
        (0, 1, "cha_que"): 2,
        (0, 1, "yuan_que"): 3,
    }
    deltas_are(s, [-27, 27])


# ---------------------------------------------------------------------------- 5. 杀报, 一炮多响


def test_sha_bao_with_two_winners_each_is_paid_ten_more() -> None:
    # Seat 2 reports on its first discard (waits 9s) and must discard its drawn 4p; seats 1
    # (W: 1p / 4p) and 3 (4p / 7p) both win 平胡 on it (§5, §7: 杀报). Each winner is paid
    # separately (§9.1): 平胡 1 + 杀报 10 (§8.5). R = {1, 2, 3}; turned 2s: 3s, held by none.
    # Deltas: 1: 11; 3: 11; 2: -22.
    hands = ["9m +", W, "234m 567m 345p 678p 8s", "123m 456m 789m 56p 99s"]
    state = build(hands, "9p 9s 9p 9p 9p 4p 2s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "discard", "8s", {"bao_ting": True}],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard", "4p"],
        [1, "win"],
        [3, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "dian_pao" and s["winners"] == [3, 1]
    assert s["hand_types"] == {"1": "ping_hu", "3": "ping_hu"}
    assert s["ready"] == [1, 2, 3]
    assert payments(s) == {
        (2, 1, "hu"): 1,
        (2, 3, "hu"): 1,
        (2, 1, "sha_bao"): 10,
        (2, 3, "sha_bao"): 10,
    }
    deltas_are(s, [0, 11, -22, 11])
    assert s["next_dealer"] == 1  # §10.3: the first winner from the dealer's seat


# ---------------------------------------------------------------------------- 6. 软报


@pytest.mark.parametrize(
    ("scoring", "value"),
    [
        ("yi_kou_er", 3 * (1 + 1 + 10)),  # (n-1) x (平胡 1 + 自摸 1 + 软报 10)
        ("yi_kou_san", 3 * (3 + 0 + 10)),  # (n-1) x (平胡 3 + 软报 10)
    ],
)
def test_soft_report_winner_robs_a_kong(scoring: str, value: int) -> None:
    # Seat 2 pongs the dealer's 4p; seat 1 draws 5s and reports discarding 9s (123m 456m
    # 789m 23p 55s); seat 2 draws the last 4p and adds the kong; seat 1 robs it. §9.1:
    # value = type + self-draw extra + 软报 10 (§8.5); the robbed seat pays (n-1) x value.
    state = build(
        ["4p +", "123m 456m 789m 23p 5s 9s", "44p 9m +", None],
        "8p 8p 5s 4p 5s",
        scoring=scoring,
    )
    actions = [
        [0, "discard", "4p"],
        [2, "pong"],
        [2, "discard", "9m"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard", "9s", {"bao_ting": True}],
        [2, "kong", "4p"],
    ]
    state = play(state, actions)
    assert state.bao_ting[1] and state.phase == "rob" and legal(state, 1) == {WIN, PASS}
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["burned"] == [2]
    assert payments(s) == {(2, 1, "hu"): value}
    deltas_are(s, [0, value, -value, 0])


def test_gang_kai_of_another_seat_costs_a_soft_reported_seat_no_more() -> None:
    # A 报听 seat may not kong (§5), so it can never win 杠开 itself. Here seat 2 reports
    # (waits 9s) and seat 1 wins 杠开 on its 闷豆: a self-draw, not a win on the reported
    # seat's discard, so no 杀报 (§8.5); seat 2 pays like the others: 平胡 1 + 自摸 1 +
    # 杠开 1 = 3, and 2 for the 闷豆 (§9.2). R = {1, 2}; turned 2s: 3s, held by none.
    # Deltas: others -5; seat 1: 15.
    hands = ["9m +", "123m 456m 23p 55s 777s", "234m 567m 345p 678p 8s", None]
    state = build(hands, "8p 9s 8p 8p 7s 2s", "4p")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "discard", "8s", {"bao_ting": True}],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "kong", "7s"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "gang_kai" and s["ready"] == [1, 2]
    each_pays(s, 1, 3)
    each_pays(s, 1, 2, "dou")
    assert by_reason(s, "sha_bao") == {}
    deltas_are(s, [-5, 15, -5, -5])


# ---------------------------------------------------------------------------- 7. 责任鸡 on a 明豆


@pytest.mark.parametrize(("turned", "per_1s"), [("5s", 1), ("9s", 2)])  # 9s turned: 金鸡
def test_ze_ren_ji_on_a_ming_dou_of_the_first_1s(turned: str, per_1s: int) -> None:
    # Seat 1 kongs the dealer's first 1s (明豆), discards the replacement 5p and self-draws
    # 2p: 123m 456m 789m 22p + kong 1s, 平胡.
    # hu: 平胡 1 + 自摸 1 = 2 from each (§8.1).
    # ji: the four 1s of the kong are seat 1's chickens: each other seat pays 4 x per_1s (§9.3).
    # ze_ren_ji: seat 1 is in R, so the discarder pays it 2 (金 4) (§9.3 item 3).
    # dou: 明豆, 1 from the discarder (§9.2).
    # Deltas: 0: -(2 + 4p + 2p + 1); 2, 3: -(2 + 4p); 1: the sum (p = per_1s).
    state = build(["1s 9m +", "111s 123m 456m 789m 2p", None, None], f"8p 8p 8p 2p {turned}", "5p")
    actions = [
        [0, "discard", "1s"],
        [1, "kong"],
        [1, "discard", "5p"],
        *ROUND[2:4],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    final = play(state, actions)
    s = settle(final)
    assert s["winners"] == [1] and s["hand_types"] == {"1": "ping_hu"}
    assert [(m.kind, m.from_seat) for m in final.melds[1]] == [("ming_dou", 0)]
    each_pays(s, 1, 2)
    each_pays(s, 1, 4 * per_1s, "ji")
    assert by_reason(s, "ze_ren_ji") == {(0, 1): 2 * per_1s}
    assert by_reason(s, "dou") == {(0, 1): 1}
    other = -(2 + 4 * per_1s)
    dealer = other - 2 * per_1s - 1
    deltas_are(s, [dealer, -(dealer + 2 * other), other, other])


def test_ze_ren_ji_on_a_ming_dou_claimer_not_ready_pays_the_ready_discarder() -> None:
    # Seat 1 (W) discards its drawn 1s, the hand's first; seat 2 (not ready) kongs it (明豆)
    # and discards the replacement; seat 1 self-draws 4p. R = {1}.
    # hu: 2 from each (§8.1). 包鸡: seat 2 pays the ready seat the value of each 1s in its
    # meld: 4 x 1 (§9.3 item 2). 责任鸡: seat 2 is not in R, seat 1 is: seat 2 pays 2 (§9.3
    # item 3). No 豆: seat 2 is not in R (§9.2).
    # Deltas: 0: -2; 1: 6 + 4 + 2 = 12; 2: -2 - 4 - 2 = -8; 3: -2.
    state = build(["9m +", W, "111s +", None], "1s 8p 8p 4p 5s", "3s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["ready"] == [1]
    assert payments(s) == {
        (0, 1, "hu"): 2,
        (2, 1, "hu"): 2,
        (3, 1, "hu"): 2,
        (2, 1, "ji"): 4,
        (2, 1, "ze_ren_ji"): 2,
    }
    deltas_are(s, [-2, 12, -8, -2])


# ---------------------------------------------------------------------------- 8. 包鸡 on 金鸡


def test_bao_ji_of_golden_yao_ji_discards_and_chong_feng_ji() -> None:
    # Turned 9s: 1s is also a turned chicken, every 1s is worth 2 (金鸡, §9.3). Seat 2 (not
    # ready) discards the first 1s, unclaimed: its 冲锋鸡, 2 x 2 = 4 to each seat in R; seat 3
    # (not ready) discards another 1s: 2 (§9.3 item 2). R = {1}; hu 2 from each (§8.1).
    # Deltas: 0: -2; 1: 6 + 4 + 2 = 12; 2: -2 - 4 = -6; 3: -2 - 2 = -4.
    s = zimo(draws="8p 1s 1s 8p", turned="9s")
    assert s["ready"] == [1]
    each_pays(s, 1, 2)
    assert by_reason(s, "chong_feng_ji") == {(2, 1): 4}
    assert by_reason(s, "ji") == {(3, 1): 2}
    deltas_are(s, [-2, 12, -6, -4])


def test_bao_ji_of_golden_yao_ji_in_a_pong() -> None:
    # As test_bao_ji_a_seat_not_ready_pays_for_its_open_yao_ji, with 9s turned (金鸡): seat
    # 3 (not ready) pongs seat 2's first 1s and pays 3 x 2 = 6 for the pong; the dealer pays
    # 2 for the 1s it discarded (§9.3 item 2); neither seat 2 nor 3 is in R: no 责任鸡.
    # Deltas: 0: -2 - 2 = -4; 1: 6 + 6 + 2 = 14; 2: -2; 3: -2 - 6 = -8.
    state = build(["9m +", W, None, "11s 9p +"], "8p 1s 1s 4p 9s")
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
    assert s["ready"] == [1] and s["turned"] == "9s"
    each_pays(s, 1, 2)
    assert by_reason(s, "ji") == {(3, 1): 6, (0, 1): 2}
    assert by_reason(s, "ze_ren_ji") == {} and by_reason(s, "chong_feng_ji") == {}
    deltas_are(s, [-4, 14, -2, -8])


# ---------------------------------------------------------------------------- 9. 摇摆鸡 + 本鸡


@pytest.mark.parametrize(
    ("w", "turned", "chickens", "each"),
    [
        # 摇摆鸡: 4m and 6m; 本鸡: 5m itself (§9.3, §9.6). W holds 4m 5m 6m: 3 x 1.
        (W, "5m", {"1s", "4m", "5m", "6m"}, 3),
        # 9m: 8m and 1m (9 wraps), 本鸡 9m. W holds 1m 8m 9m: 3 x 1.
        (W, "9m", {"1s", "1m", "8m", "9m"}, 3),
        # 1s turned: 9s and 2s; 本鸡 makes 1s a turned chicken, so 金鸡: W11's two 1s are
        # worth 2 each: 4.
        (W11, "1s", {"1s", "2s", "9s"}, 4),
    ],
)
def test_yao_bai_ji_with_ben_ji(w: str, turned: str, chickens: set[str], each: int) -> None:
    # hu: 平胡 1 + 自摸 1 = 2 from each (§8.1); ji: ``each`` from each other seat.
    s = zimo(w, turned=turned, yao_bai_ji=True, ben_ji=True)
    assert s["turned"] == turned and set(s["chickens"]) == chickens
    each_pays(s, 1, 2)
    each_pays(s, 1, each, "ji")
    deltas_are(s, [-2 - each, 3 * (2 + each), -2 - each, -2 - each])


# ---------------------------------------------------------------------------- 10. next dealer


def test_three_robbers_of_one_kong() -> None:
    # Seat 2 pongs the dealer's 4p and adds the kong with the last 4p; seats 3, 0 and 1 all
    # wait on 4p and rob it. Each is paid 3 x (平胡 1 + 自摸 1) = 6 by seat 2 (§8.4, §9.1).
    # R = {0, 1, 3}; turned 2s: 3s, held by none. Deltas: 6, 6, -18, 6.
    # Next dealer: §10.3 names "Three winners of one discard (一炮三响): the discarder"; a
    # robbed kong is no discard (the spec does not say): the engine deals to the robbed seat.
    hands = [
        "123m 456m 789m 3p 55s 4p 9s",
        "123m 456m 789m 23p 66s",
        "44p 9m +",
        "123m 456m 789m 56p 88s",
    ]
    state = build(hands, "9p 2p 9p 4p 2s")
    actions = [
        [0, "discard", "4p"],
        [2, "pong"],
        [2, "discard", "9m"],
        [3, "discard_drawn"],
        [0, "discard", "9s"],  # drew 2p: 123m 456m 789m 23p 55s, waits 1p / 4p
        [1, "discard_drawn"],
        [2, "kong", "4p"],
        [3, "win"],
        [0, "win"],
        [1, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "qiang_gang" and sorted(s["winners"]) == [0, 1, 3]
    assert s["burned"] == [2] and s["ready"] == [0, 1, 3]
    assert payments(s) == {(2, 0, "hu"): 6, (2, 1, "hu"): 6, (2, 3, "hu"): 6}
    deltas_are(s, [6, 6, -18, 6])
    assert s["next_dealer"] == 2


# 三丁拐: two 大对子 on a single 4p wait, void s and holding none (原缺).
DD_A = "111m 222m 333p 555p 4p"
DD_B = "666m 777m 888p 999p 4p"


def test_two_winners_three_players_the_dealer_discards() -> None:
    # The dealer (void p, holds no p after its discard) discards 4p; seats 1 and 2 win
    # 大对子 5 each (§6.2, §7). 原缺: seats 1 and 2 each collect 3 from both others (§9.4).
    # Turned 5s: 6s, held by none. Deltas: 0: -5 - 5 - 3 - 3 = -16; 1, 2: 5 + 3 + 3 - 3 = 8.
    # Next dealer (§10.3): the first winner from the dealer's seat: 1.
    state = build(["4p 345899m 2346789s", DD_A, DD_B], "5s", players=3)
    actions = [
        [0, "ding_que", "p"],
        [1, "ding_que", "s"],
        [2, "ding_que", "s"],
        [0, "discard", "4p"],
        [1, "win"],
        [2, "win"],
    ]
    s = settle(play(state, actions))
    assert s["winners"] == [1, 2] and s["ready"] == [1, 2]
    assert s["hand_types"] == {"1": "da_dui_zi", "2": "da_dui_zi"}
    assert payments(s) == {
        (0, 1, "hu"): 5,
        (0, 2, "hu"): 5,
        (0, 1, "yuan_que"): 3,
        (2, 1, "yuan_que"): 3,
        (0, 2, "yuan_que"): 3,
        (1, 2, "yuan_que"): 3,
    }
    deltas_are(s, [-16, 8, 8])
    assert s["next_dealer"] == 1


def test_two_winners_three_players_the_dealer_is_one_of_them() -> None:
    # The dealer (void s, discards its 9s) and seat 2 (void s, none held: 原缺) both win
    # 大对子 on seat 1's 4p. Seat 1 voids m and holds 3m 4m: 查缺 2 to each seat in R.
    # hu: 5 to each winner; 查缺 2 to each; 原缺 3 to seat 2 from seats 0 and 1 (§9.4).
    # Deltas: 0: 5 + 2 - 3 = 4; 1: -5 - 5 - 2 - 2 - 3 = -17; 2: 5 + 2 + 3 + 3 = 13.
    # Next dealer (§10.3, "the first of them in turn order starting from the dealer's
    # seat"): the dealer itself keeps the deal (from the discarder it would be seat 2).
    state = build([DD_A + " 9s", "34m 2678p 2356789s", DD_B], "4p 5s", players=3)
    actions = [
        [0, "ding_que", "s"],
        [1, "ding_que", "m"],
        [2, "ding_que", "s"],
        [0, "discard", "9s"],
        [1, "discard_drawn"],
        [2, "win"],
        [0, "win"],
    ]
    s = settle(play(state, actions))
    assert sorted(s["winners"]) == [0, 2] and s["ready"] == [0, 2]
    assert payments(s) == {
        (1, 0, "hu"): 5,
        (1, 2, "hu"): 5,
        (1, 0, "cha_que"): 2,
        (1, 2, "cha_que"): 2,
        (0, 2, "yuan_que"): 3,
        (1, 2, "yuan_que"): 3,
    }
    deltas_are(s, [4, -17, 13])
    assert s["next_dealer"] == 0


# ---------------------------------------------------------------------------- 11. 黄庄, 二丁拐

QD_NO_S = "11m 33p 77m 88m 99p 22p 7p"  # 七对, waits 7p: ready value 7 (§6.2, §6.3)
NOT_READY_M = "56m 234689s 14568p"  # voids m and holds 5m 6m: never ready (§11), 查缺 2


@pytest.mark.parametrize(("scoring", "streak"), [("yi_kou_er", 0), ("lian_zhuang", 3)])
def test_huang_zhuang_two_players_dealer_ready(scoring: str, streak: int) -> None:
    # The dealer (void s) discards 9s and is ready on 7p; seat 1 is not ready. §12: seat 1
    # pays the ready value 7 (+N under 连庄 with the dealer, §10.2) and 查缺 2 (§9.4).
    # Ambiguity, engine pinned: §10.2 "In 黄庄查叫, payments between the dealer and another
    # seat also get +N" could also cover the 查缺 line of an exhausted hand; the engine adds
    # +N to the cha_jiao line only (as §12 gives "+N with the dealer" for cha_jiao alone).
    # Next dealer (§12): "if all seats but one are ready, the one that is not deals": with
    # two players that is seat 1, though the dealer is ready.
    state = build([QD_NO_S + " 9s", NOT_READY_M], players=2, scoring=scoring, streak=max(streak, 1))
    state = play(state, [[0, "ding_que", "s"], [1, "ding_que", "m"], [0, "discard", "9s"]])
    s = settle(drain(state))
    assert s["result"] == "huang_zhuang" and s["ready"] == [0]
    assert payments(s) == {(1, 0, "cha_jiao"): 7 + streak, (1, 0, "cha_que"): 2}
    deltas_are(s, [9 + streak, -9 - streak])
    assert s["next_dealer"] == 1


def test_huang_zhuang_two_players_dealer_not_ready() -> None:
    # The dealer voids m, discards 9m and keeps 5m 6m (not ready); seat 1 is ready on 7p
    # (七对, 7). The dealer pays 7 + 查缺 2 = 9 (§12, §9.4); being the one seat not ready,
    # it deals again (§12).
    state = build([NOT_READY_M + " 9m", QD_NO_S], players=2)
    state = play(state, [[0, "ding_que", "m"], [1, "ding_que", "s"], [0, "discard", "9m"]])
    s = settle(drain(state))
    assert s["result"] == "huang_zhuang" and s["ready"] == [1]
    assert payments(s) == {(0, 1, "cha_jiao"): 7, (0, 1, "cha_que"): 2}
    deltas_are(s, [-9, 9])
    assert s["next_dealer"] == 0


# ---------------------------------------------------------------------------- 12. §5 硬报


def test_ying_bao_on_the_first_draw_after_another_seat_ponged() -> None:
    # §5: 硬报 is a self-draw win on one's first draw of the hand with no meld made; a pong by
    # another seat before that draw (here seat 2 pongs the dealer's 9m, skipping seat 1's
    # turn) changes neither. hu: 平胡 1 + 自摸 1 = 2 from each (§8.1); 硬报 20 from each
    # (§8.5). Seat 2's pong of 9m holds no chicken (turned 5s: 6s). Deltas: 3 x 22 = 66.
    state = build(["9m +", W, "99m 9p +", None], "8p 8p 4p 5s")
    actions = [
        [0, "discard", "9m"],
        [2, "pong"],
        [2, "discard", "9p"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "zi_mo" and s["winners"] == [1] and s["ready"] == [1]
    assert payments(s) == {
        **{(p, 1, "hu"): 2 for p in (0, 2, 3)},
        **{(p, 1, "ying_bao"): 20 for p in (0, 2, 3)},
    }
    deltas_are(s, [-22, 66, -22, -22])


# ---------------------------------------------------------------------------- 13. §8.3 热炮, 明豆


@pytest.mark.parametrize(("scoring", "value"), [("yi_kou_er", 1 + 1), ("yi_kou_san", 3 + 1)])
def test_re_pao_after_a_ming_dou(scoring: str, value: int) -> None:
    # Seat 2 kongs the dealer's 6s (明豆), draws 9s from the back and discards 4p (234m 567m
    # 35p 99s, ready on 4p); seat 1 (W, 平胡 without 豆) wins on it: 热炮 (§8.3: "a seat
    # kongs, draws the replacement, and its discard right after is won", any kind of kong).
    # §9.1: 平胡 + 热炮 1 from seat 2 alone. §9.5: seat 2 is burned, so the 明豆 the dealer
    # would pay it (1, §9.2) is dropped. Turned 2s: 3s, held by nobody in R.
    state = build(["6s +", W, "666s 234m 567m 35p 9s 4p", None], "2s", "9s", scoring=scoring)
    final = play(state, [[0, "discard", "6s"], [2, "kong"], [2, "discard", "4p"], [1, "win"]])
    assert [(m.kind, m.from_seat) for m in final.melds[2]] == [("ming_dou", 0)]
    s = settle(final)
    assert s["win_kind"] == "re_pao" and s["winners"] == [1]
    assert s["burned"] == [2] and s["ready"] == [1, 2]
    assert payments(s) == {(2, 1, "hu"): value}
    deltas_are(s, [0, value, -value, 0])
    assert s["next_dealer"] == 1


# ---------------------------------------------------------------------------- 14. §9.1, §9.2 豆


def test_dou_of_a_ready_seat_that_did_not_win_is_paid_by_every_other_seat() -> None:
    # §9.2: 豆 are paid for the kongs of every seat in R (the winners and every other ready
    # seat), not only the winner's. Seat 2 makes a 闷豆 of 6s, draws 9s from the back,
    # discards its drawn 8p and is ready on 4p (234m 567m 35p 99s); seat 1 self-draws 4p.
    # hu: 2 from each (§8.1). dou: 闷豆 2 to seat 2 from each other seat, the winner too.
    # Turned 2s: 3s, held by nobody in R. Deltas: 0: -4; 1: 6 - 2 = 4; 2: -2 + 6 = 4; 3: -4.
    state = build(["9m +", W, "6666s 234m 567m 35p 9s", None], "8p 8p 8p 8p 4p 2s", "9s")
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "8p"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "zi_mo" and s["winners"] == [1] and s["ready"] == [1, 2]
    assert payments(s) == {
        **{(p, 1, "hu"): 2 for p in (0, 2, 3)},
        **{(p, 2, "dou"): 2 for p in (0, 1, 3)},
    }
    deltas_are(s, [-4, 4, 4, -4])


def test_two_winners_dou_and_chickens_are_settled_once() -> None:
    # §9.1: "With several winners each is paid separately; 豆 and chickens below are settled
    # once." Seat 2 makes a 闷豆 (as above: 平胡 on 4p, allowed on a discard by its 豆, §7);
    # seat 3 holds a 大对子 waiting on 4p alone. The dealer draws 4p and discards it; both win.
    # hu: 0 pays seat 2 平胡 1 and seat 3 大对子 5 (§8.2). dou: seat 2's 闷豆, 2 from each
    # other seat, once (§9.2). ji: turned 2s makes 3s a chicken: seat 3's three 3s, 3 from
    # each other seat, once (§9.3). Next dealer: the first winner from the dealer, seat 2.
    # Deltas: 0: -1 - 5 - 2 - 3 = -11; 1: -2 - 3 = -5; 2: 1 + 6 - 3 = 4; 3: 5 + 9 - 2 = 12.
    state = build(
        ["9m +", None, "6666s 234m 567m 35p 9s", "111m 222p 333s 555m 4p"],
        "8p 8p 8p 4p 2s",
        "9s",
    )
    actions = [
        [0, "discard", "9m"],
        [1, "discard_drawn"],
        [2, "kong", "6s"],
        [2, "discard", "8p"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [2, "win"],
        [3, "win"],
    ]
    s = settle(play(state, actions))
    assert s["win_kind"] == "dian_pao" and sorted(s["winners"]) == [2, 3]
    assert s["hand_types"] == {"2": "ping_hu", "3": "da_dui_zi"}
    assert s["ready"] == [2, 3]
    assert payments(s) == {
        (0, 2, "hu"): 1,
        (0, 3, "hu"): 5,
        **{(p, 2, "dou"): 2 for p in (0, 1, 3)},
        **{(p, 3, "ji"): 3 for p in (0, 1, 2)},
    }
    deltas_are(s, [-11, -5, 4, 12])
    assert s["next_dealer"] == 2


# ---------------------------------------------------------------------------- 15. §8.4 抢杠


def test_qiang_gang_multiple_winners_off_first_from_the_robbed_seat() -> None:
    # §3: with multiple_winners off, "the first winner in turn order from the discarder wins";
    # for a robbed kong the tile is the robbed seat's (§8.4). Seats 1 and 3 both rob seat 2's
    # added 4p: from seat 2 the order is 3, 0, 1, so seat 3 alone wins, paid 3 x (平胡 1 +
    # 自摸 1) = 6 by seat 2 (§8.4, §9.1). Next dealer: the winner (§10.3).
    state = build(
        ["4p +", W, "44p 9m +", "123m 456m 789m 56p 99s"],
        "8p 8p 8p 4p 5s",
        multiple_winners=False,
    )
    s = settle(play(state, [*ROB, [1, "win"], [3, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [3]
    assert s["burned"] == [2]
    assert payments(s) == {(2, 3, "hu"): 6}
    deltas_are(s, [0, 0, -6, 6])
    assert s["next_dealer"] == 3


def test_qiang_gang_of_the_dealers_kong_under_lian_zhuang() -> None:
    # Seat 2 deals (streak 2) and is robbed. §9.1: "For 抢杠 the robbed seat pays (n-1) times
    # the self-draw value it would itself have paid": the dealer would have paid 平胡 1 +
    # 自摸 1 + N 2 (§8.1, §10.2), so 3 x 4 = 12. Seat 2 discards 9s; seat 3 discards 4p and
    # seat 2 pongs it, later draws the last 4p and adds the kong; seat 1 (W) robs it.
    # Turned 5s: 6s, nobody in R holds one.
    state = build(
        [None, W, "44p 9m 9s +", "4p +"],
        "8p 8p 8p 8p 4p 5s",
        dealer=2,
        streak=2,
        scoring="lian_zhuang",
    )
    actions = [
        [2, "discard", "9s"],
        [3, "discard", "4p"],
        [2, "pong"],
        [2, "discard", "9m"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "kong", "4p"],
    ]
    state = play(state, actions)
    assert state.phase == "rob" and legal(state, 1) == {WIN, PASS}
    s = settle(play(state, [[1, "win"]]))
    assert s["win_kind"] == "qiang_gang" and s["winners"] == [1] and s["burned"] == [2]
    assert payments(s) == {(2, 1, "hu"): 3 * (1 + 1 + 2)}
    deltas_are(s, [0, 12, -12, 0])
    assert s["next_dealer"] == 1


# ---------------------------------------------------------------------------- 16. §9.3 chickens


def test_a_turned_chicken_in_the_meld_of_a_seat_not_ready_costs_nothing() -> None:
    # §9.3 item 2: a seat not in R pays for the 1s it discarded or holds in a meld, "nothing
    # for turned chickens that are not 1s". Turned 5s makes 6s a chicken; seat 3 (not ready)
    # pongs the dealer's 6s. Seat 1 (W) self-draws: only hu, 2 from each (§8.1).
    state = build(["6s +", W, None, "66s 9p +"], "8p 8p 8p 8p 3s 4p 5s")
    actions = [
        [0, "discard", "6s"],
        [3, "pong"],
        [3, "discard", "9p"],
        [0, "discard_drawn"],
        [1, "discard_drawn"],
        [2, "discard_drawn"],
        [3, "discard_drawn"],
        [0, "discard_drawn"],
        [1, "self_draw"],
    ]
    final = play(state, actions)
    assert [m.kind for m in final.melds[3]] == ["pong"]
    s = settle(final)
    assert s["ready"] == [1] and s["turned"] == "5s" and "6s" in s["chickens"]
    assert payments(s) == {(p, 1, "hu"): 2 for p in (0, 2, 3)}
    deltas_are(s, [-2, 6, -2, -2])


def test_a_discard_that_is_won_on_is_not_a_chicken_of_its_ready_discarder() -> None:
    # 满堂鸡 (§9.3) counts the discards "that nobody claimed". Seat 2 reports (waits 9s) and
    # must discard its drawn 4p; seat 1 (W) wins on it (杀报). Turned 3p makes 4p a chicken:
    # the won 4p is seat 1's (1 from each other seat); seat 2 (in R) has its concealed 4p of
    # 345p (1 from each other seat), and not the 4p it discarded.
    # hu: 平胡 1 + 杀报 10 from seat 2 (§8.2, §8.5).
    # Deltas: 0: -2; 1: 11 + 3 - 1 = 13; 2: -11 - 1 + 3 = -9; 3: -2.
    state = build(["9m +", W, "234m 567m 345p 678p 8s", None], "9p 9s 9p 9p 9p 4p 3p")
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
    assert s["winners"] == [1] and s["ready"] == [1, 2] and s["turned"] == "3p"
    assert payments(s) == {
        (2, 1, "hu"): 1,
        (2, 1, "sha_bao"): 10,
        **{(p, 1, "ji"): 1 for p in (0, 2, 3)},
        **{(p, 2, "ji"): 1 for p in (0, 1, 3)},
    }
    deltas_are(s, [-2, 13, -9, -2])


def test_chui_feng_ji_voids_the_ze_ren_ji_too() -> None:
    # §9.6 吹风鸡: a turned 5p settles no chicken of any kind, "no 冲锋鸡, 责任鸡 or 包鸡
    # payments". Seat 1 pongs the dealer's first 1s (责任鸡, §9.3 item 3) and self-draws 2p:
    # only hu stands, 平胡 1 + 自摸 1 = 2 from each (§8.1).
    state = build(
        ["1s 9m +", "11s 123m 456m 789m 2p 5p", None, None], "8p 8p 8p 2p 5p", chui_feng_ji=True
    )
    actions = [
        [0, "discard", "1s"],
        [1, "pong"],
        [1, "discard", "5p"],
        *ROUND[2:],
        [1, "self_draw"],
    ]
    s = settle(play(state, actions))
    assert s["turned"] == "5p" and s["chui_feng"] and s["chickens"] == []
    assert payments(s) == {(p, 1, "hu"): 2 for p in (0, 2, 3)}
    deltas_are(s, [-2, 6, -2, -2])


# ---------------------------------------------------------------------------- 17. §9.4 原缺


def test_yuan_que_is_collected_by_a_seat_that_is_not_ready() -> None:
    # §9.4: "a seat whose void suit was absent from its starting tiles collects 3 from each
    # other seat": not only seats in R. 三丁拐: the dealer voids m (holds 2m 7m: 查缺 2 to
    # the one seat in R); seat 1 (W_NO_S, void s, none held) self-draws 4p; seat 2 voids p,
    # never held a p, and is not ready. hu: 2 from each (§8.1).
    # Deltas: 0: -2 - 2 - 3 - 3 = -10; 1: 4 + 2 + 6 - 3 = 9; 2: -2 - 3 + 6 = 1.
    state = build([VOID_M, W_NO_S, "13579m 2468s 789s 9s"], "8p 8p 8p 4p 5s", players=3)
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
    assert s["winners"] == [1] and s["ready"] == [1]
    assert payments(s) == {
        (0, 1, "hu"): 2,
        (2, 1, "hu"): 2,
        (0, 1, "cha_que"): 2,
        (0, 1, "yuan_que"): 3,
        (2, 1, "yuan_que"): 3,
        (0, 2, "yuan_que"): 3,
        (1, 2, "yuan_que"): 3,
    }
    deltas_are(s, [-10, 9, 1])
