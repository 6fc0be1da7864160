"""A real TCP relay in front of Redis that counts a client's round trips (for tests that
show a batch of commands costs one: not a mock, the commands reach the real Redis)."""

from __future__ import annotations

import asyncio


class CountingProxy:
    """A real TCP relay between a client and Redis that counts the client's round trips:
    each time the client sends after having received a reply is one more."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.round_trips = 0
        self._server: asyncio.Server | None = None
        self._answered = True

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, up: bool) -> None:
            while data := await src.read(65536):
                if up and self._answered:
                    self.round_trips += 1
                self._answered = not up
                dst.write(data)
                await dst.drain()
            dst.close()

        await asyncio.gather(
            pump(reader, up_writer, True), pump(up_reader, writer, False), return_exceptions=True
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
