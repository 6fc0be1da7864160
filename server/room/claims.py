"""What a claim window keeps private (issue 16) and how long it is held: a collaborator of
the room actor, which owns one :class:`ClaimHold` and calls it from its task only.

While a claim window is open the other seats are shown the auto flags and presence of its
opening, and ``auto`` / ``room`` publications wait until it has closed; with
``claim_hold="mimic"`` each human seat is taken to think as long as one of its own past
claim decisions, so the window's length does not tell whether anybody could claim
(docs/protocol.md "Claim windows").
"""

from __future__ import annotations

import os
import random
from collections import deque
from collections.abc import Callable, Iterable

from server.room.timing import Timing

#: How many of a room's human claim decisions ``claim_hold="mimic"`` draws its holds from.
THINK_SAMPLES = 64


class BufferedSystemRandom(random.SystemRandom):
    """``random.SystemRandom`` (the operating system's random bytes, ``os.urandom``) read
    :data:`CHUNK` bytes at a time: a system call per few hundred draws, not one per draw
    (the holds are drawn at every claim window)."""

    CHUNK = 4096

    def __init__(self) -> None:
        super().__init__()
        self._buf = b""
        self._pos = 0

    def _take(self, n: int) -> bytes:
        if self._pos + n > len(self._buf):
            self._buf, self._pos = os.urandom(max(n, self.CHUNK)), 0
        out = self._buf[self._pos : self._pos + n]
        self._pos += n
        return out

    def getrandbits(self, k: int, /) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        return int.from_bytes(self._take(size)) >> (size * 8 - k)

    def random(self) -> float:
        return (int.from_bytes(self._take(7)) >> 3) * 2.0**-53

    def randbytes(self, n: int) -> bytes:
        return self._take(n)


class ClaimHold:
    """The claim-window privacy of one room.

    Owns: ``shown`` (the auto flags and per-seat presence the seats are shown while a window
    is open: those of its opening), ``held`` (the publications, ``"auto"`` / ``"room"``,
    waiting for the window to close), the human seats the window was offered to, each human
    seat's last :data:`THINK_SAMPLES` claim decision times (seconds) and the decision time
    drawn for it in this window. ``is_open()`` tells whether a claim window is open now;
    ``timing`` (read live) gives ``claim_min_ms`` and ``claim_hold``; ``rng`` draws holds.
    """

    def __init__(self, timing: Timing, rng: random.Random, is_open: Callable[[], bool]) -> None:
        self.timing = timing
        self.rng = rng
        self.is_open = is_open
        self.shown: tuple[frozenset[int], dict[int, bool]] = (frozenset(), {})
        self.held: set[str] = set()
        #: The humans (off auto-play) offered this claim window.
        self.humans: frozenset[int] = frozenset()
        #: Per human seat: how long its last claim decisions took (``claim_hold="mimic"``).
        self.think: dict[int, deque[float]] = {}
        #: Per human seat off auto-play: the decision time drawn for it in this claim window.
        self.virtual: dict[int, float] = {}

    def open(
        self,
        acting: frozenset[int],
        humans: Iterable[int],
        auto: set[int],
        connected: dict[int, bool],
        discarder: Callable[[], int | None],
    ) -> None:
        """A claim window opens, offered to ``acting``: fix what the seats are shown until it
        closes (``auto``, ``connected``: seat -> has a socket), and (``claim_hold="mimic"``)
        draw a decision time for each human seat off auto-play (``humans``, in seat order)
        but the discarder (``discarder()``) from its own past decisions (from the other
        humans' while it has none)."""
        self.shown = (frozenset(auto), connected)
        off_auto = list(humans)
        self.humans = frozenset(s for s in off_auto if s in acting)
        self.virtual = {}
        if self.timing.claim_hold == "mimic":
            turn = discarder()
            pooled: list[float] | None = None  # (made only for a seat with no past of its own)
            for seat in off_auto:
                if seat == turn:
                    continue
                past: deque[float] | list[float] | None = self.think.get(seat)
                if not past:
                    if pooled is None:
                        pooled = [t for own in self.think.values() for t in own]
                    past = pooled
                if past:  # (the draw `rng.choice` makes, without copying ``past``)
                    self.virtual[seat] = past[self.rng.randrange(len(past))]

    def note_answer(self, seat: int, seconds: float) -> None:
        """``seat`` answered (or timed out on) the open claim window after ``seconds``: kept
        if it was offered the window as a human."""
        if seat in self.humans:
            past = self.think.setdefault(seat, deque(maxlen=THINK_SAMPLES))
            past.append(seconds)

    def hold(self, answered: set[int]) -> float:
        """How long (seconds from its opening) the decided claim window is held: at least
        ``claim_min_ms``, and at least the decision time drawn for every human seat not in
        ``answered``: those not offered a claim, and those whose claim lost before they
        answered."""
        hold = self.timing.claim_min_ms / 1000
        for seat, seconds in self.virtual.items():
            if seat not in answered:
                hold = max(hold, seconds)
        return hold

    def defer(self, publication: str) -> bool:
        """Hold ``publication`` (``"auto"`` / ``"room"``) if a claim window is open (True)."""
        if not self.is_open():
            return False
        self.held.add(publication)
        return True

    def due(self) -> set[str]:
        """The held publications to send now that no claim window is open (then forgotten)."""
        if not self.held or self.is_open():
            return set()
        held, self.held = self.held, set()
        return held

    def shown_now(self) -> tuple[frozenset[int], dict[int, bool]] | None:
        """What the seats are shown while a claim window is open (auto flags, presence);
        None when none is."""
        return self.shown if self.is_open() else None

    def auto_for(self, seat: int, auto: set[int]) -> list[int]:
        """The auto flags ``seat`` itself is shown in the open window: the others' as at its
        opening, its own as they are now (``auto``)."""
        return sorted((self.shown[0] - {seat}) | ({seat} & auto))
