"""``serve`` prepares the garbage collector (`server.__main__._tune_gc`): the startup heap
frozen and the serving thresholds set, in a process of its own (as ``serve`` runs); then
(`server.heap`) the heap frozen every second and collected whole every ``GC_FULL_SECONDS``."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from server.__main__ import GC_THRESHOLDS
from server.heap import keep_frozen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from processes import ServerProcess  # noqa: E402

PROBE = """
import gc, json, sys
from server.__main__ import _tune_gc
before = gc.get_freeze_count()
_tune_gc()
print(json.dumps({"before": before, "frozen": gc.get_freeze_count(),
                  "thresholds": gc.get_threshold(), "app": "server.api.app" in sys.modules}))
"""


def test_serve_freezes_the_startup_heap_and_sets_the_thresholds() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    probe = json.loads(out.stdout)
    assert probe["before"] == 0
    assert probe["frozen"] > 10_000  # the app and its libraries, loaded before freezing
    assert probe["app"] is True
    assert tuple(probe["thresholds"]) == GC_THRESHOLDS == (1_000_000, 20, 100)


def test_collector_pauses_are_timed_into_the_metrics() -> None:
    from prometheus_client import REGISTRY

    from server import metrics

    metrics.observe_gc()
    metrics.observe_gc()  # (once however often)
    assert gc.callbacks.count(metrics._gc_callback) == 1
    labels = {"generation": "2"}
    before = REGISTRY.get_sample_value("zhuoji_gc_pause_seconds_count", labels) or 0.0
    gc.collect()
    assert REGISTRY.get_sample_value("zhuoji_gc_pause_seconds_count", labels) == before + 1


class Node:
    """An object in a reference cycle (only the cyclic collector frees it)."""

    def __init__(self) -> None:
        self.me = self


async def test_keep_frozen_leaves_cycles_to_its_full_collection() -> None:
    """The heap is frozen every ``freeze_seconds``: a young collection no longer finds a
    cycle made before the last freeze; the full collection every ``full_seconds`` does."""
    enabled = gc.isenabled()
    gc.disable()  # (no automatic collection before the freeze: only the explicit ones)
    task = asyncio.create_task(keep_frozen(full_seconds=0.6, freeze_seconds=0.02))
    try:
        await asyncio.sleep(0.1)
        node = Node()
        ref = weakref.ref(node)
        del node
        await asyncio.sleep(0.1)  # frozen since
        gc.collect(0)
        gc.collect(1)
        assert ref() is not None  # out of the collector's sight
        for _ in range(100):  # freed by the full collection, at 0.6 s
            await asyncio.sleep(0.05)
            if ref() is None:
                break
        assert ref() is None
        assert gc.get_freeze_count() > 0  # and frozen again after it
    finally:
        task.cancel()
        gc.unfreeze()  # (this test process's collector as it was)
        if enabled:
            gc.enable()


async def test_keep_frozen_refuses_intervals_that_are_not_positive() -> None:
    with pytest.raises(ValueError):
        await keep_frozen(full_seconds=0)
    with pytest.raises(ValueError):
        await keep_frozen(full_seconds=5, freeze_seconds=0)


def test_serve_freezes_every_second_and_collects_whole_every_gc_full_seconds(
    tmp_path: Path,
) -> None:
    """``python -m server serve`` runs `server.heap.keep_frozen` (``GC_FULL_SECONDS``,
    600 unless set): here every second, each full collection logged."""
    env = {
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'gc.db'}",
        "REDIS_URL": "",
        "ADMIN_TOKEN": "",
        "LOG_FORMAT": "text",
        "GC_FULL_SECONDS": "1",
    }
    app = ServerProcess(env, tmp_path / "app.log", args=["--log-level", "info"])
    try:
        app.wait_ready()
        deadline = time.monotonic() + 30
        while app.output().count("full collection:") < 2:
            assert time.monotonic() < deadline, app.output()
            time.sleep(0.2)
    finally:
        app.stop()
