"""The one error every game's engine raises for an action it refuses."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the engine refuses; the state is unchanged.

    ``code`` is ``"bad_action"`` (malformed), ``"not_your_turn"`` (the seat owes no answer
    now), ``"hand_over"`` or ``"illegal_action"`` (the seat may act, but not like this).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
