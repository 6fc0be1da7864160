"""The interface every game implements (design.md: ``rules/game.py``).

The room, the API, the audit and the replay hold a `Game` (found by name with
`server.rules.registry.find_game`) and never import a ruleset by name. A game is pure: every
method is a function of its arguments, with no I/O, no clock and no randomness beyond the
seed; a state given to a method is never modified (a new one is returned).

A hand's life, as the room drives it:

1. ``deal(options, seed, dealer, dealer_streak, weekday)`` (or ``new_hand`` from fixture
   form), ``weekday`` from ``weekday_at`` at the deal;
2. while not ``ended(state)``: ``acting_seats`` owe an answer (``prompt_kind`` says of what
   kind); each answers with one of ``legal_actions`` through ``apply`` (a bot through
   ``bot_action``, a seat that timed out through ``default_action``);
3. claim windows: ``apply`` of a discard (or an added kong) opens one (``claim_open``);
   once ``claims_decided`` nobody has a legal action and the caller closes it with
   ``resolve_claims`` (the room after its minimum claim time, a replay at once);
4. ``settle(state)`` once ``ended``: the typed `Settlement`.

Audiences are a seat number or ``None`` (spectators): ``view`` and ``project_event`` never
show an audience what it may not see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from .types import Action, Event, Settlement, View


@runtime_checkable
class GameOptions(Protocol):
    """What the room needs of any game's options model: the seats and the session length."""

    @property
    def players(self) -> int: ...

    @property
    def hands(self) -> int: ...


@runtime_checkable
class Game(Protocol):
    """One game's rules. ``State`` is the game's own (opaque to the room) state type."""

    @property
    def name(self) -> str:
        """The registry name, stored with each room (``rooms.game``), e.g. ``"guiyang"``."""
        ...

    @property
    def options_model(self) -> type[BaseModel]:
        """The pydantic model of the room options (spec §14 of the game)."""
        ...

    @property
    def tile_set(self) -> tuple[str, ...]:
        """Every tile of one set, in notation (``1m``..), each copy listed (108 for
        Guiyang)."""
        ...

    def options(self, raw: Mapping[str, Any]) -> Any:
        """Validate room options (missing keys take defaults). Raises
        ``pydantic.ValidationError`` naming the field. The result has ``players`` and
        ``hands`` (`GameOptions`) and ``model_dump()``."""
        ...

    def weekday_at(self, options: Any, timestamp: float) -> int | None:
        """The weekday (1 = Monday .. 7 = Sunday) a hand dealt at Unix time ``timestamp``
        records for its scoring (Guiyang's 星期鸡), or None if the game has no use for it.
        Taken once at the deal and stored with the hand, so a replay never reads a clock."""
        ...

    def deal(
        self,
        options: Any,
        seed: str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> Any:
        """A new hand shuffled from ``seed`` (the same seed and weekday, the same hand)."""
        ...

    def new_hand(
        self,
        options: Any,
        hands: Sequence[Sequence[str]] | Sequence[str],
        wall: Sequence[str] | str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> Any:
        """A hand from given starting tiles and wall (fixture form, spec/fixtures.md).
        Raises ``ValueError`` if they are not exactly one tile set (or a bad weekday)."""
        ...

    def seed_hash(self, seed: str) -> str:
        """The commitment to a hand's seed published at the deal (hex)."""
        ...

    def ended(self, state: Any) -> bool:
        """True once the hand is over (then `settle` gives its settlement)."""
        ...

    def legal_actions(self, state: Any, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in a stable order; empty if it owes none."""
        ...

    def apply(
        self, state: Any, seat: int, action: Action, legal: Sequence[Action] | None = None
    ) -> tuple[Any, list[Event]]:
        """The new state and its events. Raises `IllegalAction` (state unchanged).

        ``legal``: ``seat``'s `legal_actions` in ``state`` if the caller has them (a room
        computes them once per state); computed again when ``None``."""
        ...

    def acting_seats(self, state: Any) -> list[int]:
        """Seats that owe an answer now."""
        ...

    def prompt_kind(self, state: Any) -> str:
        """What the acting seats are asked: ``"turn"``, ``"claim"``, ... or ``"ended"``."""
        ...

    def claim_open(self, state: Any) -> bool:
        """True while a claim window (on a discard, or to rob a kong) is open."""
        ...

    def is_claim_answer(self, state: Any, seat: int, action: Action) -> bool:
        """True if ``action`` of ``seat`` has the shape of an answer to the open claim window
        (it is judged in that window, in any order; a replay closes the window before any
        other action)."""
        ...

    def describe(self, state: Any) -> str:
        """Where the hand stands, in words, for error messages (e.g. ``"seat 2's turn"``)."""
        ...

    def claims_decided(self, state: Any) -> bool:
        """True while a claim window is open and decided: `resolve_claims` must close it."""
        ...

    def resolve_claims(self, state: Any) -> tuple[Any, list[Event]]:
        """Close a decided claim window. Raises `IllegalAction` (``window_open``) unless
        `claims_decided`."""
        ...

    def default_action(self, state: Any, seat: int) -> Action:
        """What the server plays for a seat that timed out (托管). Raises `IllegalAction`
        (``not_your_turn``) if the seat owes nothing."""
        ...

    def bot_action(self, state: Any, seat: int, legal: Sequence[Action] | None = None) -> Action:
        """The bot policy's move for ``seat`` (deterministic: same state, same action);
        ``legal`` as in `apply`."""
        ...

    def view(self, state: Any, seat: int | None) -> View:
        """The state as ``seat`` sees it (None = spectator)."""
        ...

    def views(self, state: Any, seats: Sequence[int | None]) -> list[View]:
        """`view` for each of ``seats``, in order (what a room sends its audiences after a
        change: the game may build the public part once for all)."""
        ...

    def project_event(self, event: Event, seat: int | None) -> dict[str, Any] | None:
        """``event`` as ``seat`` may see it, JSON-able; None if it must not see it at all."""
        ...

    def settle(self, state: Any) -> Settlement | None:
        """The settlement of an ended hand, or None while it is played."""
        ...


def describe_state(state: Any) -> str:
    """Where a hand stands, for messages: the turn seat, or the claim / rob window open on a
    tile. For a game state with ``phase``, ``turn``, ``last_discard`` ((seat, tile kind) or
    None) and ``rob_tile`` (tile kind or None), as both games' states have."""
    from .tiles import tile_name

    if state.phase == "turn":
        return f"seat {state.turn}'s turn"
    if state.phase == "claim" and state.last_discard is not None:
        seat, tile = state.last_discard
        return f"claim window on seat {seat}'s discard {tile_name(tile)}"
    if state.phase == "rob" and state.rob_tile is not None:
        return f"rob window on seat {state.turn}'s added kong of {tile_name(state.rob_tile)}"
    return f"{state.phase} phase"
