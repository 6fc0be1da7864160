"""The games this server knows, by name (design.md: ``rules/registry.py``).

``find_game("guiyang")`` gives the `Game` a room stored under that name plays; rooms made
before games were named play `DEFAULT_GAME`.
"""

from __future__ import annotations

from collections.abc import Callable

from .game import Game

#: The game of a room that names none.
DEFAULT_GAME = "guiyang"


class UnknownGame(LookupError):
    """No game of this name is registered (``code`` ``unknown_game``)."""

    code = "unknown_game"

    def __init__(self, name: object) -> None:
        super().__init__(f"unknown game {name!r}; known games: {', '.join(game_names())}")
        self.name = name


def _guiyang() -> Game:
    from .guiyang.game import GuiyangGame

    return GuiyangGame()


def _jintan() -> Game:
    from .jintan.game import JintanGame

    return JintanGame()


#: Name -> factory; a game module is imported the first time its game is asked for.
_FACTORIES: dict[str, Callable[[], Game]] = {"guiyang": _guiyang, "jintan": _jintan}
_GAMES: dict[str, Game] = {}


def game_names() -> tuple[str, ...]:
    """The registered game names, sorted."""
    return tuple(sorted(_FACTORIES))


def find_game(name: str | None = None) -> Game:
    """The `Game` registered as ``name`` (None: `DEFAULT_GAME`), one instance per name.

    Raises:
        UnknownGame: no game of that name.
    """
    key = DEFAULT_GAME if name is None else name
    game = _GAMES.get(key) if isinstance(key, str) else None
    if game is None:
        factory = _FACTORIES.get(key) if isinstance(key, str) else None
        if factory is None:
            raise UnknownGame(key)
        game = _GAMES[key] = factory()
    return game
