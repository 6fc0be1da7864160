"""金坛麻将 (Jintan) as a `server.rules.game.Game` (spec/jintan.md): the engine's functions
behind the game interface, behaviour unchanged. Actions are the shared
`server.rules.types.Action` throughout; events and settlements become the typed values of
`server.rules.types` at this edge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..game import describe_state
from ..tiles import full_set_with_honours_and_flowers, parse_tiles
from ..types import Action, Event, Settlement, View
from . import engine
from .bot import choose_action
from .options import JintanOptions
from .scoring import settle
from .state import State

#: The kinds of an answer to a claim window (a chow names its tiles, a claimed kong none).
_ANSWERS = ("win", "pong", "kong", "chow", "pass")


class JintanGame:
    """The Jintan ruleset (registry name ``"jintan"``); stateless, one instance suffices."""

    name = "jintan"
    options_model = JintanOptions
    tile_set: tuple[str, ...] = tuple(full_set_with_honours_and_flowers())

    def options(self, raw: Mapping[str, Any]) -> JintanOptions:
        return raw if isinstance(raw, JintanOptions) else JintanOptions(**raw)

    def weekday_at(self, options: JintanOptions, timestamp: float) -> int | None:
        return None  # no Jintan rule depends on the day

    def deal(
        self,
        options: JintanOptions,
        seed: str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> State:
        return engine.deal(options, seed, dealer, dealer_streak)

    def new_hand(
        self,
        options: JintanOptions,
        hands: Sequence[Sequence[str]] | Sequence[str],
        wall: Sequence[str] | str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> State:
        given = [parse_tiles(h) if isinstance(h, str) else list(h) for h in hands]
        return engine.new_hand(
            options, given, wall if isinstance(wall, str) else list(wall), dealer, dealer_streak
        )

    def seed_hash(self, seed: str) -> str:
        return engine.seed_hash(seed)

    def ended(self, state: State) -> bool:
        return state.ended

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        return engine.legal_actions(state, seat)

    def apply(
        self, state: State, seat: int, action: Action, legal: Sequence[Action] | None = None
    ) -> tuple[State, list[Event]]:
        new, events = engine.apply(state, seat, action, legal)
        return new, [Event.from_dict(e) for e in events]

    def acting_seats(self, state: State) -> list[int]:
        return engine.acting_seats(state)

    def prompt_kind(self, state: State) -> str:
        return engine.prompt_kind(state)

    def claim_open(self, state: State) -> bool:
        return state.phase in ("claim", "rob")

    def is_claim_answer(self, state: State, seat: int, action: Action) -> bool:
        return self.claim_open(state) and action.kind in _ANSWERS and action.tile is None

    def describe(self, state: State) -> str:
        return describe_state(state)

    def claims_decided(self, state: State) -> bool:
        return engine.claims_decided(state)

    def resolve_claims(self, state: State) -> tuple[State, list[Event]]:
        new, events = engine.resolve_claims(state)
        return new, [Event.from_dict(e) for e in events]

    def default_action(self, state: State, seat: int) -> Action:
        return engine.default_action(state, seat)

    def bot_action(self, state: State, seat: int, legal: Sequence[Action] | None = None) -> Action:
        return choose_action(state, seat, legal)

    def view(self, state: State, seat: int | None) -> View:
        return View(engine.view(state, seat))

    def views(self, state: State, seats: Sequence[int | None]) -> list[View]:
        return [self.view(state, seat) for seat in seats]

    def project_event(self, event: Event, seat: int | None) -> dict[str, Any] | None:
        return event.project(seat)

    def settle(self, state: State) -> Settlement | None:
        raw = settle(state)
        return None if raw is None else Settlement.from_dict(raw)
