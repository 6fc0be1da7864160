"""Room actor with a manual clock, a real store and the in-memory bus.

Covers: turn timeout (default action = discard, seat goes on auto), claim timeout (= default
action for each claimant, who do not go on auto: that would tell who could claim), refused
actions change nothing, bot-only sessions run to the end with zero-sum hands, and rebuilding
a room from the stored action log.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from test_eight_flowers import drain

from server.room.actor import RoomActor, RoomError, Seat, Timing, replay_hand, seat_channel
from server.room.clock import ManualClock
from server.room.manager import RoomManager, rebuild
from server.rules.guiyang import (
    Action,
    GuiyangOptions,
    acting_seats,
    apply,
    deal,
    default_action,
    legal_actions,
    prompt_kind,
    view,
)

TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=30)


async def make_room(
    store: Any,
    bus: Any,
    clock: ManualClock,
    *,
    bots: list[bool],
    seeds: list[str] | None = None,
    options: dict[str, Any] | None = None,
    code: str = "TEST01",
    timing: Timing = TIMING,
) -> RoomActor:
    """A started room whose seats are humans (False) or bots (True)."""
    opts = GuiyangOptions(**(options or {})).model_dump()
    await store.create_room(code, "guiyang", opts)
    for i, is_bot in enumerate(bots):
        await store.add_player(code, i, f"p{i}", f"hash{i}", is_bot)
    actor = RoomActor(
        code,
        opts,
        store,
        bus,
        clock,
        timing,
        seats=[Seat(i, f"p{i}", b, f"hash{i}") for i, b in enumerate(bots)],
    )
    if seeds is not None:
        it = iter(seeds)
        actor.new_seed = lambda: next(it)
    actor.start()
    await actor.idle()
    return actor


def find_claim_seed(opts: GuiyangOptions) -> tuple[str, Action]:
    """A seed and a first-turn action of the dealer after which a claim window opens."""
    for n in range(2000):
        seed = f"claim-{n}"
        state = deal(opts, seed, 0, 1)
        if prompt_kind(state) != "turn":
            continue
        for a in legal_actions(state, 0):
            if a.kind != "discard" or a.bao_ting:
                continue
            after, _ = apply(state, 0, a)
            if prompt_kind(after) == "claim":
                return seed, a
    raise AssertionError("no seed with a claim window found")


async def test_turn_timeout_discards_and_sets_auto(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["turn-timeout"])
    state = actor.state
    assert prompt_kind(state) == "turn" and acting_seats(state) == [0]
    expected = default_action(state, 0)
    clock.advance(19.9)
    await actor.idle()
    assert actor.state is state, "nothing happens before the turn timer fires"
    clock.advance(0.2)
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    assert log[0] == (0, {"action": expected.to_dict(), "source": "timeout"})
    assert actor.auto == {0}
    assert actor.info()["seats"][0]["auto"] is True
    await actor.stop()


async def test_deadline_says_where_the_time_bank_begins(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """``bank_from``: the turn's own limit (20 s) ends, then the seat's bank (15 s) runs
    until ``deadline``; the other seats and spectators see the turn's own limit only, never
    the acting seat's bank (spent in claim windows too, it would tell who could claim); none
    on auto-play; the bank used is gone from the seat's bank (docs/protocol.md, Timers)."""
    timing = dataclasses.replace(TIMING, bank_seconds=15)
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["bank-from"], timing=timing)
    assert prompt_kind(actor.state) == "turn" and acting_seats(actor.state) == [0]
    t0 = clock.now()
    snap = await actor.snapshot(0)
    assert snap["bank_from"] == int((t0 + 20) * 1000)
    assert snap["deadline"] == int((t0 + 35) * 1000)
    for seat in (1, None):
        snap = await actor.snapshot(seat)
        assert snap["bank_from"] is None, seat
        assert snap["deadline"] == int((t0 + 20) * 1000), seat
    sub = await bus.subscribe(seat_channel("TEST01", 0))
    await actor.set_auto(0, True)  # on auto-play: the auto delay, no bank
    snap = await actor.snapshot(0)
    assert snap["bank_from"] is None and snap["deadline"] == int((t0 + 1) * 1000)
    # the seat is told its re-armed timer at once (else its countdown shows the old one)
    msgs = await drain(sub)
    assert [m["type"] for m in msgs] == ["auto", "snapshot"], msgs
    assert msgs[1]["deadline"] == int((t0 + 1) * 1000) and msgs[1]["auto"] is True
    await actor.set_auto(0, False)
    msgs = await drain(sub)
    assert [m["type"] for m in msgs] == ["auto", "snapshot"], msgs
    assert msgs[1]["deadline"] == int((t0 + 35) * 1000)
    assert msgs[1]["bank_from"] == int((t0 + 20) * 1000)
    await sub.close()
    # seat 0 thinks 26 s (6 s of its bank), then discards
    clock.advance(26)
    snap = await actor.snapshot(0)
    assert snap["bank_from"] == int((t0 + 20) * 1000)
    discard = next(a for a in legal_actions(actor.state, 0) if a.kind == "discard")
    await actor.act(0, discard)
    await actor.idle()
    assert actor.prompts.bank[0] == pytest.approx(9)
    await actor.stop()


async def test_switching_auto_play_on_and_off_buys_no_time(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """托管 on, then off before its delay plays, again and again: the turn's limit (20 s)
    still counts from the turn's start, and the turn times out then (a seat switching every
    1.5 s used to get a full new limit each time and held the table forever)."""
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["auto-stall"])
    t0 = clock.now()
    while clock.now() - t0 < 18:
        await actor.set_auto(0, True)
        clock.advance(TIMING.auto_seconds / 2)  # under the auto delay: auto-play never acts
        await actor.idle()
        await actor.set_auto(0, False)
        snap = await actor.snapshot(0)
        assert snap["deadline"] == int((t0 + 20) * 1000), clock.now() - t0
        clock.advance(1.0)
        await actor.idle()
    assert await store.hand_actions("TEST01", 1) == []
    clock.advance(t0 + 20.01 - clock.now())
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    assert [src["source"] for _, src in log] == ["timeout"]
    assert actor.auto == {0}
    # 托管 on just before a turn's end, off just after it: the turn times out at once
    while not (prompt_kind(actor.state) == "turn" and acting_seats(actor.state) == [1]):
        clock.advance(0.5)  # (a claim window on seat 0's discard times out first)
        await actor.idle()
    t1 = actor.prompts.timers[1].deadline - 20
    clock.advance(t1 + 19.5 - clock.now())
    await actor.set_auto(1, True)
    clock.advance(0.6)  # past the turn's 20 s, under the auto delay
    await actor.idle()
    played = len(await store.hand_actions("TEST01", 1))
    await actor.set_auto(1, False)
    clock.advance(0)
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    assert len(log) == played + 1 and log[-1][0] == 1, log
    assert log[-1][1]["source"] == "timeout" and actor.auto >= {1}


async def test_auto_seat_plays_fast_and_acting_clears_auto(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["auto-clear"])
    await actor.set_auto(0, True)
    await actor.idle()
    clock.advance(TIMING.auto_seconds + 0.01)
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    assert log and log[0][1]["source"] == "auto"
    # seat 0 acts itself later: auto is cleared
    await actor.set_auto(0, False)
    assert 0 not in actor.auto
    await actor.stop()


async def test_claim_timeout_is_default_action_without_auto(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    opts = GuiyangOptions()
    seed, discard = find_claim_seed(opts)
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=[seed])
    await actor.act(0, discard)
    await actor.idle()
    state = actor.state
    assert prompt_kind(state) == "claim"
    claimants = acting_seats(state)
    assert claimants and 0 not in claimants
    expected = {s: default_action(state, s) for s in claimants}
    clock.advance(TIMING.claim_seconds - 0.5)
    await actor.idle()
    assert actor.state is state
    clock.advance(1)
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    answered = {seat: payload for seat, payload in log[1:]}
    for s in claimants:
        assert answered[s] == {"action": expected[s].to_dict(), "source": "timeout"}
    assert actor.auto == set(), "a claim timeout puts no seat on auto-play (issue 16)"
    assert all(actor.prompts.bank[s] == 0.0 for s in claimants)
    await actor.stop()


async def test_others_never_see_a_bank_spent_on_a_claim(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """A seat that could claim a discard thinks 3 s past ``claim_seconds``, on its bank, then
    passes. On its next turn the other seats and spectators are shown that turn's own limit
    (20 s) and no ``bank_from``, exactly as for a seat that could not have claimed; only the
    seat itself sees its bank of 15 - 3 = 12 s (docs/protocol.md, Timers and Claim windows)."""
    timing = dataclasses.replace(TIMING, bank_seconds=15)
    seed, discard = find_claim_seed(GuiyangOptions())
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=[seed], timing=timing)
    await actor.act(0, discard)
    await actor.idle()
    claimant = acting_seats(actor.state)[0]
    clock.advance(timing.claim_seconds + 3)
    for seat in acting_seats(actor.state):
        await actor.act(seat, Action("pass"))
    await actor.idle()
    assert actor.prompts.bank[claimant] == pytest.approx(12)
    for _ in range(40):  # play on (at once: no bank spent) until the claimant's turn
        state = actor.state
        if prompt_kind(state) == "turn" and acting_seats(state) == [claimant]:
            break
        for seat in acting_seats(state):
            legal = legal_actions(state, seat)
            action = next((a for a in legal if a.kind in ("pass", "discard")), legal[0])
            await actor.act(seat, action)
        await actor.idle()
    else:
        raise AssertionError("the claimant never got a turn")
    now = clock.now()
    own = await actor.snapshot(claimant)
    assert own["deadline"] == int((now + 20 + 12) * 1000)
    assert own["bank_from"] == int((now + 20) * 1000)
    for seat in [s for s in range(4) if s != claimant] + [None]:
        snap = await actor.snapshot(seat)
        assert snap["deadline"] == int((now + 20) * 1000), seat
        assert snap["bank_from"] is None, seat
    await actor.stop()


async def test_claim_window_keeps_its_deadline(store: Any, bus: Any, clock: ManualClock) -> None:
    opts = GuiyangOptions()
    seed, discard = find_claim_seed(opts)
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=[seed])
    await actor.act(0, discard)
    await actor.idle()
    claimants = acting_seats(actor.state)
    deadlines = {s: actor._deadline_for(s) for s in claimants}
    assert all(d == int((clock.now() + TIMING.claim_seconds) * 1000) for d in deadlines.values())
    if len(claimants) > 1:
        clock.advance(3)
        await actor.act(claimants[0], Action("pass"))
        await actor.idle()
        if prompt_kind(actor.state) == "claim":
            for s in acting_seats(actor.state):
                assert actor._deadline_for(s) == deadlines[s]
    await actor.stop()


async def test_refused_actions_change_nothing(store: Any, bus: Any, clock: ManualClock) -> None:
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["refuse"])
    state = actor.state
    sub = await bus.subscribe(seat_channel("TEST01", 1))
    with pytest.raises(RoomError) as wrong_turn:
        await actor.act(1, Action("discard", view(state, 1)["hand"][0]))
    assert wrong_turn.value.code == "not_your_turn"
    held = set(view(state, 0)["hand"]) | {view(state, 0).get("drawn")}
    missing = next(f"{n}{s}" for s in "mps" for n in range(1, 10) if f"{n}{s}" not in held)
    with pytest.raises(RoomError) as not_held:
        await actor.act(0, Action("discard", missing))
    assert not_held.value.code == "illegal_action"
    with pytest.raises(RoomError):
        await actor.act(0, Action("pong"))
    assert actor.state is state
    assert await store.hand_actions("TEST01", 1) == []
    with pytest.raises(TimeoutError):
        await sub.get(timeout=0.05)
    await sub.close()
    await actor.stop()


async def test_an_answer_sent_again_is_taken_once(store: Any, bus: Any, clock: ManualClock) -> None:
    """The dealer's discard, sent again with the same prompt number by the process that
    forwarded it (``again``: the reply to the first copy was lost, `ReplyLost`), is taken
    as done: no error, nothing logged or published again. Without ``again`` (a player's
    late double answer), or with another action, it is ``stale_prompt``."""
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["again"])
    prompt = actor.prompts.window
    first, second = [a for a in legal_actions(actor.state, 0) if a.kind == "discard"][:2]
    await actor.act(0, first, prompt=prompt)
    await actor.idle()
    state, version = actor.state, actor.version
    assert len(await store.hand_actions("TEST01", 1)) == 1
    await actor.act(0, first, prompt=prompt, again=True)
    assert (actor.state, actor.version) == (state, version)
    assert len(await store.hand_actions("TEST01", 1)) == 1
    for action, again in ((first, False), (second, True)):
        with pytest.raises(RoomError) as refused:
            await actor.act(0, action, prompt=prompt, again=again)
        assert refused.value.code == "stale_prompt"
    await actor.stop()


async def test_bot_room_plays_whole_session(store: Any, bus: Any, clock: ManualClock) -> None:
    actor = await make_room(store, bus, clock, bots=[True] * 4, options={"hands": 4})
    spectator = await bus.subscribe(seat_channel("TEST01", None))
    for _ in range(200):
        if actor.status == "finished":
            break
        await actor.idle()
    assert actor.status == "finished"
    hands = await store.hands("TEST01")
    assert [h.hand_no for h in hands] == [1, 2, 3, 4]
    for h in hands:
        assert h.settlement is not None and sum(h.deltas) == 0
    for prev, nxt in zip(hands, hands[1:], strict=False):
        assert nxt.dealer == prev.settlement["next_dealer"]
        assert nxt.dealer_streak == (prev.dealer_streak + 1 if nxt.dealer == prev.dealer else 1)
    assert actor.totals == [sum(h.deltas[i] for h in hands) for i in range(4)]
    # replaying each stored hand gives the stored settlement's result
    for h in hands:
        actions = await store.hand_actions("TEST01", h.hand_no)
        state, _ = replay_hand(GuiyangOptions(hands=4), h.seed, h.dealer, h.dealer_streak, actions)
        assert state.ended
    await spectator.close()
    await actor.stop()


async def test_an_answer_after_the_last_hand_ended_is_stale(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """The session's last hand ends: its last prompt is over, so an answer carrying that
    prompt number is ``stale_prompt`` (one without a number: ``no_hand``)."""
    opts = GuiyangOptions(hands=4).model_dump()
    await store.create_room("LAST01", "guiyang", opts)
    for i in range(4):
        await store.add_player("LAST01", i, f"p{i}", f"hash{i}", True)
    seats = [Seat(i, f"p{i}", True, f"hash{i}") for i in range(4)]
    actor = RoomActor("LAST01", opts, store, bus, clock, TIMING, seats=seats)
    spectator = await bus.subscribe(seat_channel("LAST01", None))
    actor.start()
    for _ in range(200):
        if actor.status == "finished":
            break
        await actor.idle()
    assert actor.status == "finished"
    seen = []
    while True:
        try:
            seen.append(await spectator.get(timeout=0.05))
        except TimeoutError:
            break
    last_prompt = [m["prompt"] for m in seen if m["type"] == "event" and m["hand_no"] == 4][-1]
    with pytest.raises(RoomError) as late:
        await actor.act(0, Action("pass"), prompt=last_prompt)
    assert late.value.code == "stale_prompt"
    with pytest.raises(RoomError) as no_prompt:
        await actor.act(0, Action("pass"))
    assert no_prompt.value.code == "no_hand"
    await spectator.close()
    await actor.stop()


async def test_rebuild_from_store(store: Any, bus: Any, clock: ManualClock) -> None:
    manager = RoomManager(store, bus, clock, TIMING)
    manager.new_seed = lambda: "rebuild-mid-hand"  # a hand that outlasts three timeouts
    actor = await manager.create_room({"bank_seconds": 0})
    code = actor.code
    seat0, _token = await manager.join(code, "ann")
    assert seat0 == 0
    await manager.add_bots(code, 3)
    await actor.idle()
    # let seat 0 time out a few times so bots and auto-play advance the hand
    for _ in range(3):
        clock.advance(TIMING.turn_seconds + 1)
        await actor.idle()
    assert actor.status == "playing" and actor.hand_no == 1
    before = {s: view(actor.state, s) for s in [0, 1, 2, 3, None]}
    version = actor.version
    await manager.close()

    # the same state, version and action counter from the stored log alone
    copy = RoomActor(code, actor.options, store, bus, clock, TIMING, seats=list(actor.seats))
    await rebuild(copy)
    assert (copy.hand_no, copy.version, copy.action_idx) == (1, version, actor.action_idx)
    assert {s: view(copy.state, s) for s in [0, 1, 2, 3, None]} == before

    # and a new manager picks the room up and plays on
    manager2 = RoomManager(store, bus, clock, TIMING)
    rebuilt = await manager2.get(code)
    await rebuilt.idle()
    assert rebuilt.running and rebuilt.hand_no >= 1 and rebuilt.seats[0].name == "ann"
    clock.advance(TIMING.turn_seconds + 1)
    await rebuilt.idle()
    assert rebuilt.action_idx > actor.action_idx or rebuilt.hand_no > 1
    await manager2.close()


async def run_until(actor: RoomActor, clock: ManualClock, done: Any, step: float = 1.0) -> None:
    """Advance the clock ``step`` at a time until ``done()`` (at most 2000 steps)."""
    for _ in range(2000):
        await actor.idle()
        if done():
            return
        clock.advance(step)
    raise AssertionError("condition not reached")


async def test_ready_timeout_and_ready_messages_start_next_hand(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    actor = await make_room(store, bus, clock, bots=[False, True, True, True], options={"hands": 4})
    sub = await bus.subscribe(seat_channel("TEST01", 0))
    # seat 0 times out once and then plays on auto until the hand ends
    await run_until(actor, clock, lambda: actor.status == "between")
    assert actor.hand_no == 1 and 0 in actor.ready_waiting()
    types = []
    while True:
        try:
            types.append((await sub.get(timeout=0.01))["type"])
        except TimeoutError:
            break
    assert "auto" in types and "hand_end" in types
    # the ready timer starts hand 2 without seat 0
    clock.advance(TIMING.ready_seconds - 1)
    await actor.idle()
    assert actor.status == "between"
    clock.advance(1.5)
    await actor.idle()
    # hand 2 started (its hand number; the bots may even have ended it at once, the deals
    # being random: a bot's win before seat 0 is asked needs no clock)
    assert actor.hand_no == 2
    # seat 0 is still on 托管 (it neither acted nor turned it off), and is told so
    assert actor.auto == {0}
    snap = await actor.snapshot(0)
    assert snap["auto"] is True and snap["room"]["seats"][0]["auto"] is True
    # hand 3 starts as soon as seat 0 says ready
    await run_until(actor, clock, lambda: actor.status == "between")
    await actor.mark_ready(0)
    await actor.idle()
    assert actor.hand_no == 3
    assert actor.auto == {0}  # saying ready is no action of the hand: 托管 stays on
    await sub.close()
    await actor.stop()


@pytest.mark.parametrize("back", [False, True])
async def test_a_seat_that_drops_on_its_turn_is_not_waited_for_past_its_limit(
    store: Any, bus: Any, clock: ManualClock, back: bool
) -> None:
    """The dealer's player (seat 0, 20 s a turn and a 20 s time bank) loses its socket on
    its turn: the table waits for the turn's own limit only, then 托管 plays (it waited for
    the bank too: 40 s). Back before the limit (``back``), the seat has its bank again."""
    timing = dataclasses.replace(TIMING, bank_seconds=20.0)
    actor = await make_room(store, bus, clock, bots=[False, True, True, True], timing=timing)
    assert 0 in actor.prompts.timers  # the dealer's turn
    actor.connected[0] = 1  # (as ws.py counts a socket, then tells the room)
    await actor.publish_room()
    await actor.idle()
    actor.connected[0] = 0
    await actor.publish_room()
    await actor.idle()
    clock.advance(5)
    if back:
        actor.connected[0] = 1
        await actor.publish_room()
    await actor.idle()
    clock.advance(timing.turn_seconds - 5 + 0.5)
    await actor.idle()
    assert (0 in actor.auto) is not back
    if back:  # its bank still runs for it
        clock.advance(timing.bank_seconds)
        await actor.idle()
        assert 0 in actor.auto
    await actor.stop()


async def test_a_vote_between_hands_holds_the_next_deal(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """A dissolve vote opened between hands holds the deal (a hand dealt, then dissolved,
    would be played for nothing): neither every seat's ready nor the end of the ready time
    deals while it is open; refused, the overdue deal comes at once."""
    two = [False, False, True, True]
    actor = await make_room(store, bus, clock, bots=two, options={"hands": 4})
    await run_until(actor, clock, lambda: actor.status == "between")
    await actor.vote_dissolve(0, True)
    await actor.mark_ready(0)
    await actor.mark_ready(1)  # every seat ready
    await actor.idle()
    assert (actor.status, actor.hand_no) == ("between", 1)
    clock.advance(TIMING.ready_seconds + 1)  # and the ready time over
    await actor.idle()
    assert (actor.status, actor.hand_no) == ("between", 1) and actor.vote.is_open
    await actor.vote_dissolve(1, False)
    await actor.idle()
    assert actor.hand_no == 2 and not actor.vote.is_open
    await actor.stop()


async def test_a_vote_between_hands_nobody_refuses_dissolves(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """Between hands, seat 1 says nothing to seat 0's vote: at its end the room is dissolved
    (silence agrees), never dealt again."""
    two = [False, False, True, True]
    actor = await make_room(store, bus, clock, bots=two, options={"hands": 4})
    await run_until(actor, clock, lambda: actor.status == "between")
    await actor.vote_dissolve(0, True)
    clock.advance(TIMING.vote_seconds - 1)
    await actor.idle()
    assert (actor.status, actor.hand_no) == ("between", 1)
    clock.advance(1.5)
    await actor.idle()
    assert (actor.status, actor.hand_no) == ("dissolved", 1)
    assert (await store.get_room("TEST01")).status == "dissolved"
    await actor.stop()


async def test_auto_turned_off_between_hands_is_published(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """托管 turned off in the pause between hands (the page does it when its player says
    ready): the seats are told at once (``auto`` without it), not only at the next deal."""
    actor = await make_room(store, bus, clock, bots=[False, True, True, True], options={"hands": 4})
    await run_until(actor, clock, lambda: actor.status == "between")  # seat 0 timed out
    assert actor.auto == {0}
    sub = await bus.subscribe(seat_channel("TEST01", 0))
    await actor.set_auto(0, False)
    await actor.idle()
    assert actor.auto == set() and actor.status == "between"
    assert await sub.get(timeout=1) == {"type": "auto", "auto": []}
    await actor.set_auto(0, False)  # no change: nothing said
    await actor.idle()
    with pytest.raises(TimeoutError):
        await sub.get(timeout=0.05)
    await sub.close()
    await actor.stop()


async def test_a_correction_reaches_the_tables_totals(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """An admin voids hand 1 of a room between hands, then adjusts hand 2: the room's totals
    (its table's scores, the final standings) follow, told to every audience at once
    (``room``), and the next hands add to them (`RoomManager.corrected`)."""
    from server.store import admin as queries

    manager = RoomManager(store, bus, clock, TIMING)
    actor = await make_room(store, bus, clock, bots=[False, True, True, True], options={"hands": 4})
    manager.rooms[actor.code] = actor
    await run_until(actor, clock, lambda: actor.status == "between")
    first = list(actor.totals)
    assert any(first)
    sub = await bus.subscribe(seat_channel("TEST01", 0))
    await queries.correct(store, "TEST01", 1, kind="void", reason="misdeal", actor="lee")
    await manager.corrected("TEST01")
    assert actor.totals == [0, 0, 0, 0] == await store.totals("TEST01")
    msg = await sub.get(timeout=1)
    assert msg["type"] == "room" and msg["room"]["totals"] == [0, 0, 0, 0]
    await actor.mark_ready(0)  # hand 2, played out (seat 0 on 托管), settles on top
    await run_until(actor, clock, lambda: actor.status == "between" and actor.hand_no == 2)
    second = list(actor.totals)
    assert second == await store.totals("TEST01") and sum(second) == 0
    await queries.correct(
        store, "TEST01", 2, kind="adjust", reason="miscount", actor="lee", from_seat=1,
        to_seat=0, points=3,
    )  # fmt: skip
    await manager.corrected("TEST01")  # (queued in the running actor's turn)
    assert actor.totals == [second[0] + 3, second[1] - 3, *second[2:]]
    await sub.close()
    await actor.stop()


async def test_claim_min_delay_closes_every_window_no_sooner(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """A discard is shown at once as a claim window to every seat; whatever the claimants
    answer (here: they pass at once), the window closes claim_min_ms after it opened."""
    actor = RoomActor(
        "HOLD01",
        GuiyangOptions().model_dump(),
        store,
        bus,
        clock,
        Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=800),
        seats=[Seat(i, f"p{i}", False, f"h{i}") for i in range(4)],
    )
    await store.create_room("HOLD01", "guiyang", actor.options)
    actor.new_seed = lambda: "hold"
    actor.start()
    await actor.wait_started()
    sub = await bus.subscribe(seat_channel("HOLD01", 2))
    tile = next(a for a in legal_actions(actor.state, 0) if a.kind == "discard")
    await actor.act(0, tile)
    msg = await sub.get(timeout=1)
    assert msg["type"] == "event" and [e["type"] for e in msg["events"]] == ["discard"]
    assert msg["view"]["phase"] == "claim"
    for seat in acting_seats(actor.state):
        await actor.act(seat, Action("pass"))

    async def public_events() -> list[str]:
        seen = []
        while True:
            try:
                m = await sub.get(timeout=0.02)
            except TimeoutError:
                return seen
            if m["type"] == "event":
                seen += [e["type"] for e in m["events"] if e["type"] != "claim_answer"]

    assert await public_events() == []
    clock.advance(0.79)
    assert await public_events() == []
    clock.advance(0.02)
    assert await public_events() == ["draw"]
    await sub.close()
    await actor.stop()


async def test_rebuild_after_settled_hand(store: Any, bus: Any, clock: ManualClock) -> None:
    actor = await make_room(store, bus, clock, bots=[False, True, True, True], options={"hands": 4})
    await run_until(actor, clock, lambda: actor.status == "between")
    dealer, streak, totals = actor.dealer, actor.dealer_streak, actor.totals
    await actor.stop()
    manager = RoomManager(store, bus, clock, TIMING)
    rebuilt = await manager.get("TEST01")
    await rebuilt.idle()
    assert rebuilt.status == "between" and rebuilt.hand_no == 1
    assert (rebuilt.dealer, rebuilt.dealer_streak, rebuilt.totals) == (dealer, streak, totals)
    await rebuilt.mark_ready(0)
    await rebuilt.idle()
    assert rebuilt.status == "playing" and rebuilt.hand_no == 2
    assert (await store.hands("TEST01"))[-1].dealer == dealer
    await manager.close()


async def test_a_snapshot_during_play_carries_the_hand_settled_before(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """A page away over the deal missed the last hand's ``hand_end``: the snapshot of the
    next hand carries it (``previous``, docs/protocol.md) for 上局结算, its replay link to
    the seats only, the same after a rebuild; none in the first hand or between hands."""
    actor = await make_room(
        store,
        bus,
        clock,
        bots=[False, True, True, True],
        seeds=[f"previous-{n}" for n in range(4)],
        options={"hands": 4},
    )
    assert (await actor.snapshot(0))["previous"] is None  # the first hand
    await run_until(actor, clock, lambda: actor.status == "between")
    settled, replay = actor.last_settlement, actor.last_replay
    assert settled is not None and replay is not None
    assert (await actor.snapshot(0))["previous"] is None  # shown as `settlement` now
    await actor.mark_ready(0)
    await actor.idle()
    assert actor.status == "playing" and actor.hand_no == 2
    expected = {"hand_no": 1, "settlement": settled, "replay": replay}
    assert (await actor.snapshot(0))["previous"] == expected
    assert (await actor.snapshot(None))["previous"] == {**expected, "replay": None}
    await actor.stop()
    manager = RoomManager(store, bus, clock, TIMING)
    rebuilt = await manager.get("TEST01")
    await rebuilt.idle()
    assert rebuilt.status == "playing" and rebuilt.hand_no == 2
    assert (await rebuilt.snapshot(2))["previous"] == expected
    await manager.close()
