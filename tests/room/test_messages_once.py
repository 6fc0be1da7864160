"""One message per change per audience (issue 9), through the real actor, a real store and
the in-memory bus: a discard, a claim and a hand end each reach every seat and the
spectators exactly once; the settlement travels once per seat, with the seat's own replay
link (spectators get none); nothing is computed for an audience nobody listens to."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from server.metrics import InstrumentedBus
from server.room.actor import RoomActor, Seat, Timing, seat_channel
from server.room.clock import ManualClock
from server.room.publisher import message_head
from server.rules.guiyang import Action, GuiyangOptions, apply, deal, legal_actions, prompt_kind
from server.rules.guiyang.game import GuiyangGame

TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, ready_seconds=30)
AUDIENCES: list[int | None] = [0, 1, 2, 3, None]


def pong_seed(opts: GuiyangOptions) -> tuple[str, Action, int]:
    """A seed, a first discard of the dealer and the one seat that may claim it: only by
    pong (nobody may win or kong it), so the pong decides the window at once."""
    for n in range(5000):
        seed = f"once-{n}"
        state = deal(opts, seed, 0, 1)
        if prompt_kind(state) != "turn":
            continue
        for a in legal_actions(state, 0):
            if a.kind != "discard" or a.bao_ting:
                continue
            after, _ = apply(state, 0, a)
            if prompt_kind(after) != "claim":
                continue
            offers = {s: {x.kind for x in legal_actions(after, s)} for s in range(1, 4)}
            claimants = [s for s, kinds in offers.items() if kinds]
            if len(claimants) == 1 and offers[claimants[0]] == {"pong", "pass"}:
                return seed, a, claimants[0]
    raise AssertionError("no seed with a lone pong found")


async def drain(subs: dict[int | None, Any]) -> dict[int | None, list[dict[str, Any]]]:
    """Everything delivered so far, per audience."""
    out: dict[int | None, list[dict[str, Any]]] = {a: [] for a in subs}
    for aud, sub in subs.items():
        while True:
            try:
                out[aud].append(await sub.get(timeout=0.01))
            except TimeoutError:
                break
    return out


class CountingGame(GuiyangGame):
    """The Guiyang game, counting the views asked of it per audience (one by one or
    together)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: Counter[int | None] = Counter()

    def view(self, state: Any, seat: int | None) -> Any:
        self.asked[seat] += 1
        return super().view(state, seat)

    def views(self, state: Any, seats: Sequence[int | None]) -> Any:
        if state.ended:  # (Guiyang's views of an ended hand are its views one by one)
            return super().views(state, seats)
        self.asked.update(seats)
        return super().views(state, seats)


async def make_room(store: Any, bus: Any, code: str, seed: str, game: Any = None) -> RoomActor:
    opts = GuiyangOptions(hands=4).model_dump()
    await store.create_room(code, "guiyang", opts)
    for i in range(4):
        await store.add_player(code, i, f"p{i}", f"hash{i}", False)
    actor = RoomActor(
        code,
        opts,
        store,
        bus,
        ManualClock(),
        TIMING,
        seats=[Seat(i, f"p{i}", False, f"hash{i}") for i in range(4)],
        **({"game": game} if game is not None else {}),
    )
    seeds = iter([seed, "once-next"])
    actor.new_seed = lambda: next(seeds)
    return actor


async def test_discard_claim_and_hand_end_one_message_each(store: Any, bus: Any) -> None:
    seed, discard, claimant = pong_seed(GuiyangOptions())
    actor = await make_room(store, bus, "ONCE01", seed)
    subs = {a: await bus.subscribe(seat_channel("ONCE01", a)) for a in AUDIENCES}
    actor.start()
    await actor.idle()
    got = await drain(subs)
    assert {a: [m["type"] for m in got[a]] for a in AUDIENCES} == {
        a: ["snapshot"] for a in AUDIENCES
    }

    # a discard: one message per audience, the discard's event (a claim window opens)
    await actor.act(0, discard, actor.prompts.window)
    await actor.idle()
    got = await drain(subs)
    for a in AUDIENCES:
        assert [(m["type"], [e["type"] for e in m["events"]]) for m in got[a]] == [
            ("event", ["discard"])
        ], a
        assert got[a][0]["version"] == 1 and got[a][0]["view"]["phase"] == "claim"
        assert got[a][0]["prev_version"] == 0
    assert got[claimant][0]["legal"] == [{"kind": "pong"}, {"kind": "pass"}]

    # a claim (it decides the window, closed in the same turn): one message per audience,
    # the pong; the claimant's own answer is not acknowledged separately
    await actor.act(claimant, Action("pong"), actor.prompts.window)
    await actor.idle()
    got = await drain(subs)
    for a in AUDIENCES:
        assert [(m["type"], [e["type"] for e in m["events"]]) for m in got[a]] == [
            ("event", ["pong"])
        ], a
        assert got[a][0]["version"] == 2 and got[a][0]["prev_version"] == 1
    assert got[claimant][0]["legal"] and all(
        a["kind"] == "discard" for a in got[claimant][0]["legal"]
    )
    assert [m["legal"] for a in AUDIENCES if a != claimant for m in got[a]] == [[]] * 4

    # play on (default actions) until an action ends the hand: that change is one
    # hand_end per audience, the settlement once in it, the seat's own replay link
    merged = 0  # messages holding a discard and the next draw
    while actor.status == "playing":
        seat = actor._acting()[0]
        await actor.act(seat, actor.game.default_action(actor.state, seat), actor.prompts.window)
        await actor.idle()
        got = await drain(subs)
        if actor.status == "playing":
            # the action, and the claim window it opened closing at once (claim_min_ms=0,
            # nobody to ask): one change, one message, to every audience alike
            assert {len(got[a]) for a in AUDIENCES} == {1}, got
            kinds = [e["type"] for e in got[None][0]["events"]]
            merged += kinds[:1] == ["discard"] and kinds[-1:] == ["draw"]
    assert merged > 10
    replay = actor.last_replay
    assert replay is not None and replay["hand_id"] > 0
    for a in AUDIENCES:
        # the last discard and the closing of its window that ended the hand, or the win
        # that ended it: either way one hand_end
        assert [m["type"] for m in got[a]] == ["hand_end"], (a, got[a])
        end = got[a][-1]
        assert json.dumps(got[a]).count('"next_dealer"') == 1  # one copy of the settlement
        assert end["settlement"] == actor.last_settlement
        assert "settlement" not in end["view"] and end["view"]["phase"] == "ended"
        assert [e["type"] for e in end["events"]][-1] == "hand_end"
        assert "settlement" not in end["events"][-1]
        assert end["version"] == actor.version and end["legal"] == []
        assert end["replay"] == (None if a is None else replay)
        assert end["next_hand"] == 2 and end["totals"] == actor.totals
    for sub in subs.values():
        await sub.close()
    await actor.stop()


@pytest.mark.parametrize("instrumented", [False, True])
async def test_nothing_computed_for_audiences_nobody_listens_to(
    store: Any, bus: Any, instrumented: bool
) -> None:
    """Also through the server's timed bus (`InstrumentedBus`, as the app wires it): it
    tells that every subscriber is in this process as the in-process bus does."""
    seed, discard, claimant = pong_seed(GuiyangOptions())
    game = CountingGame()
    actor = await make_room(
        store, InstrumentedBus(bus) if instrumented else bus, "ONCE02", seed, game
    )
    spectator = await bus.subscribe(seat_channel("ONCE02", None))  # the only listener
    actor.start()
    await actor.idle()
    assert game.asked == Counter({None: 1})  # the deal's snapshot, for the spectators only
    assert [m["type"] for m in (await drain({None: spectator}))[None]] == ["snapshot"]
    game.asked.clear()
    await actor.act(0, discard, actor.prompts.window)
    await actor.act(claimant, Action("pong"), actor.prompts.window)
    await actor.idle()
    assert game.asked == Counter({None: 2})  # one per change, nobody else's view
    got = await drain({None: spectator})
    assert [[e["type"] for e in m["events"]] for m in got[None]] == [["discard"], ["pong"]]
    await spectator.close()
    await actor.stop()


async def test_a_seat_that_connects_late_gets_events_that_follow_its_snapshot(
    store: Any, bus: Any
) -> None:
    """Seat 1 was not listening when the hand was dealt and the dealer discarded (nothing
    was built for it); its socket then subscribes and is handed a snapshot directly
    (`RoomActor.snapshot`). The next event on its channel carries that snapshot's version
    as ``prev_version``, so its relay does not take it for a gap (a ``null`` made it send a
    needless second snapshot)."""
    seed, discard, claimant = pong_seed(GuiyangOptions())
    actor = await make_room(store, bus, "ONCE04", seed)
    actor.start()
    await actor.idle()
    await actor.act(0, discard, actor.prompts.window)
    await actor.idle()
    late = await bus.subscribe(seat_channel("ONCE04", 1))
    snap = await actor.snapshot(1)
    await actor.act(claimant, Action("pong"), actor.prompts.window)
    await actor.idle()
    got = (await drain({1: late}))[1]
    assert [m["type"] for m in got] == ["event"]
    assert got[0]["prev_version"] == snap["version"] < got[0]["version"]
    await late.close()
    await actor.stop()


async def test_every_event_is_routed_by_its_head(store: Any, bus: Any) -> None:
    """A relay routes a stamped ``event`` / ``hand_end`` by the head of its text
    (`message_head`) without decoding it: over a whole hand, every such text's head gives
    exactly the decoded message's routing fields; no other message has a head."""
    seed, _, _ = pong_seed(GuiyangOptions())
    actor = await make_room(store, bus, "ONCE03", seed)
    sub = await bus.subscribe(seat_channel("ONCE03", 2))
    actor.start()
    await actor.idle()
    while actor.status == "playing":
        seat = actor._acting()[0]
        await actor.act(seat, actor.game.default_action(actor.state, seat), actor.prompts.window)
        await actor.idle()
    kinds: Counter[str] = Counter()
    while True:
        try:
            text = await sub.get_text(timeout=0.01)
        except TimeoutError:
            break
        msg = json.loads(text)
        kinds[msg["type"]] += 1
        head = message_head(text)
        if msg["type"] in ("event", "hand_end"):
            fields = ("type", "hand_no", "version", "prev_version")
            assert head == {k: msg[k] for k in fields}, text[:120]
        else:
            assert head is None, text[:120]
    assert kinds["hand_end"] == 1 and kinds["event"] > 20 and kinds["snapshot"] == 1
    await sub.close()
    await actor.stop()


def test_a_head_is_read_only_from_the_stamped_form() -> None:
    stamped = '{"type":"event","hand_no":3,"version":41,"prev_version":null,"events":[]}'
    assert message_head(stamped) == {
        "type": "event",
        "hand_no": 3,
        "version": 41,
        "prev_version": None,
    }
    assert message_head('{"type":"hand_end","hand_no":1,"version":9,"prev_version":7}') == {
        "type": "hand_end",
        "hand_no": 1,
        "version": 9,
        "prev_version": 7,
    }
    for other in (
        '{"type": "event", "hand_no": 3, "version": 41, "prev_version": 40}',  # not compact
        '{"hand_no":3,"type":"event","version":41,"prev_version":40}',  # another order
        '{"type":"snapshot","hand_no":3,"version":41,"prev_version":40}',
        '{"type":"event","hand_no":3,"version":41,"prev_version":40x}',
        '{"type":"_takeover","conn":"ab"}',
    ):
        assert message_head(other) is None, other
