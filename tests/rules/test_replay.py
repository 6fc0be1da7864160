"""The replay runner (`server.rules.replay`, ``python -m server replay``) on fixtures built
here: claim answers in any order (spec §3), and ``{"expect": "illegal"}`` judged where the
action would really be taken, after a decided claim window is closed as the room closes it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.rules.guiyang import State
from server.rules.replay import check
from server.rules.tiles import NUM_KINDS, tile_name
from tests.rules.scenario import build

DD_2 = "111m 222p 333s 555m 4p"  # 大对子, single wait on 4p
DD_3 = "666m 777p 888s 999m 4p"  # 大对子, single wait on 4p
DD_PAIRS = "11m 22m 333p 444p 555s"  # waits on 1m / 2m; won on 1m: 大对子


def fixture_of(state: State, actions: list[list[Any]], expect: dict[str, Any]) -> dict[str, Any]:
    """The fixture (spec/fixtures.md) of a hand built by `build`, with these actions."""
    return {
        "name": "built",
        "game": "guiyang",
        "options": state.options.model_dump(),
        "dealer": state.dealer,
        "hands": [
            " ".join(tile_name(k) for k in range(NUM_KINDS) for _ in range(counts[k]))
            for counts in state.start_hands
        ],
        "wall": " ".join(tile_name(t) for t in state.wall),
        "actions": actions,
        "expect": expect,
    }


@pytest.mark.parametrize("first", [2, 3])
@pytest.mark.parametrize(
    ("multiple_winners", "winners", "deltas"),
    [(False, [2], [-5, 0, 5, 0]), (True, [2, 3], [-10, 0, 5, 5])],
)
def test_both_winners_answers_in_either_order(
    first: int, multiple_winners: bool, winners: list[int], deltas: list[int]
) -> None:
    """Seats 2 and 3 may both win on seat 0's 4p; the fixture lists both answers, either
    seat first. With ``multiple_winners`` off seat 2 (first from the discarder) wins even
    when seat 3 answered first, and seat 3's answer after seat 2's is accepted too."""
    state = build(["4p +", None, DD_2, DD_3], "4s", multiple_winners=multiple_winners)
    second = 5 - first
    actions = [[0, "discard", "4p"], [first, "win"], [second, "win"]]
    result = check(fixture_of(state, actions, {"winners": winners, "deltas": deltas}))
    assert result["ok"], result.get("diff") or result.get("error")
    assert result["winners"] == winners and result["deltas"] == deltas
    assert result["payments"] == [[0, w, 5, "hu"] for w in winners]


def test_self_draw_right_after_a_pong_is_checked_after_the_window_closed() -> None:
    """The pong decides the window; the runner closes it, as the room does, before it judges
    the self-draw (refused: no tile was drawn this turn). The hand goes on: seat 2 discards
    2m and seat 3 wins on it (大对子, 5 from seat 2)."""
    state = build(["1m +", None, DD_PAIRS, "666m 777p 888s 999m 2m"], "5s")
    actions = [
        [0, "discard", "1m"],
        [2, "pong"],
        [2, "self_draw", {"expect": "illegal"}],
        [2, "discard", "2m"],
        [3, "win"],
    ]
    result = check(fixture_of(state, actions, {"winners": [3], "deltas": [0, 0, -5, 5]}))
    assert result["ok"], result.get("diff") or result.get("error")
    assert result["hand_types"] == {"3": "da_dui_zi"}


@pytest.mark.parametrize(
    ("actions", "named"),
    [
        # right after the pong the window is still open, so the discard used to be refused
        # as not_your_turn and counted as a correct refusal
        (
            [
                [0, "discard", "1m"],
                [2, "pong"],
                [2, "discard", "2m", {"expect": "illegal"}],
                [2, "discard", "2m"],
                [3, "win"],
            ],
            "action 2 [2, 'discard', '2m', {'expect': 'illegal'}] is marked illegal but is"
            " legal: seat 2 may discard 2m now (seat 2's turn)",
        ),
        # an answer is judged in its window
        (
            [[0, "discard", "1m"], [2, "win", {"expect": "illegal"}], [2, "win"]],
            "action 1 [2, 'win', {'expect': 'illegal'}] is marked illegal but is legal:"
            " seat 2 may win now (claim window on seat 0's discard 1m)",
        ),
    ],
)
def test_an_action_marked_illegal_that_is_legal_fails_the_fixture(
    actions: list[list[Any]], named: str, tmp_path: Path
) -> None:
    state = build(["1m +", None, DD_PAIRS, "666m 777p 888s 999m 2m"], "5s")
    fixture = fixture_of(state, actions, {"result": "win"})
    result = check(fixture)
    assert result["ok"] is False
    assert result["error"] == named
    # the command line says the same and exits 1
    path = tmp_path / "marked-illegal.json"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "server", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    line = json.loads(proc.stdout)
    assert line["ok"] is False and line["error"] == named


def test_a_refused_action_marked_illegal_changes_nothing() -> None:
    """A refused answer (a kong with two of the tile) is judged in its window and skipped;
    the same seat's real answer follows in the same window."""
    state = build(["1m +", None, DD_PAIRS, None], "5s")
    actions = [[0, "discard", "1m"], [2, "kong", {"expect": "illegal"}], [2, "win"]]
    result = check(fixture_of(state, actions, {"winners": [2], "deltas": [-5, 0, 5, 0]}))
    assert result["ok"], result.get("diff") or result.get("error")
