"""听牌提示 in the seat's own view, the latest river tile, and the parts of each win payment
(spec/guiyang.md §6.3, §8, §9.1, §10.2): the parts add up to the payment's points in every
fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.rules import guiyang
from server.rules.replay import fixture_state, run_hand
from tests.rules.scenario import build

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "guiyang").glob("*.json")) + sorted(
    (ROOT.parent / "shared" / "fixtures" / "guiyang").glob("*.json")
)


def test_ting_hints_name_each_discard_that_leaves_the_seat_ready() -> None:
    # the dealer's 14: 123m 456m 789m 11p 56p 9s; only 9s away leaves it ready, on 4p / 7p
    state = build(["123456789m 1156p 9s", None, None, None], wall="2s")
    v = guiyang.view(state, 0)
    assert v["ting_hints"] == {"9s": [["4p", 4], ["7p", 4]]}
    # never in another seat's view, nor a spectator's; no hint off one's turn
    assert guiyang.view(state, 1)["ting_hints"] == {}
    assert "ting_hints" not in guiyang.view(state, None)


def test_ting_hints_count_the_tiles_the_seat_has_seen() -> None:
    # seat 1 discards a 4p: seat 0 then sees one of the four in seat 1's river
    state = build(["123456789m 1156p 9s", "4p+", None, None], wall="3s 9m 5s")
    state, _ = guiyang.apply(state, 0, guiyang.Action("discard", tile="9s"))
    state = _close(state)
    state, _ = guiyang.apply(state, 1, guiyang.Action("discard", tile="4p"))
    state = _close(state)
    # off its turn, seat 0 (ready on 4p / 7p) is shown its waits with the same counts
    assert guiyang.view(state, 0)["waits"] == [
        {"tile": "4p", "unseen": 3},
        {"tile": "7p", "unseen": 4},
    ]
    state, _ = guiyang.apply(state, 2, guiyang.Action("discard", tile="9m"))
    state = _close(state)
    state, _ = guiyang.apply(state, 3, guiyang.Action("discard", tile="5s"))
    state = _close(state)
    # seat 0 drew 3s: discarding it keeps 4p / 7p (one 4p seen in seat 1's river)
    v = guiyang.view(state, 0)
    assert v["drawn"] is not None
    hints = v["ting_hints"]
    assert hints[v["drawn"]] == [["4p", 3], ["7p", 4]]


def _close(state: guiyang.State) -> guiyang.State:
    while guiyang.claims_decided(state) or state.phase == "claim":
        for seat in list(state.claim_options):
            if seat not in state.claim_answers:
                state, _ = guiyang.apply(state, seat, guiyang.Action("pass"))
        state, _ = guiyang.resolve_claims(state)
    return state


def test_river_last_marks_the_latest_unclaimed_discard() -> None:
    state = build(["123456789m 1156p 9s", None, None, None], wall="2s")
    assert guiyang.view(state, 1)["river_last"] is None
    state, _ = guiyang.apply(state, 0, guiyang.Action("discard", tile="9s"))
    state = _close(state)  # nobody claims: seat 1 draws
    assert state.phase == "turn" and state.turn == 1
    for seat in (None, 0, 1, 2):
        assert guiyang.view(state, seat)["river_last"] == {"seat": 0, "index": 0}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_win_parts_add_up_to_the_points(path: Path) -> None:
    fixture = json.loads(path.read_text())
    if "hands" not in fixture or (fixture.get("expect") or {}).get("error"):
        pytest.skip("no dealt hands")
    try:
        state, _ = run_hand(fixture_state(fixture), fixture["actions"])
    except Exception:  # a fixture expecting an error: the fixture tests cover it
        pytest.skip("refused")
    if not state.ended:
        pytest.skip("not ended")
    s = guiyang.settle(state)
    assert s is not None
    base = state.options.base_points
    for p in s["payments"]:
        if p["reason"] != "hu":
            continue
        d = p["detail"]
        parts = dict((k, v) for k, v in d["parts"])
        assert parts[d["hand_type"]] == d["fan"]
        assert sum(v for _, v in d["parts"]) * d["times"] * base == p["points"]
        assert [k for k, _ in d["parts"][1:] if k != "lian_zhuang"] == d["extras"]
        assert parts.get("lian_zhuang", 0) == d["streak"]
        assert d["times"] == (state.players - 1 if d["win"] == "qiang_gang" else 1)
