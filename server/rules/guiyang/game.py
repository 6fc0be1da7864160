"""贵阳捉鸡 as a `server.rules.game.Game` (spec/guiyang.md): the engine's functions behind
the game interface, behaviour unchanged; engine events and settlements become the typed
values of `server.rules.types`."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ..game import describe_state
from ..tiles import full_set, parse_tiles
from ..types import Action, Event, Settlement, View
from . import engine
from .bot import choose_action
from .options import GuiyangOptions
from .scoring import settle
from .state import State


class GuiyangGame:
    """The Guiyang ruleset (registry name ``"guiyang"``); one instance serves every room (it
    holds nothing but a cache of settlements)."""

    name = "guiyang"
    options_model = GuiyangOptions
    tile_set: tuple[str, ...] = tuple(full_set())

    #: How many ended states' settlements are kept (a few per live room suffice).
    SETTLED_CACHE = 1024

    def __init__(self) -> None:
        # A state is never changed once returned, so an ended state's settlement is made
        # once (by the engine, for its hand_end event) and reused by `settle` and `view`.
        # Keyed by id(), with a weak reference to tell a reused id from the same state.
        self._settled: OrderedDict[int, tuple[weakref.ref[State], Settlement]] = OrderedDict()

    def _remember(self, state: State, settlement: Settlement) -> None:
        self._settled[id(state)] = (weakref.ref(state), settlement)
        self._settled.move_to_end(id(state))
        while len(self._settled) > self.SETTLED_CACHE:
            self._settled.popitem(last=False)

    def options(self, raw: Mapping[str, Any]) -> GuiyangOptions:
        return raw if isinstance(raw, GuiyangOptions) else GuiyangOptions(**raw)

    def weekday_at(self, options: GuiyangOptions, timestamp: float) -> int | None:
        return engine.weekday_at(options, timestamp)

    def deal(
        self,
        options: GuiyangOptions,
        seed: str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> State:
        return engine.deal(options, seed, dealer, dealer_streak, weekday)

    def new_hand(
        self,
        options: GuiyangOptions,
        hands: Sequence[Sequence[str]] | Sequence[str],
        wall: Sequence[str] | str,
        dealer: int = 0,
        dealer_streak: int = 1,
        weekday: int | None = None,
    ) -> State:
        given = [parse_tiles(h) if isinstance(h, str) else list(h) for h in hands]
        return engine.new_hand(
            options,
            given,
            wall if isinstance(wall, str) else list(wall),
            dealer,
            dealer_streak,
            weekday=weekday,
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
        return new, self._typed(new, events)

    def _typed(self, new: State, events: list[dict[str, object]]) -> list[Event]:
        typed = [Event.from_dict(e) for e in events]
        if new.ended:  # the engine settled it for its hand_end event: keep that one
            for e in typed:
                if e.type == "hand_end" and isinstance(e.data.get("settlement"), Mapping):
                    self._remember(new, Settlement.from_dict(e.data["settlement"]))
        return typed

    def acting_seats(self, state: State) -> list[int]:
        return engine.acting_seats(state)

    def prompt_kind(self, state: State) -> str:
        return engine.prompt_kind(state)

    def claim_open(self, state: State) -> bool:
        return state.phase in ("claim", "rob")

    def is_claim_answer(self, state: State, seat: int, action: Action) -> bool:
        # Only ever legal in a window (no turn action has this shape), so judged there.
        return (
            state.phase in ("claim", "rob")
            and action.kind in ("win", "pong", "kong", "pass")
            and action.tile is None
        )

    def describe(self, state: State) -> str:
        return describe_state(state)

    def claims_decided(self, state: State) -> bool:
        return engine.claims_decided(state)

    def resolve_claims(self, state: State) -> tuple[State, list[Event]]:
        new, events = engine.resolve_claims(state)
        return new, self._typed(new, events)

    def default_action(self, state: State, seat: int) -> Action:
        return engine.default_action(state, seat)

    def bot_action(self, state: State, seat: int, legal: Sequence[Action] | None = None) -> Action:
        return choose_action(state, seat, legal)

    def view(self, state: State, seat: int | None) -> View:
        if not state.ended:
            return View(engine.view(state, seat))
        # The engine's view of an ended hand settles it again; reuse the settlement instead.
        settlement = self.settle(state)
        assert settlement is not None
        live = state.clone()
        live.phase = "turn"  # the same view fields, without the settlement
        out = dict(engine.view(live, seat))
        out["phase"], out["seed"] = state.phase, state.seed
        out["last_discard"], out["robbing"] = None, None
        if "ting_hints" in out:
            out["ting_hints"] = {}  # nothing left to discard
        out["settlement"] = settlement.to_dict()
        return View(out)

    def views(self, state: State, seats: Sequence[int | None]) -> list[View]:
        if state.ended:
            return [self.view(state, seat) for seat in seats]
        return [View.adopt(v) for v in engine.views(state, seats)]

    def project_event(self, event: Event, seat: int | None) -> dict[str, Any] | None:
        return event.project(seat)

    def settle(self, state: State) -> Settlement | None:
        cached = self._settled.get(id(state))
        if cached is not None and cached[0]() is state:
            return cached[1]
        raw = settle(state)
        if raw is None:
            return None
        settlement = Settlement.from_dict(raw)
        self._remember(state, settlement)
        return settlement
