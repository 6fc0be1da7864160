"""Replay fixtures and stored hands: wall + actions -> events + settlement (spec/fixtures.md).

``python -m server replay FILE...`` prints one JSON line per fixture with the actual outcome
(the keys of ``expect``, all filled) and ``"ok"``; the exit status is 0 only if all are ok.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from . import guiyang
from .guiyang import Action, IllegalAction, State

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
# The games whose fixtures `check` runs (a fixture's ``game``, default "guiyang"); any other
# game's fixture is reported "not implemented". The tests skip such fixtures by this set.
IMPLEMENTED_GAMES = frozenset({"guiyang"})


class FixtureError(ValueError):
    """A fixture whose action list is itself invalid (an action the engine refused)."""


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
    return seat, Action(kind, tile=arg, bao_ting=bool(extra.get("bao_ting"))), extra


def _is_claim_answer(state: State, seat: int, action: Action) -> bool:
    return (
        state.phase in ("claim", "rob")
        and seat in state.claim_options
        and action.kind in ("win", "pong", "kong", "pass")
        and action.tile is None
    )


def close_window(state: State, events: list[dict[str, Any]] | None = None) -> State:
    """Pass for every seat still owing a claim answer, in turn order (fixtures.md: seats that
    could claim and are not listed pass), then close the window; its events go to
    ``events``."""
    while state.phase in ("claim", "rob"):
        acting = guiyang.acting_seats(state)
        if acting:
            state, new = guiyang.apply(state, acting[0], Action("pass"))
        else:
            state, new = guiyang.resolve_claims(state)
        if events is not None:
            events.extend(new)
    return state


def run_hand(state: State, actions: Sequence[Sequence[Any]]) -> tuple[State, list[dict[str, Any]]]:
    """Apply fixture-form ``actions`` to ``state``; returns the final state and all events.

    Raises:
        FixtureError: an action not marked ``{"expect": "illegal"}`` was refused, or one
            marked so was accepted.
    """
    events: list[dict[str, Any]] = []
    for number, entry in enumerate(actions):
        seat, action, extra = parse_action(entry)
        if extra.get("expect") == "illegal":
            try:
                guiyang.apply(state, seat, action)
            except IllegalAction:
                continue
            raise FixtureError(f"action {number} {list(entry)} was accepted but must be illegal")
        if not _is_claim_answer(state, seat, action):
            state = close_window(state, events)
        try:
            state, new = guiyang.apply(state, seat, action)
        except IllegalAction as exc:
            raise FixtureError(f"action {number} {list(entry)} refused: {exc.message}") from None
        events.extend(new)
    return close_window(state, events), events


def fixture_state(fixture: dict[str, Any]) -> State:
    """The starting state a fixture describes (options, dealer, hands, wall)."""
    options = guiyang.GuiyangOptions(**fixture.get("options", {}))
    return guiyang.new_hand(
        options,
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


def outcome(state: State) -> dict[str, Any]:
    """The fixture-form outcome of an ended hand (all `OUTCOME_KEYS`)."""
    settlement = guiyang.settle(state)
    assert settlement is not None
    out = {k: settlement[k] for k in OUTCOME_KEYS}
    out["payments"] = [
        [p["from"], p["to"], p["points"], p["reason"]] for p in settlement["payments"]
    ]
    return out


def check(fixture: dict[str, Any]) -> dict[str, Any]:
    """Run one fixture; return the actual outcome, ``name`` and ``ok`` (and ``diff``)."""
    expect = fixture.get("expect", {})
    try:
        state, _ = run_hand(fixture_state(fixture), fixture["actions"])
        if not state.ended:
            raise FixtureError("the actions end before the hand does")
        actual = outcome(state)
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
        if fixture.get("game", "guiyang") not in IMPLEMENTED_GAMES:
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
