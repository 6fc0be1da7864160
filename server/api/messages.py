"""Pydantic models of every message of the client protocol (``docs/protocol.md``).

Client -> server messages are parsed with :data:`ClientMessageAdapter` (a discriminated union
on ``type``; unknown keys are refused). Server -> client models document the shapes the room
actor produces and are used by the tests to check every message received; the JSON schema in
``docs/protocol.md`` is generated from them (``python -m server.api.messages``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    model_validator,
)
from pydantic_core import PydanticCustomError

#: A tile a hand can hold: number tiles, and honours (Jintan); flowers are never played.
Tile = Annotated[str, Field(pattern=r"^([1-9][mps]|[1-7]z)$", examples=["5m", "7z"])]
Suit = Literal["m", "p", "s"]
ActionKind = Literal["discard", "kong", "pong", "chow", "win", "pass", "self_draw", "ding_que"]
#: The games a room may be created for (``GET /api/games`` lists them with their options).
GameName = Literal["guiyang", "jintan"]
#: A room's status.
RoomStatus = Literal["open", "playing", "between", "finished", "dissolved"]


class StrictInput(BaseModel):
    """What a client sends (request bodies, WebSocket messages): unknown keys refused, and
    no type coercion (``"7"`` is not an int, ``"true"`` / ``1`` are not booleans, ``true``
    is not an int)."""

    model_config = ConfigDict(extra="forbid", strict=True)


#: The largest ``seq`` / ``prompt`` a client may send (a JSON-safe integer).
MAX_SEQ = 2**53
Seq = Annotated[int, Field(ge=0, le=MAX_SEQ)]
NAME_MAX = 32


#: The names bots go by (机器人3 / Bot 3, by seat: web/i18n.js ``botName``; the server
#: stores "Bot 3", "Bot West" in rooms made before), matched after `_fold`. A player may
#: not take one: at the table, and in the admin's lists, a human so named would pass for a
#: bot. Digits that pass for letters (B0t, E4st, W3st), letters that pass for digits (Bot
#: l, Bot I, Roman Ⅳ after NFKD) and Chinese numerals, formal ones too, and winds
#: (机器人一, 机器人壹, 机器人东) count too.
BOT_NAME = re.compile(
    r"(机器人|[b8][o0]t)[\W_]*([\d一二三四五六七八九十〇零两壹贰貳叁參叄肆伍陆陸柒捌玖拾li|]+"
    r"|i?v|[e3][a4][s5][t7]|[s5][o0]u[t7]h|w[e3][s5][t7]|n[o0]r[t7]h|[东東南西北])"
)
#: Letters that pass for Latin ones or for 机 (Cyrillic, Greek, small capitals, traditional
#: 機), after `_fold`'s NFKD (fullwidth Ｂｏｔ is Bot), its dropping of combining marks
#: (B\u0301ot) and casefolding.
_LOOKALIKES = str.maketrans(
    {
        **dict(zip("авеорстухкмнѕіјһԝ", "abeopctyxkmhsijhw", strict=True)),
        **dict(zip("αβεοσςτνικρυ", "abeoootvikpu", strict=True)),
        **dict(zip("ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdeghijklmnoprstuvwyz", strict=True)),
        "機": "机",
    }
)


def _fold(name: str) -> str:
    """``name`` as `BOT_NAME` reads it: NFKD, combining marks dropped, casefolded,
    lookalikes replaced."""
    parts = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in parts if not unicodedata.combining(c))
    return bare.casefold().translate(_LOOKALIKES)


def _printable_name(name: str) -> str:
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        raise ValueError("name must not contain control or format characters")
    if BOT_NAME.fullmatch(_fold(name)):
        raise PydanticCustomError("bot_name", "this name is kept for bots")
    return name


#: A player name: surrounding whitespace stripped, then 1..32 characters, none of Unicode
#: category Cc (control) or Cf (format: bidi overrides, zero-width characters), and not a
#: bot's name (:data:`BOT_NAME`).
PlayerName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_MAX),
    AfterValidator(_printable_name),
]


# ---------------------------------------------------------------- REST


class CreateRoomRequest(StrictInput):
    """``POST /api/rooms``: ``options`` holds the game's option keys (guiyang.md §14, or
    Jintan's ``base``, ``flower_value``, ``chow`` and the room timers); missing keys take
    defaults, and a key of another game is a 422 naming it."""

    game: GameName = "guiyang"
    options: dict[str, Any] = Field(default_factory=dict)


class CreateRoomResponse(BaseModel):
    """201 answer of ``POST /api/rooms``: ``options`` with every default filled."""

    code: str
    game: str
    options: dict[str, Any]


class JoinRequest(StrictInput):
    """``POST /api/rooms/{code}/join``: ``seat`` the seat wanted (再来一场: the one held in
    the room before), taken if free, else the lowest free seat."""

    name: PlayerName
    seat: int | None = Field(default=None, ge=0, le=3)


class PlayerOut(BaseModel):
    """The seated player's profile (``server/store/profiles.py``): ``code`` (the player code,
    its secret) only when the join made the profile."""

    id: int
    name: str
    created_at: str | None = None
    code: str | None = None


class JoinResponse(BaseModel):
    """The seat taken and its secret token (shown once; the server stores its sha256), and
    the profile seated (made by this join when the request named none)."""

    seat: int
    token: str
    player: PlayerOut | None = None


class BotsRequest(StrictInput):
    """``POST /api/rooms/{code}/bots``: how many free seats to fill with bots (lowest
    first), or with ``seat`` the one seat to give a bot (then ``count`` must be 1)."""

    count: int = Field(default=1, ge=1, le=3)
    seat: int | None = Field(default=None, ge=0, le=3)

    @model_validator(mode="after")
    def _one_bot_for_a_seat(self) -> BotsRequest:
        """A chosen seat takes one bot."""
        if self.seat is not None and self.count != 1:
            raise ValueError("a bot for a chosen seat: count must be 1")
        return self


class BotsResponse(BaseModel):
    """The seats the bots took."""

    seats: list[int]


class SeatInfo(BaseModel):
    """One taken seat. ``connected``: a socket holds it (bots always true);
    ``auto``: on auto-play (托管)."""

    seat: int
    name: str
    bot: bool
    connected: bool
    auto: bool = False


class HeldSeat(BaseModel):
    """A free seat kept a while for the player who sat there in the session before
    (再来一场): only their join takes it, and no bot is put there."""

    seat: int
    name: str
    #: When (ms since the epoch) the seat is anyone's again.
    until: int


class RoomInfo(BaseModel):
    """``GET /api/rooms/{code}``; also ``snapshot.room``. ``status``: ``open`` (seats free),
    ``playing``, ``between`` (waiting for ``ready``), ``finished``, ``dissolved`` (ended early
    by a unanimous vote)."""

    code: str
    game: str
    options: dict[str, Any]
    seats: list[SeatInfo]
    #: Free seats kept for the last session's players (再来一场; empty once taken or after
    #: ``HOLD_SECONDS``).
    held: list[HeldSeat] = []
    hand_no: int
    hands: int
    totals: list[int]
    dealer: int
    dealer_streak: int
    status: RoomStatus
    #: 再来一场: once the session is over, the room its players went on in (``POST
    #: /api/rooms/{code}/again``); null before one is made. Only ``GET /api/rooms/{code}``
    #: fills it.
    next: str | None = None


class AgainResponse(BaseModel):
    """``POST /api/rooms/{code}/again``: the next room's ``code`` (the same for every caller)."""

    code: str


class ErrorDetail(BaseModel):
    """REST errors: ``{"detail": {"code", "message"}}``."""

    code: str
    message: str


# ---------------------------------------------------------------- client -> server


class ActionBody(StrictInput):
    """One engine action. ``tile`` for ``discard`` and own-turn ``kong``; ``suit`` for
    ``ding_que``; ``bao_ting`` only with the first ``discard``; ``tiles`` (the two tiles
    from hand) for a Jintan ``chow``."""

    kind: ActionKind
    tile: Tile | None = None
    suit: Suit | None = None
    bao_ting: bool = False
    tiles: Annotated[list[Tile], Field(min_length=2, max_length=2)] | None = None

    @model_validator(mode="after")
    def _tiles_only_for_chow(self) -> ActionBody:
        """A chow names its two tiles from hand (and no single tile); nothing else does."""
        if (self.kind == "chow") != (self.tiles is not None) or (
            self.kind == "chow" and self.tile is not None
        ):
            raise ValueError("a chow, and only a chow, names its two tiles from hand in 'tiles'")
        return self


class ActionMessage(StrictInput):
    """Play an action. ``seq`` is echoed in an ``error`` if the action is refused.
    ``prompt``: the number of the prompt this answers (from the message that carried the
    ``legal`` list); an old number, or a second answer to one prompt, gets ``stale_prompt``."""

    type: Literal["action"]
    seq: Seq | None = None
    prompt: Seq | None = None
    action: ActionBody


class ReadyMessage(StrictInput):
    """Ready for the next hand (after ``hand_end``)."""

    type: Literal["ready"]
    seq: Seq | None = None


class SyncMessage(StrictInput):
    """Ask for a fresh ``snapshot``."""

    type: Literal["sync"]
    seq: Seq | None = None


class AutoMessage(StrictInput):
    """Turn auto-play (托管) on or off for one's own seat."""

    type: Literal["auto"]
    seq: Seq | None = None
    on: bool


class DissolveMessage(StrictInput):
    """Vote on dissolving the room early: ``agree: true`` opens a vote (or agrees to the open
    one), ``false`` refuses it. Unanimity (bots always agree) dissolves the room."""

    type: Literal["dissolve"]
    seq: Seq | None = None
    agree: bool


class PingMessage(StrictInput):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]
    seq: Seq | None = None


class PhraseMessage(StrictInput):
    """Say a quick phrase / emote (快捷语) to the table: ``phrase`` is an id of the fixed list
    (``server/room/phrases.py``: ``hurry``, ``hurry_up``, ..., ``emote_wow``); free text is
    not accepted. Errors: ``unknown_phrase``, ``phrase_rate_limited`` (one every 3 s per
    seat), ``spectator``. Broadcast as ``{"type": "phrase", "seat", "phrase"}``."""

    type: Literal["phrase"]
    seq: Seq | None = None
    phrase: Annotated[str, StringConstraints(max_length=32)]


ClientMessage = Annotated[
    ActionMessage
    | ReadyMessage
    | SyncMessage
    | AutoMessage
    | DissolveMessage
    | PingMessage
    | PhraseMessage,
    Field(discriminator="type"),
]
ClientMessageAdapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)


# ---------------------------------------------------------------- server -> client


class LegalAction(BaseModel):
    """An action the receiving seat may send now, exactly as to send it."""

    kind: ActionKind
    tile: str | None = None
    suit: str | None = None
    bao_ting: bool | None = None
    tiles: list[str] | None = None


class ReplayLink(BaseModel):
    """A settled hand's replay link, sent to its seats only (never to spectators):
    ``GET /api/replays/{hand_id}?key=<key>``, viewed at ``url`` (``/replay?hand=..&key=..``)."""

    hand_id: int
    key: str
    url: str


class PreviousHand(BaseModel):
    """The hand settled before the one being played, as its ``hand_end`` gave it:
    ``settlement`` and (to a seat; null to spectators) the ``replay`` link."""

    hand_no: int
    settlement: dict[str, Any]
    replay: ReplayLink | None = None


class SnapshotMessage(BaseModel):
    """The whole picture for one seat: on connect, at each hand's deal, on ``sync``.
    ``view`` is ``null`` before the first deal. ``version`` counts the hand's events."""

    type: Literal["snapshot"]
    hand_no: int
    version: int
    prompt: int
    seat: int | None
    view: dict[str, Any] | None
    legal: list[LegalAction]
    deadline: int | None
    #: When the prompt's own limit ends (ms); from then until ``deadline`` the seat shown is
    #: on its time bank (时间银行). Null without a bank to use.
    bank_from: int | None = None
    auto: bool
    room: RoomInfo
    settlement: dict[str, Any] | None = None
    replay: ReplayLink | None = None
    #: While a hand is played: the hand settled before it (上局结算), for a page that was
    #: away over the deal; null before the second hand and outside play.
    previous: PreviousHand | None = None
    vote: DissolveVoteMessage | None = None
    #: Between hands, the seats the room has a ``ready`` of (as :class:`ReadyStateMessage`;
    #: bots always); empty otherwise. A ``ready`` lost with a dropped socket is not in it.
    ready: list[int] = []
    standings: list[Standing] | None = None
    #: Services the room is waiting for (see :class:`DegradedMessage`); empty normally.
    degraded: list[Literal["database"]] = []


class EventMessage(BaseModel):
    """One accepted change (an action, or a claim window closing): its engine ``events``, in
    order, projected for the receiving seat, with the seat's ``view``, ``legal`` actions and
    ``deadline`` after the whole change; ``version`` the hand's version after it. One such
    message per change per seat (a change that ends the hand comes as ``hand_end``).
    ``prev_version``: the version of the previous versioned message sent to this seat in
    this hand (None if unknown); a client that last saw a lower version missed a message
    and should send ``sync``."""

    type: Literal["event"]
    hand_no: int
    version: int
    prompt: int
    events: list[dict[str, Any]]
    view: dict[str, Any]
    legal: list[LegalAction]
    deadline: int | None
    #: As in :class:`SnapshotMessage`.
    bank_from: int | None = None
    prev_version: int | None = None


class HandEndMessage(BaseModel):
    """The change that ended the hand, in one message: its ``events`` (the engine's
    ``hand_end`` event without its settlement), the final ``view`` (no ``settlement``
    field: every hand is in the settlement), the hand's ``settlement`` (engine ``settle``;
    the only copy), the session ``totals`` after it; ``prompt`` the pause for ``ready``
    that follows (or the session's end). A seat's carries its ``replay`` link; a
    spectator's ``null``."""

    type: Literal["hand_end"]
    hand_no: int
    version: int
    prompt: int
    events: list[dict[str, Any]] = []
    view: dict[str, Any] | None = None
    legal: list[LegalAction] = []
    settlement: dict[str, Any]
    totals: list[int]
    next_hand: int | None
    deadline: int | None
    prev_version: int | None = None
    replay: ReplayLink | None = None


class ReadyStateMessage(BaseModel):
    """Who is ready for the next hand (bots always are)."""

    type: Literal["ready"]
    ready: list[int]


class AutoStateMessage(BaseModel):
    """Seats on auto-play (托管)."""

    type: Literal["auto"]
    auto: list[int]


class Standing(BaseModel):
    """One seat in the final standing: ``rank`` 1 is best; equal totals share a rank."""

    seat: int
    name: str
    total: int
    rank: int


class SessionEndMessage(BaseModel):
    """The session is over: all ``options.hands`` hands played, or dissolved by a vote
    (``dissolved``). Final totals, and the standing best first."""

    type: Literal["session_end"]
    totals: list[int]
    standings: list[Standing]
    dissolved: bool = False


class DissolveVoteMessage(BaseModel):
    """The dissolve vote: ``votes[seat]`` true/false/null (not yet), ``proposed`` the seat
    that asked for it; ``result`` ``open`` (``deadline`` = when it ends: the seats still
    silent then agree), ``dissolved`` (every seat agreed, or nobody refused in time),
    ``refused`` (a seat said no) or ``finished`` (the session ended)."""

    type: Literal["dissolve_vote"]
    votes: list[bool | None]
    proposed: int | None = None
    deadline: int | None
    result: Literal["open", "dissolved", "refused", "finished"]


class RoomMessage(BaseModel):
    """The room's public info changed: a seat was taken, a socket connected or left."""

    type: Literal["room"]
    room: RoomInfo


class PhraseSaidMessage(BaseModel):
    """Seat ``seat`` said quick phrase ``phrase`` (an id of the list; the client shows its
    text). Sent to every seat and to the spectators; no ``version``: not a game event."""

    type: Literal["phrase"]
    seat: int
    phrase: str


class DegradedMessage(BaseModel):
    """The room is waiting for ``service`` (it could not write to its database and keeps
    retrying; actions sent meanwhile are applied once it is back)."""

    type: Literal["degraded"]
    service: Literal["database"]


class RecoveredMessage(BaseModel):
    """``service`` is back: the room carries on (what waited follows as usual events)."""

    type: Literal["recovered"]
    service: Literal["database"]


class PongMessage(BaseModel):
    """Answer to ``ping``."""

    type: Literal["pong"]
    seq: int | None = None


class ErrorMessage(BaseModel):
    """A refused message: nothing changed. ``seq`` echoes the client's ``seq`` if any."""

    type: Literal["error"]
    code: Literal[
        "bad_message",
        "illegal_action",
        "not_your_turn",
        "bad_action",
        "no_hand",
        "stale_prompt",
        "no_session",
        "hand_with_bots",
        "not_between_hands",
        "no_vote",
        "already_voted",
        "vote_too_soon",
        "bad_token",
        "unknown_room",
        "too_large",
        "rate_limited",
        "spectator",
        "replaced",
        "unknown_phrase",
        "phrase_rate_limited",
        "unavailable",
        "internal",
    ]
    message: str
    seq: int | None = None


ServerMessage = Annotated[
    SnapshotMessage
    | EventMessage
    | HandEndMessage
    | ReadyStateMessage
    | AutoStateMessage
    | SessionEndMessage
    | DissolveVoteMessage
    | RoomMessage
    | PhraseSaidMessage
    | DegradedMessage
    | RecoveredMessage
    | PongMessage
    | ErrorMessage,
    Field(discriminator="type"),
]
ServerMessageAdapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def json_schemas() -> dict[str, Any]:
    """JSON schemas: the client and server WebSocket message unions, and the REST bodies."""
    rest = {
        m.__name__: m.model_json_schema()
        for m in (
            CreateRoomRequest,
            CreateRoomResponse,
            JoinRequest,
            JoinResponse,
            BotsRequest,
            BotsResponse,
            RoomInfo,
        )
    }
    return {
        "client": ClientMessageAdapter.json_schema(),
        "server": ServerMessageAdapter.json_schema(),
        "rest": rest,
    }


SCHEMA_BEGIN = "<!-- schema:begin (generated by `python -m server.api.messages --write`) -->"
SCHEMA_END = "<!-- schema:end -->"


def schema_block() -> str:
    """The generated part of ``docs/protocol.md``: markers around a fenced JSON block."""
    body = json.dumps(json_schemas(), indent=2, ensure_ascii=False)
    return f"{SCHEMA_BEGIN}\n```json\n{body}\n```\n{SCHEMA_END}"


def render_doc(text: str) -> str:
    """``text`` (protocol.md) with its schema block replaced by the current one (appended if
    the markers are missing)."""
    if SCHEMA_BEGIN in text and SCHEMA_END in text:
        head, rest = text.split(SCHEMA_BEGIN, 1)
        _, tail = rest.split(SCHEMA_END, 1)
        return head + schema_block() + tail
    return text.rstrip("\n") + "\n\n" + schema_block() + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m server.api.messages``: print the schemas; ``--write [PATH]``: refresh the
    schema block of ``docs/protocol.md`` (or PATH)."""
    import sys
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--write":
        path = Path(args[1] if len(args) > 1 else "docs/protocol.md")
        path.write_text(render_doc(path.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    print(json.dumps(json_schemas(), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
