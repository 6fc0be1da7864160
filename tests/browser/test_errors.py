"""Server errors in the Chinese UI (issue 13): every error code the server can send has a
localised message; a 422 names the option by its label; a share link to a room that does
not exist says so at once; a full room, a refused move say so in Chinese."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

from test_live import add_bots, create_room, new_page, refused_join

from server.api.messages import ErrorMessage

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")


def server_codes() -> set[str]:
    """Every error code the server sends: the WebSocket ``error`` codes (the message model's
    Literal) and each ``RoomError`` / ``IllegalAction`` / ``{"code": ...}`` written in
    server/ (REST too)."""
    codes = set(typing.get_args(ErrorMessage.model_fields["code"].annotation))
    pattern = re.compile(
        r'(?:RoomError\(\s*|IllegalAction\(\s*|"code":\s*|code=|_error\(\s*)"([a-z_]+)"'
    )
    for path in (ROOT / "server").rglob("*.py"):
        codes |= set(pattern.findall(path.read_text(encoding="utf-8")))
    return codes


def test_every_server_error_code_has_a_chinese_message(browser: Any, live_server: str) -> None:
    codes = sorted(server_codes())
    assert {"room_full", "unknown_room", "stale_prompt", "illegal_action", "bad_token"} <= set(
        codes
    )
    # issue 13's own: quick phrases, bots per seat, and the engine's claim window
    assert {
        "unknown_phrase",
        "phrase_rate_limited",
        "seat_taken",
        "seat_empty",
        "not_a_bot",
        "room_started",
        "window_open",
    } <= set(codes)
    ctx, page = new_page(browser)
    try:
        page.goto(live_server + "/")
        page.wait_for_selector("#create-room")
        got = page.evaluate(
            """async (codes) => {
              const m = await import('./i18n.js');
              const out = {};
              for (const c of codes) out[c] = [m.errorMessage(c, {code: 'K7MQ2X'}),
                                               c in m.ERRORS.zh, c in m.ERRORS.en];
              return out;
            }""",
            codes,
        )
        for code, (text, zh, en) in got.items():
            assert zh and en, f"{code} has no message"
            assert CJK.search(text) and code not in text, (code, text)
        assert "K7MQ2X" in got["unknown_room"][0]
    finally:
        ctx.close()


def test_unknown_room_link_says_so_at_once(browser: Any, live_server: str) -> None:
    ctx, page = new_page(browser)
    try:
        for code in ("ZZZZZZ", "abc"):
            page.goto(f"{live_server}/?room={code}")
            err = page.locator("#join-error")
            err.wait_for(state="visible", timeout=5000)  # nothing clicked
            assert err.get_attribute("data-code") == "unknown_room"
            assert f"房间 {code.upper()} 不存在" in err.inner_text()
    finally:
        ctx.close()


def test_full_room_invalid_option_and_refused_move(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    ctx_a, a = new_page(browser)
    ctx_b, b = new_page(browser, 375, 812)
    try:
        code = create_room(a, live_server, "甲")
        add_bots(a)
        a.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        # a second player opens the link of the full room and presses 加入
        err = refused_join(b, live_server, code, "乙")
        assert err.get_attribute("data-code") == "room_full"
        assert err.get_attribute("data-status") == "409"
        assert "房间已满" in err.inner_text(), err.inner_text()
        b.click("#lang-toggle")  # said again in English (it stayed in Chinese)
        assert err.inner_text() == "The room is full: every seat is taken", err.inner_text()
        b.click("#lang-toggle")
        assert "房间已满" in err.inner_text(), err.inner_text()
        b.screenshot(path=str(shots_dir / "error-room-full-375.png"), full_page=True)
        # a refused move over the socket: a pong on one's own turn is illegal_action
        a.evaluate("__gy.socket.sendAction({kind: 'pong'}, __gy.prompt)")
        a.wait_for_selector('#toast[data-code="illegal_action"]', state="visible", timeout=5000)
        assert "不合规则" in a.locator("#toast").inner_text()
        # a 422 names the option by its label in the form
        b.goto(live_server + "/")
        b.click("#advanced summary")
        b.fill("#opt-claim-seconds", "0")
        b.click("#create-room")
        err = b.locator("#lobby-error")
        err.wait_for(state="visible", timeout=5000)
        assert err.get_attribute("data-status") == "422"
        assert err.get_attribute("data-fields") == "claim_seconds"
        assert err.inner_text() == "选项「抢牌秒数」无效：至少 1", err.inner_text()
        b.screenshot(path=str(shots_dir / "error-option-375.png"), full_page=True)
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()
