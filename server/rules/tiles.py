"""Tiles and notation (spec/guiyang.md §1).

A tile is written ``1m``..``9m`` (万), ``1p``..``9p`` (筒), ``1s``..``9s`` (条). Internally a
tile kind is an index 0..26: ``suit * 9 + rank - 1`` with suits in the order m, p, s, and a
hand is a 27-length list of counts.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "mps"
NUM_KINDS = 27
TILE_NAMES: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in SUITS for rank in range(1, 10))
_INDEX = {name: i for i, name in enumerate(TILE_NAMES)}
YAO_JI = _INDEX["1s"]  # 幺鸡, spec §1
WU_GU_JI = _INDEX["8p"]  # 乌骨鸡, spec §9.6


class TileError(ValueError):
    """A tile or hand string that is not valid notation."""


def tile_index(tile: str) -> int:
    """Return the kind index 0..26 of ``tile`` (e.g. ``"5p"`` -> 13).

    Raises:
        TileError: ``tile`` is not one of ``1m``..``9s``.
    """
    try:
        return _INDEX[tile]
    except (KeyError, TypeError):
        raise TileError(f"not a tile: {tile!r}") from None


def tile_name(index: int) -> str:
    """Return the notation of kind ``index`` (0..26), e.g. 13 -> ``"5p"``."""
    return TILE_NAMES[index]


def suit_of(index: int) -> int:
    """Return the suit number of a kind index: 0 = m, 1 = p, 2 = s."""
    return index // 9


def parse_tiles(text: str) -> list[str]:
    """Parse compact or spaced notation into a list of tiles, in the written order.

    ``"123m 45p"`` and ``"1m 2m 3m 4p 5p"`` both give ``["1m", "2m", "3m", "4p", "5p"]``.

    Raises:
        TileError: a character that is not a digit 1-9, a suit letter or white space, or
            digits with no suit letter after them.
    """
    tiles: list[str] = []
    ranks: list[str] = []
    for ch in text:
        if ch in "123456789":
            ranks.append(ch)
        elif ch in SUITS:
            if not ranks:
                raise TileError(f"suit letter {ch!r} without ranks in {text!r}")
            tiles.extend(rank + ch for rank in ranks)
            ranks = []
        elif ch.isspace():
            continue
        else:
            raise TileError(f"unexpected {ch!r} in {text!r}")
    if ranks:
        raise TileError(f"ranks without a suit letter at the end of {text!r}")
    return tiles


def to_counts(tiles: Iterable[str]) -> list[int]:
    """Return the 27-length count array of ``tiles``.

    Raises:
        TileError: an element is not a tile.
    """
    counts = [0] * NUM_KINDS
    for tile in tiles:
        counts[tile_index(tile)] += 1
    return counts


def from_counts(counts: list[int]) -> list[str]:
    """Return the tiles of a count array, sorted by kind (m, p, s; rank ascending)."""
    return [TILE_NAMES[i] for i in range(NUM_KINDS) for _ in range(counts[i])]


def full_set() -> list[str]:
    """Return the 108 tiles of a Guiyang set (four of each kind), sorted (§1)."""
    return [name for name in TILE_NAMES for _ in range(4)]


def format_tiles(tiles: Iterable[str]) -> str:
    """Write tiles in compact notation, grouped by suit: ``["1m","2m","5p"]`` -> ``"12m 5p"``."""
    counts = to_counts(tiles)
    parts = []
    for s, suit in enumerate(SUITS):
        ranks = "".join(str(r + 1) * counts[s * 9 + r] for r in range(9))
        if ranks:
            parts.append(ranks + suit)
    return " ".join(parts)
