"""A discard on a touch screen takes two taps (issue 13): the first tap raises the tile, a
second tap on it (or 打出) discards it; a mouse click on a desktop discards at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import LiveServer
from test_live import add_bots, create_room, new_page

from server.rules.dealing import roll_dice

RIVER = "#my-river .tile"


def _river(page: Any) -> list[str]:
    return page.locator(RIVER).evaluate_all("els => els.map(e => e.dataset.tile)")


def _wait_turn(page: Any) -> None:
    page.wait_for_selector("#hand .hand-tile.playable", timeout=60000)


def _wait_discarded(page: Any, n: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('#my-river .tile').length > n", arg=n, timeout=10000
    )


def test_phone_discard_needs_two_taps(browser: Any, live: LiveServer, shots_dir: Path) -> None:
    ctx, page = new_page(browser, 375, 812, is_mobile=True, has_touch=True)
    try:
        code = create_room(page, live.base, "手机")
        # a fixed deal in which nobody wins before seat 0's second turn (a random one may)
        live.fix_seeds(code, ["phone-two-taps"])
        add_bots(page)
        _wait_turn(page)  # the creator deals: its turn first
        # the deal's dice by the wall (guiyang.md §2): the seed's two rolls after its shuffle
        dice = page.locator("#dice")
        a, b = roll_dice("phone-two-taps", 108)
        assert dice.get_attribute("data-dice") == f"{a},{b}"
        assert dice.locator(".die svg").count() == 2 and dice.bounding_box()["width"] > 30
        tiles = page.locator("#hand .hand-tile.playable")
        first, second = tiles.nth(0), tiles.nth(tiles.count() - 1)
        first.tap()
        page.wait_for_selector('#hand .hand-tile.selected[data-index="0"]')
        page.wait_for_timeout(400)
        assert _river(page) == [], "one tap discarded"
        assert page.locator("#discard-btn").is_visible()
        button_word = "() => document.querySelector('#discard-btn').firstChild.textContent"
        assert page.evaluate(button_word) == "打出"
        page.screenshot(path=str(shots_dir / "phone-tile-selected.png"))
        page.click("#lang-toggle")  # a verb on the button: "Discard", not the log's "discards"
        page.wait_for_function(f"() => ({button_word})() === 'Discard'")
        page.click("#lang-toggle")
        page.wait_for_selector('#hand .hand-tile.selected[data-index="0"]')
        # another tile tapped: that one is raised instead, still nothing discarded
        index = second.get_attribute("data-index")
        tile = second.get_attribute("data-tile")
        second.tap()
        page.wait_for_selector(f'#hand .hand-tile.selected[data-index="{index}"]')
        assert page.locator("#hand .hand-tile.selected").count() == 1
        page.wait_for_timeout(300)
        assert _river(page) == []
        # the second tap on the raised tile discards it
        page.locator(f'#hand .hand-tile[data-index="{index}"]').tap()
        _wait_discarded(page, 0)
        assert _river(page) == [tile]
        assert page.locator("#hand .hand-tile.selected").count() == 0
        assert page.locator("#discard-btn").count() == 0
        # next turn: a tap, then 打出
        _wait_turn(page)
        pick = page.locator("#hand .hand-tile.playable").first
        tile = pick.get_attribute("data-tile")
        pick.tap()
        page.wait_for_selector("#discard-btn")
        assert page.locator("#discard-btn").get_attribute("data-action-tile") == tile
        page.wait_for_timeout(300)
        assert len(_river(page)) == 1
        page.locator("#discard-btn").tap()
        _wait_discarded(page, 1)
        assert _river(page)[-1] == tile
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_desktop_click_discards_at_once(browser: Any, live_server: str) -> None:
    ctx, page = new_page(browser, 1280, 800)
    try:
        create_room(page, live_server, "桌面")
        add_bots(page)
        _wait_turn(page)
        pick = page.locator("#hand .hand-tile.playable").first
        tile = pick.get_attribute("data-tile")
        pick.click()
        _wait_discarded(page, 0)
        assert _river(page) == [tile]
        assert page.locator("#hand .hand-tile.selected").count() == 0
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
