"""A bad network at the table: an answer lost with a socket that died without a word is
given again on the new one, a stalled socket is noticed within seconds of an action, and a
vote lost the same way may be cast again."""

from __future__ import annotations

from typing import Any

from conftest import LiveServer
from test_live import add_bots, create_room, new_page
from test_phone_discard import _river, _wait_discarded, _wait_turn

STATE = "document.querySelector('#conn-state').dataset.state"


def test_a_discard_lost_with_a_stalled_socket_is_sent_again_on_the_next(
    browser: Any, live: LiveServer
) -> None:
    """The socket swallows what is sent (a tunnel, a Wi-Fi to 4G switch): within seconds of
    the discard the page gives it up (重连中; it showed 已连接 for 21 s, past a 20 s turn), the
    new socket's snapshot owes the same prompt, and a click discards (it did nothing: the
    seat had answered that prompt, so the turn timed out into 托管)."""
    ctx, page = new_page(browser, 1280, 800)
    try:
        code = create_room(page, live.base, "断线")
        live.fix_seeds(code, ["phone-two-taps"])  # nobody wins before seat 0's discard
        add_bots(page)
        _wait_turn(page)  # the creator deals: its turn first
        prompt = page.evaluate("window.__gy.prompt")
        page.evaluate("() => { window.__gy.socket.ws.send = () => {}; }")  # swallowed
        page.locator("#hand .hand-tile.playable").first.click()
        page.wait_for_function(f"{STATE} === 'reconnecting'", timeout=9000)
        assert _river(page) == []
        page.wait_for_function(f"{STATE} === 'connected' && !window.__gy.pending", timeout=5000)
        assert page.evaluate("window.__gy.prompt") == prompt  # the same decision owed
        tile = page.locator("#hand .hand-tile.playable").first.get_attribute("data-tile")
        page.locator("#hand .hand-tile.playable").first.click()
        _wait_discarded(page, 0)
        assert _river(page) == [tile]
        assert not page.evaluate("window.__gy.autoSeats.includes(0)")
    finally:
        ctx.close()


def test_a_socket_dead_while_the_phone_slept_is_given_up_when_the_page_shows_again(
    browser: Any, live: LiveServer
) -> None:
    """A phone back from another app (the page visible again) pings at once and gives a
    socket that stays silent up within seconds: it showed 已连接 for up to 21 s, the
    quiet-socket check's time, while the seat's turn ran out."""
    ctx, page = new_page(browser, 375, 812)
    try:
        create_room(page, live.base, "切后台")
        page.wait_for_function(f"{STATE} === 'connected'")
        # the socket died without a word while the page was hidden: nothing gets through
        page.evaluate(
            """() => { const ws = window.__gy.socket.ws;
                       ws.send = () => {}; ws.onmessage = () => {}; }"""
        )
        page.evaluate(
            """() => { Object.defineProperty(document, 'visibilityState',
                         { value: 'visible', configurable: true });
                       document.dispatchEvent(new Event('visibilitychange')); }"""
        )
        page.wait_for_function(f"{STATE} === 'reconnecting'", timeout=5000)
        page.wait_for_function(f"{STATE} === 'connected'", timeout=5000)
    finally:
        ctx.close()
