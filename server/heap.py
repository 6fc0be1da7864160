"""The serving process's garbage-collector policy (issue 9): no collection pauses in play.

CPython frees almost everything a room server drops by reference counting; its cyclic
collector is only for reference cycles, which the rooms no longer make
(``tests/room/test_memory.py``). Yet a collection scans every tracked object of its
generations, and at 1,000 busy rooms the young generation alone is every room's current
state: a young collection stopped every room for 0.5-1.2 s (``bench/load.py``, README).

So `keep_frozen` moves the heap out of the collector's sight every second (``gc.freeze``:
a list splice, no scan; a frozen object that is dropped is still freed at once by
reference counting) and runs one full collection every ``full_seconds`` (the frozen
heap unfrozen and scanned whole) for what cycles there are: they wait that long at most
(none were found in play, nor after 2,000 WebSocket connections opened and closed:
README). ``python -m server serve`` runs it (``GC_FULL_SECONDS``, default
`FULL_SECONDS`); an app inside another process (a test's) leaves the collector as it is.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)

#: How often the heap is frozen (seconds): what is younger is all a collection triggered
#: by the thresholds in between would scan.
FREEZE_SECONDS = 1.0

#: Default of ``GC_FULL_SECONDS`` under ``serve``: how often the whole heap is collected.
FULL_SECONDS = 600.0


def collect_all() -> int:
    """One full collection of the whole heap, the frozen part included, then the survivors
    frozen again; returns the unreachable objects found (``gc.collect``)."""
    gc.unfreeze()
    try:
        return gc.collect()
    finally:
        gc.freeze()


async def keep_frozen(full_seconds: float, freeze_seconds: float = FREEZE_SECONDS) -> None:
    """Run until cancelled, on the event loop's thread (never in the middle of a
    collection): freeze the heap every ``freeze_seconds`` and collect it whole
    (`collect_all`) every ``full_seconds``, logging what each full collection found and
    how long it took (its pause is also timed into ``zhuoji_gc_pause_seconds``,
    generation 2). Raises ValueError for intervals that are not positive."""
    if full_seconds <= 0 or freeze_seconds <= 0:
        raise ValueError("keep_frozen needs positive intervals")
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(freeze_seconds)
        if time.monotonic() - last_full >= full_seconds:
            started = time.perf_counter()
            found = collect_all()
            log.info(
                "full collection: %d unreachable objects, %.0f ms, %d objects frozen",
                found,
                (time.perf_counter() - started) * 1000,
                gc.get_freeze_count(),
            )
            last_full = time.monotonic()
        else:
            gc.freeze()
