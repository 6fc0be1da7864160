"""Event projection shared by the games: what one audience may see of an event."""

from __future__ import annotations

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
