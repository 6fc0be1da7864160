"""Tiles and notation (spec/guiyang.md §1, spec/jintan.md §J1).

A tile is written ``1m``..``9m`` (万), ``1p``..``9p`` (筒), ``1s``..``9s`` (条), honours
``1z``..``7z`` (东南西北 白发中) and flowers ``1f``..``8f`` (春夏秋冬 梅兰竹菊). Internally a
tile kind is an index: ``suit * 9 + rank - 1`` for the number suits in the order m, p, s
(0..26), then the honours 27..33 and the flowers 34..41. A Guiyang hand is a 27-length list of
counts (number tiles only); a Jintan hand a 34-length one (numbers and honours: flowers are
never held, they are laid open).
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "mps"
NUM_KINDS = 27  # number tiles: the whole Guiyang set
HONOUR_KINDS = 7
FLOWER_KINDS = 8
HAND_KINDS = NUM_KINDS + HONOUR_KINDS  # what a Jintan hand can hold (34)
ALL_KINDS = HAND_KINDS + FLOWER_KINDS  # 42
FIRST_HONOUR = NUM_KINDS
FIRST_FLOWER = HAND_KINDS
TILE_NAMES: tuple[str, ...] = (
    tuple(f"{rank}{suit}" for suit in SUITS for rank in range(1, 10))
    + tuple(f"{rank}z" for rank in range(1, HONOUR_KINDS + 1))
    + tuple(f"{rank}f" for rank in range(1, FLOWER_KINDS + 1))
)
_INDEX = {name: i for i, name in enumerate(TILE_NAMES)}
YAO_JI = _INDEX["1s"]  # 幺鸡, spec §1
WU_GU_JI = _INDEX["8p"]  # 乌骨鸡, spec §9.6
_RANKS = {"m": 9, "p": 9, "s": 9, "z": HONOUR_KINDS, "f": FLOWER_KINDS}


class TileError(ValueError):
    """A tile or hand string that is not valid notation."""


def tile_index(tile: str) -> int:
    """Return the kind index 0..41 of ``tile`` (e.g. ``"5p"`` -> 13, ``"1z"`` -> 27).

    Raises:
        TileError: ``tile`` is not one of ``1m``..``9s``, ``1z``..``7z``, ``1f``..``8f``.
    """
    try:
        return _INDEX[tile]
    except (KeyError, TypeError):
        raise TileError(f"not a tile: {tile!r}") from None


def tile_name(index: int) -> str:
    """Return the notation of kind ``index`` (0..41), e.g. 13 -> ``"5p"``."""
    return TILE_NAMES[index]


def suit_of(index: int) -> int:
    """Return the suit number of a number tile's kind index: 0 = m, 1 = p, 2 = s (3 for any
    honour, 4 for any flower)."""
    if index < NUM_KINDS:
        return index // 9
    return 3 if index < FIRST_FLOWER else 4


def is_honour(index: int) -> bool:
    """True for the honours ``1z``..``7z`` (kinds 27..33)."""
    return FIRST_HONOUR <= index < FIRST_FLOWER


def is_flower(index: int) -> bool:
    """True for the flowers ``1f``..``8f`` (kinds 34..41)."""
    return index >= FIRST_FLOWER


def parse_tiles(text: str) -> list[str]:
    """Parse compact or spaced notation into a list of tiles, in the written order.

    ``"123m 45p"`` and ``"1m 2m 3m 4p 5p"`` both give ``["1m", "2m", "3m", "4p", "5p"]``;
    honours and flowers likewise (``"1122z 34f"``).

    Raises:
        TileError: a character that is not a digit 1-9, a suit letter (m p s z f) or white
            space, digits with no suit letter after them, or a rank the suit lacks (``8z``).
    """
    tiles: list[str] = []
    ranks: list[str] = []
    for ch in text:
        if ch in "123456789":
            ranks.append(ch)
        elif ch in _RANKS:
            if not ranks:
                raise TileError(f"suit letter {ch!r} without ranks in {text!r}")
            bad = [r for r in ranks if int(r) > _RANKS[ch]]
            if bad:
                raise TileError(f"no tile {bad[0]}{ch} in {text!r}")
            tiles.extend(rank + ch for rank in ranks)
            ranks = []
        elif ch.isspace():
            continue
        else:
            raise TileError(f"unexpected {ch!r} in {text!r}")
    if ranks:
        raise TileError(f"ranks without a suit letter at the end of {text!r}")
    return tiles


def to_counts(tiles: Iterable[str], size: int = NUM_KINDS) -> list[int]:
    """Return the count array of ``tiles``: 27 long (number tiles) by default, ``size`` 34
    for a hand with honours.

    Raises:
        TileError: an element is not a tile, or its kind does not fit ``size``.
    """
    counts = [0] * size
    for tile in tiles:
        k = tile_index(tile)
        if k >= size:
            raise TileError(f"{tile!r} does not fit a {size}-kind count array")
        counts[k] += 1
    return counts


def from_counts(counts: list[int]) -> list[str]:
    """Return the tiles of a count array, sorted by kind (m, p, s, z, f; rank ascending)."""
    return [TILE_NAMES[i] for i in range(len(counts)) for _ in range(counts[i])]


def full_set() -> list[str]:
    """Return the 108 tiles of a Guiyang set (four of each number tile), sorted (§1)."""
    return [name for name in TILE_NAMES[:NUM_KINDS] for _ in range(4)]


def full_set_with_honours_and_flowers() -> list[str]:
    """Return the 144 tiles of a Jintan set: four of each number tile and honour, one of each
    flower, sorted (jintan.md §J1)."""
    return [n for n in TILE_NAMES[:HAND_KINDS] for _ in range(4)] + list(TILE_NAMES[HAND_KINDS:])


def format_tiles(tiles: Iterable[str]) -> str:
    """Write tiles in compact notation, grouped by suit: ``["1m","2m","5p"]`` -> ``"12m 5p"``."""
    counts = to_counts(tiles, ALL_KINDS)
    parts = []
    start = 0
    for suit in "mpszf":
        size = _RANKS[suit]
        ranks = "".join(str(r + 1) * counts[start + r] for r in range(size))
        if ranks:
            parts.append(ranks + suit)
        start += size
    return " ".join(parts)
