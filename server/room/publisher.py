"""How a room's messages reach its audiences: a collaborator of the room actor, which owns
one :class:`Publisher` and calls it from its task (``broadcast`` also from outside it).

Audiences are the seats ``0..players-1`` and the spectators (``None``); each has one bus
channel (:func:`seat_channel`), all of a room's in one bus group (``room:{code}|...``,
:mod:`server.bus`), so that the messages of one change go out as one Redis PUBLISH in one
round trip (``Bus.publish_many``) and each process reads them as one message.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from server.room.clock import Clock
from server.rules.game import Game
from server.rules.types import Event

log = logging.getLogger(__name__)

#: While a room publishes only to this process (`Publisher.local`), one publish in this many
#: seconds goes through the shared bus anyway, to count its listeners again.
RECHECK_SECONDS = 5.0

#: One message for the bus: ``(channel, message)``.
Outgoing = tuple[str, dict[str, Any]]


#: The start of a stamped ``event`` / ``hand_end`` message's JSON text (`Publisher.stamp`
#: puts these keys first; the bus encodes compactly).
_HEAD = re.compile(
    r'\{"type":"(event|hand_end)","hand_no":(\d+),"version":(\d+),"prev_version":(\d+|null)[,}]'
)


def message_head(text: str) -> dict[str, Any] | None:
    """The routing fields (``type``, ``hand_no``, ``version``, ``prev_version``) of the JSON
    text of an ``event`` / ``hand_end`` message as `Publisher.stamp` made it, read from the
    text's start without decoding the rest; ``None`` for any other text (decode it then).
    A relay forwards a room's messages by these fields only: decoding each whole message
    (and freeing it) for them was a tenth of the server's main thread."""
    m = _HEAD.match(text)
    if m is None:
        return None
    kind, hand_no, version, prev = m.groups()
    return {
        "type": kind,
        "hand_no": int(hand_no),
        "version": int(version),
        "prev_version": None if prev == "null" else int(prev),
    }


def seat_channel(code: str, seat: int | None) -> str:
    """The bus channel carrying messages for ``seat`` (``None`` = spectators) of room
    ``code``: ``room:{code}|seat:{n}`` / ``room:{code}|spectator``, members of the room's bus
    group ``room:{code}``."""
    return f"room:{code}|spectator" if seat is None else f"room:{code}|seat:{seat}"


class Publisher:
    """The publishing side of room ``code`` (``players`` seats) on ``bus``.

    Owns: who may be listening to each audience (`listening`), each audience's last
    versioned message (`stamp`, for ``prev_version``) and the bus's health as the timers
    need it (`worked_since`). ``is_bot(seat)`` tells a bot seat (no socket can hold it);
    ``retry(attempt)`` runs one publish attempt until the bus takes it (the room's one retry
    mechanism); ``game`` projects events for an audience; ``clock`` dates the bus's return.
    """

    def __init__(
        self,
        code: str,
        bus: Any,
        clock: Clock,
        game: Game,
        players: int,
        is_bot: Callable[[int], bool],
        retry: Callable[[Callable[[], Awaitable[None]]], Awaitable[None]],
    ) -> None:
        self.code = code
        self.bus = bus
        self.clock = clock
        self.game = game
        self.players = players
        self.is_bot = is_bot
        self.retry = retry
        #: Every audience (the seats in order, then the spectators) and its channel.
        self._audiences: list[int | None] = [*range(players), None]
        self._channels = {a: seat_channel(code, a) for a in self._audiences}
        #: Per audience, ``(hand_no, version)`` of the last versioned message published.
        self.sent: dict[int | None, tuple[int, int]] = {}
        #: Calls from other processes heard (`heard_from_others`), and how many had been
        #: when the last publish that went through the shared bus started (`local`).
        self._heard = 0
        self._heard_shared = -1
        #: Clock time of the last publish through the shared bus (`local`).
        self._shared_at = 0.0
        #: Bus health (clock time): the last publish failed; when publishing worked again
        #: after the last failure.
        self._failing = False
        self._ok_since = 0.0

    # ------------------------------------------------------------------ audiences

    def channel(self, audience: int | None) -> str:
        """The bus channel of ``audience``."""
        return self._channels[audience]

    def audiences(self) -> list[int | None]:
        """Every audience: the seats in order, then the spectators."""
        return list(self._audiences)

    def listening(self) -> list[int | None]:
        """The audiences worth a message, so that nothing is computed for the others: while
        only this process listens (`local`) those with a subscription here; otherwise all
        but the bot seats (no socket can hold a bot's seat). A socket subscribes before it
        asks for its snapshot, so it misses nothing."""
        only_here = self._only_here()
        return [a for a in self._audiences if self._listens(a, only_here)]

    def has_listener(self, audience: int | None) -> bool:
        """False when nobody can be listening to ``audience`` (see `listening`)."""
        return self._listens(audience, self._only_here())

    def _only_here(self) -> bool:
        """Whether this process's subscriptions are all that may listen."""
        return self.bus.process_local or self.local()

    def _listens(self, audience: int | None, only_here: bool) -> bool:
        if only_here:
            return self.bus.subscriber_count(self._channels[audience]) > 0
        if audience is not None and self.is_bot(audience):
            return False  # authenticate() gives no socket a bot's seat, in any process
        return True  # another process may have subscribers: assume someone listens

    def local(self) -> bool:
        """Whether the room's messages go to this process's sockets only, not through the
        shared bus (Redis): when the bus saw no other process subscribed to the room at
        the last publish that went through it (`Bus.others`), and no other process asked
        the room anything since (`heard_from_others`: a socket elsewhere subscribes, then
        asks for its snapshot, so what it missed meanwhile is in that snapshot). A room
        starts shared (its sockets elsewhere are not known yet), and a publish goes through
        the shared bus at least every `RECHECK_SECONDS` to count again (so were another
        process's socket ever missed, it would be silent for that long at most: its next
        message shows the gap, and its relay resyncs). Never with the in-process bus, which
        is local anyway."""
        bus = self.bus
        return (
            not bus.process_local
            and self._heard_shared == self._heard
            and self.clock.now() - self._shared_at < RECHECK_SECONDS
            and not bus.others(self._channels[None])
        )

    def heard_from_others(self) -> None:
        """Another process called the room (it may have sockets subscribed since the last
        publish): the next publish goes through the shared bus, whose receiver count tells
        again whether anyone else listens."""
        self._heard += 1

    async def _publish(self, messages: list[tuple[str, Any]]) -> None:
        """One ``Bus.publish_many`` of ``messages``, ``local`` when only this process
        listens (`local`); the bus's errors propagate."""
        if self.local():
            await self.bus.publish_many(messages, local=True)
            return
        heard, now = self._heard, self.clock.now()
        await self.bus.publish_many(messages)
        self._heard_shared = max(self._heard_shared, heard)
        self._shared_at = max(self._shared_at, now)

    # ------------------------------------------------------------------ messages

    def stamp(self, audience: int | None, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as sent to ``audience``. An ``event`` / ``hand_end`` gets
        ``prev_version``: the version of the previous versioned message this audience was
        sent in the hand (None if unknown), so a relay that sees ``prev_version`` above what
        it forwarded knows it missed a message (pub/sub is at-most-once) and resyncs. Its
        ``type``, ``hand_no``, ``version`` and ``prev_version`` come first, in this order
        (`message_head`)."""
        kind = message.get("type")
        if kind == "snapshot":
            self.sent[audience] = (message["hand_no"], message["version"])
        elif kind in ("event", "hand_end"):
            last = self.sent.get(audience)
            prev = last[1] if last is not None and last[0] == message["hand_no"] else None
            head = {"type": kind, "hand_no": message["hand_no"], "version": message["version"]}
            message = {**head, "prev_version": prev, **message}
            self.sent[audience] = (message["hand_no"], message["version"])
        return message

    def handed(self, audience: int | None, hand_no: int, version: int) -> None:
        """A snapshot at ``(hand_no, version)`` was handed to a socket of ``audience``
        directly (not published): the audience's next event follows it, so it carries that
        ``prev_version`` (a seat nobody listened to when its last messages went out would
        otherwise get ``null`` and be sent a needless fresh snapshot)."""
        last = self.sent.get(audience)
        if last is None or last < (hand_no, version):
            self.sent[audience] = (hand_no, version)

    def project(self, events: list[Event] | None, audience: int | None) -> list[dict[str, Any]]:
        """``events`` as ``audience`` receives them (``project_event``; an event private to
        another seat is left out). An engine ``hand_end`` event goes without its
        ``settlement``: the ``hand_end`` message's own ``settlement`` is the one copy."""
        out = []
        for event in events or ():
            projected = self.game.project_event(event, audience)
            if projected is None:
                continue
            if projected.get("type") == "hand_end":
                projected = {k: v for k, v in projected.items() if k != "settlement"}
            out.append(projected)
        return out

    # ------------------------------------------------------------------ sending

    async def send(self, messages: list[Outgoing]) -> None:
        """Publish ``messages`` in one round trip (``Bus.publish_many``), retried until the
        bus takes them (``retry``): the room does not move on past events it could not
        publish. (A retried batch may reach some audiences twice; clients and relays drop
        a versioned message that is not newer than what they have.) Each attempt notes the
        bus's health for the timers (`worked_since`)."""
        if messages:
            await self.retry(lambda: self.publish_once(messages))

    async def publish_once(self, messages: list[Outgoing]) -> None:
        """One attempt of `send`: the bus's errors propagate (and mark it failing)."""
        try:
            await self._publish(messages)
        except Exception:
            self._failing = True
            raise
        if self._failing:
            self._failing = False
            self._ok_since = self.clock.now()

    async def publish(self, audience: int | None, message: dict[str, Any]) -> None:
        """Publish ``message`` to ``audience`` (stamped, see `stamp`; retried, see `send`)."""
        await self.send([(self.channel(audience), self.stamp(audience, message))])

    async def publish_all(self, message: dict[str, Any]) -> None:
        """Publish ``message`` to every listening audience, in one round trip (`send`)."""
        await self.send([(self.channel(a), self.stamp(a, message)) for a in self.listening()])

    async def each(
        self,
        message_for: Callable[[int | None], dict[str, Any] | None],
        audiences: Sequence[int | None] | None = None,
        *,
        retried: bool = True,
    ) -> None:
        """Publish ``message_for(audience)`` to every listening audience (one message each,
        computed only for those; None: nothing for that audience), stamped, in one round
        trip: retried (`send`), or one attempt (not ``retried``: the bus's errors
        propagate). ``audiences``: `listening` as the caller asked it in the same step."""
        out: list[Outgoing] = []
        for audience in self.listening() if audiences is None else audiences:
            message = message_for(audience)
            if message is not None:
                out.append((self.channel(audience), self.stamp(audience, message)))
        if retried:
            await self.send(out)
        else:
            await self._publish(out)

    async def broadcast(self, message: dict[str, Any]) -> None:
        """``message`` (unversioned) to every listening audience: one attempt, the bus's
        errors propagate."""
        await self._publish([(self.channel(a), message) for a in self.listening()])

    async def announce(self, message: dict[str, Any]) -> None:
        """`broadcast` ``message`` (``degraded`` / ``recovered``), a failure only logged (the
        bus may be what fails; the snapshot's ``degraded`` tells a socket that missed it)."""
        try:
            await self.broadcast(message)
        except Exception as exc:
            log.warning("room %s: could not publish %s (%s)", self.code, message["type"], exc)

    # ------------------------------------------------------------------ bus health

    @property
    def failing(self) -> bool:
        """True while the last publish attempt failed."""
        return self._failing

    def worked_since(self, when: float) -> bool:
        """Whether the bus has worked without a failure since clock time ``when`` (a timer
        started then ran entirely while its prompt could be delivered)."""
        return not self._failing and self._ok_since <= when
