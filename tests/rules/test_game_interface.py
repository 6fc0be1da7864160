"""The game interface and its registry: ``find_game`` gives the Guiyang `Game`, an unknown
name a typed `UnknownGame`; the Guiyang game behind the interface behaves exactly as its
engine; the one replay gives the same hand from a seed as the play that made it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from server.rules import registry
from server.rules.events import project_event
from server.rules.game import Game
from server.rules.guiyang import engine
from server.rules.guiyang.bot import choose_action
from server.rules.guiyang.scoring import settle
from server.rules.registry import DEFAULT_GAME, UnknownGame, find_game, game_names
from server.rules.replay import Step, fixture_steps, replay
from server.rules.types import Action, Event, IllegalAction, Settlement, View

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "guiyang"  # the repository copy


def test_find_game_gives_the_guiyang_game() -> None:
    game = find_game("guiyang")
    assert isinstance(game, Game)
    assert game.name == "guiyang" and DEFAULT_GAME == "guiyang"
    assert find_game() is game and find_game("guiyang") is game, "one instance per name"
    assert game_names() == ("guiyang", "jintan")
    assert len(game.tile_set) == 108 and sorted(set(game.tile_set))[:2] == ["1m", "1p"]
    assert game.options({}).model_dump() == game.options_model().model_dump()


@pytest.mark.parametrize("name", ["chess", "", "Guiyang", "guiyang "])
def test_an_unknown_game_is_a_typed_error(name: str) -> None:
    with pytest.raises(UnknownGame) as err:
        find_game(name)
    assert err.value.code == "unknown_game" and err.value.name == name
    assert "guiyang" in str(err.value)


def test_a_registered_game_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.rules.guiyang.game import GuiyangGame

    class Probe(GuiyangGame):
        name = "probe"

    monkeypatch.setitem(registry._FACTORIES, "probe", Probe)
    monkeypatch.setattr(registry, "_GAMES", {})
    assert isinstance(find_game("probe"), Probe) and find_game("probe").name == "probe"
    assert "probe" in game_names()


def test_bad_options_are_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError) as err:
        find_game().options({"players": 5})
    assert err.value.errors()[0]["loc"] == ("players",)


def _play(game: Game, options: Any, seed: str) -> tuple[Any, list[Step], list[Event]]:
    """Bot self-play of one hand through the interface; the steps and events it made."""
    state = game.deal(options, seed, 0, 1)
    steps: list[Step] = []
    events: list[Event] = []
    while not game.ended(state):
        if game.claims_decided(state):
            state, new = game.resolve_claims(state)
            events.extend(new)
            continue
        seat = game.acting_seats(state)[0]
        action = game.bot_action(state, seat)
        steps.append(Step(seat, action))
        state, new = game.apply(state, seat, action)
        events.extend(new)
    return state, steps, events


@pytest.mark.parametrize("players", [4, 3, 2])
def test_guiyang_behind_the_interface_is_its_engine(players: int) -> None:
    game = find_game()
    options = game.options({"players": players})
    for n in range(8):
        state = engine.deal(options, f"iface-{players}-{n}")
        other = game.deal(options, f"iface-{players}-{n}")
        while not state.ended:
            assert game.legal_actions(other, 0) == engine.legal_actions(state, 0)
            assert game.acting_seats(other) == engine.acting_seats(state)
            assert game.prompt_kind(other) == engine.prompt_kind(state)
            for seat in [*range(players), None]:
                assert game.view(other, seat).to_dict() == engine.view(state, seat)
            if engine.claims_decided(state):
                assert game.claims_decided(other)
                state, want = engine.resolve_claims(state)
                other, got = game.resolve_claims(other)
            else:
                seat = engine.acting_seats(state)[0]
                assert game.bot_action(other, seat) == choose_action(state, seat)
                assert game.default_action(other, seat) == engine.default_action(state, seat)
                action = choose_action(state, seat)
                state, want = engine.apply(state, seat, action)
                other, got = game.apply(other, seat, action)
            assert [e.to_dict() for e in got] == want
            for seat in [*range(players), None]:
                assert [game.project_event(e, seat) for e in got] == [
                    project_event(e, seat) for e in want
                ]
        settlement = game.settle(other)
        assert isinstance(settlement, Settlement)
        assert settlement.to_dict() == settle(state)
        assert sum(settlement.deltas) == 0
        net = [0] * players
        for p in settlement.payments:
            net[p.payer] -= p.points
            net[p.payee] += p.points
        assert net == list(settlement.deltas)
        assert game.settle(other) is settlement, "settled once"
        for seat in [*range(players), None]:  # the ended view, settlement included
            assert game.view(other, seat).to_dict() == engine.view(state, seat)


def test_a_refused_action_is_a_typed_error_and_changes_nothing() -> None:
    game = find_game()
    state = game.deal(game.options({}), "refuse")
    before = game.view(state, 0).to_dict()
    with pytest.raises(IllegalAction) as err:
        game.apply(state, 1, Action("discard", tile="1m"))
    assert err.value.code == "not_your_turn"
    assert game.view(state, 0).to_dict() == before


def test_replay_from_a_seed_gives_the_same_hand() -> None:
    game = find_game()
    options = game.options({"players": 4})
    for n in range(6):
        state, steps, events = _play(game, options, f"replay-{n}")
        seen: list[Any] = []
        done = replay(game, options.model_dump(), steps, seed=f"replay-{n}", on_state=seen.append)
        assert done.version == len(events) and done.events == events
        assert done.settlement is not None and done.settlement == game.settle(state)
        assert done.state == state
        # every state the room went through: the deal, each step, each closed window
        assert seen == _states(game, options, f"replay-{n}")
        assert seen[-1] is done.state


def _states(game: Game, options: Any, seed: str) -> list[Any]:
    """The states of `_play`'s hand in order: the deal, after each action and each close."""
    state = game.deal(options, seed, 0, 1)
    states = [state]
    while not game.ended(state):
        if game.claims_decided(state):
            state, _ = game.resolve_claims(state)
        else:
            seat = game.acting_seats(state)[0]
            state, _ = game.apply(state, seat, game.bot_action(state, seat))
        states.append(state)
    return states


def test_replay_of_a_partial_log_leaves_an_undecided_window_open() -> None:
    game = find_game()
    options = game.options({})
    for n in range(200):  # a seed whose first discard can be claimed
        state = game.deal(options, f"window-{n}")
        action = game.bot_action(state, 0)
        after, _ = game.apply(state, 0, action)
        if game.claim_open(after) and game.acting_seats(after):
            break
    else:
        raise AssertionError("no claimable first discard")
    done = replay(game, options, [Step(0, action)], seed=f"window-{n}")
    assert game.claim_open(done.state) and done.settlement is None
    assert game.acting_seats(done.state) == game.acting_seats(after)


def test_replay_refuses_a_corrupt_log() -> None:
    game = find_game()
    with pytest.raises(IllegalAction):
        replay(game, {}, [Step(2, Action("discard", tile="1m"))], seed="corrupt")
    with pytest.raises(ValueError):
        replay(game, {}, [])


def test_replay_runs_a_fixture() -> None:
    fixture = json.loads((FIXTURES / "zimo-ping-hu.json").read_text("utf-8"))
    done = replay(
        find_game(fixture.get("game")),
        fixture.get("options", {}),
        fixture_steps(fixture["actions"]),
        hands=fixture["hands"],
        wall=fixture["wall"],
        dealer=fixture.get("dealer", 0),
        fixture=True,
    )
    assert done.settlement is not None
    assert list(done.settlement.deltas) == fixture["expect"]["deltas"]


def test_typed_values_serialise_to_the_wire_shapes() -> None:
    action = Action("discard", tile="5m", bao_ting=True)
    assert action.to_dict() == {"kind": "discard", "tile": "5m", "bao_ting": True}
    assert Action.from_dict(action.to_dict()) == action and action.tiles == ()
    chow = Action.from_dict({"kind": "chow", "tiles": "5m4m"})
    assert chow == Action("chow", tiles=("4m", "5m"))
    assert chow.to_dict() == {"kind": "chow", "tiles": ["4m", "5m"]}
    event = Event.from_dict({"type": "draw", "seat": 1, "tile": "3p", "_private": ["tile"]})
    assert event.project(1) == {"type": "draw", "seat": 1, "tile": "3p"}
    assert event.project(0) == {"type": "draw", "seat": 1}
    assert event.project(None) == {"type": "draw", "seat": 1}
    # each form is made once and shared; the order of the asks changes nothing
    hidden_first = Event.from_dict(event.to_dict())
    assert hidden_first.project(2) == {"type": "draw", "seat": 1}
    assert hidden_first.project(1) == {"type": "draw", "seat": 1, "tile": "3p"}
    assert hidden_first.project(3) is hidden_first.project(None)
    assert hidden_first == event  # (the memo is no field)
    assert event.to_dict() == {"type": "draw", "seat": 1, "tile": "3p", "_private": ["tile"]}
    with pytest.raises(TypeError):
        event.data["tile"] = "4p"  # type: ignore[index]
    view = View({"phase": "turn"})
    assert dict(view) == view.to_dict() == {"phase": "turn"}


def test_jintan_behind_the_interface_is_its_engine() -> None:
    from server.rules import jintan
    from server.rules.jintan.bot import choose_action as jintan_bot

    game = find_game("jintan")
    assert isinstance(game, Game) and game.name == "jintan" and len(game.tile_set) == 144
    options = game.options({})
    assert game.weekday_at(options, 0.0) is None
    for n in range(6):
        state = jintan.deal(options, f"jt-{n}")
        other = game.deal(options, f"jt-{n}")
        steps: list[Step] = []
        while not state.ended:
            for seat in range(4):
                assert [a.to_dict() for a in game.legal_actions(other, seat)] == [
                    a.to_dict() for a in jintan.legal_actions(state, seat)
                ]
                for aud in (seat, None):
                    assert game.view(other, aud).to_dict() == jintan.view(state, aud)
            if jintan.claims_decided(state):
                state, want = jintan.resolve_claims(state)
                other, got = game.resolve_claims(other)
            else:
                seat = jintan.acting_seats(state)[0]
                action = jintan_bot(state, seat)
                shared = game.bot_action(other, seat)
                assert shared.to_dict() == action.to_dict()
                steps.append(Step(seat, shared))
                state, want = jintan.apply(state, seat, action)
                other, got = game.apply(other, seat, shared)
            assert [e.to_dict() for e in got] == want
        settlement = game.settle(other)
        assert settlement is not None and settlement.to_dict() == jintan.settle(state)
        assert sum(settlement.deltas) == 0
        done = replay(game, {}, steps, seed=f"jt-{n}")
        assert done.settlement == settlement
    with pytest.raises(IllegalAction):
        game.apply(game.deal(options, "jt-x"), 0, Action("discard", tile="1m", bao_ting=True))
