"""Tiles, notation (spec/guiyang.md §1) and hand shapes, waits, shanten (§6.1, §6.3)."""

from __future__ import annotations

import pytest

from server.rules.hand import (
    completing_tiles,
    is_all_triplets,
    is_complete,
    is_seven_pairs,
    is_standard,
    shanten,
)
from server.rules.tiles import (
    NUM_KINDS,
    YAO_JI,
    TileError,
    format_tiles,
    from_counts,
    full_set,
    full_set_with_honours_and_flowers,
    parse_tiles,
    suit_of,
    tile_index,
    tile_name,
    to_counts,
)


def counts(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def names(kinds: list[int]) -> list[str]:
    return [tile_name(k) for k in kinds]


# ---------------------------------------------------------------------------- §1 tiles


def test_compact_and_spaced_notation_are_the_same_tiles() -> None:
    assert parse_tiles("123m 456p 11s") == ["1m", "2m", "3m", "4p", "5p", "6p", "1s", "1s"]
    assert parse_tiles("1m 2m 3m 4p 5p 6p 1s 1s") == parse_tiles("123m456p11s")
    assert parse_tiles("") == []


@pytest.mark.parametrize(
    "text",
    ["0m", "1x", "12", "m", "1m2", "1m 8z", "9f", "10m", "1M", "一m", "1m,2m"],
)
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(TileError):
        parse_tiles(text)


@pytest.mark.parametrize("tile", ["0m", "10m", "8z", "9f", "m1", "", "1s1", None, 5])
def test_bad_tile_is_refused(tile: object) -> None:
    with pytest.raises(TileError):
        tile_index(tile)  # type: ignore[arg-type]


def test_tile_error_is_a_value_error() -> None:
    assert issubclass(TileError, ValueError)


def test_tile_indexes_and_suits() -> None:
    assert [tile_index(t) for t in ("1m", "9m", "1p", "5p", "1s", "9s")] == [0, 8, 9, 13, 18, 26]
    assert [suit_of(tile_index(t)) for t in ("5m", "5p", "5s")] == [0, 1, 2]
    assert tile_name(YAO_JI) == "1s"  # 幺鸡
    assert all(tile_index(tile_name(k)) == k for k in range(NUM_KINDS))


def test_full_set_is_108_tiles_four_of_each_without_honours() -> None:
    tiles = full_set()
    assert len(tiles) == 108
    assert to_counts(tiles) == [4] * 27
    assert {t[1] for t in tiles} == {"m", "p", "s"}


def test_jintan_set_is_144_tiles_with_honours_and_eight_flowers() -> None:
    # jintan.md §J1: four of each number tile and of 1z..7z (东南西北 白发中), one each of the
    # eight flowers 1f..8f: 108 + 28 + 8 = 144; compact forms work as for suits.
    from collections import Counter

    tiles = full_set_with_honours_and_flowers()
    assert len(tiles) == 144
    kinds = Counter(tiles)
    assert {t for t in kinds if t[1] in "mps"} == set(full_set())
    assert all(kinds[t] == 4 for t in full_set())
    assert {t: kinds[t] for t in kinds if t[1] == "z"} == {f"{r}z": 4 for r in range(1, 8)}
    assert {t: kinds[t] for t in kinds if t[1] == "f"} == {f"{r}f": 1 for r in range(1, 9)}
    assert parse_tiles("1122z 1234f") == ["1z", "1z", "2z", "2z", "1f", "2f", "3f", "4f"]


def test_counts_round_trip_and_compact_formatting() -> None:
    tiles = parse_tiles("5s 1m 9p 1m 3s")
    c = to_counts(tiles)
    assert sum(c) == 5 and c[tile_index("1m")] == 2
    assert from_counts(c) == ["1m", "1m", "9p", "3s", "5s"]
    assert format_tiles(tiles) == "11m 9p 35s"
    assert parse_tiles(format_tiles(full_set())) == full_set()


# ---------------------------------------------------------------------------- §6.1 shapes


@pytest.mark.parametrize(
    "hand",
    [
        "123m 456m 789m 234p 55s",  # runs and a pair
        "111m 222p 333s 444m 55p",  # triplets
        "123m 123m 123m 99s 456p",  # the same run three times
        "11123455678999m",  # one suit, more than one split
    ],
)
def test_standard_shapes_are_complete(hand: str) -> None:
    assert is_standard(counts(hand))
    assert is_complete(counts(hand), 0)


@pytest.mark.parametrize(
    "hand",
    [
        "123m 456m 789m 234p 56s",  # no pair
        "123m 456m 789m 24p 555s",  # a gap
        "135m 246p 1357s 2468m 9p",  # junk
        "11m 22m 33p 44p 55s 66s 78s",  # six pairs and two singles
    ],
)
def test_incomplete_shapes(hand: str) -> None:
    assert not is_complete(counts(hand), 0)


def test_seven_pairs_and_four_equal_tiles_count_as_two_pairs() -> None:
    assert is_seven_pairs(counts("11m 22m 44p 55p 77s 88s 99s"))
    assert is_complete(counts("11m 22m 44p 55p 77s 88s 99s"), 0)
    assert is_seven_pairs(counts("1111m 44p 55p 77s 88s 99s"))
    assert is_complete(counts("1111m 44p 55p 77s 88s 99s"), 0)
    assert not is_seven_pairs(counts("111m 4p 55p 77s 88s 99s 11s"))


def test_seven_pairs_need_fourteen_concealed_tiles_and_no_meld() -> None:
    # With one meld the 11 concealed tiles cannot be "seven pairs".
    assert not is_complete(counts("11m 22m 44p 55p 77s 8s"), 1)
    assert not is_seven_pairs(counts("11m 22m 44p 55p 77s"))


def test_melds_count_as_sets() -> None:
    # One meld: 11 concealed tiles are three sets and a pair; four melds: a pair alone.
    assert is_complete(counts("123m 456m 789p 55s"), 1)
    assert is_complete(counts("55s"), 4)
    assert not is_complete(counts("56s"), 4)
    assert not is_complete(counts("123m 456m 789p 55s"), 0)  # wrong size


def test_all_triplets_shape() -> None:
    assert is_all_triplets(counts("111m 222p 333s 444m 55p"))
    assert not is_all_triplets(counts("123m 222p 333s 444m 55p"))
    assert not is_all_triplets(counts("1111m 22p 333s 444m 5p"))


# ---------------------------------------------------------------------------- waits, shanten


def test_nine_gates_waits_on_all_nine() -> None:
    assert names(completing_tiles(counts("1112345678999m"), 0)) == [f"{r}m" for r in range(1, 10)]


@pytest.mark.parametrize(
    ("hand", "melds", "waits"),
    [
        ("123m 456m 789m 23p 55s", 0, ["1p", "4p"]),  # two-sided
        ("123m 456m 789m 13p 55s", 0, ["2p"]),  # closed
        ("123m 456m 789m 12p 55s", 0, ["3p"]),  # edge
        ("111m 222p 333s 44m 55p", 0, ["4m", "5p"]),  # two pairs
        ("123m 456m 789m 234p 5s", 0, ["5s"]),  # single wait
        ("11m 33p 77s 88m 99p 22s 7p", 0, ["7p"]),  # seven pairs
        ("5s", 4, ["5s"]),  # four melds, single tile
        ("123m 456m 5p", 2, ["5p"]),
    ],
)
def test_completing_tiles(hand: str, melds: int, waits: list[str]) -> None:
    assert names(completing_tiles(counts(hand), melds)) == waits


def test_a_fifth_copy_is_never_a_wait() -> None:
    # The only tile that would complete the shape is the fifth 5p.
    assert completing_tiles(counts("123m 456m 789m 5555p"), 0) == []


@pytest.mark.parametrize(
    ("hand", "melds", "expected"),
    [
        ("123m 456m 789m 234p 55s", 0, -1),  # complete
        ("123m 456m 789m 23p 55s", 0, 0),  # ready
        ("1112345678999m", 0, 0),
        ("11m 33p 77s 88m 99p 22s 7p", 0, 0),  # ready for seven pairs only
        ("123m 456m 789m 2p 9p 55s", 0, 1),
        ("55s", 4, -1),
        ("5s", 4, 0),
        ("123m 456m 5p", 2, 0),
        ("2468m 2468p 2468s 9m", 0, 4),  # no pair, no set
    ],
)
def test_shanten(hand: str, melds: int, expected: int) -> None:
    assert shanten(counts(hand), melds) == expected


def test_shanten_agrees_with_completing_tiles_on_readiness() -> None:
    for hand in ("123m 456m 789m 23p 55s", "1112345678999m", "2468m 2468p 2468s 9m", "5s"):
        c = counts(hand)
        melds = (14 - sum(c)) // 3
        assert (shanten(c, melds) == 0) == bool(completing_tiles(c, melds))
