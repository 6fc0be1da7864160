"""What the games share about what an audience may see: an event's projection, and the
public ``river_last`` of a view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Event = dict[str, object]


def project_event(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` may see it (None = spectator): the fields listed in
    ``_private`` are kept only for ``event["seat"]``; ``_private`` itself never leaves."""
    private = event.get("_private", ())
    out = {k: v for k, v in event.items() if k != "_private"}
    if isinstance(private, list) and event.get("seat") != seat:
        for key in private:
            out.pop(key, None)
    return out


class _RiverTile(Protocol):
    @property
    def tile(self) -> int: ...
    @property
    def claimed(self) -> bool: ...


def river_last(
    last_discard: tuple[int, int] | None, discards: Sequence[Sequence[_RiverTile]]
) -> dict[str, int] | None:
    """The latest discard while it still lies in its river (not claimed): ``{"seat",
    "index"}`` (its place in that seat's ``discards``), else None; ``last_discard`` is the
    state's ``(seat, tile kind)``, ``discards`` each seat's river in order. Public: everyone
    saw it (docs/protocol.md, the view's ``river_last``)."""
    if last_discard is None:
        return None
    seat, tile = last_discard
    river = discards[seat]
    if not river or river[-1].claimed or river[-1].tile != tile:
        return None
    return {"seat": seat, "index": len(river) - 1}
