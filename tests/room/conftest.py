"""Fixtures for room-actor tests: a real store (``store`` fixture), the in-memory bus, and
a manual clock. Nothing is mocked; time moves only when a test advances the clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.bus.memory import MemoryBus
from server.room.clock import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    """A clock at a fixed origin that moves only on ``advance``."""
    return ManualClock()


@pytest.fixture
async def bus() -> AsyncIterator[Any]:
    """The in-process bus."""
    b = MemoryBus()
    yield b
    await b.close()
