"""Typed values shared by every game (design.md: ``rules/types.py``).

Frozen dataclasses: a value, once made, never changes, so the room can hand the same one to
every audience. Each is serialised once at the edge by its ``to_dict()``, whose shape is the
wire shape of docs/protocol.md.

* `Action`: one decision of a seat (``kind``, ``tile``, ``suit``, ``bao_ting``, and
  ``tiles``: the tiles from hand of a ``chow``, as a tuple), the same class for every game;
* `IllegalAction` (of `server.rules.errors`): an action a game refuses (typed ``code``),
  the state unchanged;
* `Event`: something that happened, with the fields only one seat may see (``private``);
* `Payment` / `Settlement`: the itemised result of an ended hand (points are integers and
  the deltas sum to zero);
* `View`: one audience's picture of a state (a read-only mapping, JSON-able).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from .errors import IllegalAction
from .tiles import is_flower, parse_tiles, tile_index

_T = TypeVar("_T")


def evolve(obj: _T, **changes: Any) -> _T:
    """A shallow copy of the dataclass instance ``obj`` (not slotted, not frozen) with the
    fields ``changes`` set: ``dataclasses.replace`` without re-running ``__init__`` (no
    defaults, no ``__post_init__``), at a third of its cost, for the engines' states,
    copied on every action and every claim resolution."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


#: Every action kind any game knows (the wire vocabulary, docs/protocol.md).
ACTION_KINDS = ("discard", "kong", "chow", "pong", "win", "pass", "self_draw", "ding_que")
SUIT_LETTERS = ("m", "p", "s")

__all__ = [
    "ACTION_KINDS",
    "Action",
    "Event",
    "IllegalAction",
    "Meld",
    "Payment",
    "Settlement",
    "View",
    "summed_payments",
]


def _parse_safe(text: str) -> list[str]:
    """The tiles a hand can hold (numbers, honours) in ``text``; ``[]`` for anything else
    (bad notation, or a flower: flowers are laid open, never played)."""
    try:
        tiles = parse_tiles(text)
    except ValueError:
        return []
    return [] if any(is_flower(tile_index(t)) for t in tiles) else tiles


@dataclass(frozen=True)
class Action:
    """One decision of a seat.

    ``kind`` is one of `ACTION_KINDS`. ``tile`` is set for ``discard`` and for a ``kong`` on
    one's own turn (absent when claiming a discard); ``suit`` (``m``/``p``/``s``) for
    ``ding_que``; ``bao_ting`` for a discard that declares 软报 (guiyang §5); ``tiles`` for a
    ``chow`` (jintan §J3): the two tiles from hand, sorted. Which kinds and fields a game
    accepts is its own affair: anything else is simply not among its legal actions.
    """

    kind: str
    tile: str | None = None
    suit: str | None = None
    bao_ting: bool = False
    tiles: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """JSON shape: ``{"kind": ..., "tile"?: ..., "suit"?: ..., "bao_ting"?: true,
        "tiles"?: [...]}``."""
        d: dict[str, object] = {"kind": self.kind}
        if self.tile is not None:
            d["tile"] = self.tile
        if self.suit is not None:
            d["suit"] = self.suit
        if self.bao_ting:
            d["bao_ting"] = True
        if self.tiles:
            d["tiles"] = list(self.tiles)
        return d

    @classmethod
    def from_dict(cls, data: object) -> Action:
        """Build an action from its JSON shape.

        Raises:
            IllegalAction: code ``bad_action`` for anything that is not that shape.
        """
        if not isinstance(data, dict):
            raise IllegalAction("bad_action", "an action is an object with a 'kind'")
        unknown = set(data) - {"kind", "tile", "suit", "bao_ting", "tiles"}
        kind, tile, suit = data.get("kind"), data.get("tile"), data.get("suit")
        bao_ting, tiles = data.get("bao_ting", False), data.get("tiles", ())
        if unknown:
            raise IllegalAction("bad_action", f"unknown action fields: {sorted(unknown)}")
        if kind not in ACTION_KINDS:
            raise IllegalAction("bad_action", f"unknown action kind: {kind!r}")
        if tile is not None and not (isinstance(tile, str) and len(_parse_safe(tile)) == 1):
            raise IllegalAction("bad_action", f"not a tile: {tile!r}")
        if suit is not None and suit not in SUIT_LETTERS:
            raise IllegalAction("bad_action", f"not a suit: {suit!r}")
        if not isinstance(bao_ting, bool):
            raise IllegalAction("bad_action", "bao_ting must be true or false")
        if isinstance(tiles, str):  # compact notation, "4m5m"
            parsed: list[str] | None = _parse_safe(tiles) or None
        elif isinstance(tiles, list | tuple) and all(isinstance(t, str) for t in tiles):
            parsed = [t for t in tiles if len(_parse_safe(t)) == 1]
            parsed = parsed if len(parsed) == len(tiles) else None
        else:
            parsed = None
        if parsed is None or (kind == "chow") != (len(parsed) == 2):
            raise IllegalAction("bad_action", "a chow names the two tiles from hand")
        ordered = tuple(sorted(parsed, key=tile_index))
        return cls(kind=kind, tile=tile, suit=suit, bao_ting=bao_ting, tiles=ordered)


@dataclass(frozen=True)
class Meld:
    """An open set as the wire shows it: ``kind``, its ``tiles`` and who gave the tile."""

    kind: str
    tiles: tuple[str, ...]
    from_seat: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "tiles": list(self.tiles), "from": self.from_seat}


def _frozen(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(data))


@dataclass(frozen=True)
class Event:
    """One thing that happened in a hand. ``type`` names it; ``data`` holds its other fields;
    ``private`` names the fields only ``data["seat"]`` may see (a drawn tile, a 定缺 suit).

    ``to_dict()`` is the engine's internal form (``_private`` listed); `project` the form an
    audience receives.
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    private: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, event: Mapping[str, Any]) -> Event:
        """From the engine's dict form ``{"type", ..., "_private"?: [field, ...]}``."""
        data = {k: v for k, v in event.items() if k not in ("type", "_private")}
        private = tuple(event.get("_private", ()) or ())
        return cls(str(event["type"]), _frozen(data), private)

    @property
    def seat(self) -> int | None:
        seat = self.data.get("seat")
        return seat if isinstance(seat, int) else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, **self.data}
        if self.private:
            out["_private"] = list(self.private)
        return out

    def project(self, seat: int | None) -> dict[str, Any]:
        """The event as ``seat`` sees it (None = spectator): private fields only for their
        own seat. Made once per form (whole, or without the private fields) and shared by
        every audience that sees that form: never to be changed."""
        whole = not self.private or self.seat == seat
        form = "_whole" if whole else "_public"
        made: dict[str, Any] | None = self.__dict__.get(form)
        if made is None:
            hidden = () if whole else self.private
            made = {"type": self.type, **{k: v for k, v in self.data.items() if k not in hidden}}
            object.__setattr__(self, form, made)  # (a memo, not a field: frozen all the same)
        return made


@dataclass(frozen=True)
class Payment:
    """One ledger line: ``points`` (> 0, integer) from seat ``payer`` to seat ``payee`` for
    ``reason``; ``detail`` the facts behind it (game-specific, JSON-able)."""

    payer: int
    payee: int
    points: int
    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, p: Mapping[str, Any]) -> Payment:
        """From the wire shape ``{"from", "to", "points", "reason", "detail"?}``."""
        return cls(
            int(p["from"]), int(p["to"]), int(p["points"]), str(p["reason"]),
            _frozen(p.get("detail") or {}),
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.payer,
            "to": self.payee,
            "points": self.points,
            "reason": self.reason,
            "detail": dict(self.detail),
        }


@dataclass(frozen=True)
class Settlement:
    """The itemised result of an ended hand.

    ``result`` (game-specific, e.g. ``"win"`` / ``"huang_zhuang"``), ``deltas`` (points per
    seat, summing to zero), ``payments`` (whose net per seat is ``deltas``), ``next_dealer``;
    ``data`` is the whole wire form (docs/protocol.md ``settlement``), which `to_dict`
    returns as the game made it.
    """

    result: str
    deltas: tuple[int, ...]
    payments: tuple[Payment, ...]
    next_dealer: int
    data: Mapping[str, Any]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Settlement:
        """From the wire form (``result``, ``deltas``, ``payments``, ``next_dealer``, ...)."""
        return cls(
            result=str(d["result"]),
            deltas=tuple(int(x) for x in d["deltas"]),
            payments=tuple(Payment.from_dict(p) for p in d["payments"]),
            next_dealer=int(d["next_dealer"]),
            data=_frozen(d),
        )

    def to_dict(self) -> dict[str, Any]:
        """The wire form (a fresh shallow copy)."""
        return dict(self.data)

    def payment_dicts(self) -> list[dict[str, Any]]:
        """The payments in wire shape."""
        return [p.to_dict() for p in self.payments]


class View(Mapping[str, Any]):
    """One audience's picture of a state: a read-only mapping of the game's view fields
    (docs/protocol.md ``view``); ``to_dict()`` gives the JSON-able dict."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)

    @classmethod
    def adopt(cls, data: dict[str, Any]) -> View:
        """A view over ``data`` itself, not a copy: for a dict the caller just built and
        hands over (never changes again)."""
        view = cls.__new__(cls)
        view._data = data
        return view

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"View({self._data!r})"

    def to_dict(self) -> dict[str, Any]:
        return dict(self._data)


def summed_payments(payments: Sequence[Payment]) -> dict[tuple[int, int, str], int]:
    """Points per (payer, payee, reason): the comparison key of two ledgers."""
    sums: dict[tuple[int, int, str], int] = {}
    for p in payments:
        key = (p.payer, p.payee, p.reason)
        sums[key] = sums.get(key, 0) + p.points
    return sums
