"""Hand types and their values (spec/guiyang.md §6.2) and ready values (§6.3)."""

from __future__ import annotations

import pytest

from server.rules.guiyang import (
    HAND_TYPES,
    GuiyangOptions,
    Meld,
    hand_type,
    hand_type_values,
    is_ready,
    ready_value,
    waits,
)
from server.rules.tiles import parse_tiles, tile_index, tile_name, to_counts
from tests.rules.scenario import build

# §6.2, the value table: (一扣二 and 连庄 "standard", fan_table "app", 一扣三).
VALUES = {
    "ping_hu": (1, 1, 3),
    "da_dui_zi": (5, 5, 8),
    "qi_dui": (7, 10, 12),
    "long_qi_dui": (10, 20, 20),
    "qing_yi_se": (10, 10, 12),
    "qing_da_dui": (15, 15, 20),
    "qing_qi_dui": (17, 20, 24),
    "qing_long_bei": (20, 30, 36),
    "dan_diao": (7, 10, 12),
    "qing_dan_diao": (17, 20, 24),
}
COLUMNS = {
    "standard": ({"scoring": "yi_kou_er"}, 0),
    "lian_zhuang": ({"scoring": "lian_zhuang"}, 0),
    "app": ({"scoring": "yi_kou_er", "fan_table": "app"}, 1),
    "app_lian_zhuang": ({"scoring": "lian_zhuang", "fan_table": "app"}, 1),
    "yi_kou_san": ({"scoring": "yi_kou_san"}, 2),
    "yi_kou_san_app": ({"scoring": "yi_kou_san", "fan_table": "app"}, 2),  # column unchanged
}


def pongs(*tiles: str) -> list[Meld]:
    return [Meld("pong", tile_index(t), 1) for t in tiles]


# One complete hand of every type: concealed tiles (winning tile included) and melds.
EXAMPLES: dict[str, tuple[str, list[Meld]]] = {
    "ping_hu": ("123m 456m 789m 234p 55s", []),
    "da_dui_zi": ("111m 222p 333s 444m 55p", []),
    "qi_dui": ("11m 22m 33p 44p 55s 66s 99s", []),
    "long_qi_dui": ("1111m 33p 44p 55s 66s 99s", []),
    "qing_yi_se": ("123m 345m 678m 999m 55m", []),
    "qing_da_dui": ("111m 333m 555m 777m 99m", []),
    "qing_qi_dui": ("11m 22m 44m 55m 77m 88m 99m", []),
    "qing_long_bei": ("1111m 22m 44m 55m 77m 88m", []),
    "dan_diao": ("55p", pongs("1m", "2p", "3s", "4m")),
    "qing_dan_diao": ("55m", pongs("1m", "2m", "3m", "4m")),
}


def values(column: str) -> dict[str, int]:
    return hand_type_values(GuiyangOptions(**COLUMNS[column][0]))


def classify(tiles: str, melds: list[Meld], column: str = "standard") -> str | None:
    return hand_type(to_counts(parse_tiles(tiles)), melds, values(column))


def test_every_type_has_a_value_in_every_column() -> None:
    assert set(HAND_TYPES) == set(VALUES)
    for column in COLUMNS:
        assert set(values(column)) == set(VALUES)


@pytest.mark.parametrize("column", list(COLUMNS))
@pytest.mark.parametrize("htype", list(VALUES))
def test_value_of_each_type_in_each_column(htype: str, column: str) -> None:
    assert values(column)[htype] == VALUES[htype][COLUMNS[column][1]]


@pytest.mark.parametrize("column", list(COLUMNS))
@pytest.mark.parametrize("htype", list(EXAMPLES))
def test_each_example_hand_has_its_type(htype: str, column: str) -> None:
    tiles, melds = EXAMPLES[htype]
    assert classify(tiles, melds, column) == htype


def test_kongs_count_as_triplets_for_da_dui_zi_and_dan_diao() -> None:
    kongs = [Meld("men_dou", tile_index("1m")), Meld("ming_dou", tile_index("2p"), 3)]
    assert classify("333s 444m 55p", kongs) == "da_dui_zi"
    assert classify("345s 444m 55p", kongs) == "ping_hu"
    four = [*kongs, Meld("zhuan_wan_dou", tile_index("3s"), 2), *pongs("4m")]
    assert classify("55p", four) == "dan_diao"


def test_a_meld_in_another_suit_breaks_one_suit() -> None:
    assert classify("123m 345m 678m 55m", pongs("9m")) == "qing_yi_se"
    assert classify("123m 345m 678m 55m", pongs("9p")) == "ping_hu"


# ---------------------------------------------------------------------------- the single highest


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        # standard (平胡 1) and seven pairs (七对 7) at once: 七对.
        ("112233m 445566p 77s", "qi_dui"),
        # one suit, standard (清一色 10) and seven pairs (清七对 17): 清七对.
        ("11223344556677m", "qing_qi_dui"),
        # one suit, standard and seven pairs with four equal tiles: 青龙背 (20) over 清一色.
        ("11112222333344m", "qing_long_bei"),
        # standard (123m four times) and seven pairs with four equal tiles: 龙七对 over 平胡.
        ("111122223333m 44p", "long_qi_dui"),
    ],
)
def test_standard_and_seven_pairs_take_the_higher(tiles: str, expected: str) -> None:
    for column in COLUMNS:
        assert classify(tiles, [], column) == expected


def test_dan_diao_is_chosen_over_da_dui_zi() -> None:
    # Four pongs and a pair are also all triplets (大对子 5); 单吊 (7 / 10 / 12) is higher.
    for column in COLUMNS:
        assert classify("55p", pongs("1m", "2p", "3s", "4m"), column) == "dan_diao"
        assert classify("55m", pongs("1m", "2m", "3m", "4m"), column) == "qing_dan_diao"


def test_triplets_that_could_be_read_as_runs_are_da_dui_zi() -> None:
    # §6.2: 111m 222m 333m is also 123m three times; the hand satisfies 大对子 (5 / 5 / 8), the
    # single highest type, not 平胡 (1 / 1 / 3).
    for column in COLUMNS:
        assert classify("111m 222m 333m 444p 55s", [], column) == "da_dui_zi"
    assert values("standard")["da_dui_zi"] == 5


def test_one_suit_triplets_is_qing_da_dui_not_qing_yi_se() -> None:
    for column in COLUMNS:
        assert classify("111m 222m 333m 555m 99m", [], column) == "qing_da_dui"


def test_incomplete_or_wrong_size_has_no_type() -> None:
    assert classify("123m 456m 789m 234p 56s", []) is None
    assert classify("123m 456m 789m 23p 55s", []) is None  # 13 tiles
    assert classify("123m 456m 55s", pongs("9p")) is None  # 8 + 3 tiles


# ---------------------------------------------------------------------------- §6.3 ready


def seat1(hand: str, **options: object):
    """A state in which seat 1 holds ``hand`` (13 tiles)."""
    return build([None, hand, None, None], **options)


def test_ready_value_is_the_highest_over_all_waits() -> None:
    # Waits 1m (123m + 22m pair: 平胡 1), 3m (222m + 33m pair: 大对子 5), 4m (234m: 平胡 1).
    state = seat1("222m 3m 444p 555s 666s")
    assert [tile_name(k) for k in waits(state, 1)] == ["1m", "3m", "4m"]
    assert ready_value(state, 1) == 5
    assert ready_value(seat1("222m 3m 444p 555s 666s", scoring="yi_kou_san"), 1) == 8


@pytest.mark.parametrize(
    ("hand", "standard", "app", "yi_kou_san"),
    [
        ("123m 456m 789m 23p 99s", 1, 1, 3),
        ("11m 33p 77s 88m 99p 22s 7p", 7, 10, 12),
        ("1112345678999m", 10, 10, 12),
        ("1111m 33p 44p 55s 99s 7s", 10, 20, 20),  # 龙七对 on 7s
    ],
)
def test_ready_value_per_column(hand: str, standard: int, app: int, yi_kou_san: int) -> None:
    assert ready_value(seat1(hand), 1) == standard
    assert ready_value(seat1(hand, fan_table="app"), 1) == app
    assert ready_value(seat1(hand, scoring="yi_kou_san"), 1) == yi_kou_san


def test_not_ready_has_value_zero() -> None:
    state = seat1("2468m 2468p 2468s 9m")
    assert not is_ready(state, 1)
    assert waits(state, 1) == []
    assert ready_value(state, 1) == 0


def test_a_tile_whose_four_copies_the_seat_holds_is_not_a_wait() -> None:
    # 123m 456m 789m 555p + 5p would be complete, but all four 5p are the seat's own.
    state = seat1("123m 456m 789m 5555p")
    assert waits(state, 1) == []
    assert not is_ready(state, 1)
