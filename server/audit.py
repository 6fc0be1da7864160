"""Ledger audit: checks every settled hand in the database.

For each settled hand: the seat deltas exist and sum to zero, the ledger rows (the
payments) net exactly to those deltas, and replaying the hand from its stored seed and
actions through its game (`server.rules.replay.replay`) gives the same deltas and the same
payments (summed per payer, payee and reason). The admin's corrections (voids and
adjustments, :mod:`server.store.admin`) must name a settled hand, two of its seats and
positive points, carry a reason and an actor, and void a hand at most once; a corrected
hand's own rows are audited as they were settled (corrections never change them).
Run as ``python -m server audit``; exit status 1 on any problem. It sits above the store (it
reads the store and runs the rules).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from server.rules.registry import UnknownGame, find_game
from server.rules.replay import log_steps, replay
from server.rules.types import IllegalAction
from server.store.admin import correction_problems
from server.store.store import HandRecord, Store


async def audit(store: Store) -> list[str]:
    """Every problem found, as human-readable lines (empty list: the ledger is sound)."""
    problems: list[str] = []
    for hand in await store.all_hands():
        where = f"room {hand.code} hand {hand.hand_no}"
        if hand.ended_at is None and hand.deltas:
            # Settled by a live server between our reads of hands and deltas? The settlement
            # is one transaction, so a fresh read of the hand shows it whole.
            fresh = [h for h in await store.hands(hand.code) if h.hand_no == hand.hand_no]
            hand = fresh[0] if fresh else hand
            if hand.ended_at is None:
                problems.append(f"{where}: unsettled but has seat deltas {hand.deltas}")
                continue
        if hand.ended_at is None:
            continue
        if not hand.deltas:
            problems.append(f"{where}: settled without seat deltas")
            continue
        if sum(hand.deltas) != 0:
            problems.append(f"{where}: deltas {hand.deltas} sum to {sum(hand.deltas)}")
        net = [0] * len(hand.deltas)
        for pay in await store.ledger_by_hand(hand.code, hand.hand_no):
            if not (0 <= pay["from"] < len(net) and 0 <= pay["to"] < len(net)):
                problems.append(f"{where}: payment {pay} names an unknown seat")
                continue
            net[pay["from"]] -= pay["points"]
            net[pay["to"]] += pay["points"]
        if net != hand.deltas:
            problems.append(f"{where}: payments net to {net}, deltas are {hand.deltas}")
        problems.extend(await _replay_problems(store, hand, where))
    problems.extend(await correction_problems(store))
    return problems


def _summed(payments: list[dict[str, Any]]) -> dict[tuple[int, int, str], int]:
    sums: dict[tuple[int, int, str], int] = defaultdict(int)
    for p in payments:
        sums[(p["from"], p["to"], p["reason"])] += p["points"]
    return dict(sums)


async def _replay_problems(store: Store, hand: HandRecord, where: str) -> list[str]:
    """Replay the hand from its seed and action log; compare with what the ledger holds."""
    room = await store.get_room(hand.code)
    if room is None:
        return [f"{where}: room is missing"]
    try:
        game = find_game(room.game)
    except UnknownGame as exc:
        return [f"{where}: {exc}"]
    actions = await store.hand_actions(hand.code, hand.hand_no)
    try:
        done = replay(
            game,
            room.options,
            log_steps(actions),
            seed=hand.seed,
            dealer=hand.dealer,
            dealer_streak=hand.dealer_streak,
            weekday=hand.weekday,
        )
    except (IllegalAction, KeyError, TypeError, ValueError) as exc:
        return [f"{where}: the action log does not replay: {exc}"]
    settlement = done.settlement
    if settlement is None:
        return [f"{where}: settled in the ledger, but its actions do not end the hand"]
    problems = []
    if list(settlement.deltas) != hand.deltas:
        problems.append(
            f"{where}: replay gives deltas {list(settlement.deltas)}, the ledger has {hand.deltas}"
        )
    stored = _summed(await store.ledger_by_hand(hand.code, hand.hand_no))
    if _summed(settlement.payment_dicts()) != stored:
        problems.append(f"{where}: replayed payments differ from the ledger rows")
    return problems


async def _run(url: str) -> int:
    from server.store.schema import check_readable, tool_error

    try:
        await check_readable(url)  # (creates no SQLite file)
        store = Store(url)
        try:
            problems = await audit(store)
            hands = len(await store.all_hands())
        finally:
            await store.close()
    except Exception as err:
        known = tool_error(err)
        if known is None:
            raise
        print(f"python -m server audit: {known[0]}", file=sys.stderr)
        return max(known[1], 2)  # (1 means "problems found")
    for line in problems:
        print(line)
    print(f"audited {hands} hands: {len(problems)} problem(s)")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Audit the database at ``--database-url`` (default: ``DATABASE_URL``). Returns the exit
    status: 0 if sound, 1 if any problem was printed, 2 if the database cannot be read (one
    line on stderr)."""
    from server.config import database_url_problem, get_settings

    parser = argparse.ArgumentParser(prog="python -m server audit", description=__doc__)
    parser.add_argument("--database-url", default=None, help="default: DATABASE_URL")
    args = parser.parse_args(list(argv) if argv is not None else [])
    if args.database_url and database_url_problem(args.database_url):
        parser.error(f"--database-url: {database_url_problem(args.database_url)}")
    return asyncio.run(_run(args.database_url or get_settings().database_url))
