"""Seeds and action scripts that lead a 4-player hand to a wanted claim window.

``find_claim(want)`` plays hands with the bots' policy (claims passed) from seeds
``"scenario-0"``, ``"scenario-1"``, ... and stops at the first claim window whose options
satisfy ``want(claim_options)``. The result is replayed by the tests through the room actor,
so the live room reaches exactly that window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.room.bots import choose_action
from server.rules.guiyang import (
    Action,
    GuiyangOptions,
    acting_seats,
    apply,
    claims_decided,
    deal,
    prompt_kind,
    resolve_claims,
)


@dataclass
class Scenario:
    """``seed`` deals the hand (dealer 0); ``script`` is ``[(seat, action)]`` up to the window;
    ``options`` is ``claim_options`` there: ``{seat: ("win", "pong", ...)}``."""

    seed: str
    script: list[tuple[int, Action]]
    options: dict[int, tuple[str, ...]]
    state: Any


def find_claim(
    want: Callable[[dict[int, tuple[str, ...]]], bool],
    opts: GuiyangOptions | None = None,
    seeds: int = 3000,
) -> Scenario:
    """The first scenario whose claim window satisfies ``want``; AssertionError if none."""
    opts = opts or GuiyangOptions()
    for n in range(seeds):
        seed = f"scenario-{n}"
        state = deal(opts, seed, 0, 1)
        script: list[tuple[int, Action]] = []
        while not state.ended and len(script) < 400:
            if prompt_kind(state) == "claim" and state.phase == "claim":
                if want(dict(state.claim_options)):
                    return Scenario(seed, script, dict(state.claim_options), state)
            if claims_decided(state):  # the room closes a decided claim window
                state, _ = resolve_claims(state)
                continue
            seat = acting_seats(state)[0]
            action = choose_action(state, seat)
            if prompt_kind(state) == "claim":
                action = Action("pass")
            state, _ = apply(state, seat, action)
            script.append((seat, action))
    raise AssertionError("no scenario found")


def pong_and_win(options: dict[int, tuple[str, ...]]) -> bool:
    """One seat may pong (and not win), another may win."""
    pongers = [s for s, o in options.items() if "pong" in o and "win" not in o]
    winners = [s for s, o in options.items() if "win" in o]
    return bool(pongers) and bool(winners) and set(pongers).isdisjoint(winners)


def two_claimants(options: dict[int, tuple[str, ...]]) -> bool:
    """At least two seats may claim."""
    return len(options) >= 2
