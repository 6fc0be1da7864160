"""The commands of a room actor's inbox (typed values, dispatched with ``match`` by
``RoomActor._handle``). Timers and bots post them without a ``future``; callers of
``RoomActor.submit`` get their result or :class:`~server.room.errors.RoomError` through it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from server.loops import running_loop
from server.rules.types import Action


@dataclass
class Command:
    """A command for the actor's inbox; ``future`` (if any) gets its result or error."""

    future: asyncio.Future[Any] | None = field(default=None, kw_only=True)


@dataclass
class Act(Command):
    """A player's action answering prompt ``prompt`` (None: the current one), received at
    clock time ``at`` (the seat's decision time ends there, however long the room then
    takes to log it); ``again``: a copy a process sent again after losing the reply."""

    seat: int
    action: Action
    prompt: int | None = None
    at: float | None = None
    again: bool = False


@dataclass
class BotMove(Command):
    """A bot seat's turn to move in prompt window ``window``."""

    seat: int
    window: int


@dataclass
class Timeout(Command):
    """The timer of ``seat`` for window ``window`` fired (or its auto-play delay passed)."""

    seat: int
    window: int


@dataclass
class Resolve(Command):
    """Close the decided claim window ``window``."""

    window: int


@dataclass
class Ready(Command):
    """Seat ``seat`` is ready for the next hand."""

    seat: int


@dataclass
class ReadyTimeout(Command):
    """The wait for ``ready`` of prompt window ``window`` ran out (or every seat is ready)."""

    window: int


@dataclass
class SetAuto(Command):
    """Turn auto-play (托管) of ``seat`` on or off."""

    seat: int
    on: bool


@dataclass
class Snapshot(Command):
    """A ``snapshot`` message for ``seat`` (``None``: spectators), as the result."""

    seat: int | None


@dataclass
class Start(Command):
    """Deal the first hand (a room whose seats just filled)."""


@dataclass
class Dissolve(Command):
    """Seat ``seat`` votes on dissolving the room (``agree``; opens a vote if none)."""

    seat: int
    agree: bool


@dataclass
class VoteTimeout(Command):
    """Dissolve vote number ``window`` ran out."""

    window: int


@dataclass
class RefreshTotals(Command):
    """Read the session's totals again from the store (an admin corrected a hand)."""


@dataclass
class Rearm(Command):
    """Schedule again whatever the room waits for (after a failed command)."""


@dataclass
class Stop(Command):
    """End the actor's loop before the next command (see :meth:`RoomActor.stop`)."""


@dataclass
class Presence(Command):
    """A seat's sockets changed: a seat whose player went away (none left) is waited for its
    prompt's own limit only, one back has what is left of its bank again."""


@dataclass
class PublishSnapshots(Command):
    """Send every audience a fresh snapshot (a room taken over by this process)."""


class Inbox:
    """A room actor's commands in arrival order, read by the actor's task alone.

    (A deque and one future while the reader waits, from `running_loop`: an
    ``asyncio.Queue`` asks for the running loop, a ``getpid`` system call, at every wait.)
    """

    def __init__(self) -> None:
        self._items: deque[Command] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, cmd: Command) -> None:
        """Queue ``cmd`` (never blocks) and wake the reader."""
        self._items.append(cmd)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> Command:
        """The oldest command; ``asyncio.QueueEmpty`` if there is none."""
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Command:
        """The oldest command, once there is one."""
        while not self._items:
            self._waiter = running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()
