"""The state of one Jintan hand and its small value types (spec/jintan.md §J1-§J4).

Like Guiyang's, a `State` is plain data that the engine clones before changing, so a refused
action leaves the caller's state as it was. Hands are 34-length count arrays (number tiles
and honours); flowers are never held: each seat's flowers lie open in ``flowers``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..tiles import tile_name
from ..types import Action, evolve
from .options import JintanOptions

Phase = Literal["turn", "claim", "rob", "ended"]
MeldKind = Literal["chow", "pong", "exposed_kong", "concealed_kong", "added_kong"]
KONG_KINDS = ("exposed_kong", "concealed_kong", "added_kong")
WinKind = Literal["zi_mo", "gang_kai", "dian_pao", "qiang_gang", "ba_hua"]
#: The kinds of Jintan's actions (a subset of `server.rules.types.ACTION_KINDS`); an action
#: is the shared `Action`: ``tile`` for ``discard`` / own-turn ``kong``, ``tiles`` (the two
#: from hand) for ``chow``.
ACTION_KINDS = ("discard", "kong", "chow", "pong", "win", "pass", "self_draw")
__all__ = ["ACTION_KINDS", "Action", "Discard", "Meld", "State"]


@dataclass(frozen=True)
class Meld:
    """An open (or, for a concealed kong, declared) set.

    ``tiles`` are kind indexes in order; ``claimed`` the kind taken from another seat's
    discard (None for a concealed kong); ``from_seat`` that seat.
    """

    kind: MeldKind
    tiles: tuple[int, ...]
    claimed: int | None = None
    from_seat: int | None = None

    @property
    def is_kong(self) -> bool:
        return self.kind in KONG_KINDS

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "tiles": [tile_name(k) for k in self.tiles],
            "claimed": tile_name(self.claimed) if self.claimed is not None else None,
            "from": self.from_seat,
        }


@dataclass(frozen=True)
class Discard:
    """A tile in a seat's river; ``claimed`` once another seat chows, pongs, kongs or wins."""

    tile: int
    claimed: bool = False


@dataclass
class State:
    """One hand of Jintan. Seats 0..3; tiles are kind indexes (0..33 in hands, 34..41 the
    flowers). ``wall[front:back]`` is what remains: draws take ``wall[front]``, flower and
    kong replacements ``wall[back - 1]`` (§J2, §J3)."""

    options: JintanOptions
    players: int
    dealer: int
    dealer_streak: int
    seed: str | None
    seed_hash: str | None
    wall: list[int]
    front: int
    back: int
    hands: list[list[int]]
    flowers: list[list[int]]
    drawn: list[int | None]
    melds: list[list[Meld]]
    discards: list[list[Discard]]
    phase: Phase
    turn: int
    guo_hu: list[bool]
    #: The turn seat drew this turn (a draw, a replacement, or the dealer's dealt 14): only
    #: then may it win by self-draw (guiyang.md §3, which §J applies).
    may_self_draw: bool = True
    after_kong: bool = False  # the turn seat's last tile is a kong replacement (杠开)
    last_discard: tuple[int, int] | None = None  # (seat, tile)
    claim_options: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: seat -> the (two tiles from hand) runs it may chow the discard with
    chow_options: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    claim_answers: dict[int, Action] = field(default_factory=dict)
    rob_tile: int | None = None
    result: str | None = None  # "win" | "huang_zhuang"
    winners: list[int] = field(default_factory=list)
    win_kind: WinKind | None = None
    win_tile: int | None = None
    loser: int | None = None  # the discarder, or the robbed seat of 抢杠
    #: Events of the deal's flower replacements (§J2), for the room to publish.
    opening_events: list[dict[str, object]] = field(default_factory=list)
    #: The two dice the deal rolled and shows (guiyang.md §2, which §J applies;
    #: `dealing.roll_dice`), None without a seed.
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
            hands=[list(h) for h in self.hands],
            flowers=[list(f) for f in self.flowers],
            drawn=list(self.drawn),
            melds=[list(m) for m in self.melds],
            discards=[list(d) for d in self.discards],
            guo_hu=list(self.guo_hu),
            claim_options=dict(self.claim_options),
            chow_options=dict(self.chow_options),
            claim_answers=dict(self.claim_answers),
            winners=list(self.winners),
        )
