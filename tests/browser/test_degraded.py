"""The web client while its room waits for the database (issue 16): the live server on the
shared PostgreSQL through a TCP proxy (``tests/tcp_proxy.py``) that the test cuts. A discard
clicked during the outage is not shown before it is logged; the top bar says
"等待数据库恢复…" (English: "Waiting for the database…"); once the database is back the
banner goes and the discard lands. Screenshots at 1280x800 and 375x812."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from conftest import LiveServer
from sqlalchemy.engine import make_url
from tcp_proxy import TcpProxy
from test_live import add_bots, create_room, new_page
from test_review import assert_one_line


def _reset_schema(url: str) -> None:
    """An empty ``public`` schema in the run's private database (the server migrates it)."""
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)

    async def reset() -> None:
        conn = await asyncpg.connect(dsn, timeout=10)
        try:
            await conn.execute("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;")
        finally:
            await conn.close()

    # Playwright's loop runs in this thread: run ours in another one
    worker = threading.Thread(target=lambda: asyncio.run(reset()))
    worker.start()
    worker.join(30)


def _phone_bar_fits(page: Any, banner: Any, label: str) -> None:
    """At 375 px the banner is in view and whole, and the top bar keeps to one line within
    the page (the banner stands at the screen's foot there, not squeezing the title away)."""
    top = assert_one_line(page, "#topbar", label)
    assert "degraded-banner" not in top, (label, top)
    brand = page.locator("#home-link").bounding_box()
    assert brand is not None and brand["width"] >= 80, (label, brand)
    box = banner.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, (label, box)
    assert box["y"] + box["height"] <= 812, (label, box)


@pytest.mark.postgres
def test_banner_while_the_database_is_away(
    browser: Any, postgres_base_url: str, shots_dir: Path
) -> None:
    _reset_schema(postgres_base_url)
    parsed = make_url(postgres_base_url)
    proxy = TcpProxy((parsed.host or "127.0.0.1", parsed.port or 5432)).start()
    url = parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    srv = LiveServer(url)
    srv.start()
    ctx, page = new_page(browser, width=1280, height=800)
    try:
        create_room(page, srv.base, "甲")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)
        river = "#my-river .tile"
        before = page.locator(river).count()
        banner = page.locator("#degraded-banner")
        assert banner.count() == 1 and banner.is_hidden()
        proxy.cut()
        page.locator("#hand .hand-tile.playable").first.click()
        banner.wait_for(state="visible", timeout=10000)
        assert banner.inner_text() == "等待数据库恢复…"
        page.wait_for_timeout(1000)
        assert page.locator(river).count() == before  # nothing shown before it is logged
        page.screenshot(path=str(shots_dir / "degraded-1280.png"))
        page.set_viewport_size({"width": 375, "height": 812})
        page.wait_for_timeout(200)
        page.screenshot(path=str(shots_dir / "degraded-375.png"))
        _phone_bar_fits(page, banner, "zh")
        page.click("#lang-toggle")
        assert banner.inner_text() == "Waiting for the database…"
        _phone_bar_fits(page, banner, "en")
        page.click("#lang-toggle")
        page.set_viewport_size({"width": 1280, "height": 800})
        proxy.restore()
        banner.wait_for(state="hidden", timeout=15000)
        page.wait_for_function(
            "n => document.querySelectorAll('#my-river .tile').length > n",
            arg=before,
            timeout=10000,
        )
        assert page.locator(river).count() == before + 1
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
        srv.stop()
        proxy.close()
