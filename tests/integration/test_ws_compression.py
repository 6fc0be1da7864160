"""WebSocket compression (``WS_DEFLATE``): a room's messages go uncompressed unless the host
turns it on, even though browsers (and the ``websockets`` client) always offer it."""

from __future__ import annotations

from collections.abc import Callable

from live_helpers import Live, create_room, recv


async def _extensions(live: Live) -> str | None:
    async with live.client() as client:
        code = await create_room(client)
    ws = await live.connect(code)  # offers permessage-deflate, as a browser does
    assert (await recv(ws))["type"] == "snapshot"
    assert ws.response is not None
    return ws.response.headers.get("Sec-WebSocket-Extensions")


async def test_compression_is_off_by_default(live: Live) -> None:
    assert await _extensions(live) is None


async def test_ws_deflate_accepts_compression(live_with: Callable[..., Live]) -> None:
    extensions = await _extensions(live_with(ws_deflate=True))
    assert extensions is not None and extensions.startswith("permessage-deflate")
