"""Every seat's legal actions, computed once per state: a collaborator of the room actor
(prompts, timers, bots and every message reuse them)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from server.rules.game import Game
from server.rules.types import Action


@lru_cache(maxsize=4096)
def _wire(action: Action) -> dict[str, Any]:
    """``action.to_dict()``, made once per distinct action (a seat is offered the same few
    dozen every turn); the dict is shared: sent as it is, never changed."""
    return action.to_dict()


class LegalActions:
    """The legal actions of the ``players`` seats of ``game`` in one state.

    Owns: the state last asked about (compared by identity: states are immutable values),
    every seat's legal actions in it and, computed on first ask, their wire form
    (``Action.to_dict()``).
    """

    def __init__(self, game: Game, players: int) -> None:
        self.game = game
        self.players = players
        self._state: Any = None
        self._actions: dict[int, list[Action]] = {}
        self._wire: dict[int, list[dict[str, Any]]] = {}

    def of(self, state: Any) -> dict[int, list[Action]]:
        """Seat -> its legal actions in ``state`` (empty without a state)."""
        if self._state is not state:
            self._actions = (
                {}
                if state is None
                else {s: self.game.legal_actions(state, s) for s in range(self.players)}
            )
            self._wire = {}
            self._state = state
        return self._actions

    def wire(self, state: Any, seat: int) -> list[dict[str, Any]]:
        """``seat``'s legal actions in ``state`` as sent in messages (computed once)."""
        legal = self.of(state)  # refreshes the wire cache on a new state
        wire = self._wire.get(seat)
        if wire is None:
            wire = self._wire[seat] = [_wire(a) for a in legal.get(seat, [])]
        return wire
