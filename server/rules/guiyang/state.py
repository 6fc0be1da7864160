"""The state of one Guiyang hand and its small value types (spec/guiyang.md §1-§5).

A `State` is plain data. The engine (`engine.py`) never mutates a state it was given: it
clones it, changes the clone and returns it, so a refused action leaves the caller's state
exactly as it was and old states stay valid for replays and tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..tiles import parse_tiles, tile_name
from ..types import ACTION_KINDS, Action, IllegalAction, evolve
from .options import GuiyangOptions

Phase = Literal["ding_que", "turn", "claim", "rob", "ended"]
MeldKind = Literal["pong", "ming_dou", "men_dou", "zhuan_wan_dou"]
DOU_KINDS = ("ming_dou", "men_dou", "zhuan_wan_dou")
WinKind = Literal["zi_mo", "gang_kai", "dian_pao", "re_pao", "qiang_gang"]

# `Action` and `IllegalAction` are the shared typed values of `server.rules.types`.
__all__ = [
    "ACTION_KINDS",
    "DOU_KINDS",
    "Action",
    "Discard",
    "IllegalAction",
    "Meld",
    "State",
    "parse_safe",
]


def parse_safe(text: str) -> list[str]:
    """`parse_tiles` that answers ``[]`` instead of raising (for validation)."""
    try:
        return parse_tiles(text)
    except ValueError:
        return []


@dataclass(frozen=True)
class Meld:
    """An open set: ``kind`` (pong or one of the 豆), tile kind index, and who gave the tile."""

    kind: MeldKind
    tile: int
    from_seat: int | None = None

    @property
    def size(self) -> int:
        return 3 if self.kind == "pong" else 4

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "tiles": [tile_name(self.tile)] * self.size,
            "from": self.from_seat,
        }


@dataclass(frozen=True)
class Discard:
    """A tile in a seat's river; ``claimed`` once another seat pongs, kongs or wins on it."""

    tile: int
    claimed: bool = False
    bao_ting: bool = False


@dataclass
class State:
    """One hand of Guiyang Zhuoji. Seats are 0..players-1; tiles are kind indexes 0..26.

    The wall holds the tiles not dealt; ``wall[front:back]`` is what remains, normal draws
    take ``wall[front]`` and kong replacements ``wall[back - 1]`` (§2).
    """

    options: GuiyangOptions
    players: int
    dealer: int
    dealer_streak: int
    seed: str | None
    seed_hash: str | None
    wall: list[int]
    front: int
    back: int
    hands: list[list[int]]
    start_hands: list[list[int]]
    drawn: list[int | None]
    melds: list[tuple[Meld, ...]]  # (tuples: replaced, never changed, so `clone` shares them)
    discards: list[tuple[Discard, ...]]
    phase: Phase
    turn: int
    ding_que: list[int | None]
    bao_ting: list[bool]
    guo_hu: list[bool]
    pong_locks: list[frozenset[int]]
    after_kong: bool = False  # the turn seat's last tile is a kong replacement (杠开)
    discard_after_kong: bool = False  # the pending discard came right after a kong (热炮)
    last_discard: tuple[int, int] | None = None  # (seat, tile)
    claim_options: dict[int, tuple[str, ...]] = field(default_factory=dict)
    claim_answers: dict[int, str] = field(default_factory=dict)
    rob_tile: int | None = None
    #: Tile kind (1s, 8p) -> (seat, index in its river) of the first such discard (冲锋鸡,
    #: §9.3, §9.6). Replaced, never mutated, so `clone` may share it.
    first_discards: dict[int, tuple[int, int]] = field(default_factory=dict)
    #: Tile kind (1s, 8p) -> (claimer, discarder) when that first discard was ponged or
    #: konged (责任鸡). Replaced, never mutated.
    ze_ren: dict[int, tuple[int, int]] = field(default_factory=dict)
    result: str | None = None  # "win" | "huang_zhuang"
    winners: list[int] = field(default_factory=list)
    win_kind: WinKind | None = None
    win_tile: int | None = None
    loser: int | None = None  # the discarder, or the robbed seat of 抢杠
    ying_bao: bool = False
    burned: frozenset[int] = frozenset()
    #: The hand's weekday (1 = Monday .. 7 = Sunday) taken at the deal, for 星期鸡 (§9.6).
    weekday: int | None = None
    #: The two dice the deal rolled and shows (§2; `dealing.roll_dice`), None without a seed.
    dice: tuple[int, int] | None = None

    @property
    def ended(self) -> bool:
        return self.phase == "ended"

    @property
    def wall_count(self) -> int:
        return self.back - self.front

    def clone(self) -> State:
        """A copy whose lists can be changed without touching this state."""
        return evolve(
            self,
            wall=self.wall,  # never mutated: front/back move instead
            hands=[list(h) for h in self.hands],
            drawn=list(self.drawn),
            melds=list(self.melds),
            discards=list(self.discards),
            ding_que=list(self.ding_que),
            bao_ting=list(self.bao_ting),
            guo_hu=list(self.guo_hu),
            pong_locks=list(self.pong_locks),
            claim_options=dict(self.claim_options),
            claim_answers=dict(self.claim_answers),
            winners=list(self.winners),
        )
