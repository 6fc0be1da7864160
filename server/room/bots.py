"""Bots in a room: the room asks its game's bot policy (``Game.bot_action``) for a bot seat's
move; the policy itself lives with the game (Guiyang's: its ``bot`` module)."""

from __future__ import annotations

from typing import Any

from server.rules.game import Game
from server.rules.registry import DEFAULT_GAME, find_game
from server.rules.types import Action


def choose_action(state: Any, seat: int, game: Game | None = None) -> Action:
    """The bot's action for ``seat`` in ``state`` under ``game`` (default: the default game),
    always one of its legal actions (or the default action if it owes none)."""
    return (game or find_game(DEFAULT_GAME)).bot_action(state, seat)
