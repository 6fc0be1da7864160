"""Prompt windows, per-seat timers and time banks of one room: a collaborator of the room
actor, which owns one :class:`Prompts` and calls it from its task only.

A *prompt window* is what a seat answers: a turn, a claim window, a 定缺 round, the pause
between hands. Each has a number (``window``, sent as the messages' ``prompt``); an answer
naming an older one is ``stale_prompt``. Prompt numbers follow from a hand's log alone
(:func:`prompt_of_log`), so a room rebuilt on another process numbers them as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.room.clock import Clock, TimerHandle
from server.room.timing import Timing
from server.rules.game import Game
from server.rules.types import Action

#: Prompt numbers of hand ``h`` are ``h * PROMPT_BASE + 1, + 2, ...`` (then the ready
#: prompt after it): they follow from the hand's log alone, so a room rebuilt on another
#: process numbers its prompts exactly as the old owner did (see :func:`prompt_of_log`).
PROMPT_BASE = 1 << 20


def opens_prompt(prev: tuple[str, frozenset[int]], kind: str, acting: frozenset[int]) -> bool:
    """Whether a change to prompt ``(kind, acting)`` after ``prev`` opens a new prompt
    window: a claim window or a 定缺 round keeps its number while its seats answer one by
    one; anything else opens a new one."""
    prev_kind, prev_acting = prev
    return not (kind == prev_kind and kind in ("claim", "ding_que") and acting <= prev_acting)


def prompt_of_log(game: Game, players: int, hand_no: int, states: list[Any]) -> int:
    """The prompt number a live room of ``game`` with ``players`` seats reached in hand
    ``hand_no`` after the states ``states`` (the deal, then the state after each logged
    action and each closed claim window, as ``replay_hand``'s ``on_state`` gives them),
    counted as :meth:`Prompts.change` counts them (acting: the seats with a legal action)."""
    window, prompt = hand_no * PROMPT_BASE, ("", frozenset[int]())
    for state in states:
        if game.ended(state):
            continue
        kind = game.prompt_kind(state)
        acting = frozenset(s for s in range(players) if game.legal_actions(state, s))
        if opens_prompt(prompt, kind, acting):
            window += 1
        prompt = (kind, acting)
    return window


@dataclass
class SeatTimer:
    """One seat's timer for prompt window ``window`` (clock times in seconds)."""

    handle: TimerHandle
    deadline: float
    window: int
    #: Armed for a seat on auto-play (托管): its delay is ``auto_seconds``, no bank.
    auto: bool
    started: float = 0.0
    #: The prompt's own limit (``turn_seconds`` / ``claim_seconds``), without the bank.
    limit: float = 0.0
    #: When the prompt was (re)sent with this timer's deadline (a timer is trusted only if
    #: the bus worked since then, or since it started).
    sent: float = 0.0
    #: The seat's own clock in this window, on auto-play too: when it started and the
    #: prompt's own limit (`Prompts.use_bank` charges the time beyond them).
    own_start: float = 0.0
    own_limit: float = 0.0
    #: Armed with what is left of the seat's bank (False: a seat that went away, `set_timer`).
    banked: bool = True


class Prompts:
    """The prompts of a room of ``players`` seats and the clocks that run on them.

    Owns: the current prompt window's number ``window`` and its ``prompt`` (``(kind,
    acting seats)``), the clock time it ``opened``, the seats that ``answered`` it, each
    acting human seat's timer (``timers``: seat -> :class:`SeatTimer`), each seat's time
    ``bank`` for the hand (seconds), and the ready timer between hands (``ready_timer``,
    ``ready_deadline``). Timers only call ``on_timeout(seat, window)`` /
    ``on_ready_timeout(window)`` (the actor posts a command to its inbox), on ``clock``;
    ``timing`` is read when a timer is armed (so a change to it applies from then).
    """

    def __init__(
        self,
        players: int,
        clock: Clock,
        timing: Timing,
        on_timeout: Callable[[int, int], None],
        on_ready_timeout: Callable[[int], None],
    ) -> None:
        self.players = players
        self.clock = clock
        self.timing = timing
        self.on_timeout = on_timeout
        self.on_ready_timeout = on_ready_timeout
        self.window = 0
        self.prompt: tuple[str, frozenset[int]] = ("", frozenset())
        #: Clock time the current prompt window opened.
        self.opened = 0.0
        #: Seats that answered the current prompt (a second answer is ``stale_prompt``).
        self.answered: set[int] = set()
        #: Each seat's last answer taken from its player: ``(prompt window, action)``.
        self.last_answer: dict[int, tuple[int, Action]] = {}
        self.timers: dict[int, SeatTimer] = {}
        #: Per seat: ``(window, clock time)`` its timer was first armed in that window
        #: (`set_timer` with ``resume`` counts from there).
        self.first_armed: dict[int, tuple[int, float]] = {}
        #: What is left of each seat's time bank in this hand (seconds).
        self.bank: list[float] = [timing.bank_seconds] * players
        self.ready_timer: TimerHandle | None = None
        self.ready_deadline: float | None = None

    @property
    def kind(self) -> str:
        """The current prompt's kind (the game's ``prompt_kind``; ``""`` before the deal)."""
        return self.prompt[0]

    # ------------------------------------------------------------------ windows

    def fill_banks(self) -> None:
        """A hand is dealt: every seat's bank is full again."""
        self.bank = [self.timing.bank_seconds] * self.players

    def start_hand(self, hand_no: int) -> None:
        """A hand is dealt: its prompt numbers start after ``hand_no * PROMPT_BASE``."""
        self.prompt = ("", frozenset())
        self.window = hand_no * PROMPT_BASE

    def advance(self) -> None:
        """Open the next prompt window (nobody has answered it yet)."""
        self.window += 1
        self.answered.clear()

    def reopen(self) -> None:
        """The room resumes its current prompt window (rebuilt from its log, or restarted):
        the next window opened (`change`, `advance`) is this one again, under the number
        the room's snapshots already showed and its players' answers carry."""
        self.window -= 1
        self.prompt = ("", frozenset())

    def change(self, kind: str, acting: frozenset[int]) -> bool:
        """The prompt is now ``(kind, acting)``: open a new window (cancelling every timer)
        if it is one (:func:`opens_prompt`), else drop the timers of seats that no longer
        act. Returns True if a new window opened."""
        opened = opens_prompt(self.prompt, kind, acting)
        self.prompt = (kind, acting)
        if opened:
            self.advance()
            self.cancel_timers()
            self.opened = self.clock.now()
        else:
            for seat in list(self.timers):
                if seat not in acting:
                    self.timers.pop(seat).handle.cancel()
        return opened

    # ------------------------------------------------------------------ seat timers

    def set_timer(
        self,
        seat: int,
        window: int,
        *,
        claim: bool,
        auto: bool,
        resume: bool = False,
        bank: bool = True,
    ) -> None:
        """(Re)arm ``seat``'s timer for window ``window``: a claim window's or a turn's limit
        plus what is left of the seat's bank (none with ``bank=False``: a seat whose player
        went away is not waited for beyond the limit); for a seat on auto-play (``auto``) the
        auto-play delay (none for a claim). ``resume`` (the seat left auto-play, went away
        or came back): the limit and bank count from when the seat's timer was first armed in
        this window, not from now, so switching 托管 on and off buys no time (past that, it
        times out at once)."""
        old = self.timers.pop(seat, None)
        if old:
            old.handle.cancel()
        now = self.clock.now()
        first = self.first_armed.get(seat)
        if first is None or first[0] != window or not (auto or resume):
            # (a full new time, not resumed: the seat's own clock starts again now)
            first = self.first_armed[seat] = (window, now)
        started = now
        own_limit = self.timing.claim_seconds if claim else self.timing.turn_seconds
        if auto:
            # An auto-played claim is answered at once: the window then closes after the
            # minimum claim time like any other, so its length tells nobody it was claimable.
            limit = seconds = 0.0 if claim else self.timing.auto_seconds
        else:
            limit = own_limit
            seconds = limit + (self.bank[seat] if bank else 0.0)
            if resume:
                started = first[1]
                seconds = max(0.0, started + seconds - now)
        handle = self.clock.call_later(seconds, lambda: self.on_timeout(seat, window))
        self.timers[seat] = SeatTimer(
            handle,
            now + seconds,
            window,
            auto,
            started,
            limit,
            own_start=first[1],
            own_limit=own_limit,
            banked=bank,
        )

    def cancel_timers(self) -> None:
        """Cancel every seat's timer."""
        for t in self.timers.values():
            t.handle.cancel()
        self.timers.clear()

    def use_bank(self, seat: int, decided: float) -> None:
        """Charge ``seat``'s time bank for the time it took beyond the prompt's limit: until
        it decided (clock time ``decided``, when its answer reached the room), counted from
        when its own clock started in this window, also when it answers (or auto-play
        answers for it) after switching 托管 on: a seat that thought past its limit and
        then turned 托管 on has spent that bank time (else switching before each late answer
        would give it its whole bank on every decision). A seat on 托管 from the window's
        start answers within its limit and spends nothing."""
        timer = self.timers.get(seat)
        if timer is None:
            return
        over = decided - timer.own_start - timer.own_limit
        if over > 0:
            self.bank[seat] = max(0.0, self.bank[seat] - over)

    def _shown_timer(self, seat: int | None) -> SeatTimer | None:
        """The timer whose countdown ``seat``'s audience is shown in a hand: the seat's own,
        or for a seat without one (and spectators) the turn's latest, never another seat's
        claim timer (it would tell that the seat could claim)."""
        if seat is not None and seat in self.timers:
            return self.timers[seat]
        if not self.timers or self.kind == "claim":
            return None
        return max(self.timers.values(), key=lambda t: t.deadline)

    def deadline_for(self, seat: int | None, *, between: bool) -> int | None:
        """The deadline (ms since the epoch) shown to ``seat``'s audience: between hands
        (``between``) the ready deadline; else that of the timer it is shown
        (`_shown_timer`): its own with what is left of its bank, another seat's without
        (`_others_view`). None when there is none."""
        if between:
            return None if self.ready_deadline is None else int(self.ready_deadline * 1000)
        timer = self._shown_timer(seat)
        if timer is None:
            return None
        if self._others_view(seat):
            return int(min(timer.deadline, timer.started + timer.limit) * 1000)
        return int(timer.deadline * 1000)

    def bank_from(self, seat: int | None, *, between: bool) -> int | None:
        """When (ms since the epoch) the prompt's own limit (``turn_seconds`` /
        ``claim_seconds``) of ``seat``'s own timer ends: from then until `deadline_for` the
        seat is on its time bank (时间银行). None between hands, without a timer of its own
        (`_others_view`), on auto-play, or with no bank left."""
        timer = None if between or self._others_view(seat) else self._shown_timer(seat)
        if timer is None or timer.auto:
            return None
        limit_end = timer.started + timer.limit
        return int(limit_end * 1000) if timer.deadline > limit_end else None

    def _others_view(self, seat: int | None) -> bool:
        """Whether ``seat``'s audience is shown another seat's timer (a spectator's always):
        it sees that turn's own limit only, never what is left of the acting seat's bank.
        A bank is spent in claim windows too, so another seat seeing it shrink would learn
        that the seat could claim a discard (docs/protocol.md, Claim windows)."""
        return seat is None or seat not in self.timers

    # ------------------------------------------------------------------ between hands

    def start_ready(self) -> None:
        """Arm the ready timer of the current window (the pause between hands)."""
        window = self.window
        self.ready_deadline = self.clock.now() + self.timing.ready_seconds
        self.ready_timer = self.clock.call_later(
            self.timing.ready_seconds, lambda: self.on_ready_timeout(window)
        )

    def end_ready(self) -> None:
        """The pause between hands is over: cancel and forget its timer."""
        if self.ready_timer:
            self.ready_timer.cancel()
        self.ready_timer = None
        self.ready_deadline = None

    def stop(self) -> None:
        """Cancel every timer (the actor stops); the ready timer stays noted as armed."""
        self.cancel_timers()
        if self.ready_timer:
            self.ready_timer.cancel()
