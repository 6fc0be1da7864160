"""Per-client-address limits shared by every process (the ``limits`` library).

With ``REDIS_URL`` the counters live in Redis (keys ``zhuoji-limits/...``), so N processes
allow what one would; without it they live in this process's memory. One object serves the
HTTP limits (``rooms``: ``POST /api/rooms``; ``lookups``: ``GET /api/rooms/{code}``;
``joins``: ``POST .../join`` and ``.../bots``; ``admin``: failed admin authentications) and
the socket limit (``sockets``: WebSocket connections opened, whatever their token); each is a
moving window of ``n`` per minute.

If Redis does not answer, the check lets the request through (a limiter must not take the
site down) and logs a warning.
"""

from __future__ import annotations

import logging
from typing import Any

from limits import RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

log = logging.getLogger(__name__)


class AddressLimits:
    """``await allow(kind, address)``: True (and one hit counted) if ``address`` is under the
    ``kind`` limit, False (nothing counted) if not. ``per_minute`` maps each kind to its
    limit; a kind it does not name is not limited."""

    def __init__(self, per_minute: dict[str, int], redis_url: str | None = None) -> None:
        self.items = {kind: RateLimitItemPerMinute(n) for kind, n in per_minute.items()}
        self.storage: Storage
        if redis_url:
            uri = redis_url.replace("rediss://", "async+rediss://", 1).replace(
                "redis://", "async+redis://", 1
            )
            self.storage = RedisStorage(
                uri, implementation="redispy", key_prefix="zhuoji-limits", wrap_exceptions=True
            )
        else:
            self.storage = MemoryStorage()
        self.limiter = MovingWindowRateLimiter(self.storage)

    async def allow(self, kind: str, address: str) -> bool:
        """Count one hit of ``kind`` for ``address`` if under the limit (see the class)."""
        item = self.items.get(kind)
        if item is None:
            return True
        try:
            return await self.limiter.hit(item, kind, address)
        except Exception as err:  # storage down: fail open, loudly
            log.warning("rate limit storage unavailable (%s); allowing %s", err, kind)
            return True

    async def under(self, kind: str, address: str) -> bool:
        """True if ``address`` is under the ``kind`` limit; counts nothing (fails open)."""
        item = self.items.get(kind)
        if item is None:
            return True
        try:
            return await self.limiter.test(item, kind, address)
        except Exception as err:
            log.warning("rate limit storage unavailable (%s); allowing %s", err, kind)
            return True

    async def clear(self, kind: str, address: str) -> None:
        """Forget ``address``'s hits of ``kind`` (tests, admin)."""
        if kind in self.items:
            await self.limiter.clear(self.items[kind], kind, address)

    async def close(self) -> None:
        """Close the storage's connections (Redis); errors at shutdown are ignored."""
        closer: Any = getattr(self.storage, "aclose", None) or getattr(self.storage, "close", None)
        if closer is not None:
            try:
                result = closer()
                if hasattr(result, "__await__"):
                    await result
            except Exception:  # closing a broken connection at shutdown
                pass
