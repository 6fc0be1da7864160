"""What a cheating seat tries against the room actor, and what happens instead (manual clock,
real store, in-memory bus): each trick is refused or gains nothing."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from test_actor import TIMING, find_claim_seed, make_room, run_until

from server.room.clock import ManualClock
from server.room.errors import RoomError
from server.rules.guiyang import GuiyangOptions, acting_seats, legal_actions, prompt_kind


@pytest.mark.parametrize("then", ["acts", "lets_auto_play"])
async def test_auto_play_switched_on_late_still_spends_the_bank(
    store: Any, bus: Any, clock: ManualClock, then: str
) -> None:
    """A seat that thinks past its turn's limit (20 s) into its bank (15 s), then turns
    托管 on and discards itself (or lets 托管 discard for it) has used that bank time: the
    bank shrinks as if it had answered without the switch. (It used to keep its whole bank:
    an auto timer charged nothing, so a client switching auto on before each late answer
    had a full bank on every decision.)"""
    timing = dataclasses.replace(TIMING, bank_seconds=15)
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["bank-auto"], timing=timing)
    assert prompt_kind(actor.state) == "turn" and acting_seats(actor.state) == [0]
    clock.advance(26)  # 6 s of the bank
    await actor.idle()
    await actor.set_auto(0, True)
    if then == "acts":
        clock.advance(0.5)
        discard = next(a for a in legal_actions(actor.state, 0) if a.kind == "discard")
        await actor.act(0, discard)
        spent = 6.5
    else:
        clock.advance(TIMING.auto_seconds + 0.01)
        spent = 7.01
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    assert log and log[0][0] == 0
    assert actor.prompts.bank[0] == pytest.approx(15 - spent)
    await actor.stop()


async def test_auto_play_from_the_start_spends_no_bank(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """A seat on 托管 from its turn's start, whose move auto-play makes (or that acts
    itself within the auto delay), keeps its whole bank."""
    timing = dataclasses.replace(TIMING, bank_seconds=15)
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=["bank-auto"], timing=timing)
    await actor.set_auto(0, True)
    clock.advance(TIMING.auto_seconds + 0.01)
    await actor.idle()
    assert (await store.hand_actions("TEST01", 1))[0][1]["source"] == "auto"
    assert actor.prompts.bank[0] == pytest.approx(15)
    await actor.stop()


async def test_auto_play_switched_on_in_a_claim_window_spends_the_bank(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """The same in a claim window: a seat offered a claim thinks 3 s past
    ``claim_seconds`` (10 s), then turns 托管 on, which passes for it at once: 3 s of its
    bank (15 s) are gone, as if it had passed itself."""
    timing = dataclasses.replace(TIMING, bank_seconds=15)
    seed, discard = find_claim_seed(GuiyangOptions())
    actor = await make_room(store, bus, clock, bots=[False] * 4, seeds=[seed], timing=timing)
    await actor.act(0, discard)
    await actor.idle()
    claimant = acting_seats(actor.state)[0]
    clock.advance(timing.claim_seconds + 3)
    await actor.idle()
    await actor.set_auto(claimant, True)
    clock.advance(0)  # (the auto-played claim is answered at once)
    await actor.idle()
    log = await store.hand_actions("TEST01", 1)
    assert (claimant, {"action": {"kind": "pass"}, "source": "auto"}) in log
    assert actor.prompts.bank[claimant] == pytest.approx(12)
    await actor.stop()


async def test_alone_with_bots_a_hand_going_badly_cannot_be_dissolved(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """The bots agree to any dissolve at once: a lone player could wipe out each hand
    going badly (nothing settled) while the won ones count. During a hand the room refuses
    (``hand_with_bots``, nothing changes: no vote, the hand goes on); between hands the
    session ends at once as before."""
    actor = await make_room(
        store, bus, clock, bots=[False, True, True, True], seeds=["alone-0", "alone-1"]
    )
    assert actor.status == "playing"
    before = (actor.version, actor.prompts.window, actor.vote.number)
    with pytest.raises(RoomError) as refused:
        await actor.vote_dissolve(0, True)
    assert refused.value.code == "hand_with_bots"
    with pytest.raises(RoomError) as refused:  # a "no" with no vote open
        await actor.vote_dissolve(0, False)
    assert refused.value.code == "no_vote"
    assert (actor.version, actor.prompts.window, actor.vote.number) == before
    assert actor.status == "playing" and not actor.vote.is_open
    await run_until(actor, clock, lambda: actor.status == "between")
    await actor.vote_dissolve(0, True)
    await actor.idle()
    assert actor.status == "dissolved"
    assert len([h for h in await store.hands("TEST01") if h.settlement is not None]) == 1
    await actor.stop()


async def test_two_players_with_bots_still_dissolve_a_hand_by_agreeing(
    store: Any, bus: Any, clock: ManualClock
) -> None:
    """With a second human at the table each one's vote protects them: a hand in play is
    dissolved when both agree (the bots' yes given at once)."""
    actor = await make_room(store, bus, clock, bots=[False, False, True, True], seeds=["two-0"])
    await actor.vote_dissolve(1, True)
    assert actor.vote.is_open and actor.status == "playing"
    await actor.vote_dissolve(0, True)
    await actor.idle()
    assert actor.status == "dissolved"
    assert [h.settlement for h in await store.hands("TEST01")] == [None]
    await actor.stop()
