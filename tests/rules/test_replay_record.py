"""`replay_record` (the 回放 viewer's data, issue 14) and `replay`'s ``on_change`` hook: the
same replay the audit runs, seen step by step with every hand open."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.rules.dealing import seed_hash, shuffle_and_deal
from server.rules.registry import find_game
from server.rules.replay import Step, fixture_steps, replay, replay_record
from server.rules.types import Action

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def bot_steps(game_name: str, seed: str, dealer: int = 0) -> tuple[list[Step], Any]:
    """A hand played by the game's bots as the room logs it (a decided window closed by the
    room, not logged): the steps and the final state."""
    game = find_game(game_name)
    state = game.deal(game.options({}), seed, dealer, 1)
    steps = []
    while not game.ended(state):
        if game.claims_decided(state):
            state, _ = game.resolve_claims(state)
            continue
        seat = game.acting_seats(state)[0]
        action = game.bot_action(state, seat)
        steps.append(Step(seat, action))
        state, _ = game.apply(state, seat, action)
    return steps, state


@pytest.mark.parametrize(
    ("game_name", "seed", "dealer"),
    [("guiyang", "rec-1", 0), ("guiyang", "rec-2", 2), ("jintan", "rec-3", 1)],
)
def test_replay_record_follows_the_log_with_every_hand_open(
    game_name: str, seed: str, dealer: int
) -> None:
    game = find_game(game_name)
    steps, final = bot_steps(game_name, seed, dealer)
    rec = replay_record(game, {}, steps, seed=seed, dealer=dealer)
    done = replay(game, {}, steps, seed=seed, dealer=dealer)
    assert done.settlement is not None
    assert rec["settlement"] == done.settlement.to_dict() == game.settle(final).to_dict()
    hands, wall = shuffle_and_deal(list(game.tile_set), seed, 4, dealer)
    assert rec["deal"] == {"hands": hands, "wall": wall}
    assert rec["seed"] == seed and rec["seed_hash"] == seed_hash(seed)
    assert rec["players"] == 4 and rec["dealer"] == dealer
    # the logged steps, in order; the others are claim windows the room closed
    logged = [(s["seat"], s["action"]) for s in rec["steps"] if s["seat"] is not None]
    assert logged == [(s.seat, s.action.to_dict()) for s in steps]
    assert all(s["events"] for s in rec["steps"] if s["seat"] is None)
    assert [s["n"] for s in rec["steps"]] == list(range(1, len(rec["steps"]) + 1))
    # every hand open: each seat's concealed tiles, as its own view has them
    last = rec["steps"][-1]["state"]
    for s in range(4):
        own = game.view(final, s).to_dict()
        assert last["seats"][s]["hand"] == own["hand"]
        assert last["seats"][s]["drawn"] == own["drawn"]
    assert last["phase"] == "ended" and last["acting"] == [] and last["prompt"] == ""
    assert last["seed"] == seed and "settlement" not in last
    first = rec["initial"]
    assert first["acting"] == game.acting_seats(game.deal(game.options({}), seed, dealer, 1))
    total = sum(
        len(sv["hand"]) + (1 if sv["drawn"] else 0) + len(sv.get("flowers", []))
        for sv in first["seats"]
    )
    assert total + first["wall_count"] == len(game.tile_set)
    if game_name == "guiyang":  # no flowers: the dealt tiles are the hands at the deal
        for s, dealt in enumerate(hands):
            sv = first["seats"][s]
            assert sorted(sv["hand"] + ([sv["drawn"]] if sv["drawn"] else [])) == sorted(dealt)
    counts = [s["state"]["wall_count"] for s in rec["steps"]]
    assert counts == sorted(counts, reverse=True)
    json.dumps(rec)  # JSON-able as the API sends it


def test_on_change_sees_every_state_on_state_sees_in_a_fixture() -> None:
    """Fixture mode (unlisted claimants pass): each change after the deal is reported once,
    with its step, or None for a window closed by the fixture conventions."""
    path = sorted((FIXTURES / "guiyang").glob("*.json"))[0]
    fixture = json.loads(path.read_text(encoding="utf-8"))
    states: list[Any] = []
    changes: list[tuple[Step | None, Any, list[Any]]] = []
    done = replay(
        find_game("guiyang"),
        fixture.get("options", {}),
        fixture_steps(fixture["actions"]),
        hands=fixture["hands"],
        wall=fixture["wall"],
        dealer=fixture.get("dealer", 0),
        fixture=True,
        on_state=states.append,
        on_change=lambda step, state, events: changes.append((step, state, events)),
    )
    closes = [c for c in changes if c[0] is None]
    applied = [c[0] for c in changes if c[0] is not None]
    legal_steps = [s for s in fixture_steps(fixture["actions"]) if not s.expect_illegal]
    assert applied == legal_steps
    assert changes[-1][1] is done.state
    assert sum(len(c[2]) for c in changes) == len(done.events)
    assert all(c[2] for c in closes)
    assert len(states) >= len(changes) + 1


def test_on_change_reports_a_window_the_room_closed() -> None:
    steps, _ = bot_steps("guiyang", "rec-close")
    changes: list[tuple[Step | None, list[str]]] = []
    replay(
        find_game("guiyang"),
        {},
        steps,
        seed="rec-close",
        on_change=lambda step, state, events: changes.append((step, [e.type for e in events])),
    )
    closed = [events for step, events in changes if step is None]
    assert closed and all(events for events in closed)
    assert [step for step, _ in changes if step is not None] == steps
    assert isinstance(steps[0].action, Action)


@pytest.mark.parametrize("game_name", ["guiyang", "jintan"])
def test_the_settlement_lays_every_seats_melds_as_its_view(game_name: str) -> None:
    """战绩 opens a stored settlement without the table's view: the settlement itself carries
    each seat's melds (a pong, a kong), the same as the final view shows them."""
    game = find_game(game_name)
    seen = 0
    for n in range(40):
        _, final = bot_steps(game_name, f"melds-{n}")
        settlement = game.settle(final).to_dict()
        view = game.view(final, None).to_dict()
        melds = [seat["melds"] for seat in view["seats"]]
        assert settlement["melds"] == melds
        seen += sum(len(m) for m in melds)
        for ms in settlement["melds"]:
            for m in ms:
                assert m["kind"] and len(m["tiles"]) in (3, 4) and m["from"] in (None, 0, 1, 2, 3)
    assert seen > 0  # some hand had melds
