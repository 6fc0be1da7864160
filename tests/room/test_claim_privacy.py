"""No side channel in claim windows (issue 16): what the other seats see of a claim window
does not depend on whether a human seat could claim it, even when that seat times out.

The rooms run through the real `RoomActor` on a :class:`ManualClock` (deterministic), the
real store and the in-memory bus. Seat 1 is a human "thinker" who answers each claim it is
offered after a think time drawn from a fixed distribution (or never: it times out); seat 2
is a human observer who answers at once; seats 0 and 3 are bots; a spectator watches too.
For every claim window the test knows (from the actor) whether seat 1 could claim, and reads
from the observers' messages, stamped with the clock, how long the window was open (windows
of seat 1's own discards, which everyone knows it cannot claim, and windows the observer
could claim are left out).

Statistic: the two-sample Kolmogorov-Smirnov distance D between the window lengths of the
windows seat 1 could claim (A) and of those it could not (B), as the spectator saw them. With
``claim_hold="mimic"`` D stays below the KS critical value at alpha = 0.05 (the two cannot be
separated); the same game with ``claim_hold="min"`` (only ``claim_min_ms``) gives D far above
it, so the statistic does detect the side channel.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from server.room.actor import RoomActor, Seat, Timing, seat_channel
from server.room.clock import ManualClock
from server.rules.guiyang import Action, GuiyangOptions, legal_actions, prompt_kind
from server.rules.registry import find_game

GAME = find_game("guiyang")
THINKER, OBSERVER = 1, 2
#: Seat 1's think times on a claim (seconds); None: it does not answer and times out.
THINK = [0.3, 0.6, 1.0, 1.4, 2.0, 2.5, 3.5, None]
CLAIM_SECONDS = 5.0


def timing(hold: str) -> Timing:
    return Timing(
        claim_seconds=CLAIM_SECONDS,
        turn_seconds=20,
        claim_min_ms=800,
        auto_seconds=1,
        ready_seconds=30,
        claim_hold=hold,
    )


def ks_distance(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: max |F_a(x) - F_b(x)|."""
    points = sorted(set(a) | set(b))
    return max(
        abs(sum(x <= p for x in a) / len(a) - sum(x <= p for x in b) / len(b)) for p in points
    )


def ks_critical(n: int, m: int, c_alpha: float = 1.358) -> float:
    """The KS critical value at alpha = 0.05 (c = 1.358) for samples of sizes n and m."""
    return c_alpha * ((n + m) / (n * m)) ** 0.5


async def pending(sub: Any) -> list[dict[str, Any]]:
    """The messages already delivered to ``sub`` (without waiting for more)."""
    out = []
    while True:
        try:
            out.append(await sub.get(timeout=0))
        except TimeoutError:
            return out


@dataclass
class Played:
    """What a session showed: window lengths by class, and each window's observer messages."""

    could: list[float] = field(default_factory=list)
    could_not: list[float] = field(default_factory=list)
    shapes_could: set[tuple[Any, ...]] = field(default_factory=set)
    shapes_could_not: set[tuple[Any, ...]] = field(default_factory=set)
    timeouts: int = 0
    in_window_extra: list[dict[str, Any]] = field(default_factory=list)
    auto_messages: list[dict[str, Any]] = field(default_factory=list)


async def play(store: Any, bus: Any, hold: str, code: str, out: Played) -> None:
    """Play a session of 16 hands in room ``code``; add its windows to ``out``."""
    clock = ManualClock()
    opts = GuiyangOptions(hands=16).model_dump()
    bots = [True, False, False, True]
    await store.create_room(code, "guiyang", opts)
    for i, b in enumerate(bots):
        await store.add_player(code, i, f"p{i}", f"h{i}", b)
    actor = RoomActor(
        code,
        opts,
        store,
        bus,
        clock,
        timing(hold),
        seats=[Seat(i, f"p{i}", b, f"h{i}") for i, b in enumerate(bots)],
        hold_rng=random.Random(11),
    )
    seeds = iter(f"privacy-{code}-{n}" for n in range(100))
    actor.new_seed = lambda: next(seeds)
    spectator = await bus.subscribe(seat_channel(code, None))
    observer = await bus.subscribe(seat_channel(code, OBSERVER))
    seen: dict[str, list[tuple[float, dict[str, Any]]]] = {"spec": [], "obs": []}
    rng = random.Random(3)
    claimants: dict[int, frozenset[int]] = {}  # claim window (prompt) -> seats offered
    answer_at: dict[int, float | None] = {}  # thinker's planned answer per window
    actor.start()

    async def drain() -> None:
        for name, sub in (("spec", spectator), ("obs", observer)):
            seen[name] += [(clock.now(), m) for m in await pending(sub)]

    try:
        for _ in range(200_000):
            await actor.idle()
            await drain()
            if actor.status == "finished":
                break
            if actor.status == "between":
                for s in (THINKER, OBSERVER):
                    if s not in actor.ready:
                        await actor.mark_ready(s)
                continue
            state, window = actor.state, actor.prompts.window
            kind = prompt_kind(state)
            acting = {s for s in range(4) if legal_actions(state, s)}
            if kind == "claim" and window not in claimants:
                claimants[window] = frozenset(acting)
            if OBSERVER in acting and OBSERVER not in actor.prompts.answered:
                pas = Action("pass")
                act = pas if pas in legal_actions(state, OBSERVER) else None
                await actor.act(OBSERVER, act or GAME.default_action(state, OBSERVER))
                continue
            if THINKER in acting and THINKER not in actor.prompts.answered:
                if kind != "claim":
                    await actor.act(THINKER, GAME.default_action(state, THINKER))
                    continue
                if window not in answer_at:
                    think = rng.choice(THINK)
                    answer_at[window] = None if think is None else clock.now() + think
                due = answer_at[window]
                if due is not None and due <= clock.now() + 1e-9:
                    answer_at[window] = None
                    await actor.act(THINKER, Action("pass"))
                    continue
            else:
                due = None
            nxt = clock.next_due()
            targets = [t for t in (nxt, due) if t is not None]
            assert targets, "the room waits for nothing"
            clock.advance(max(0.0, min(targets) - clock.now()))
        else:
            raise AssertionError("session did not reach its windows")
        log = [a for h in range(1, actor.hand_no + 1) for a in await store.hand_actions(code, h)]
    finally:
        await actor.stop()
        await spectator.close()
        await observer.close()

    out.timeouts += sum(1 for s, p in log if s == THINKER and p["source"] == "timeout")
    for name in ("spec", "obs"):
        msgs = seen[name]
        for i, (t0, m) in enumerate(msgs):
            if m["type"] != "event" or m["view"]["phase"] != "claim":
                continue
            window = m["prompt"]
            if window not in claimants or OBSERVER in claimants[window]:
                continue  # the observer's own options are its own business
            if m["view"]["turn"] == THINKER:
                continue  # seat 1's own discard: everyone knows it cannot claim it
            rest = msgs[i + 1 :]
            at = next(
                (k for k, (_, n) in enumerate(rest) if n["type"] in ("event", "hand_end")), None
            )
            if at is None:
                continue  # the session stopped inside it
            closing = rest[at]
            out.in_window_extra += [n for _, n in rest[:at]]  # between opening and closing
            could = THINKER in claimants[window]
            shape = (
                tuple(e["type"] for e in m["events"]),
                m["deadline"],
                tuple(m["legal"]),
                tuple(s["auto"] for s in m.get("room", {}).get("seats", [])),
                closing[1]["type"],
                closing[1].get("deadline") is None,
                closing[1].get("prev_version") == m["version"],
            )
            (out.shapes_could if could else out.shapes_could_not).add(shape)
            if name == "spec":
                (out.could if could else out.could_not).append(round(closing[0] - t0, 6))
        out.auto_messages += [n for _, n in msgs if n["type"] == "auto"]


async def test_window_lengths_and_messages_do_not_tell_who_could_claim(
    store: Any, bus: Any
) -> None:
    played = Played()
    for code in ("PRIVA1", "PRIVA2", "PRIVA3"):
        await play(store, bus, "mimic", code, played)
    a, b = played.could, played.could_not
    assert len(a) >= 50 and len(b) >= 200
    assert played.timeouts >= 4, "seat 1 timed out on claims it was offered"
    # messages: nothing but the window's own event inside a window, the same shapes either
    # way (the deadline is hidden, no legal actions, no auto flag), never an auto message
    assert played.in_window_extra == []
    assert played.auto_messages == []
    assert played.shapes_could <= played.shapes_could_not
    assert all(shape[1] is None and shape[2] == () for shape in played.shapes_could_not)
    # timing: the two length distributions cannot be told apart (KS at alpha = 0.05)
    d, critical = ks_distance(a, b), ks_critical(len(a), len(b))
    assert d < critical, f"KS D={d:.3f} >= {critical:.3f}: window lengths tell who could claim"
    assert max(a) == max(b) == CLAIM_SECONDS  # a timed-out claim is mimicked too
    assert min(a) == min(b) == 0.8  # claim_min_ms


async def test_min_hold_alone_is_separated_by_the_statistic(store: Any, bus: Any) -> None:
    """The control: with ``claim_hold="min"`` the same statistic does separate the two."""
    played = Played()
    await play(store, bus, "min", "PRIVB1", played)
    a, b = played.could, played.could_not
    d, critical = ks_distance(a, b), ks_critical(len(a), len(b))
    assert d > 2 * critical
    assert set(b) == {0.8}  # nobody thinks in them: exactly claim_min_ms


async def test_auto_and_presence_are_held_until_the_window_closes(store: Any, bus: Any) -> None:
    """Seat 1 turns auto-play on and its socket goes away inside a claim window it was
    offered: it is told its own flag at once; the others learn both only once the window
    has closed (after its closing event), and the room info they can read meanwhile shows
    the window's opening."""
    clock = ManualClock()
    opts = GuiyangOptions().model_dump()
    bots = [False, False, False, False]
    code = "PRIV03"
    await store.create_room(code, "guiyang", opts)
    for i, b in enumerate(bots):
        await store.add_player(code, i, f"p{i}", f"h{i}", b)
    actor = RoomActor(
        code,
        opts,
        store,
        bus,
        clock,
        Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=800),
        seats=[Seat(i, f"p{i}", b, f"h{i}") for i, b in enumerate(bots)],
    )
    actor.connected = {0: 1, 1: 1, 2: 1, 3: 1}
    # a seed whose first discard seat 1 may claim
    for n in range(3000):
        seed = f"held-{n}"
        state = GAME.deal(GAME.options(opts), seed, 0, 1)
        if prompt_kind(state) != "turn":
            continue
        found = [
            x
            for x in legal_actions(state, 0)
            if x.kind == "discard"
            and not x.bao_ting
            and legal_actions(GAME.apply(state, 0, x)[0], 1)
        ]
        if found:
            discard = found[0]
            break
    else:
        raise AssertionError("no seed found")
    actor.new_seed = lambda: seed
    actor.start()
    await actor.wait_started()
    subs = {s: await bus.subscribe(seat_channel(code, s)) for s in (1, 2, None)}

    async def drain(s: int | None) -> list[dict[str, Any]]:
        return await pending(subs[s])

    await actor.act(0, discard)
    await actor.idle()
    assert prompt_kind(actor.state) == "claim" and legal_actions(actor.state, 1)
    for s in (1, 2, None):
        await drain(s)
    await actor.set_auto(1, True)  # answers the claim at once (auto), the window holds
    actor.connected[1] = 0
    await actor.publish_room()
    await actor.idle()
    mine = await drain(1)
    assert {"type": "auto", "auto": [1]} in mine
    for s in (2, None):
        assert [m["type"] for m in await drain(s)] == []
    assert actor.info()["seats"][1] == {
        "seat": 1,
        "name": "p1",
        "bot": False,
        "connected": True,
        "auto": False,
    }
    clock.advance(0.8)  # claim_min_ms: the window closes (others answer on their timers)
    for s in (0, 2, 3):
        if s in actor._acting() and s not in actor.prompts.answered:
            await actor.act(s, Action("pass"))
    await actor.idle()
    clock.advance(0.01)
    await actor.idle()
    assert prompt_kind(actor.state) != "claim"
    for s in (2, None):
        got = await drain(s)
        kinds = [m["type"] for m in got]
        assert kinds[-2:] == ["auto", "room"] and kinds[0] == "event", kinds
        assert got[-2] == {"type": "auto", "auto": [1]}
        assert got[-1]["room"]["seats"][1]["connected"] is False
        assert got[-1]["room"]["seats"][1]["auto"] is True
    await actor.stop()
    for sub in subs.values():
        await sub.close()
