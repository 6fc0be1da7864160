"""The web client against the real server (``python -m server serve`` in a subprocess).

Everything is done by clicking, as a player would: create a room, add bots, discard,
answer claims, read the settlement, reload mid-hand.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

HAND_TIMEOUT = 240.0  # seconds for a whole hand played by clicking


def get_room(base: str, code: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/rooms/{code}", timeout=5) as r:
        return json.loads(r.read())


def new_page(browser: Any, width: int = 1280, height: int = 860, **kw: Any) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN", **kw)
    page = ctx.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return ctx, page


def create_room(page: Any, base: str, name: str, hands: int = 4) -> str:
    page.goto(base + "/")
    page.fill("#name", name)
    page.check(f"#opt-hands-{hands}")
    page.click("#create-room")
    page.wait_for_selector("#room-code:not(:empty)")
    code = page.locator("#room-code").inner_text().strip()
    assert code
    assert f"room={code}" in page.url
    return code


def add_bots(page: Any) -> None:
    btn = page.locator("#add-bots")
    btn.wait_for(state="visible")
    page.wait_for_function("Number(document.querySelector('#add-bots').dataset.empty) > 0")
    with page.expect_response(lambda r: "/bots" in r.url) as resp:
        btn.click()
    assert resp.value.ok, resp.value.text()


def try_click(loc: Any) -> bool:
    try:
        if loc.count() == 0:
            return False
        loc.first.click(timeout=800)
        return True
    except Exception:  # re-rendered under us: try again on the next round
        return False


def step(page: Any) -> str | None:
    """Make one move if this page has something to do; return what was clicked."""
    for action in ("win", "self_draw"):
        if try_click(page.locator(f'#actions [data-action="{action}"]:not([disabled])')):
            return action
    if try_click(page.locator('#actions [data-action="pass"]:not([disabled])')):
        return "pass"
    if try_click(page.locator('#actions [data-action="ding_que"]:not([disabled])')):
        return "ding_que"
    drawn = page.locator("#hand .hand-tile.playable.drawn")
    if try_click(drawn):
        return "discard"
    if try_click(page.locator("#hand .hand-tile.playable")):
        return "discard"
    return None


def settlement_visible(page: Any) -> bool:
    return page.locator("#settlement").is_visible()


def test_create_add_bots_discard(browser: Any, live_server: str, shots_dir: Path) -> None:
    ctx, page = new_page(browser)
    try:
        page.goto(live_server + "/")
        page.wait_for_selector("#create-room")
        page.screenshot(path=str(shots_dir / "live-lobby.png"), full_page=True)
        create_room(page, live_server, "甲")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        assert page.locator("#conn-state").get_attribute("data-state") == "connected"
        # wait for our turn (the creator normally deals first)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)
        before = page.locator("#my-river .tile").count()
        hand_before = int(page.locator("#hand").get_attribute("data-count"))
        tile_el = page.locator("#hand .hand-tile.playable").first
        tile = tile_el.get_attribute("data-tile")
        tile_el.click()
        page.wait_for_function(
            "n => document.querySelectorAll('#my-river .tile').length > n",
            arg=before,
            timeout=10000,
        )
        river = page.locator("#my-river .tile").evaluate_all("els => els.map(e => e.dataset.tile)")
        assert river[before] == tile
        assert int(page.locator("#hand").get_attribute("data-count")) <= hand_before
        page.wait_for_timeout(400)
        page.screenshot(path=str(shots_dir / "live-table.png"), full_page=True)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_two_players_full_hand(browser: Any, live_server: str, shots_dir: Path) -> None:
    ctx_a, a = new_page(browser)
    ctx_b, b = new_page(browser, width=375, height=812, is_mobile=True, has_touch=True)
    try:
        code = create_room(a, live_server, "阿甲")
        b.goto(f"{live_server}/?room={code}")
        b.fill("#name", "阿乙")
        assert b.locator("#join-code").input_value() == code
        b.click("#join-btn")
        b.wait_for_selector("#room-code:not(:empty)")
        add_bots(a)
        a.wait_for_selector("#hand .hand-tile", timeout=15000)
        b.wait_for_selector("#hand .hand-tile", timeout=15000)
        seats = {a.evaluate("window.__gy.seat"), b.evaluate("window.__gy.seat")}
        assert len(seats) == 2

        shot_mid = shot_claim = False
        moves = 0
        end = time.monotonic() + HAND_TIMEOUT
        while not (settlement_visible(a) and settlement_visible(b)):
            assert time.monotonic() < end, "the hand did not finish in time"
            did = False
            for page, label in ((a, "a"), (b, "b")):
                if settlement_visible(page):
                    continue
                if not shot_claim and page.locator('#actions [data-action="pass"]').count():
                    page.screenshot(path=str(shots_dir / f"live-claim-{label}.png"), full_page=True)
                    shot_claim = True
                what = step(page)
                if what:
                    did = True
                    moves += 1
            if moves >= 6 and not shot_mid:
                a.screenshot(path=str(shots_dir / "live-table-mid.png"), full_page=True)
                b.screenshot(path=str(shots_dir / "live-table-375.png"), full_page=True)
                shot_mid = True
            if not did:
                a.wait_for_timeout(100)

        a.wait_for_timeout(500)  # let the room totals poll settle
        room = get_room(live_server, code)
        totals = room["totals"]
        assert sum(totals) == 0
        for page in (a, b):
            page.wait_for_selector("#settle-row-0")
            shown = [
                int(page.locator(f"#settle-row-{i}").get_attribute("data-total"))
                for i in range(len(totals))
            ]
            assert shown == totals
            deltas = [
                int(page.locator(f"#settle-row-{i}").get_attribute("data-delta"))
                for i in range(len(totals))
            ]
            assert sum(deltas) == 0
            # the payment rows add up to the deltas
            pays = page.locator("#settle-payments tr.payment").evaluate_all(
                "els => els.map(e => [Number(e.dataset.from), Number(e.dataset.to),"
                " Number(e.dataset.points)])"
            )
            per_seat = [0] * len(totals)
            for f, t, p in pays:
                per_seat[f] -= p
                per_seat[t] += p
            assert per_seat == deltas
        # after the first hand the totals are this hand's deltas
        assert room["hand_no"] == 1
        a.screenshot(path=str(shots_dir / "live-settlement.png"), full_page=True)
        b.screenshot(path=str(shots_dir / "live-settlement-375.png"), full_page=True)

        # both ready: the next hand is dealt and the settlement closes
        a.click("#ready-btn")
        b.click("#ready-btn")
        a.wait_for_selector("#settlement", state="hidden", timeout=15000)
        a.wait_for_function("window.__gy.room && window.__gy.room.hand_no === 2", timeout=15000)
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()


def test_reload_restores_seat(browser: Any, live_server: str) -> None:
    ctx, page = new_page(browser)
    try:
        code = create_room(page, live_server, "丙")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        seat = page.evaluate("window.__gy.seat")
        # play one discard so we are mid-hand
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)
        page.locator("#hand .hand-tile.playable").first.click()
        page.wait_for_function("document.querySelectorAll('#my-river .tile').length > 0")
        river = page.locator("#my-river .tile").count()
        page.reload()
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        assert page.locator("#lobby").is_hidden()
        assert page.evaluate("window.__gy.seat") == seat
        assert page.locator("#my-river .tile").count() >= river
        page.wait_for_function(
            "document.querySelector('#conn-state').dataset.state === 'connected'"
        )
        info = get_room(live_server, code)
        assert info["seats"][seat]["name"] == "丙"
        assert len(info["seats"]) == 4  # no extra seat taken by the reload
    finally:
        ctx.close()


def test_lobby_refuses_invalid_options(browser: Any, live_server: str) -> None:
    ctx, page = new_page(browser)
    try:
        page.goto(live_server + "/")
        # 连庄 and 一扣三 exclude each other in the form
        page.check("#opt-lian-zhuang")
        page.check("#opt-yi-kou-san")
        assert not page.is_checked("#opt-lian-zhuang")
        page.click("#advanced summary")
        page.fill("#opt-base-points", "0")
        page.click("#create-room")
        err = page.locator("#lobby-error")
        err.wait_for(state="visible", timeout=5000)
        text = err.inner_text()
        assert "422" in text and "base_points" in text, text
        assert page.locator("#room").is_hidden()
    finally:
        ctx.close()


@pytest.fixture(autouse=True)
def _needs_server(live_server: str) -> None:
    """Every test here needs the real server."""


def test_second_tab_replaces_and_auto_toggle(browser: Any, live_server: str) -> None:
    ctx, page = new_page(browser)
    try:
        code = create_room(page, live_server, "丁")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        # 托管 on and off from the seat header
        page.click('#auto-toggle[data-action="auto_on"]')
        page.wait_for_selector("#my-head .badge.auto", timeout=5000)
        page.click('#auto-toggle[data-action="auto_off"]')
        page.wait_for_selector('#auto-toggle[data-action="auto_on"]', timeout=5000)
        # the same seat in a second tab (same localStorage token) takes the seat over;
        # the first tab stops instead of fighting back
        other = ctx.new_page()
        other.goto(f"{live_server}/?room={code}")
        other.wait_for_selector("#hand .hand-tile", timeout=15000)
        page.wait_for_function(
            "document.querySelector('#conn-state').dataset.state === 'closed'", timeout=5000
        )
        assert page.locator("#reconnect-btn").is_visible()
        other.wait_for_timeout(1500)
        assert other.locator("#conn-state").get_attribute("data-state") == "connected"
    finally:
        ctx.close()


def test_three_players_ding_que(browser: Any, live_server: str, shots_dir: Path) -> None:
    ctx, page = new_page(browser, width=375, height=812, is_mobile=True, has_touch=True)
    try:
        page.goto(live_server + "/")
        page.fill("#name", "戊")
        page.check("#opt-players-3")
        page.click("#create-room")
        page.wait_for_selector("#room-code:not(:empty)")
        add_bots(page)
        page.wait_for_selector('#actions [data-action="ding_que"]', timeout=15000)
        assert page.locator('#actions [data-action="ding_que"]').count() == 3
        assert page.locator("#opponents .seat-panel").count() == 2
        page.screenshot(path=str(shots_dir / "live-ding-que-375.png"), full_page=True)
        page.click('#actions [data-action="ding_que"][data-suit="m"]')
        page.wait_for_selector('#my-head .badge.que[data-que="m"]', timeout=10000)
    finally:
        ctx.close()
