"""Bot self-play: hands per CPU-second, three ways, measured side by side in one run.

    python bench/selfplay.py [--seconds 5] [--repeat 3]

(a) ``engine``: ``server.rules.guiyang`` with the bots' policy (``server.room.bots.
    choose_action``) in a plain loop: deal, the acting seat's bot answers, decided claim
    windows are resolved, settle. No room, no store.
(b) ``actor``: the same bots through the room actor with the real store: a
    ``RoomManager`` on a SQLite file (migrated by Alembic) and the in-memory bus, a room of
    4 bot seats (``create_room`` + ``add_bots``) playing 16-hand sessions, every action
    logged and every hand settled in the store, every message published.
(c) ``rlcard``: ``rlcard``'s mahjong environment (a different, simpler ruleset) with four
    ``RandomAgent`` players, as an outside reference (``pip install 'rlcard>=1.2'``).

CPU is the process's (``time.process_time``: every thread, so the aiosqlite thread too).
Each part runs ``--seconds`` of CPU per repeat; parts are interleaved so a noisy machine
hits them alike; the table gives the median hands per CPU-second and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.room.bots import choose_action  # noqa: E402
from server.rules import guiyang  # noqa: E402

SESSION_HANDS = 16


def engine_hands(seconds: float, counter: itertools.count[int]) -> tuple[int, float]:
    """(a): whole hands with the bots until ``seconds`` of CPU; returns (hands, cpu s)."""
    options = guiyang.GuiyangOptions()
    start = time.process_time()
    hands = 0
    dealer = 0
    while time.process_time() - start < seconds:
        state = guiyang.deal(options, f"selfplay-{next(counter)}", dealer, 1)
        while not state.ended:
            if guiyang.claims_decided(state):
                state, _ = guiyang.resolve_claims(state)
                continue
            seat = guiyang.acting_seats(state)[0]
            state, _ = guiyang.apply(state, seat, choose_action(state, seat))
        settlement = guiyang.settle(state)
        if isinstance(settlement, dict):
            dealer = settlement["next_dealer"]
        else:  # a typed settlement
            dealer = getattr(settlement, "next_dealer", dealer)
        hands += 1
    return hands, time.process_time() - start


async def _actor_hands(
    seconds: float, counter: itertools.count[int], db: Path
) -> tuple[int, float]:
    from server.bus.memory import MemoryBus
    from server.room.actor import Timing
    from server.room.manager import RoomManager
    from server.store import Store

    store = Store(f"sqlite+aiosqlite:///{db}")
    await store.migrate()
    bus = MemoryBus()
    manager = RoomManager(store, bus, timing=Timing(claim_min_ms=0))
    manager.new_seed = lambda: f"selfplay-{next(counter)}"
    hands, cpu = 0, 0.0
    try:
        while cpu < seconds:
            start = time.process_time()
            actor = await manager.create_room({"hands": SESSION_HANDS})
            await manager.add_bots(actor.code, 3)
            await manager.add_bots(actor.code, 1)  # the fourth seat: the room starts
            while actor.info()["status"] not in ("finished", "dissolved"):
                await asyncio.sleep(0.005)
            idle = getattr(actor, "idle", None)
            if idle is not None:  # the session's last writes are part of its cost
                await idle()
            cpu += time.process_time() - start
            hands += SESSION_HANDS
    finally:
        await manager.close()
        await bus.close()
        await store.close()
    return hands, cpu


def actor_hands(seconds: float, counter: itertools.count[int]) -> tuple[int, float]:
    """(b): 16-hand bot sessions through the room actor and the SQLite store."""
    with tempfile.TemporaryDirectory(prefix="h9bench-selfplay-") as tmp:
        return asyncio.run(_actor_hands(seconds, counter, Path(tmp) / "selfplay.db"))


def rlcard_hands(seconds: float, counter: itertools.count[int]) -> tuple[int, float]:
    """(c): rlcard's mahjong with four random agents."""
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("mahjong", config={"seed": next(counter)})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    start = time.process_time()
    hands = 0
    while time.process_time() - start < seconds:
        env.run(is_training=False)
        hands += 1
    return hands, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5, help="CPU seconds per part")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-rlcard", action="store_true", help="skip (c)")
    args = parser.parse_args()
    with contextlib.suppress(ImportError):  # as the server runs
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    parts: dict[str, Callable[[float, itertools.count[int]], tuple[int, float]]] = {
        "engine": engine_hands,
        "actor": actor_hands,
    }
    if not args.no_rlcard:
        try:
            import rlcard  # noqa: F401

            parts["rlcard"] = rlcard_hands
        except ImportError:
            print("rlcard is not installed (pip install 'rlcard>=1.2'): skipped", file=sys.stderr)
    rates: dict[str, list[float]] = {name: [] for name in parts}
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# bench/selfplay.py {date}, {os.cpu_count()} cores, load avg {os.getloadavg()[0]:.1f}")
    for rep in range(args.repeat):
        for name, fn in parts.items():
            hands, cpu = fn(args.seconds, itertools.count(rep * 1_000_000))
            rates[name].append(hands / cpu)
            print(f"  #{rep + 1} {name}: {hands} hands in {cpu:.2f} cpu-s", file=sys.stderr)
    med: dict[str, Any] = {k: statistics.median(v) for k, v in rates.items()}
    ref = med.get("rlcard")
    print(f"\nhands per CPU-second, median of {args.repeat}:")
    print("| part | hands/cpu-s | % of engine | x rlcard |")
    print("|---|---|---|---|")
    for name, rate in med.items():
        vs_ref = f"{rate / ref:.2f}" if ref else "-"
        print(f"| {name} | {rate:.1f} | {100 * rate / med['engine']:.0f} | {vs_ref} |")


if __name__ == "__main__":
    main()
