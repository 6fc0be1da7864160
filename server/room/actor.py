"""The room actor: one asyncio task per room, the only writer of the room's game state.

Everything that changes a room goes through :meth:`RoomActor.submit` (or the small helpers
built on it) into the actor's inbox; the actor handles one command at a time:

The room plays the `Game` it was made with (``game``, looked up by the room's stored game
name) and knows no ruleset by name. Each command is a typed value, dispatched with ``match``.

1. ask the game (``apply`` is pure) whether the action is legal for that seat now;
2. append it to the store's action log (**durable first**);
3. commit the new state;
4. publish the change on the bus: **one message per change per audience** (each seat, and
   spectators): the change's events projected for the audience (``project_event``), the
   new version, the prompt, and the audience's view, legal actions and deadline, each
   encoded to JSON once (by the bus); an audience nobody subscribes to (known with the
   in-process bus; bot seats in a cluster) gets nothing computed; a claim window the change
   left decided with no minimum wait is closed first and its events join the message;
5. on hand end: settle once, in the store (one transaction), and publish the change that
   ended the hand as its ``hand_end`` (the settlement's one copy, each seat's replay link).

Work is done once per state: the legal actions of every seat are computed once per state
(and reused for prompts, timers, bots and every message), the settlement once per hand.

Timers (claim window, turn, auto-play, ready) run on an injectable :class:`Clock`; their
callbacks only post commands to the inbox, so the actor stays the single writer.

A store or bus failure loses no command (:meth:`Outages.retry`): a write or publish that
fails because the service is unreachable is retried with backoff inside the command (the
action is applied only once it is logged; no later command runs before the events are
published), the seats are told the room waits for its database (``degraded`` /
``recovered``), and any other failure re-arms the room from its state (:meth:`_rearm`:
the deal, the settlement, bots' moves, timers), so no turn is left that nobody will play.

Bus channels: ``room:{code}|seat:{n}`` for seat ``n`` and ``room:{code}|spectator``. Message
shapes are documented in ``docs/protocol.md`` (models in :mod:`server.api.messages`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.backoff import AbstractBackoff, EqualJitterBackoff

from server import metrics
from server.loops import running_loop
from server.room.bounded import settle
from server.room.claims import THINK_SAMPLES as THINK_SAMPLES
from server.room.claims import BufferedSystemRandom, ClaimHold
from server.room.clock import Clock, RealClock
from server.room.commands import (
    Act,
    BotMove,
    Command,
    Dissolve,
    Inbox,
    Presence,
    PublishSnapshots,
    Ready,
    ReadyTimeout,
    Rearm,
    RefreshTotals,
    Resolve,
    SetAuto,
    Snapshot,
    Start,
    Stop,
    Timeout,
    VoteTimeout,
)
from server.room.errors import RoomError
from server.room.legal import LegalActions
from server.room.outage import BUS as BUS
from server.room.outage import DATABASE as DATABASE
from server.room.outage import Outages
from server.room.phrases import PhraseLimit
from server.room.prompts import PROMPT_BASE as PROMPT_BASE
from server.room.prompts import Prompts, SeatTimer
from server.room.prompts import opens_prompt as opens_prompt
from server.room.prompts import prompt_of_log as prompt_of_log
from server.room.publisher import Publisher
from server.room.publisher import seat_channel as seat_channel
from server.room.timing import Timing
from server.room.vote import DissolveVote
from server.rules.game import Game
from server.rules.registry import DEFAULT_GAME, find_game
from server.rules.replay import log_steps, replay
from server.rules.types import Action, Event, IllegalAction

log = logging.getLogger(__name__)

#: RoomError codes that are failures, not refusals: the room is re-armed after them.
FAILURES = frozenset({"unavailable", "internal"})


def retry_backoff() -> AbstractBackoff:
    """The default backoff between retries of a failed store write or publish: exponential
    from 25-50 ms, doubling, equal jitter, at most 1-2 s apart (redis-py's
    ``EqualJitterBackoff``), so a room resumes within about 2 s of its service's return."""
    return EqualJitterBackoff(cap=2.0, base=0.05)


def _same(logged: tuple[int, dict[str, Any]], ours: tuple[int, dict[str, Any]]) -> bool:
    """Whether a logged ``(seat, payload)`` is ``ours`` (compared as stored: JSON)."""
    return json.dumps(logged, sort_keys=True) == json.dumps(ours, sort_keys=True)


#: The key of ``RoomActor.connected`` (and of each process's ``presence``) that counts the
#: room's spectator sockets; seat keys are ``0..players-1``.
SPECTATORS = -1


@dataclass
class Seat:
    """One seat of the room; ``token_hash`` is the sha256 hex of the seat's token."""

    seat: int
    name: str
    bot: bool
    token_hash: str = ""


@dataclass(frozen=True, slots=True)
class Hold:
    """A free seat kept for the player who sat there in the session before (再来一场), so
    that the first player to go on cannot fill it with a bot or a newcomer take it.
    ``profile_id``: theirs (only a join with that profile takes the seat); ``until``: clock
    seconds after which the seat is free to anyone."""

    name: str
    profile_id: int | None
    until: float


def replay_hand(
    options: Any,
    seed: str,
    dealer: int,
    dealer_streak: int,
    actions: list[tuple[int, dict[str, Any]]],
    weekday: int | None = None,
    game: Game | None = None,
    *,
    on_state: Callable[[Any], None] | None = None,
) -> tuple[Any, int]:
    """Rebuild a hand's state from its seed and action log (`server.rules.replay.replay`).

    ``actions`` is the store's ``hand_actions`` list: ``[(seat, payload), ...]`` with
    ``payload = {"action": Action.to_dict(), "source": ...}``; ``weekday`` is the one stored
    with the hand (星期鸡), never today's; ``game`` defaults to the default game. Returns
    ``(state, version)`` where ``version`` is the number of events the actions produced (the
    hand's event counter). A decided claim window is closed before the next action and at
    the end, as the live room closes it. ``on_state`` (if given) sees every state the live
    room went through: the deal, then the state after each action and each closed window.
    Raises ``IllegalAction`` if the log does not replay (a corrupt log).
    """
    done = replay(
        game or find_game(DEFAULT_GAME),
        options,
        log_steps(actions),
        seed=seed,
        dealer=dealer,
        dealer_streak=dealer_streak,
        weekday=weekday,
        on_state=on_state,
    )
    return done.state, done.version


def replay_link(hand_id: int | None, key: str | None) -> dict[str, Any] | None:
    """A hand's replay link as its seats get it with the settlement (``hand_end.replay``):
    ``{"hand_id", "key", "url": "/replay?hand=<id>&key=<key>"}``; None without a key."""
    if hand_id is None or key is None:
        return None
    return {"hand_id": hand_id, "key": key, "url": f"/replay?hand={hand_id}&key={key}"}


def previous_hand(
    hand_no: int, settlement: dict[str, Any], replay: dict[str, Any] | None
) -> dict[str, Any]:
    """The settled hand ``hand_no`` as a later snapshot carries it (`RoomActor.previous`)."""
    return {"hand_no": hand_no, "settlement": settlement, "replay": replay}


@dataclass
class RoomActor:
    """The actor of room ``code``. Construct, fill ``seats``, then ``start()``.

    ``status``: ``"open"`` (seats free), ``"playing"`` (a hand in progress), ``"between"``
    (waiting for ``ready`` after a hand), ``"finished"`` (all ``options["hands"]`` played),
    ``"dissolved"`` (ended early by a unanimous vote; the hand in progress is not settled).

    The actor holds the game state and decides; its collaborators each own one part of the
    room: ``prompts`` (:class:`Prompts`: prompt numbers, seat timers, time banks, the ready
    timer), ``claims`` (:class:`ClaimHold`: what a claim window keeps private and how long
    it is held), ``publisher`` (:class:`Publisher`: audiences, stamps, one-round-trip
    sends, the bus's health), ``outages`` (:class:`Outages`: retries of the store and the
    bus, ``degraded``, re-arms), ``legal`` (:class:`LegalActions`), ``vote``
    (:class:`DissolveVote`) and ``phrases`` (:class:`PhraseLimit`).
    """

    code: str
    options: dict[str, Any]
    store: Any
    bus: Any
    clock: Clock = field(default_factory=RealClock)
    timing: Timing = field(default_factory=Timing)
    seats: list[Seat] = field(default_factory=list)
    status: str = "open"
    hand_no: int = 0
    dealer: int = 0
    dealer_streak: int = 1
    totals: list[int] = field(default_factory=list)
    state: Any = None
    version: int = 0
    action_idx: int = 0
    auto: set[int] = field(default_factory=set)
    ready: set[int] = field(default_factory=set)
    last_settlement: dict[str, Any] | None = None
    #: The current hand's replay link (`replay_link`), sent to the seats once it is settled.
    last_replay: dict[str, Any] | None = None
    #: While a hand is played, the one settled before it: ``{"hand_no", "settlement",
    #: "replay"}`` (None before the second hand): a page that was away over the deal shows
    #: it as 上局结算 (`snapshot.previous`).
    previous: dict[str, Any] | None = None
    #: Where each hand's seed comes from (tests inject fixed seeds).
    new_seed: Callable[[], str] = field(default=lambda: secrets.token_hex(16))
    #: The rules this room plays.
    game: Game = field(default_factory=lambda: find_game(DEFAULT_GAME))
    #: In a cluster: this tenure's lease generation, logged with each action (fencing).
    lease_gen: int | None = None
    #: In a cluster: proves the lease is still held before a durable write (False: lost);
    #: with ``True`` it asks Redis even if the lease looks valid locally.
    lease_check: Callable[[bool], Awaitable[bool]] | None = None
    #: Delays between retries of a store write or publish that failed (`Outages.retry`).
    backoff: AbstractBackoff = field(default_factory=retry_backoff)
    #: Draws the ``claim_hold="mimic"`` holds (tests inject a seeded ``random.Random``).
    hold_rng: random.Random = field(default_factory=BufferedSystemRandom)
    #: Free seats kept for the last session's players, by seat (`held`; set by the manager's
    #: 再来一场).
    holds: dict[int, Hold] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.opts = self.game.options(self.options)
        self.options = self.opts.model_dump()
        self.players: int = self.opts.players
        if not self.totals:
            self.totals = [0] * self.players
        self.inbox = Inbox()
        self._task: asyncio.Task[None] | None = None
        # The collaborators, each owning its part of the room (they only post commands
        # to the inbox, or call back what they are given). What they call back reaches the
        # actor through a weak proxy: no reference cycle, so a room let go (unloaded) is
        # freed at once by reference counting, never left to the cyclic collector.
        me = weakref.proxy(self)
        #: Prompt windows, seat timers, time banks, the ready timer.
        self.prompts = Prompts(
            self.players,
            self.clock,
            self.timing,
            lambda seat, window: me.inbox.put_nowait(Timeout(seat, window)),
            lambda window: me.inbox.put_nowait(ReadyTimeout(window)),
        )
        #: How the room's messages reach its audiences (and the bus's health).
        self.publisher = Publisher(
            self.code,
            self.bus,
            self.clock,
            self.game,
            self.players,
            lambda seat: any(s.seat == seat and s.bot for s in me.seats),
            lambda attempt: me.outages.retry(BUS, attempt, write=False),
        )
        # Claim-window privacy (issue 16): while a claim window is open the other seats are
        # shown the auto flags and presence of its opening, and ``auto`` / ``room``
        # publications wait until it has closed (`_flush_held`).
        self.claims = ClaimHold(self.timing, self.hold_rng, lambda: me._claim_open())
        #: Store and bus retries; the services the room waits for (``outages.degraded``).
        self.outages = Outages(
            self.code,
            lambda: me.backoff,
            self.publisher.announce,
            lambda verify: me._fenced(verify),
            lambda: me._stopping,
        )
        #: The legal actions of every seat, computed once per state.
        self.legal = LegalActions(self.game, self.players)
        #: The dissolve vote (at most one open).
        self.vote = DissolveVote(
            self.players,
            self.clock,
            self.timing.vote_seconds,
            lambda number: me.inbox.put_nowait(VoteTimeout(number)),
        )
        #: Quick phrases' rate limit.
        self.phrases = PhraseLimit(self.clock)
        self._resolving = -1  # the claim window whose closing is scheduled
        self._resolve_now: int | None = None  # ... and due now (`_complete_change`)
        self.connected: dict[int, int] = {}
        #: Seats that have had a socket (`_away`).
        self._ever_connected: set[int] = set()
        #: Sockets per seat on each server process of a cluster (process id -> seat -> n).
        self.presence: dict[str, dict[int, int]] = {}
        self._busy = 0
        self._started = asyncio.Event()
        #: Bot moves and timer commands parked while the room is paused (`paused`).
        self._parked: list[Command] = []
        #: Clock time of the last command handled (the manager unloads long-idle rooms).
        self.last_active = self.clock.now()
        #: Set by :meth:`stop`: no command is started and nothing durable written any more.
        self._stopping = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def full(self) -> bool:
        """True when every seat is taken."""
        return len(self.seats) >= self.players

    @property
    def running(self) -> bool:
        """True while the actor's task runs."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the actor's task; it deals the first hand unless a rebuilt hand is loaded."""
        if self.running:
            return
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room-{self.code}")

    async def wait_started(self, timeout: float = 10.0) -> None:
        """Wait until the started actor has dealt (or resumed) its hand."""
        async with asyncio.timeout(timeout):
            await self._started.wait()

    async def stop(self, timeout: float = 2.0) -> bool:
        """Stop the actor within about ``timeout`` seconds, whatever the bus or the store
        do; the room can be rebuilt from the store later (by this or another process).

        Timers are cancelled and the loop is told to stop by a command (:class:`Stop`): no
        further command starts, nothing more is written (``_fenced`` refuses), and every
        queued command's caller gets ``RoomError("unavailable")`` (a forwarded call then
        goes to the room's next owner). The command in progress gets until ``timeout``;
        then the task is cancelled and given a quarter of a second more; a task that
        ignores even that (cancellation swallowed in a client library) is left behind
        (:mod:`server.room.bounded`). Returns True if the task ended."""
        self._stopping = True
        self.prompts.stop()
        self.vote.cancel()
        self.outages.cancel_rearm()
        task, ended = self._task, True
        if task is not None:
            self.inbox.put_nowait(Stop())
            ended = await settle([task], timeout, what=f"room {self.code} actor")
            self._task = None
        self._refuse_queued()
        return ended

    def _refuse_queued(self) -> None:
        """Fail every queued command's caller with ``unavailable`` (the actor stopped)."""
        while not self.inbox.empty():
            fut = self.inbox.get_nowait().future
            if fut is not None and not fut.done():
                fut.set_exception(RoomError("unavailable", f"room {self.code} is moving"))

    async def idle(self, timeout: float = 10.0) -> None:
        """Wait (real time, at most ``timeout`` s) until the actor has nothing to do: inbox
        empty and no command in progress. For tests driving a :class:`ManualClock`."""
        async with asyncio.timeout(timeout):
            quiet = 0
            while quiet < 5:
                await asyncio.sleep(0.001 if self._busy else 0)
                quiet = quiet + 1 if self.inbox.empty() and self._busy == 0 else 0

    # ------------------------------------------------------------------ public commands

    async def submit(self, cmd: Command) -> Any:
        """Put ``cmd`` in the inbox and wait for its result. Raises :class:`RoomError`; from
        an actor that does not run, at once (`_refusal_unstarted`): nothing would ever take
        the command, and its caller (a socket's reader) would wait for good."""
        if self._stopping:
            raise RoomError("unavailable", f"room {self.code} is moving")
        if not self.running:
            raise self._refusal_unstarted(cmd)
        fut: asyncio.Future[Any] = running_loop().create_future()
        cmd.future = fut
        self.inbox.put_nowait(cmd)
        return await fut

    def _refusal_unstarted(self, cmd: Command) -> RoomError:
        """The refusal of ``cmd`` by an actor that does not run. The manager starts a room
        only once it is full and while its session is not over: a room waiting for players,
        or finished or dissolved (and rebuilt from the store), has no hand to play, and the
        command is refused as the running actor refuses it then (``not_between_hands``,
        ``no_session``, ``no_hand``). Any other room is between owners: ``unavailable``."""
        if self.status not in ("open", "finished", "dissolved"):
            return RoomError("unavailable", f"room {self.code} is not running here")
        match cmd:
            case Ready():
                return RoomError("not_between_hands", "ready is only for the pause between hands")
            case Dissolve():
                return RoomError("no_session", "there is no session in progress to dissolve")
            case _:
                return RoomError("no_hand", "no hand in progress")

    async def act(
        self, seat: int, action: Action, prompt: int | None = None, again: bool = False
    ) -> None:
        """A player's action, answering prompt number ``prompt`` (None: the current one).
        ``again``: sent again by a process that lost the reply to its first copy
        (`ReplyLost`); if that first copy was taken (the seat's last answer is this action
        on this prompt), this one is done and changes nothing.

        A claim answer is accepted while its window is open, even once the window's outcome
        is decided without it (spec §3: it loses to the higher claim); the room closes a
        decided window after ``claim_min_ms`` without waiting for the other answers.

        Raises :class:`RoomError` and changes nothing when refused: ``stale_prompt`` (``prompt``
        is not the current prompt, e.g. an answer to a claim window already closed, or the
        seat already answered the current prompt), ``illegal_action``, ``not_your_turn``,
        ``no_hand``."""
        await self.submit(Act(seat, action, prompt, self.clock.now(), again))

    async def vote_dissolve(self, seat: int, agree: bool) -> None:
        """Seat ``seat`` votes on dissolving the room; ``agree=True`` with no vote open opens
        one. Bots always agree; when every seat agrees, or ``vote_seconds`` pass with nobody
        refusing (silence agrees), the room is dissolved; one ``False`` ends the vote. Between
        hands the next deal waits for an open vote.

        Raises :class:`RoomError`: ``no_session`` (the room is not playing or between hands),
        ``no_vote`` (``agree=False`` without an open vote), ``already_voted``,
        ``vote_too_soon`` (the seat's own proposal was refused less than a minute ago)."""
        await self.submit(Dissolve(seat, agree))

    async def mark_ready(self, seat: int) -> None:
        """Seat ``seat`` is ready for the next hand (ignored when no hand is awaited)."""
        await self.submit(Ready(seat))

    async def refresh_totals(self) -> None:
        """An admin voided or adjusted one of the session's hands: its totals (table scores,
        final standings) are read again from the store, which applies the corrections, and
        every audience is told (``room``). In the actor's turn while it runs (no hand's
        settlement crosses the read); at once in a room that does not run (its session
        over, or not begun)."""
        if self.running and not self._stopping:
            await self.submit(RefreshTotals())
        else:
            await self._refresh_totals()

    async def _refresh_totals(self) -> None:
        self.totals = await self.store.totals(self.code)
        await self.publish_room()

    async def set_auto(self, seat: int, on: bool) -> None:
        """Turn auto-play (托管) on or off for ``seat``. Raises :class:`RoomError`
        ``no_hand`` once the session is over (or before it starts)."""
        await self.submit(SetAuto(seat, on))

    async def snapshot(self, seat: int | None) -> dict[str, Any]:
        """A ``snapshot`` message for ``seat`` (``None`` = spectator), consistent with the
        event stream: every later event has a higher ``version``. While the room waits for
        a failed service it is answered at once (from the state before the waiting command's
        change, or after it if only its publish waits: either is consistent)."""
        if not self.running or self.outages.waiting:
            return self._snapshot(seat)
        return await self.submit(Snapshot(seat))

    async def quick_phrase(self, seat: int, phrase: str) -> None:
        """Seat ``seat`` says quick phrase ``phrase`` (an id of ``PHRASES``): every
        audience (the seats and the spectators) gets ``{"type": "phrase", "seat", "phrase"}``.
        Changes no game state and logs nothing; safe to call from outside the actor's task.

        Raises :class:`RoomError` and sends nothing: ``unknown_phrase`` (not an id of the
        list), ``phrase_rate_limited`` (the seat's previous phrase was less than
        ``PHRASE_SECONDS`` seconds ago, by the room's clock; `PhraseLimit`)."""
        self.phrases.say(seat, phrase)
        await self.publisher.publish_all({"type": "phrase", "seat": seat, "phrase": phrase})

    # ------------------------------------------------------------------ read-only info

    def info(self) -> dict[str, Any]:
        """The room as ``GET /api/rooms/{code}`` shows it. While a claim window is open the
        seats' ``connected`` / ``auto`` are those of the window's opening (issue 16)."""
        shown = self.claims.shown_now()
        return {
            "code": self.code,
            "game": self.game.name,
            "options": self.options,
            "seats": [
                {
                    "seat": s.seat,
                    "name": s.name,
                    "bot": s.bot,
                    "connected": s.bot
                    or (shown[1].get(s.seat, False) if shown else self._sockets(s.seat) > 0),
                    "auto": s.seat in (shown[0] if shown else self.auto),
                }
                for s in self.seats
            ],
            "held": [
                {"seat": s, "name": h.name, "until": int(h.until * 1000)}
                for s, h in sorted(self.held().items())
            ],
            "hand_no": self.hand_no,
            "hands": self.opts.hands,
            "totals": list(self.totals),
            "dealer": self.dealer,
            "dealer_streak": self.dealer_streak,
            "status": self.status,
        }

    def held(self) -> dict[int, Hold]:
        """The free seats still kept for the last session's players (`Hold`), by seat:
        neither taken since nor past their time."""
        if not self.holds:
            return {}
        now, taken = self.clock.now(), {s.seat for s in self.seats}
        return {s: h for s, h in self.holds.items() if h.until > now and s not in taken}

    def ready_waiting(self) -> list[int]:
        """Seats whose ``ready`` the room still waits for (empty unless ``between``)."""
        if self.status != "between":
            return []
        return [s for s in range(self.players) if s not in self.ready]

    def _deadline_for(self, seat: int | None) -> int | None:
        """The deadline (ms) ``seat``'s audience is shown (`Prompts.deadline_for`)."""
        return self.prompts.deadline_for(seat, between=self.status == "between")

    def _bank_from(self, seat: int | None) -> int | None:
        """When (ms) the shown timer's own limit ends and its bank begins
        (`Prompts.bank_from`)."""
        return self.prompts.bank_from(seat, between=self.status == "between")

    def _acting(self) -> list[int]:
        """The seats that owe an answer now (those with a legal action)."""
        return [s for s, legal in self.legal.of(self.state).items() if legal]

    def _legal(self, seat: int | None) -> list[dict[str, Any]]:
        """``seat``'s legal actions as sent (none for spectators, between or after hands)."""
        if seat is None or self.state is None or self.game.ended(self.state):
            return []
        if self.status != "playing":
            return []
        return self.legal.wire(self.state, seat)

    def _view(self, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s view of the state as the room sends it: without the game's
        ``settlement`` field (an ended hand's settlement goes once, as the message's own
        ``settlement``, once it is settled)."""
        return self._views([seat])[seat]

    def _views(self, audiences: Sequence[int | None]) -> dict[int | None, dict[str, Any] | None]:
        """`_view` of each of ``audiences`` (``Game.views``: the public part built once)."""
        if self.state is None:
            return dict.fromkeys(audiences)
        out: dict[int | None, dict[str, Any] | None] = {}
        for aud, view in zip(audiences, self.game.views(self.state, audiences), strict=True):
            wire = view.to_dict()
            wire.pop("settlement", None)
            out[aud] = wire
        return out

    def _change_views(
        self, audiences: Sequence[int | None] | None = None
    ) -> Callable[[int | None], dict[str, Any] | None]:
        """The views of the state after a change, for `Publisher.each`'s messages: made for
        ``audiences`` (default: every listening one) together on the first ask."""
        views: dict[int | None, dict[str, Any] | None] = {}

        def view_of(aud: int | None) -> dict[str, Any] | None:
            if aud not in views:
                views.update(
                    self._views(self.publisher.listening() if audiences is None else audiences)
                )
                if aud not in views:
                    views.update(self._views([aud]))
            return views[aud]

        return view_of

    def _snapshot(self, seat: int | None) -> dict[str, Any]:
        self.publisher.handed(seat, self.hand_no, self.version)
        return {
            "type": "snapshot",
            "hand_no": self.hand_no,
            "version": self.version,
            "prompt": self.prompts.window,
            "seat": seat,
            "view": self._view(seat),
            "legal": self._legal(seat),
            "deadline": self._deadline_for(seat),
            "bank_from": self._bank_from(seat),
            "auto": seat in self.auto if seat is not None else False,
            "room": self.info(),
            "settlement": self.last_settlement
            if self.status in ("between", "finished", "dissolved")
            else None,
            "replay": self._replay_for(seat)
            if self.status in ("between", "finished", "dissolved")
            else None,
            "previous": self._previous_for(seat) if self.status == "playing" else None,
            "vote": self.vote.message() if self.vote.is_open else None,
            "ready": sorted(self.ready) if self.status == "between" else [],
            "standings": self.standings() if self.status in ("finished", "dissolved") else None,
            "degraded": sorted(self.outages.degraded),
        }

    def _replay_for(self, seat: int | None) -> dict[str, Any] | None:
        """The settled hand's replay link for ``seat``'s audience: the seats only, never
        spectators, and only once the hand is settled (the key must not leak before)."""
        if seat is None or self.last_settlement is None:
            return None
        return self.last_replay

    def _previous_for(self, seat: int | None) -> dict[str, Any] | None:
        """The hand settled before this one, for ``seat``'s audience: its replay link for
        the seats only, as ``_replay_for``."""
        if self.previous is None or seat is not None:
            return self.previous
        return {**self.previous, "replay": None}

    def standings(self) -> list[dict[str, Any]]:
        """The session's standing: ``[{"seat", "name", "total", "rank"}]``, best first (rank 1;
        equal totals share a rank; ties keep seat order)."""
        names = {s.seat: s.name for s in self.seats}
        order = sorted(range(self.players), key=lambda s: (-self.totals[s], s))
        return [
            {
                "seat": s,
                "name": names.get(s, ""),
                "total": self.totals[s],
                "rank": 1 + sum(1 for t in self.totals if t > self.totals[s]),
            }
            for s in order
        ]

    def _sockets(self, seat: int) -> int:
        """Open sockets of ``seat``: this process's and (in a cluster) every process's."""
        return self.connected.get(seat, 0) + sum(p.get(seat, 0) for p in self.presence.values())

    async def publish_snapshots(self) -> None:
        """Send every audience that may listen a fresh snapshot, in the actor's order (so
        later events' ``prev_version`` follows it): what a process that took the room over
        does, since sockets may have missed what the previous owner never published. The
        bus's errors propagate."""
        await self.submit(PublishSnapshots())

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        self._busy += 1
        try:
            try:
                if self.state is None and self.status in ("open", "playing"):
                    await self._start_hand()
                elif (
                    self.state is not None
                    and self.game.ended(self.state)
                    and self.status == "playing"
                ):
                    await self._end_hand()  # rebuilt after a crash between last action and settle
                elif self.status == "between":
                    self.prompts.reopen()  # (the same number: `_begin_ready` opens it)
                    self._begin_ready()
                elif self.status == "playing":
                    self.prompts.reopen()  # (the same number: `_after_change` opens it)
                    self._after_change()
                    await self._resolve_due()
            except asyncio.CancelledError:
                raise
            except Exception:  # the room stays alive: it is re-armed from its state
                log.exception("room %s: starting failed; re-arming", self.code)
                self._schedule_rearm()
            else:
                self._started.set()
            self._busy -= 1
            while not self._stopping:
                cmd = await self.inbox.get()
                if self._stopping or isinstance(cmd, Stop):
                    if cmd.future is not None and not cmd.future.done():
                        cmd.future.set_exception(
                            RoomError("unavailable", f"room {self.code} is moving")
                        )
                    break
                if cmd.future is None and not isinstance(cmd, Start) and self.paused:
                    self._parked.append(cmd)  # resumed by `publish_room` once watched
                    continue
                self.last_active = self.clock.now()
                self._busy += 1
                try:
                    result = await self._handle(cmd)
                except RoomError as err:
                    if cmd.future is not None and not cmd.future.done():
                        cmd.future.set_exception(err)
                    if err.code in FAILURES:  # not a refusal: whatever it left undone
                        self._schedule_rearm()
                except asyncio.CancelledError:
                    raise
                except Exception as err:  # a bug: keep the room alive, tell the caller
                    log.exception("room %s: command %s failed", self.code, type(cmd).__name__)
                    if cmd.future is not None and not cmd.future.done():
                        # no details: an exception's text may hold hidden state
                        cmd.future.set_exception(
                            RoomError("internal", f"server error ({type(err).__name__})")
                        )
                    self._schedule_rearm()
                else:
                    if cmd.future is not None and not cmd.future.done():
                        cmd.future.set_result(result)
                    if isinstance(cmd, Rearm):
                        self.outages.rearmed()
                        self._started.set()
                finally:
                    try:
                        await self._resolve_due()
                        await self._flush_held()
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("room %s: closing a claim window failed", self.code)
                        self._schedule_rearm()
                    self._busy -= 1
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: actor crashed", self.code)
            raise

    async def _resolve_due(self) -> None:
        """Close a decided claim window that needs no minimum wait and that its change left
        open (`_complete_change` found commands queued then) at the end of the command,
        unless other commands are still queued (they come first, as they would before a
        queued `Resolve`)."""
        while (window := self._resolve_now) is not None:
            self._resolve_now = None
            if self.inbox.empty():
                await self._resolve(window)
            else:
                self.inbox.put_nowait(Resolve(window))

    async def _handle(self, cmd: Command) -> Any:
        match cmd:
            case Snapshot(seat=seat):
                return self._snapshot(seat)
            case PublishSnapshots():
                await self.publisher.each(self._snapshot)
            case Act(seat=seat, action=action, prompt=prompt, at=at, again=again):
                await self._act(seat, action, prompt, cmd.future, at, again)
            case BotMove(seat=seat, window=window) | Timeout(seat=seat, window=window):
                await self._auto_move(cmd, seat, window)
            case Resolve(window=window):
                await self._resolve(window)
            case Ready(seat=seat):
                if self.status != "between":
                    raise RoomError(
                        "not_between_hands", "ready is only for the pause between hands"
                    )
                self.ready.add(seat)
                await self.publisher.publish_all({"type": "ready", "ready": sorted(self.ready)})
                if self._deal_due():
                    await self._next_hand()
            case ReadyTimeout(window=window):
                if window == self.prompts.window and self._deal_due(timed_out=True):
                    await self._next_hand()
            case SetAuto(seat=seat, on=on):
                if self.status in ("finished", "dissolved"):
                    raise RoomError("no_hand", "no hand in progress")  # nothing left to play
                changed = (seat in self.auto) != on
                if on:
                    self.auto.add(seat)
                else:
                    self.auto.discard(seat)
                if not changed:
                    return
                # (between hands too: no timer to re-arm, but the flag is shown at once)
                in_play = self.state is not None and not self.game.ended(self.state)
                if in_play:
                    self._reset_timer(seat)
                await self._publish_auto(seat)
                if in_play and seat in self.prompts.timers and self.publisher.has_listener(seat):
                    # its timer was re-armed (the auto delay, or what is left of its
                    # limit and bank): its countdown must show the new deadline
                    await self.publisher.publish(seat, self._snapshot(seat))
            case RefreshTotals():
                await self._refresh_totals()
            case Presence():
                # a seat gone away (or back) in its timer: re-armed without (with) its bank
                for seat, timer in list(self.prompts.timers.items()):
                    if not timer.auto and timer.banked == self._away(seat):
                        self._set_timer(seat, timer.window, resume=True)
            case Start():
                if self.state is None and self.status == "open":
                    await self._start_hand()
            case Dissolve(seat=seat, agree=agree):
                await self._vote(seat, agree)
            case VoteTimeout(window=window):
                if self.vote.is_open and window == self.vote.number:
                    await self._dissolve()  # nobody refused in time: silence agrees
            case Rearm():
                await self._rearm()
            case _:
                raise RoomError("bad_message", f"unknown command {type(cmd).__name__}")
        return None

    async def _act(
        self,
        seat: int,
        action: Action,
        prompt: int | None,
        future: asyncio.Future[Any] | None,
        at: float | None = None,
        again: bool = False,
    ) -> None:
        """A player's action (`act`, received at clock time ``at``), refused as
        ``stale_prompt`` when it answers an old or an already answered prompt; a copy sent
        ``again`` of the answer this seat's player gave last is done already."""
        if again and self.prompts.last_answer.get(seat) == (prompt, action):
            return  # the first copy was taken; its reply was lost
        window = self.prompts.window
        if prompt is not None and prompt != window:
            state = "is over" if prompt < window else "has not opened"
            raise RoomError(
                "stale_prompt", f"prompt {prompt} {state} (the current prompt is {window})"
            )
        if seat in self.prompts.answered and self.status == "playing":
            raise RoomError("stale_prompt", f"this seat already answered prompt {window}")
        await self._apply(seat, action, "player", future, at)
        self.prompts.last_answer[seat] = (window, action)

    async def _auto_move(self, cmd: BotMove | Timeout, seat: int, window: int) -> None:
        """A bot's move, or the default action of a seat whose timer fired (托管)."""
        if window != self.prompts.window or self.state is None or self.game.ended(self.state):
            return
        if seat not in self._acting():
            return
        if isinstance(cmd, BotMove):
            legal = self.legal.of(self.state)[seat]
            action, source = self.game.bot_action(self.state, seat, legal), "bot"
        else:
            timer = self.prompts.timers.get(seat)
            if timer is None or timer.window != window:
                return
            source = "auto" if timer.auto else "timeout"
            action = self.game.default_action(self.state, seat)
            if source == "timeout" and not self._timer_trusted(timer):
                # The bus failed while this seat's time ran: its prompt may never have
                # reached it. Send it again (a fresh snapshot) and give it a full new time.
                self._set_timer(seat, window)
                try:
                    if self.publisher.has_listener(seat):
                        await self.publisher.publish(seat, self._snapshot(seat))
                    self.prompts.timers[seat].sent = self.clock.now()  # counts from delivery
                except Exception as err:
                    log.warning("room %s: seat %d's prompt not resent (%r)", self.code, seat, err)
                return
            if source == "timeout":
                banks = self.prompts.bank
                bank, banks[seat] = banks[seat], 0.0
                # A claim timeout tells nobody that the seat could claim: no 托管 for it
                # (the seat's next turn times out as any other, issue 16).
                if self.game.prompt_kind(self.state) != "claim":
                    self.auto.add(seat)
                    try:
                        await self._publish_auto(seat)
                    except Exception:  # nobody can be told: the seat is not timed out now
                        self.auto.discard(seat)
                        banks[seat] = bank
                        self._set_timer(seat, window)
                        raise
        try:
            await self._apply(seat, action, source, None)
        except RoomError as err:
            if self._stopping:  # the room is moving: its next owner plays this seat
                log.debug("room %s: %s action left to the next owner", self.code, source)
                return
            if err.code in FAILURES:
                raise  # not a refusal: the room is re-armed (`_run`)
            log.exception("room %s: %s action refused", self.code, source)
            fallback = self.game.default_action(self.state, seat)
            if fallback != action:  # a bot's refused move must not leave its turn unplayed
                await self._apply(seat, fallback, source, None)

    # ------------------------------------------------------------------ hands

    async def _fenced(self, verify: bool = False) -> None:
        """Before a durable write: refuse it if this process no longer holds the room (or
        is stopping it)."""
        if self._stopping:
            raise RoomError("unavailable", f"room {self.code} is moving")
        if self.lease_check is not None and not await self.lease_check(verify):
            raise RoomError("unavailable", f"room {self.code} moved to another server")

    def _schedule_rearm(self) -> None:
        """After a failed command: queue a :class:`Rearm` after a backoff delay
        (`Outages.schedule_rearm`)."""
        self.outages.schedule_rearm(lambda: self.inbox.put_nowait(Rearm()))

    async def _rearm(self) -> None:
        """Schedule again, from the state, whatever the room waits for: the deal of a hand
        (first, next), the settlement of an ended hand, a move of every bot that must act,
        the timer of every human seat that must act, the closing of a decided claim window.
        Called after a failed command (`_schedule_rearm`), so that no failure leaves a turn
        nobody will play. Doubles are harmless: stale window numbers are ignored."""
        if self.status in ("finished", "dissolved"):
            return
        if self.state is None:
            if self.full and self.status in ("open", "playing"):
                await self._start_hand()
            return
        if self.status == "between":
            if self.prompts.ready_timer is None:  # the next deal failed after the wait for ready
                await self._next_hand()
            return
        if self.status != "playing":
            return
        if self.game.ended(self.state):
            await self._end_hand()  # the settlement failed
            return
        window = self.prompts.window
        for seat in self._acting():
            if self.seats[seat].bot:
                self.inbox.put_nowait(BotMove(seat, window))
            elif (timer := self.prompts.timers.get(seat)) is None or timer.window != window:
                self._set_timer(seat, window)
        if self.game.claims_decided(self.state):
            # held as long as without the failure: a window closed at once would tell the
            # seats nobody could claim
            self._schedule_resolve(window, self._resolve_delay())

    async def _start_hand(self) -> None:
        await self._fenced()
        hand_no, dealer, streak = self.hand_no + 1, self.dealer, self.dealer_streak
        seed = self.new_seed()
        weekday = self.game.weekday_at(self.opts, self.clock.now())  # taken at the deal, stored

        found: list[Any] = []

        async def started() -> bool:  # did an attempt whose answer was lost commit?
            hands = await self.store.hands(self.code)
            found[:] = [h for h in hands if h.hand_no == hand_no and h.seed == seed]
            return bool(found)

        status = "playing" if self.status != "playing" else None  # set in the same write
        result = await self.outages.retry(
            DATABASE,
            lambda: self.store.start_hand(
                self.code, hand_no, seed, dealer, streak, weekday, status=status
            ),
            committed=started,
        )
        record = result if result is not None else (found[0] if found else None)
        if self.last_settlement is not None:
            self.previous = previous_hand(self.hand_no, self.last_settlement, self.last_replay)
        self.hand_no = hand_no
        self.last_replay = replay_link(
            getattr(record, "id", None), getattr(record, "replay_key", None)
        )
        self.state = self.game.deal(self.opts, seed, self.dealer, self.dealer_streak, weekday)
        self.version = 0
        self.action_idx = 0
        # 托管 stays on from hand to hand, as in the apps, until the seat acts or turns it off
        # (docs/protocol.md, Timers and auto-play): a player who walked away stays away
        self.ready.clear()
        self.prompts.fill_banks()
        self.last_settlement = None
        self.status = "playing"
        self.prompts.start_hand(self.hand_no)
        self._after_change()
        await self.publisher.each(self._snapshot)
        if self.game.ended(self.state):  # ended at the deal (Jintan's eight flowers, §J2)
            await self._end_hand()

    async def _apply(
        self,
        seat: int,
        action: Action,
        source: str,
        future: asyncio.Future[Any] | None,
        at: float | None = None,
    ) -> None:
        """Apply ``seat``'s ``action`` once it is logged. ``at``: when the seat decided (a
        player's action: when it was received; else now): its time bank and claim decision
        time count until then, never the time the room then waits for its database (a
        10 s outage must not become a 10 s decision that ``claim_hold="mimic"`` then holds
        every claim window for)."""
        decided = self.clock.now() if at is None else at
        if self.state is None or self.game.ended(self.state) or self.status != "playing":
            raise RoomError("no_hand", "no hand in progress")
        try:
            legal = self.legal.of(self.state).get(seat, [])  # computed once per state
            new_state, events = self.game.apply(self.state, seat, action, legal)
        except IllegalAction as err:
            raise RoomError(err.code, err.message)
        if source in ("player", "auto"):  # (托管 switched on late spends the bank too)
            self.prompts.use_bank(seat, decided)
        payload: dict[str, Any] = {"action": action.to_dict(), "source": source}
        if self.lease_gen is not None:
            payload["lease"] = self.lease_gen
        idx = self.action_idx

        async def logged() -> bool:  # did an attempt whose answer was lost commit?
            actions = await self.store.hand_actions(self.code, self.hand_no)
            return len(actions) > idx and _same(actions[idx], (seat, payload))

        await self.outages.retry(
            DATABASE,
            lambda: self.store.append_action(self.code, self.hand_no, idx, seat, payload),
            committed=logged,
        )
        self.action_idx += 1
        self._note_claim_answer(seat, decided)
        # From the new state to its version and prompt number (`_complete_change`, first in
        # `_publish_events`) nothing awaits: a snapshot served meanwhile (`snapshot` while
        # the bus or the store is away) must not show the new state under the old numbers.
        self.state = new_state
        self.prompts.answered.add(seat)
        back = source == "player" and seat in self.auto  # a player takes the seat back
        if back:
            self.auto.discard(seat)
        if future is not None and not future.done():
            future.set_result(None)
        published = await self._publish_events(events)
        if back:
            await self._publish_auto(seat)
        if not published and self.publisher.has_listener(seat):
            # a claim answer that changed nothing public and did not close the window: only
            # its seat learns of it, by a fresh snapshot
            await self.publisher.publish(seat, self._snapshot(seat))

    async def _resolve(self, window: int) -> None:
        """Close the decided claim window ``window`` (scheduled by `_after_change`)."""
        if window != self.prompts.window or self.status != "playing" or self.state is None:
            return
        if not self.game.claims_decided(self.state):
            return
        self.state, events = self.game.resolve_claims(self.state)
        await self._publish_events(events)

    async def _publish_events(self, events: list[Event]) -> bool:
        """Re-arm prompts and timers and publish the change ``events`` made: **one message
        per audience that listens** (an ``event`` with the change's ``events`` projected for
        that audience, the new ``version``, the prompt, and the audience's view, legal
        actions and deadline, each computed once), all in one round trip. A claim window
        the change left decided, with no minimum wait and no command queued, is closed
        first (`_complete_change`): its events join this change's message (a discard nobody
        may claim and the next draw are one message, not two). A change that ends the hand
        is published as its ``hand_end`` instead (`_end_hand`), after the settlement is
        stored. Returns False when nothing was published (no events)."""
        assert self.state is not None
        events = self._complete_change(events)
        if self.game.ended(self.state):
            await self._end_hand(events)
            return True
        if not events:
            return False

        audiences = self.publisher.listening()  # (asked once: it counts subscriptions)
        view_of = self._change_views(audiences)

        def message(aud: int | None) -> dict[str, Any] | None:
            projected = self.publisher.project(events, aud)
            if not projected:  # nothing of this change is for this audience
                return None
            return {
                "type": "event",
                "hand_no": self.hand_no,
                "version": self.version,
                "prompt": self.prompts.window,
                "events": projected,
                "view": view_of(aud),
                "legal": self._legal(aud),
                "deadline": self._deadline_for(aud),
                "bank_from": self._bank_from(aud),
            }

        await self.publisher.each(message, audiences)  # this change's messages, at once
        return True

    def _complete_change(self, events: list[Event]) -> list[Event]:
        """Count ``events`` in ``version`` (one per engine event, as the log replay counts
        them) and re-arm (`_after_change`); while that leaves a decided claim window due now
        (`_resolve_now`) and no command is queued (those come first, `_resolve_due`), close
        it here (`Game.resolve_claims`) and count its events too. Returns all the events,
        in order."""
        assert self.state is not None
        events = list(events)
        new = events
        while True:
            self.version += len(new)
            metrics.observe_change(e.type for e in new)
            if self.game.ended(self.state):
                return events
            self._after_change()
            if self._resolve_now is None or not self.inbox.empty():
                return events
            self._resolve_now = None  # (`_after_change` set it: the window is decided)
            self.state, new = self.game.resolve_claims(self.state)
            events += new

    async def _end_hand(self, events: list[Event] | None = None) -> None:
        """Settle the ended hand (once: stored with the room status and totals in one
        transaction) and publish it: one ``hand_end`` message per listening audience, with
        the ``events`` of the change that ended it (already counted in ``version``), the
        final view, the settlement (the only copy), totals and, for a seat, its replay
        link; after the last hand a ``session_end`` too."""
        await self._fenced()
        self.prompts.cancel_timers()
        typed = self.game.settle(self.state)
        assert typed is not None
        # The wire form, made once: stored, kept for snapshots and sent to every audience.
        settlement = typed.to_dict()
        last = self.hand_no >= self.opts.hands
        # settle + room status + totals in one transaction; the totals are kept here. Retried
        # as a whole: the settle is conditional on the hand being unsettled, so an attempt
        # whose answer was lost but committed makes the next one write nothing (and read
        # the committed totals).
        finished = await self.outages.retry(
            DATABASE,
            lambda: self.store.finish_hand(
                self.code,
                self.hand_no,
                settlement["result"],
                settlement,
                settlement["payments"],
                settlement["deltas"],
                status="finished" if last else "between",
                totals=self.totals,
            ),
        )
        self.totals = finished.totals
        metrics.observe_settlement()
        self.last_settlement = settlement
        next_dealer = typed.next_dealer
        self.dealer_streak = self.dealer_streak + 1 if next_dealer == self.dealer else 1
        self.dealer = next_dealer
        self.status = "finished" if last else "between"
        if not last:
            self._begin_ready()
        else:
            self.prompts.advance()  # the hand's last prompt is over: a late answer is stale
        self.version += 1

        view_of = self._change_views()

        def message(aud: int | None) -> dict[str, Any]:
            return {
                "type": "hand_end",
                "hand_no": self.hand_no,
                "version": self.version,
                "prompt": self.prompts.window,
                "events": self.publisher.project(events, aud),
                "view": view_of(aud),
                "legal": [],
                "settlement": settlement,
                "totals": list(self.totals),
                "next_hand": None if last else self.hand_no + 1,
                "deadline": self._deadline_for(None),
                "replay": self._replay_for(aud),
            }

        await self.publisher.each(message, retried=False)
        if last:
            await self._close_vote("finished")
            await self.publisher.publish_all(self._session_end(dissolved=False))

    def _session_end(self, dissolved: bool) -> dict[str, Any]:
        return {
            "type": "session_end",
            "totals": list(self.totals),
            "standings": self.standings(),
            "dissolved": dissolved,
        }

    # ------------------------------------------------------------------ dissolve vote

    async def _vote(self, seat: int, agree: bool) -> None:
        if self.status not in ("playing", "between"):
            raise RoomError("no_session", "there is no session in progress to dissolve")
        if agree and self.status == "playing" and sum(not s.bot for s in self.seats) == 1:
            # the bots would agree at once: a lone player could wipe out any hand going
            # badly while won ones count (战绩, the leaderboard); a "no" finds no vote
            raise RoomError(
                "hand_with_bots",
                "alone with bots, a hand in play is not dissolved: dissolve once it ends "
                "(托管 plays it out)",
            )
        outcome = self.vote.cast(seat, agree, (s.seat for s in self.seats if s.bot))
        if outcome == "refused":
            await self._close_vote("refused")
            if self._deal_due():  # the next deal waited for the vote
                await self._next_hand()
        elif outcome == "dissolved":
            await self._dissolve()
        else:
            await self.publisher.publish_all(self.vote.message())

    async def _close_vote(self, result: str) -> None:
        """End the open vote (if any) and tell everyone ``result``."""
        message = self.vote.close(result)
        if message is not None:
            await self.publisher.publish_all(message)

    async def _dissolve(self) -> None:
        """Every seat agreed: stop the session now. An unfinished hand is not settled."""
        await self._fenced()
        self.prompts.cancel_timers()
        self.prompts.end_ready()
        self.prompts.advance()
        if self.status == "playing":
            self.last_settlement = None
        self.status = "dissolved"
        await self.outages.retry(
            DATABASE, lambda: self.store.set_room_status(self.code, "dissolved")
        )
        await self._close_vote("dissolved")
        await self.publisher.publish_all(self._session_end(dissolved=True))

    def _deal_due(self, timed_out: bool = False) -> bool:
        """Between hands: is the next deal due? Every seat is ready or the ready time is over
        (``timed_out``: its timer just fired), and no dissolve vote is open: the deal waits
        for it (a hand dealt and then dissolved would be played for nothing)."""
        if self.status != "between" or self.vote.is_open:
            return False
        deadline = self.prompts.ready_deadline
        over = timed_out or (deadline is not None and self.clock.now() >= deadline)
        return over or len(self.ready) >= self.players

    def _begin_ready(self) -> None:
        self.prompts.advance()
        self.ready = {s.seat for s in self.seats if s.bot}
        self.prompts.start_ready()
        if len(self.ready) >= self.players:
            self.inbox.put_nowait(ReadyTimeout(self.prompts.window))

    async def _next_hand(self) -> None:
        self.prompts.end_ready()
        self.prompts.advance()
        await self._start_hand()

    async def publish_room(self, quiet: bool = False) -> None:
        """Tell every audience the room info changed (a seat taken, a socket came or went).
        Read-only: safe to call from outside the actor's task. Held while a claim window
        is open (sent when it closes); resumes a paused room that somebody watches now.
        ``quiet``: the info shown did not change (a spectator came or went): only resume."""
        if self._parked and not self.paused:
            parked, self._parked = self._parked, []
            for cmd in parked:
                self.inbox.put_nowait(cmd)
        if quiet:
            return
        # a seat's sockets changed: its timer loses (or gets back) its bank (`_away`)
        self._ever_connected.update(s for s in range(self.players) if self._sockets(s))
        if self.running and self.prompts.timers:
            self.inbox.put_nowait(Presence())
        if self.claims.defer("room"):
            return
        # one attempt: a failure is raised to the caller
        await self.publisher.broadcast({"type": "room", "room": self.info()})

    async def _publish_auto(self, seat: int) -> None:
        """Tell everyone the auto flags after ``seat``'s changed; in a claim window only
        ``seat`` itself is told now, the others once the window has closed."""
        if not self.claims.defer("auto"):
            await self.publisher.publish_all({"type": "auto", "auto": sorted(self.auto)})
            return
        if self.publisher.has_listener(seat):
            mine = self.claims.auto_for(seat, self.auto)
            await self.publisher.publish(seat, {"type": "auto", "auto": mine})

    # ------------------------------------------------------------------ claim-window privacy

    def _claim_open(self) -> bool:
        """True while a claim window of a hand in play is open."""
        return (
            self.prompts.kind == "claim"
            and self.status == "playing"
            and self.state is not None
            and not self.game.ended(self.state)
        )

    async def _flush_held(self) -> None:
        """Send the ``auto`` / ``room`` publications held during a claim window now closed."""
        held = self.claims.due()
        if "auto" in held:
            await self.publisher.publish_all({"type": "auto", "auto": sorted(self.auto)})
        if "room" in held:
            await self.publisher.publish_all({"type": "room", "room": self.info()})

    def _note_claim_answer(self, seat: int, decided: float) -> None:
        """``seat`` answered (or timed out on) the open claim window at clock time
        ``decided``: its decision time is kept if it was offered the window as a human
        (``claim_hold="mimic"``). (An answer received before the window opened, queued
        behind the command that opened it, took no time.)"""
        if self.prompts.kind == "claim":
            self.claims.note_answer(seat, max(0.0, decided - self.prompts.opened))

    # ------------------------------------------------------------------ unwatched rooms

    @property
    def watched(self) -> bool:
        """True while any socket (a seat's or a spectator's, on any process) is open."""
        here = sum(self.connected.values())
        return here + sum(sum(p.values()) for p in self.presence.values()) > 0

    @property
    def paused(self) -> bool:
        """True while the room parks its bot moves and timers: ``pause_unwatched`` applies
        (see :class:`Timing`) and nobody watches."""
        mode = self.timing.pause_unwatched
        if mode == "never" or self.status not in ("playing", "between") or self.watched:
            return False
        humans = [s.seat for s in self.seats if not s.bot]
        return not humans or (mode == "auto" and all(s in self.auto for s in humans))

    # ------------------------------------------------------------------ prompts & timers

    def _set_timer(self, seat: int, window: int, *, resume: bool = False) -> None:
        """(Re)arm ``seat``'s timer for ``window`` for the current prompt (`Prompts.set_timer`);
        a seat whose player went away (`_away`) gets no time bank."""
        claim = self.game.prompt_kind(self.state) == "claim"
        self.prompts.set_timer(
            seat,
            window,
            claim=claim,
            auto=seat in self.auto,
            resume=resume,
            bank=not self._away(seat),
        )

    def _away(self, seat: int) -> bool:
        """Whether ``seat``'s player went away: it had a socket in this room and has none now
        (a seat never connected, as a test's, is not away: it keeps its bank)."""
        return seat in self._ever_connected and self._sockets(seat) == 0

    def _reset_timer(self, seat: int) -> None:
        """``seat`` went on or off auto-play: its timer again, off auto-play resumed (what
        is left of the time it had in this window, `Prompts.set_timer`)."""
        if (timer := self.prompts.timers.get(seat)) is not None:
            self._set_timer(seat, timer.window, resume=True)

    def _timer_trusted(self, timer: SeatTimer) -> bool:
        """Whether ``timer`` ran entirely while the bus worked: no publish failed since it
        started (or since its prompt was sent again). Otherwise its prompt may never have
        reached the seat, and no seat is timed out for a prompt it never received."""
        return self.publisher.worked_since(max(timer.started, timer.sent))

    def _after_change(self) -> None:
        """Recompute who must act; (re)arm timers; queue bot moves. Called after each change.

        A claim window or a 定缺 round keeps its deadline while its seats answer one by one;
        anything else opens a new window (new deadlines). A decided claim window is closed
        ``claim_min_ms`` after it opened (if that has passed: in this same change unless
        commands are queued, `_complete_change`; else after them), even while seats it
        offered a claim have not answered: their answers, accepted until then, cannot
        change its outcome (spec §3).
        """
        kind = self.game.prompt_kind(self.state)
        acting = frozenset(self._acting())
        same_window = not self.prompts.change(kind, acting)  # as prompt_of_log counts
        if not same_window and kind == "claim":
            self._open_claim_window(acting)
        window = self.prompts.window
        for seat in sorted(acting):
            if self.seats[seat].bot:
                if not same_window:
                    self.inbox.put_nowait(BotMove(seat, window))
            elif seat not in self.prompts.timers:
                self._set_timer(seat, window)
        if self.game.claims_decided(self.state) and self._resolving != window:
            self._resolving = window
            delay = self._resolve_delay()
            if delay > 0:
                self._schedule_resolve(window, delay)
            else:
                self._resolve_now = window  # closed now (`_complete_change`, `_resolve_due`)

    def _resolve_delay(self) -> float:
        """Seconds until the decided claim window may close: what `ClaimHold.hold` holds
        it from its opening, less the time since (0 or less: now; always 0 with bots
        only)."""
        if all(seat.bot for seat in self.seats):
            return 0.0
        elapsed = self.clock.now() - self.prompts.opened
        return self.claims.hold(self.prompts.answered) - elapsed

    def _schedule_resolve(self, window: int, delay: float) -> None:
        """Queue the closing of the decided claim window ``window`` in ``delay`` seconds
        (at once if ``delay`` <= 0)."""
        if delay > 0:
            self.clock.call_later(delay, lambda: self.inbox.put_nowait(Resolve(window)))
        else:
            self.inbox.put_nowait(Resolve(window))

    def _open_claim_window(self, acting: frozenset[int]) -> None:
        """A claim window opens, offered to ``acting`` (`ClaimHold.open`): the seats' auto
        flags and presence now are what they are shown until it closes; the discarder is
        ``state.turn``."""
        self.claims.open(
            acting,
            [s.seat for s in self.seats if not s.bot and s.seat not in self.auto],
            self.auto,
            {s.seat: self._sockets(s.seat) > 0 for s in self.seats},
            lambda: getattr(self.state, "turn", None),
        )
