"""``server.store.transient``: which store failures a caller may retry (issue 16). On the
real PostgreSQL behind a TCP proxy that the test cuts (``tests/tcp_proxy.py``): what the
store raises while the database is away is transient; its refusals are not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from server.store import Conflict, NotFound, Store, transient
from tests.tcp_proxy import TcpProxy


@pytest.fixture
async def proxied(postgres_url: str) -> AsyncIterator[tuple[Store, TcpProxy]]:
    parsed = make_url(postgres_url)
    proxy = TcpProxy((parsed.host or "127.0.0.1", parsed.port or 5432)).start()
    url = parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    store = Store(url)
    await store.migrate()
    try:
        yield store, proxy
    finally:
        proxy.restore()
        await store.close()
        proxy.close()


async def _raised(call: Any) -> BaseException:
    try:
        await call
    except Exception as exc:
        return exc
    raise AssertionError("the call succeeded")


@pytest.mark.postgres
async def test_what_a_cut_database_raises_is_transient(proxied: tuple[Store, TcpProxy]) -> None:
    store, proxy = proxied
    await store.create_room("TRANS1", "guiyang", {})
    await store.add_player("TRANS1", 0, "a", "h", False)
    await store.start_hand("TRANS1", 1, "seed", 0, 1)
    await store.append_action("TRANS1", 1, 0, 0, {"n": 0})
    # refusals: never transient
    assert not transient(await _raised(store.append_action("TRANS1", 1, 0, 0, {"n": 0})))
    assert isinstance(await _raised(store.start_hand("TRANS1", 1, "s", 0, 1)), Conflict)
    missing = await _raised(store.set_room_status("NOROOM", "playing"))
    assert isinstance(missing, NotFound) and not transient(missing)
    bad = await _raised(store.finish_hand("TRANS1", 1, "x", {}, [], [1, 0], status=None))
    assert isinstance(bad, ValueError) and not transient(bad)
    proxy.cut()  # pooled connections reset, new ones refused
    calls = [
        lambda: store.append_action("TRANS1", 1, 1, 0, {"n": 1}),
        lambda: store.append_action("TRANS1", 1, 1, 0, {"n": 1}),
        lambda: store.start_hand("TRANS1", 2, "seed2", 0, 1),
        lambda: store.set_room_status("TRANS1", "playing"),
        lambda: store.hand_actions("TRANS1", 1),
        lambda: store.hands("TRANS1"),
    ]
    kinds = []
    for call in calls:
        exc = await _raised(call())
        kinds.append(type(exc).__name__)
        assert transient(exc), (type(exc), exc)
    proxy.restore()
    await store.append_action("TRANS1", 1, 1, 0, {"n": 1})  # the same call, now it works
    assert [p for _, p in await store.hand_actions("TRANS1", 1)] == [{"n": 0}, {"n": 1}]
