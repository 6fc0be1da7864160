"""Quick phrases and emotes (快捷语): the fixed list a seat may send to its table.

A phrase travels as its id only (``{"type": "phrase", "phrase": "hurry"}``); the client
shows the text (or emote) for the id in the player's language. Free text is not accepted,
so there is nothing to moderate. A seat may send one phrase every :data:`PHRASE_SECONDS`
seconds. Phrases change no game state and are not in the action log.
"""

from __future__ import annotations

from server.room.clock import Clock
from server.room.errors import RoomError

#: Phrase ids, in the order the client offers them: eight phrases, then the emotes.
PHRASES: tuple[str, ...] = (
    "hurry",  # 快点出牌啊
    "hurry_up",  # 搞快点了嘛
    "think",  # 等一下，我想想
    "good_hand",  # 好牌！
    "nice_play",  # 打得漂亮
    "sorry",  # 不好意思，手滑了
    "again",  # 再来一局
    "bye",  # 我先走了，下次再玩
    "emote_smile",  # a laughing face (the client draws the faces)
    "emote_cry",
    "emote_angry",
    "emote_cool",
    "emote_wow",
)
#: Seconds a seat waits between two phrases (``phrase_rate_limited`` before that).
PHRASE_SECONDS = 3.0


class PhraseLimit:
    """Which quick phrases one room's seats may say now: a collaborator of the room actor.

    Owns: the ``clock`` time of each seat's last phrase (one every :data:`PHRASE_SECONDS`
    by that clock).
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._last: dict[int, float] = {}

    def say(self, seat: int, phrase: str) -> None:
        """Note that ``seat`` says ``phrase`` now. Raises :class:`RoomError` and notes
        nothing: ``unknown_phrase`` (not an id of :data:`PHRASES`), ``phrase_rate_limited``
        (the seat's previous phrase was less than :data:`PHRASE_SECONDS` seconds ago)."""
        if phrase not in PHRASES:
            raise RoomError("unknown_phrase", "not a quick phrase of the list")
        now = self.clock.now()
        last = self._last.get(seat)
        if last is not None and now - last < PHRASE_SECONDS:
            raise RoomError(
                "phrase_rate_limited", f"one quick phrase every {PHRASE_SECONDS:g} seconds"
            )
        self._last[seat] = now
