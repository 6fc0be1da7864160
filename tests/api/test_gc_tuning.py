"""``serve`` prepares the garbage collector (`server.__main__._tune_gc`): the startup heap
frozen and the serving thresholds set, in a process of its own (as ``serve`` runs)."""

from __future__ import annotations

import json
import subprocess
import sys

from server.__main__ import GC_THRESHOLDS

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
    import gc

    from prometheus_client import REGISTRY

    from server import metrics

    metrics.observe_gc()
    metrics.observe_gc()  # (once however often)
    assert gc.callbacks.count(metrics._gc_callback) == 1
    labels = {"generation": "2"}
    before = REGISTRY.get_sample_value("zhuoji_gc_pause_seconds_count", labels) or 0.0
    gc.collect()
    assert REGISTRY.get_sample_value("zhuoji_gc_pause_seconds_count", labels) == before + 1
