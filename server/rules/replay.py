"""The one replay: a game, its options, a seed (or fixture hands + wall) and the actions ->
final state, events and settlement (spec/fixtures.md; design.md ``rules/replay.py``).

`replay` serves the room's rebuild (a stored hand: seed + action log), the audit (the same,
compared with the ledger) and the fixture runner (hands + wall + fixture actions, with the
fixture conventions: unlisted claimants pass, ``{"expect": "illegal"}`` steps).

``python -m server replay FILE...`` prints one JSON line per fixture with the actual outcome
(the keys of ``expect``, all filled) and ``"ok"``; the exit status is 0 only if all are ok.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dealing import shuffle_and_deal
from .game import Game
from .registry import DEFAULT_GAME, UnknownGame, find_game, game_names
from .tiles import parse_tiles, tile_index
from .types import Action, Event, IllegalAction, Settlement

#: ``on_change(step, state, events)``: a step applied (``step``) or a claim window closed by
#: the room (``None``), the state after it and the events it made.
OnChange = Callable[["Step | None", Any, list[Event]], None]

OUTCOME_KEYS = (
    "result",
    "winners",
    "hand_types",
    "deltas",
    "ready",
    "chickens",
    "turned",
    "next_dealer",
    "payments",
)
SET_KEYS = ("winners", "ready", "chickens")
# The games whose fixtures `check` runs (a fixture's ``game``, default "guiyang"): the
# registered ones; any other game's fixture is reported "not implemented". The tests skip
# such fixtures by this set.
IMPLEMENTED_GAMES = frozenset(game_names())


class FixtureError(ValueError):
    """A fixture whose action list is itself invalid (an action the engine refused)."""


@dataclass(frozen=True)
class Step:
    """One replayed decision: ``seat`` plays ``action``; with ``expect_illegal`` (fixtures
    only) the game must refuse it, and the replay goes on without it. ``entry`` is the
    fixture's own form of it, for messages."""

    seat: int
    action: Action
    expect_illegal: bool = False
    entry: tuple[Any, ...] | None = None


@dataclass
class Replayed:
    """What a replay gives: the final ``state``, every ``event`` in order, and the
    ``settlement`` (None unless the hand ended)."""

    state: Any
    events: list[Event] = field(default_factory=list)
    settlement: Settlement | None = None

    @property
    def version(self) -> int:
        """The hand's event counter after these events (the room's ``version``)."""
        return len(self.events)


def log_steps(actions: Iterable[tuple[int, Mapping[str, Any]]]) -> list[Step]:
    """Steps from the store's action log ``[(seat, {"action": Action.to_dict(), ...}), ...]``.

    Raises:
        IllegalAction: code ``bad_action`` for a payload that is not an action.
    """
    return [Step(seat, Action.from_dict(payload["action"])) for seat, payload in actions]


def replay(
    game: Game,
    options: Any,
    steps: Iterable[Step],
    *,
    seed: str | None = None,
    hands: Sequence[Sequence[str]] | Sequence[str] | None = None,
    wall: Sequence[str] | str | None = None,
    dealer: int = 0,
    dealer_streak: int = 1,
    weekday: int | None = None,
    fixture: bool = False,
    on_state: Callable[[Any], None] | None = None,
    on_change: OnChange | None = None,
) -> Replayed:
    """Replay one hand of ``game`` from ``seed`` (a stored hand) or ``hands`` + ``wall``
    (fixture form) through ``steps``; ``weekday`` is the one recorded at the deal
    (`Game.weekday_at`).

    A stored hand (``fixture=False``): a decided claim window is closed before the next step
    and at the end, as the live room closes it; a window still undecided at the end stays
    open. Raises `IllegalAction` for a step the game refuses (a corrupt log).

    A fixture (``fixture=True``): before a step that does not answer the open claim window,
    every seat still owing an answer passes (fixtures.md); at the end every open window is
    closed that way. Raises `FixtureError` for a refused step, or an ``expect_illegal``
    step the game accepted. ``ValueError`` for hands + wall that are not one tile set.

    ``on_state`` (if given) sees every state the hand went through, as the live room did:
    the deal, then the state after each step and each closed claim window. ``on_change`` (if
    given) sees the same changes after the deal, each with the step that made it (``None``
    for a claim window the room closed) and its events (`replay_record`).
    """
    options = game.options(options)
    if seed is not None:
        state = game.deal(options, seed, dealer, dealer_streak, weekday)
    elif hands is not None and wall is not None:
        state = game.new_hand(options, hands, wall, dealer, dealer_streak, weekday)
    else:
        raise ValueError("replay needs a seed, or hands and a wall")
    if on_state is not None:
        on_state(state)
    state, events = _play(game, state, steps, fixture, on_state, on_change)
    return Replayed(state, events, game.settle(state) if game.ended(state) else None)


def _play(
    game: Game,
    state: Any,
    steps: Iterable[Step],
    fixture: bool,
    on_state: Callable[[Any], None] | None = None,
    on_change: OnChange | None = None,
) -> tuple[Any, list[Event]]:
    """`replay`'s loop from a given starting state.

    A claim answer while a window is open answers that window, in any order, even once it is
    decided (§3). Before any other step the window is closed as the room closes it: a stored
    hand closes a decided window (the room did so before anyone could act again); a fixture
    also lets the seats still owing an answer pass (`close_window`). An ``expect_illegal``
    step is judged where it would really be taken, so it must be refused there.
    """
    events: list[Event] = []

    def seen(new_state: Any, step: Step | None = None, new: Sequence[Event] = ()) -> Any:
        if on_state is not None:
            on_state(new_state)
        if on_change is not None:
            on_change(step, new_state, list(new))
        return new_state

    def closing(new_state: Any) -> None:  # a fixture's window closed (`close_window`)
        if on_change is not None:
            on_change(None, new_state, events[done:])

    done = 0

    for number, step in enumerate(steps):
        seat, action = step.seat, step.action
        if fixture:
            if not game.is_claim_answer(state, seat, action):
                done = len(events)
                state = close_window(state, events, game, on_state)
                if len(events) > done:
                    closing(state)
        elif game.claims_decided(state) and action not in game.legal_actions(state, seat):
            state, new = game.resolve_claims(state)  # the room closed it before this action
            seen(state, None, new)
            events.extend(new)
        if step.expect_illegal:
            if action in game.legal_actions(state, seat):
                raise FixtureError(
                    f"action {number} {_entry(step)} is marked illegal but is legal: seat {seat}"
                    f" may {_describe(action)} now ({game.describe(state)})"
                )
            try:
                game.apply(state, seat, action)
            except IllegalAction:
                continue
            raise FixtureError(f"action {number} {_entry(step)} was accepted but must be illegal")
        try:
            state, new = game.apply(state, seat, action)
        except IllegalAction as exc:
            if not fixture:
                raise
            raise FixtureError(f"action {number} {_entry(step)} refused: {exc.message}") from None
        seen(state, step, new)
        events.extend(new)
    if fixture:
        done = len(events)
        state = close_window(state, events, game, on_state)
        if len(events) > done:
            closing(state)
    elif game.claims_decided(state):
        state, new = game.resolve_claims(state)
        seen(state, None, new)
        events.extend(new)
    return state, events


# ---------------------------------------------------------------------------- replay record


def open_table(game: Game, state: Any) -> dict[str, Any]:
    """``state`` with every hand open (for a replay, after the hand): the spectator's view
    (docs/protocol.md ``view``, without ``settlement``) whose ``seats[i]`` also carry seat
    i's own ``hand`` (concealed tiles without the drawn one), ``drawn``, ``waits`` and
    ``ding_que`` as seat i sees them, plus ``acting`` (the seats that owe an answer) and
    ``prompt`` (`Game.prompt_kind`; ``""`` once ended)."""
    table = game.view(state, None).to_dict()
    table.pop("settlement", None)
    table["seats"] = [dict(seat) for seat in table["seats"]]  # (a view's own are shared)
    for seat in table["seats"]:
        own = game.view(state, seat["seat"]).to_dict()
        seat["hand"] = list(own.get("hand") or [])
        seat["drawn"] = own.get("drawn")
        seat["waits"] = own.get("waits") or []
        if "ding_que" in seat:
            seat["ding_que"] = own["seats"][seat["seat"]].get("ding_que")
    ended = game.ended(state)
    table["acting"] = [] if ended else list(game.acting_seats(state))
    table["prompt"] = "" if ended else game.prompt_kind(state)
    return table


def replay_record(
    game: Game,
    options: Any,
    steps: Sequence[Step],
    *,
    seed: str,
    dealer: int = 0,
    dealer_streak: int = 1,
    weekday: int | None = None,
) -> dict[str, Any]:
    """A stored hand replayed step by step for a viewer (`replay`, the audit's replay):

    ``{"seed", "seed_hash", "players", "dealer", "dealer_streak", "weekday",
    "deal": {"hands": [[tile, ...] per seat], "wall": [tile, ...]},
    "initial": open_table, "steps": [{"n", "seat", "action", "events", "state"}],
    "settlement": dict | None}``.

    ``deal`` is the shuffle of the seed before anything is played (`shuffle_and_deal` of
    the game's tile set: seat i's dealt tiles, then the wall in draw order), which a page
    can rebuild from the seed. Each step is an action of the log (``seat``, ``action`` in
    its wire form: claims and passes included) or, with ``seat`` and ``action`` null, a
    claim window the room closed; ``events`` are its events in full (nothing hidden, the
    hand is over) and ``state`` the `open_table` after it. Raises as `replay`.
    """
    opts = game.options(options)
    hands, wall = shuffle_and_deal(list(game.tile_set), seed, opts.players, dealer)
    states: list[Any] = []
    records: list[dict[str, Any]] = []

    def change(step: Step | None, state: Any, events: list[Event]) -> None:
        records.append(
            {
                "n": len(records) + 1,
                "seat": None if step is None else step.seat,
                "action": None if step is None else step.action.to_dict(),
                "events": [{"type": e.type, **e.data} for e in events],
                "state": open_table(game, state),
            }
        )

    done = replay(
        game,
        opts,
        steps,
        seed=seed,
        dealer=dealer,
        dealer_streak=dealer_streak,
        weekday=weekday,
        on_state=lambda state: states.append(state) if not states else None,
        on_change=change,
    )
    return {
        "seed": seed,
        "seed_hash": game.seed_hash(seed),
        "players": opts.players,
        "dealer": dealer,
        "dealer_streak": dealer_streak,
        "weekday": weekday,
        "deal": {"hands": hands, "wall": wall},
        "initial": open_table(game, states[0]),
        "steps": records,
        "settlement": None if done.settlement is None else done.settlement.to_dict(),
    }


def _entry(step: Step) -> list[Any]:
    if step.entry is not None:
        return list(step.entry)
    return [step.seat, *step.action.to_dict().values()]


def _describe(action: Action) -> str:
    text = " ".join(str(v) for v in (action.kind, action.tile, action.suit) if v)
    return text + (" with bao_ting" if action.bao_ting else "")


# ---------------------------------------------------------------------------- fixtures


def parse_action(entry: Sequence[Any]) -> tuple[int, Action, dict[str, Any]]:
    """Turn a fixture action ``[seat, kind, arg?, extra?]`` into (seat, Action, extra)."""
    seat, kind, *rest = entry
    extra: dict[str, Any] = {}
    arg = None
    for item in rest:
        if isinstance(item, dict):
            extra = item
        else:
            arg = item
    if kind == "ding_que":
        return seat, Action("ding_que", suit=arg), extra
    if kind == "chow":  # the two tiles from hand, e.g. "4m5m"
        tiles = tuple(sorted(parse_tiles(str(arg or "")), key=tile_index))
        return seat, Action("chow", tiles=tiles), extra
    return seat, Action(kind, tile=arg, bao_ting=bool(extra.get("bao_ting"))), extra


def fixture_steps(actions: Iterable[Sequence[Any]]) -> list[Step]:
    """Steps from fixture-form actions (an ``{"expect": "illegal"}`` entry is marked so)."""
    steps = []
    for entry in actions:
        seat, action, extra = parse_action(entry)
        steps.append(Step(seat, action, extra.get("expect") == "illegal", tuple(entry)))
    return steps


def close_window(
    state: Any,
    events: list[Event] | None = None,
    game: Game | None = None,
    on_state: Callable[[Any], None] | None = None,
) -> Any:
    """Close the open claim or rob window as the room does; its events go to ``events``.

    A decided window (`Game.claims_decided`) is closed at once, even if some offered seats
    have not answered: no answer of theirs could change it (§3). Otherwise the seats still
    owing an answer pass, in turn order, until it is decided (fixtures.md: seats that could
    claim and are not listed pass). A state with no open window is returned as is. ``game``
    defaults to `DEFAULT_GAME`.
    """
    game = game or find_game(DEFAULT_GAME)
    while game.claim_open(state):
        if game.claims_decided(state):
            state, new = game.resolve_claims(state)
        else:
            state, new = game.apply(state, game.acting_seats(state)[0], Action("pass"))
        if on_state is not None:
            on_state(state)
        if events is not None:
            events.extend(new)
    return state


def run_hand(
    state: Any, actions: Sequence[Sequence[Any]], game: Game | None = None
) -> tuple[Any, list[Event]]:
    """Apply fixture-form ``actions`` to ``state``; returns the final state and all events
    (`replay` of a fixture, from a state already made).

    A claim answer (``win``, ``pong``, ``kong`` without a tile, ``pass``) while a window is
    open answers that window, in any order, even once it is decided (§3). Any other action
    first closes the window as the room would before anyone could take it (`close_window`).
    This holds for an action marked ``{"expect": "illegal"}`` too, so it is judged where it
    would really be taken, not refused merely because a window was still open; it must
    then be refused, and it changes nothing.

    Raises:
        FixtureError: an action not marked ``{"expect": "illegal"}`` was refused, or one
            marked so was legal (the message names it).
    """
    return _play(game or find_game(DEFAULT_GAME), state, fixture_steps(actions), True)


def fixture_game(fixture: Mapping[str, Any]) -> Game:
    """The fixture's game (``"game"``, default `DEFAULT_GAME`). Raises `UnknownGame`."""
    return find_game(fixture.get("game", DEFAULT_GAME))


def fixture_state(fixture: Mapping[str, Any], game: Game | None = None) -> Any:
    """The starting state a fixture describes (options, dealer, hands, wall)."""
    game = game or fixture_game(fixture)
    return game.new_hand(
        game.options(fixture.get("options", {})),
        fixture["hands"],
        fixture["wall"],
        fixture.get("dealer", 0),
        fixture.get("dealer_streak", 1),
        weekday=fixture.get("weekday"),
    )


def _summed(payments: Sequence[Any]) -> dict[tuple[int, int, str], int]:
    sums: dict[tuple[int, int, str], int] = defaultdict(int)
    for p in payments:
        if isinstance(p, dict):
            sums[(p["from"], p["to"], p["reason"])] += p["points"]
        else:
            sums[(p[0], p[1], p[3])] += p[2]
    return dict(sums)


def outcome(settlement: Settlement) -> dict[str, Any]:
    """The fixture-form outcome of a settled hand (all `OUTCOME_KEYS`)."""
    wire = settlement.to_dict()
    out = {k: wire[k] for k in OUTCOME_KEYS}
    out["payments"] = [[p.payer, p.payee, p.points, p.reason] for p in settlement.payments]
    return out


def check(fixture: dict[str, Any]) -> dict[str, Any]:
    """Run one fixture; return the actual outcome, ``name`` and ``ok`` (and ``diff``)."""
    expect = fixture.get("expect", {})
    try:
        game = fixture_game(fixture)
        done = replay(
            game,
            fixture.get("options", {}),
            fixture_steps(fixture["actions"]),
            hands=fixture["hands"],
            wall=fixture["wall"],
            dealer=fixture.get("dealer", 0),
            dealer_streak=fixture.get("dealer_streak", 1),
            weekday=fixture.get("weekday"),
            fixture=True,
        )
        if done.settlement is None:
            raise FixtureError("the actions end before the hand does")
        actual = outcome(done.settlement)
    except (FixtureError, ValueError) as exc:
        actual = {"error": str(exc)}
    diff = {}
    if "error" in actual or "error" in expect:
        if ("error" in actual) != ("error" in expect):
            diff["error"] = {"expected": expect.get("error"), "actual": actual.get("error")}
    else:
        for key, want in expect.items():
            got = actual.get(key)
            if key in SET_KEYS:
                same = set(want or []) == set(got or [])
            elif key == "payments":
                same = _summed(want) == _summed(got or [])
            else:
                same = want == got
            if not same:
                diff[key] = {"expected": want, "actual": got}
    result = {"name": fixture.get("name"), **actual, "ok": not diff}
    if diff:
        result["diff"] = diff
    return result


def main(files: Sequence[str]) -> int:
    """Run fixture files, print one JSON line each; 0 if every fixture is ok, else 1."""
    ok = True
    for path in files:
        with open(path, encoding="utf-8") as f:
            fixture = json.load(f)
        try:
            fixture_game(fixture)
        except UnknownGame:
            result = {
                "name": fixture.get("name"),
                "ok": False,
                "error": f"game {fixture.get('game')!r} is not implemented",
            }
        else:
            result = check(fixture)
        ok = ok and result["ok"]
        print(json.dumps(result, ensure_ascii=False), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
