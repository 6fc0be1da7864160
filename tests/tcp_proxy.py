"""A real TCP relay for fault tests: put it between a server and a real service (the shared
PostgreSQL, a Redis) and make the service unreachable without touching the service itself.

* :meth:`TcpProxy.cut`: every relayed connection is closed at once and new ones are refused
  (accepted and closed at once) until :meth:`TcpProxy.restore`: what a client sees when the
  service is stopped or restarted.
* :meth:`TcpProxy.pause`: connections stay open but nothing is relayed (a network partition);
  :meth:`TcpProxy.restore` lets the held bytes through.

It runs its own event loop in a thread, so it serves a server in another process (or another
loop) while the test's loop blocks. Usage::

    proxy = TcpProxy(("127.0.0.1", 5432)).start()
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{proxy.port}/test"
    proxy.cut(); ...; proxy.restore()
    proxy.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import threading


class TcpProxy:
    """A TCP relay on 127.0.0.1:``port`` (free port chosen at :meth:`start`) to ``target``.
    ``connections`` counts the client connections accepted, ``refused`` those refused while
    cut."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self.connections = 0
        self.refused = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._cut = False
        self._flowing: asyncio.Event | None = None

    def start(self) -> TcpProxy:
        """Listen and relay (returns ``self``)."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    async def _start(self) -> None:
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    def _call(self, fn: object) -> None:
        async def run() -> None:
            fn()  # type: ignore[operator]

        asyncio.run_coroutine_threadsafe(run(), self._loop).result(10)

    def cut(self) -> None:
        """Close every relayed connection now and refuse new ones (the service is down)."""

        def do() -> None:
            self._cut = True
            for w in list(self._writers):
                w.transport.abort()  # a reset, as from a stopped server
            self._writers.clear()

        self._call(do)

    def pause(self) -> None:
        """Stop relaying bytes (connections stay open: a partition)."""
        self._call(lambda: self._flowing.clear())  # type: ignore[union-attr]

    def restore(self) -> None:
        """Undo :meth:`cut` / :meth:`pause`."""

        def do() -> None:
            self._cut = False
            assert self._flowing is not None
            self._flowing.set()

        self._call(do)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            self.refused += 1
            writer.transport.abort()
            return
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_writer))

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            assert self._flowing is not None
            try:
                while data := await src.read(65536):
                    await self._flowing.wait()
                    if self._cut:
                        break
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        self._writers.difference_update((writer, up_writer))

    def close(self) -> None:
        """Stop listening, drop every connection and stop the thread."""

        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for w in list(self._writers):
                w.transport.abort()
            self._writers.clear()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
