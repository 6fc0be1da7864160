"""再来一场: when the session is over each player goes on in one next room, same rules, the
bots where they sat, without sharing a new code (``POST /api/rooms/{code}/again``)."""

from __future__ import annotations

from typing import Any

from conftest import SHOTS, LiveServer
from test_live import add_bots, create_room, join_room, new_page, phone_page


def test_both_players_go_on_in_one_next_room(live: LiveServer, browser: Any) -> None:
    """Two players and two bots dissolve the session; on the final standings B taps 再来一场
    (the next room is made), A's button then reads 加入下一场; both are seated in the same
    new room, each in the seat held before (B first would have had seat 0; A's is kept for
    A meanwhile, not offered to a bot), with the same rules, the bots in their seats, and it
    deals."""
    ctx_a, a = new_page(browser)
    ctx_b, b = phone_page(browser)
    try:
        code = create_room(a, live.base, "再甲", checks=("#opt-yao-bai-ji",))
        join_room(b, live.base, code, "再乙")
        add_bots(a)
        for p in (a, b):
            p.wait_for_selector("#hand .hand-tile", timeout=15000)
            assert p.locator("#again-btn").is_hidden()  # the session is on
        a.click("#dissolve-btn")
        a.click("#dissolve-confirm")
        b.click("#vote-agree", timeout=5000)
        for p in (a, b):
            p.wait_for_selector('#final-standings[data-dissolved="true"]', timeout=10000)
            p.wait_for_selector("#again-btn:visible")
            assert p.inner_text("#again-btn") == "再来一场"
        old = live.room(code)
        b.click("#again-btn")
        b.wait_for_function(f"window.__gy.code && window.__gy.code !== '{code}'", timeout=10000)
        nxt = b.evaluate("window.__gy.code")
        assert f"room={nxt}" in b.url
        # A's seat is kept for A: B, on first, cannot fill it with a bot (A found it full)
        kept = b.locator('#seat-list li[data-seat="0"].held')
        kept.wait_for(timeout=5000)
        assert "为 再甲 保留" in kept.inner_text()
        left = kept.locator(".held-left")
        left.wait_for()
        secs = int(left.inner_text().strip(" ·s"))  # its seconds left (HOLD_SECONDS 120)
        assert 100 < secs <= 120, secs
        assert b.locator("#add-bots").is_disabled() and kept.locator("button").count() == 0
        b.screenshot(path=str(SHOTS / "again-held-375.png"))
        assert live.room(code)["next"] == nxt
        # A's page learns of it from the room's info (polled every 4 s)
        a.wait_for_function(
            "document.querySelector('#again-btn').textContent === '加入下一场'", timeout=10000
        )
        a.screenshot(path=str(SHOTS / "again-join-1280.png"))
        # with the standings closed, the table offers it where 准备 stands between hands
        a.click("#settlement-close")
        table_btn = a.locator('#table-ready-btn[data-mode="again"]')
        table_btn.wait_for(timeout=5000)
        assert table_btn.inner_text() == "加入下一场"
        a.screenshot(path=str(SHOTS / "again-table-1280.png"))
        table_btn.click()
        a.wait_for_function(f"window.__gy.code === '{nxt}'", timeout=10000)
        for p in (a, b):
            p.wait_for_selector("#hand .hand-tile", timeout=15000)
        room = live.room(nxt)
        assert room["status"] == "playing" and room["hand_no"] == 1
        assert (room["game"], room["options"]) == (old["game"], old["options"])
        assert room["options"]["yao_bai_ji"] is True
        seated = [(s["seat"], s["name"], s["bot"]) for s in room["seats"]]
        assert seated == [(s["seat"], s["name"], s["bot"]) for s in old["seats"]]
        a.screenshot(path=str(SHOTS / "again-dealt-1280.png"))
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()
