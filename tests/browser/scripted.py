"""Offline hands for the browser tests: the pure engine plus the bot policy, no server.

A room's hands are dealt from seeds the test fixes (``RoomManager.new_seed``). With the same
seed the server's bots play exactly as :func:`play_out` predicts (the bot policy is
deterministic), and the human seats are played by the test *clicking* the moves the same
policy would make. So a test can pick a seed that reaches a state it wants to see (a claim
prompt, a ready hand, a win with chickens and 豆) and then play it for real in the browser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.rules.registry import find_game


@dataclass
class Step:
    """One decision: ``seat`` played ``action`` (a dict as in the protocol) with ``legal``
    (dicts) on offer; ``view`` is that seat's view before it."""

    seat: int
    action: dict[str, Any]
    legal: list[dict[str, Any]]
    view: dict[str, Any]


@dataclass
class Hand:
    """A whole hand played out offline."""

    seed: str
    steps: list[Step] = field(default_factory=list)
    settlement: dict[str, Any] = field(default_factory=dict)

    def of(self, seat: int) -> list[Step]:
        """The decisions of one seat, in order."""
        return [s for s in self.steps if s.seat == seat]


#: A seat's moves other than the bots': (state, seat) -> the action it plays.
Policy = Callable[[Any, int], Any]


def play_out(
    options: dict[str, Any],
    seed: str,
    dealer: int = 0,
    streak: int = 1,
    game: str = "guiyang",
    policy: dict[int, Policy] | None = None,
) -> Hand:
    """Play a hand with every seat on the game's bot policy (what the server's bots do, and
    what the tests click for the human seats), or on ``policy[seat]`` for the human seats
    that play otherwise."""
    rules = find_game(game)
    moves = policy or {}
    state = rules.deal(rules.options(options), seed, dealer, streak)
    hand = Hand(seed)
    while not rules.ended(state):
        if rules.claims_decided(state):  # the room closes a decided claim window
            state, _ = rules.resolve_claims(state)
            continue
        seat = rules.acting_seats(state)[0]
        action = moves[seat](state, seat) if seat in moves else rules.bot_action(state, seat)
        legal = [a.to_dict() for a in rules.legal_actions(state, seat)]
        hand.steps.append(Step(seat, action.to_dict(), legal, rules.view(state, seat).to_dict()))
        state, _ = rules.apply(state, seat, action)
    hand.settlement = rules.view(state, None)["settlement"]
    return hand


def find_seed(
    options: dict[str, Any],
    want: Callable[[Hand], bool],
    prefix: str,
    tries: int = 3000,
    game: str = "guiyang",
    policy: dict[int, Policy] | None = None,
) -> Hand:
    """The first hand ``f"{prefix}-{n}"`` of ``game`` that satisfies ``want`` (``policy``:
    as `play_out` takes it)."""
    for n in range(tries):
        hand = play_out(options, f"{prefix}-{n}", game=game, policy=policy)
        if want(hand):
            return hand
    raise AssertionError(f"no seed {prefix}-* in {tries} tries satisfies {want.__name__}")
