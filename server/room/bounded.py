"""Waiting for work with a deadline that cancellation cannot break.

``asyncio.timeout`` / ``wait_for`` end a wait by cancelling it, and awaiting a task hands
that cancellation to the task: a task that swallows it (redis-py has done so inside a
publish or a pipeline: redis/redis-py #2028, #2551) then holds its waiter forever.
:func:`settle` waits with :func:`asyncio.wait` instead, which returns at its deadline
whatever the tasks do; what is still running then is cancelled, given a short grace, and
left behind (logged), never awaited again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Awaitable, Iterable
from typing import Any

log = logging.getLogger(__name__)

#: Tasks given up on (they ignored cancellation): kept referenced so they are not
#: garbage-collected while running.
ABANDONED: set[asyncio.Future[Any]] = set()


async def settle(
    work: Iterable[Awaitable[Any]], timeout: float, *, grace: float = 0.25, what: str = "task"
) -> bool:
    """Run ``work`` (coroutines or tasks) at once and wait at most ``timeout`` seconds
    (event-loop time) for all of them; then cancel the rest and wait at most ``grace``
    seconds more. Never raises for the work's own errors (they are logged at DEBUG) and
    never waits longer than ``timeout + grace``. Returns True if everything finished."""
    tasks = {asyncio.ensure_future(w) for w in work}
    if not tasks:
        return True
    _, pending = await asyncio.wait(tasks, timeout=max(0.0, timeout))
    if pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=grace)
    for task in tasks - pending:
        if not task.cancelled() and task.exception() is not None:
            log.debug("%s failed while stopping: %r", what, task.exception())
    if pending:
        log.warning("%d %s(s) ignored cancellation while stopping: left behind", len(pending), what)
        for task in pending:
            ABANDONED.add(task)
            task.add_done_callback(ABANDONED.discard)
    return not pending


def watchdog(seconds: float, code: int = 1) -> threading.Timer:
    """End the process (``os._exit(code)``, after a last log line) if it still runs
    ``seconds`` from now: the backstop of a bounded stop, since the event loop's own
    cleanup (``asyncio.run`` awaiting every task it cancels) would wait forever for a
    task that ignores cancellation. A daemon thread: a process that exits first is not
    held by it. Returns the timer (``cancel()`` disarms it)."""

    def fire() -> None:
        log.error("still running %.1f s after the stop began: exiting now", seconds)
        for handler in logging.getLogger().handlers:
            try:
                handler.flush()
            except Exception:  # a broken handler must not stop the exit
                pass
        os._exit(code)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    return timer
