"""The dissolve vote on its own (the actor's collaborator): open, refuse, agree, run out
(the silent seats then agree)."""

from __future__ import annotations

import pytest

from server.room.clock import ManualClock
from server.room.errors import RoomError
from server.room.vote import AGAIN_SECONDS, DissolveVote


def make(clock: ManualClock, expired: list[int]) -> DissolveVote:
    return DissolveVote(4, clock, 60.0, expired.append)


def test_a_vote_opens_with_the_bots_agreeing_and_dissolves_when_all_agree() -> None:
    clock, expired = ManualClock(), []
    vote = make(clock, expired)
    assert not vote.is_open and vote.close("refused") is None
    assert vote.cast(0, True, bots=[3]) == "open"
    msg = vote.message()
    assert msg["votes"] == [True, None, None, True] and msg["result"] == "open"
    assert msg["proposed"] == 0  # (the dialog says who asked)
    assert msg["deadline"] == int((clock.now() + 60.0) * 1000)
    assert vote.cast(1, True, bots=[3]) == "open"
    assert vote.cast(2, True, bots=[3]) == "dissolved"
    end = vote.close("dissolved")
    assert end is not None and end["result"] == "dissolved" and end["deadline"] is None
    assert not vote.is_open
    clock.advance(61)
    assert expired == [], "a closed vote's timer is cancelled"


def test_refusals_repeats_and_expiry() -> None:
    clock, expired = ManualClock(), []
    vote = make(clock, expired)
    with pytest.raises(RoomError) as err:
        vote.cast(0, False, bots=[])
    assert err.value.code == "no_vote" and not vote.is_open
    vote.cast(0, True, bots=[])
    with pytest.raises(RoomError) as err:
        vote.cast(0, True, bots=[])
    assert err.value.code == "already_voted"
    assert vote.cast(1, False, bots=[]) == "refused"
    vote.close("refused")
    vote.cast(2, True, bots=[])
    assert vote.number == 2
    clock.advance(60.5)
    assert expired == [2], "the timer names the vote it belongs to"
    # (the room then dissolves: nobody refused; the silent seats stay null, said as such)
    end = vote.close("dissolved")
    assert end is not None and end["votes"] == [None, None, True, None]


def test_a_refused_proposer_waits_before_asking_again() -> None:
    """Silence agrees, so a refused seat may not ask again at once (asked over and over,
    a vote would win the first time the others looked away); the others may."""
    clock, expired = ManualClock(), []
    vote = make(clock, expired)
    vote.cast(0, True, bots=[])
    assert vote.cast(1, False, bots=[]) == "refused"
    vote.close("refused")
    clock.advance(AGAIN_SECONDS - 1)
    with pytest.raises(RoomError) as err:
        vote.cast(0, True, bots=[])
    assert err.value.code == "vote_too_soon" and "ask again in 1 s" in err.value.message
    assert not vote.is_open
    assert vote.cast(2, True, bots=[]) == "open"  # another seat may
    vote.close("refused")
    clock.advance(1)
    assert vote.cast(0, True, bots=[]) == "open"
