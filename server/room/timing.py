"""The timer settings of one room (:class:`Timing`), shared by the actor and its
collaborators (prompts and timers, the claim-window hold, the dissolve vote)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Timing:
    """Timer settings of one room (seconds unless named ``_ms``).

    ``claim_min_ms``: a claim window (opened by every discard and added kong, claimable or
    not) is closed no sooner than this after it opened, so no seat learns from the timing
    whether somebody could claim (not applied in bot-only rooms).
    ``auto_seconds`` is how long a seat on auto-play (托管) gets before its default action.
    ``bank_seconds`` is each seat's time bank for one hand: a human seat may think beyond
    ``turn_seconds`` / ``claim_seconds`` by what is left of it (its deadline includes it),
    and what it uses beyond the limit is taken from it; a timeout empties it.
    ``ready_seconds``: how long the room waits for ``ready`` between hands.
    ``vote_seconds``: how long a dissolve vote stays open.
    ``claim_hold``: how a claim window is held for the human seats (off auto-play) it does
    not wait for: ``"min"``: ``claim_min_ms`` only; ``"mimic"``: each such seat (but the
    discarder) is taken to think as long as one of its own last ``THINK_SAMPLES`` claim
    decisions took (drawn at random; the other humans' while it has none), so the window
    lasts the longest of the real and the drawn decision times and its length does not
    tell whether the seat could claim (docs/protocol.md "Claim windows").
    ``pause_unwatched``: a room nobody watches (no socket of a seat or spectator) parks its
    bot moves and timer commands until somebody connects: ``"never"``; ``"bots"``: rooms
    without a human seat; ``"auto"``: also rooms whose every human seat is on auto-play.
    """

    claim_seconds: float = 10.0
    turn_seconds: float = 20.0
    claim_min_ms: int = 0
    auto_seconds: float = 1.0
    ready_seconds: float = 30.0
    bank_seconds: float = 0.0
    vote_seconds: float = 60.0
    claim_hold: str = "min"
    pause_unwatched: str = "never"
