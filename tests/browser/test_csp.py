"""The client under the server's Content-Security-Policy (no ``'unsafe-inline'``): the page
loads, a room is created, bots added (with the seat token), a tile discarded, the hand
played out on auto-play (托管) to its settlement and the language switched, and Chromium
reports no CSP violation at any point (``securitypolicyviolation`` events and "Refused to"
console messages)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_live import add_bots, create_room, new_page

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def _csp_message(text: str) -> bool:
    """Chromium's console line for a CSP violation ("Refused to load ...", "Applying inline
    style violates the following Content Security Policy directive ...")."""
    return "Refused to" in text or "Content Security Policy" in text


def test_client_runs_under_the_csp(browser: Any, live_server: str, shots_dir: Path) -> None:
    ctx, page = new_page(browser)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.add_init_script(WATCH)
    try:
        first = page.goto(live_server + "/")
        assert first is not None
        csp = first.headers["content-security-policy"]
        assert "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp
        create_room(page, live_server, "甲")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)
        before = page.locator("#my-river .tile").count()
        page.locator("#hand .hand-tile.playable").first.click()
        page.wait_for_function(
            "n => document.querySelectorAll('#my-river .tile').length > n",
            arg=before,
            timeout=10000,
        )
        page.click("#auto-toggle")
        page.wait_for_selector("#settlement-overlay:not([hidden])", timeout=120000)
        page.click("#lang-toggle")
        page.wait_for_timeout(300)
        page.screenshot(path=str(shots_dir / "csp-settlement.png"), full_page=True)
        violations = page.evaluate("window.__csp")
        refused = [m for m in console if _csp_message(m)]
        assert violations == [] and refused == [], (violations, refused)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_a_violation_would_be_seen(browser: Any, live_server: str) -> None:
    """The watch above can fail: an inline style attribute set by script is reported."""
    ctx, page = new_page(browser)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.add_init_script(WATCH)
    try:
        page.goto(live_server + "/")
        page.wait_for_selector("#create-room")
        page.evaluate(
            """document.body.insertAdjacentHTML('beforeend', '<b style="color:red">x</b>')"""
        )
        page.wait_for_function("window.__csp.length > 0", timeout=5000)
        assert any("style-src" in v for v in page.evaluate("window.__csp"))
        for _ in range(50):  # the console message may come a little after the event
            if any(_csp_message(m) for m in console):
                break
            page.wait_for_timeout(100)
        assert any(_csp_message(m) for m in console), console
    finally:
        ctx.close()
