"""The dissolve vote of one room (docs/protocol.md ``dissolve`` / ``dissolve_vote``): a
collaborator of the room actor, which owns it and calls it from its task only.

At most one vote is open. ``agree=True`` with none open opens one (bots agree at once) and
arms its timer, which posts the vote's number back to the actor; one ``False`` refuses it,
every seat agreeing dissolves the room. When the timer runs out nobody has refused, so the
seats still silent (``None`` in ``votes``) count as agreeing and the room is dissolved: as
the apps count it, a player who is away cannot hold the others at the table. Since silence
agrees, a seat whose proposal was refused may not ask again for ``AGAIN_SECONDS`` (a vote
asked over and over would win the first time the others looked away).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, Literal

from server.room.clock import Clock, TimerHandle
from server.room.errors import RoomError

#: What a vote cast leads to: still open, refused by this seat, or agreed by every seat.
Outcome = Literal["open", "refused", "dissolved"]

#: How long (s) a seat whose dissolve proposal was refused waits before it may ask again.
AGAIN_SECONDS = 60.0


class DissolveVote:
    """The vote of a room of ``players`` seats; ``seconds`` it stays open; ``expire(number)``
    is called (on the clock) when vote ``number`` runs out."""

    def __init__(
        self, players: int, clock: Clock, seconds: float, expire: Callable[[int], None]
    ) -> None:
        self.players = players
        self.clock = clock
        self.seconds = seconds
        self.expire = expire
        #: seat -> agrees, while a vote is open; None otherwise.
        self.votes: dict[int, bool] | None = None
        #: The number of the latest vote (a stale timer names an older one).
        self.number = 0
        #: The seat that opened the open (or last) vote: the dialog says who asks.
        self.proposer: int | None = None
        self._timer: TimerHandle | None = None
        self._deadline: float | None = None
        #: seat -> clock time its last proposal was refused (`AGAIN_SECONDS`).
        self._refused_at: dict[int, float] = {}

    @property
    def is_open(self) -> bool:
        return self.votes is not None

    def message(self, result: str = "open") -> dict[str, Any]:
        """The ``dissolve_vote`` message: ``votes`` per seat (None: not yet), the seat that
        ``proposed`` it, ``deadline`` (ms, while open) and ``result``."""
        votes = self.votes or {}
        return {
            "type": "dissolve_vote",
            "votes": [votes.get(s) for s in range(self.players)],
            "proposed": self.proposer,
            "deadline": None
            if self._deadline is None or result != "open"
            else int(self._deadline * 1000),
            "result": result,
        }

    def cast(self, seat: int, agree: bool, bots: Iterable[int]) -> Outcome:
        """Record ``seat``'s vote (opening a vote, in which ``bots`` agree, if none is open).

        Raises:
            RoomError: ``no_vote`` (``agree=False`` with no vote open), ``already_voted``,
            ``vote_too_soon`` (``seat``'s own proposal was refused less than
            ``AGAIN_SECONDS`` ago).
        """
        if self.votes is None:
            if not agree:
                raise RoomError("no_vote", "no dissolve vote is open")
            wait = self._refused_at.get(seat, -AGAIN_SECONDS) + AGAIN_SECONDS - self.clock.now()
            if wait > 0:
                raise RoomError(
                    "vote_too_soon",
                    f"your dissolve vote was refused: ask again in {math.ceil(wait)} s",
                )
            self.votes = {bot: True for bot in bots}
            self.proposer = seat
            self.number += 1
            number = self.number
            self._deadline = self.clock.now() + self.seconds
            self._timer = self.clock.call_later(self.seconds, lambda: self.expire(number))
        elif seat in self.votes:
            raise RoomError("already_voted", "this seat has already voted")
        self.votes[seat] = agree
        if not agree:
            if self.proposer is not None:
                self._refused_at[self.proposer] = self.clock.now()
            return "refused"
        if len(self.votes) >= self.players and all(self.votes.values()):
            return "dissolved"
        return "open"

    def close(self, result: str) -> dict[str, Any] | None:
        """End the open vote; its closing message with ``result`` (None if none was open)."""
        if self.votes is None:
            return None
        self.cancel()
        message = self.message(result)
        self.votes, self._deadline = None, None
        return message

    def cancel(self) -> None:
        """Stop the timer (the actor stops)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
