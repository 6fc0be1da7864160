"""The table stands as in the apps (issue 13): you at the bottom, 下家 ((me+1)%n) on the right,
对家 across at the top, 上家 ((me-1)%n) on the left (3 players: 下家 right, 上家 left; 2: 对家
top), around a centre showing the wall count and the dealer; at 1280x800 and 375x812, with no
panel overlapping another and nothing wider than the page. Reads the panels' bounding boxes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_live import add_bots, create_room, new_page, no_overflow

SIZES = {"desktop": (1280, 800), "phone": (375, 812)}


# One snapshot of the layout, taken in the page in one go: the page re-renders the table on
# its own (every message, every 4 s room poll), and a panel measured through a locator may be
# replaced between being found and being measured (bounding_box() None).
_MEASURE = """sels => {
  const out = {};
  for (const s of sels) {
    const e = document.querySelector(s);
    const r = e && e.getBoundingClientRect();
    if (!r || (!r.width && !r.height)) return null;
    out[s] = { x: r.x, y: r.y, width: r.width, height: r.height,
               pos: e.dataset.pos ?? null, count: e.dataset.count ?? null };
  }
  return out;
}"""


def _boxes(page: Any, sels: list[str]) -> dict[str, dict[str, Any]]:
    """Each selector's box (x, y, width, height) and data-pos / data-count, all from the same
    moment; waits up to 5 s for all of them to be laid out."""
    return page.wait_for_function(_MEASURE, arg=sels, timeout=5000).json_value()


def _box(page: Any, sel: str) -> dict[str, Any]:
    return _boxes(page, [sel])[sel]


def _cx(b: dict[str, float]) -> float:
    return b["x"] + b["width"] / 2


def _cy(b: dict[str, float]) -> float:
    return b["y"] + b["height"] / 2


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"] - 1
        and b["x"] < a["x"] + a["width"] - 1
        and a["y"] < b["y"] + b["height"] - 1
        and b["y"] < a["y"] + a["height"] - 1
    )


def _check_geometry(page: Any, players: int, label: str) -> None:
    me = page.evaluate("window.__gy.seat")
    assert me == 0
    rel = {1: "next", players - 1: "prev"} if players > 2 else {}
    if players in (2, 4):
        rel[players // 2] = "across"
    sels = {"me": "#me", "center": "#center"}
    sels |= {name: f'#opponents .seat-panel[data-seat="{seat}"]' for seat, name in rel.items()}
    wall, dealer = "#center #wall-count", "#center #dealer-info"
    snap = _boxes(page, [*sels.values(), wall, dealer])
    boxes = {name: snap[sel] for name, sel in sels.items()}
    for name in rel.values():
        pos = {"next": "right", "prev": "left", "across": "top"}[name]
        assert boxes[name]["pos"] == pos, (label, name, boxes[name])
    me_b, center = boxes["me"], boxes["center"]
    if "next" in boxes:
        nxt, prv = boxes["next"], boxes["prev"]
        # 下家 right of me and of the centre (and of 对家's centre), 上家 left of them
        assert _cx(nxt) > _cx(me_b) and _cx(nxt) > _cx(center), (label, nxt, me_b)
        assert _cx(prv) < _cx(me_b) and _cx(prv) < _cx(center), (label, prv, me_b)
        assert nxt["x"] >= center["x"] + center["width"] - 1, label
        assert prv["x"] + prv["width"] <= center["x"] + 1, label
        assert _cy(nxt) < me_b["y"] and _cy(prv) < me_b["y"], label
    if "across" in boxes:
        top = boxes["across"]
        assert top["y"] + top["height"] <= center["y"] + 1, (label, top, center)
        if "next" in boxes:
            assert _cx(boxes["next"]) > _cx(top) > _cx(boxes["prev"]), label
    # the centre shows the wall count (laid out, with its number) and the dealer (laid out)
    assert snap[wall]["count"] not in ("", None), snap[wall]
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not _overlap(boxes[a], boxes[b]), (label, a, b, boxes[a], boxes[b])
    width = page.viewport_size["width"]
    for name, b in boxes.items():
        assert b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, (label, name, b)
    no_overflow(page)


@pytest.mark.parametrize("players", [4, 3, 2])
def test_seats_stand_as_in_the_apps(
    browser: Any, live_server: str, shots_dir: Path, players: int
) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        create_room(page, live_server, "我", players=players)
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        page.wait_for_selector("#opponents .seat-panel[data-pos]")
        for label, (w, hgt) in SIZES.items():
            page.set_viewport_size({"width": w, "height": hgt})
            page.wait_for_timeout(150)
            _check_geometry(page, players, f"{players}p {label}")
            page.screenshot(path=str(shots_dir / f"table-{players}p-{label}.png"))
        # Later in the hand, rivers and melds grown (on 托管 the seat plays itself): the same.
        page.click("#auto-toggle")
        page.wait_for_function(
            "n => { const v = window.__gy.view; return v && (v.phase === 'ended' ||"
            " v.seats.reduce((k, s) => k + s.discards.length, 0) >= 5 * n); }",
            arg=players,
            timeout=90000,
        )
        if page.evaluate("window.__gy.view.phase") != "ended":
            page.click("#auto-toggle")  # stop, so the table stays put while it is measured
            # the button says 托管 (off) as soon as the flag is off, not on the next room poll
            shown = page.wait_for_function(
                "() => { const S = window.__gy; const b = document.querySelector('#auto-toggle');"
                " if (S.view.phase === 'ended' || !b) return 'ended';"
                " return !S.autoSeats.includes(S.seat) && b.dataset.action; }",
                timeout=10000,
            ).json_value()
            assert shown in ("auto_on", "ended"), shown
            # ... once the bots wait for this seat on its turn (a claim window offered to it
            # closes by itself after its minimum time, and play goes on; a turn waits for
            # its 20 s timeout), or the hand ended meanwhile: then the settlement covers
            # the table, and the late picture is not taken
            page.wait_for_function(
                "() => { const S = window.__gy; return S.view.phase === 'ended' ||"
                " (!S.autoSeats.includes(S.seat) && S.view.phase === 'turn' &&"
                " S.view.turn === S.seat && S.legal.length > 0); }",
                timeout=60000,
            )
            page.wait_for_timeout(300)
        if page.evaluate("window.__gy.view.phase") != "ended":
            for label, (w, hgt) in SIZES.items():
                page.set_viewport_size({"width": w, "height": hgt})
                page.wait_for_timeout(150)
                _check_geometry(page, players, f"{players}p {label} late")
                page.screenshot(path=str(shots_dir / f"table-{players}p-{label}-late.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _in_view(page: Any, sel: str) -> None:
    """``sel`` is wholly inside the viewport and on top at its centre (not covered)."""
    b = _box(page, sel)
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert b["y"] >= 0 and b["y"] + b["height"] <= vh, (sel, b, vh)
    assert b["x"] >= 0 and b["x"] + b["width"] <= vw, (sel, b, vw)
    hit = page.evaluate(
        "([sel, x, y]) => { const e = document.elementFromPoint(x, y);"
        " return !!e && !!e.closest(sel); }",
        [sel, _cx(b), _cy(b)],
    )
    assert hit, f"{sel} is covered"


def _check_settlement_top(page: Any, label: str) -> None:
    page.wait_for_selector("#settlement", state="visible", timeout=120000)
    page.wait_for_timeout(200)
    assert page.evaluate("document.querySelector('#settlement-body').scrollTop") == 0, label
    _in_view(page, "#settlement-body h2")
    _in_view(page, "#ready-btn")
    # per-seat totals first, right under the title, before the payment lines
    order = page.evaluate(
        "[...document.querySelectorAll('#settlement-body > *')].map(e => e.id ||"
        " (e.querySelector('[id]') || {}).id || e.tagName)"
    )
    assert order[1] == "settle-totals-box", order
    _in_view(page, "#settle-totals")


def _auto_on(page: Any) -> None:
    page.wait_for_selector("#auto-toggle", timeout=30000)
    if page.locator("#auto-toggle").get_attribute("data-action") == "auto_on":
        page.click("#auto-toggle")


def test_settlement_opens_at_its_top_with_ready_in_view(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        create_room(page, live_server, "我", players=2)
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        _auto_on(page)
        _check_settlement_top(page, "desktop")
        page.screenshot(path=str(shots_dir / "settlement-desktop.png"))
        # scrolled to its end by the reader, 准备 is still in view (the bar stays)
        page.evaluate(
            "(e => e.scrollTop = e.scrollHeight)(document.querySelector('#settlement-body'))"
        )
        _in_view(page, "#ready-btn")
        # the ready countdown says what it counts down to
        page.wait_for_function("document.querySelector('#ready-countdown').dataset.seconds > 0")
        assert re.fullmatch(r"下一局 \d+s", page.locator("#ready-countdown").inner_text())
        page.set_viewport_size({"width": 375, "height": 812})
        page.wait_for_timeout(200)
        _in_view(page, "#ready-btn")
        page.screenshot(path=str(shots_dir / "settlement-phone-scrolled.png"))
        page.click("#ready-btn")
        # the next hand's settlement opens at its top again, though the last was scrolled
        page.wait_for_selector("#settlement", state="hidden", timeout=60000)
        # 准备 took the seat back from 托管 (the player is here): the button offers 托管
        page.wait_for_selector('#auto-toggle[data-action="auto_on"]', timeout=30000)
        _auto_on(page)
        _check_settlement_top(page, "phone")
        page.screenshot(path=str(shots_dir / "settlement-phone.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_a_long_name_keeps_the_centres_dealer_line_to_one_line(
    live_server: str, browser: Any, shots_dir: Path
) -> None:
    """The longest name the lobby takes (24 characters) as the dealer: the centre's
    "庄: name" stays one line on a phone, cut short (it took four), the whole name in its
    title."""
    name = "W" * 24
    ctx, page = new_page(browser, 375, 812)
    try:
        create_room(page, live_server, name)
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        dealer = page.locator("#center #dealer-info")
        line = page.locator("#center #wall-count").bounding_box()["height"]
        box, centre = dealer.bounding_box(), page.locator("#center").bounding_box()
        assert box["height"] < 1.5 * line, box
        assert centre["x"] <= box["x"] and box["x"] + box["width"] <= centre["x"] + centre["width"]
        assert page.evaluate("window.__gy.view.dealer") == 0
        assert name in (dealer.get_attribute("title") or "")
        page.screenshot(path=str(shots_dir / "table-long-name-375.png"))
        no_overflow(page)
    finally:
        ctx.close()


# Once the hovered tile stands raised: whether the point it was hovered at still hits it.
_HIT_WHEN_RAISED = """([x, y, rest, h]) => {
  const raised = [...document.querySelectorAll('#hand .hand-tile.playable')]
    .find(e => e.getBoundingClientRect().y <= rest - 0.15 * h);
  if (!raised) return null;
  const hit = document.elementFromPoint(x, y);
  return { hit: !!hit && hit.closest('.hand-tile') === raised, tile: raised.dataset.tile };
}"""


def test_a_tile_hovered_at_its_lower_edge_stays_raised(
    live_server: str, browser: Any, shots_dir: Path
) -> None:
    """A playable hand tile rises under the pointer (18 % of its height). Hovered near its
    lower edge it must stay up: it flickered up and down (the raised tile left the pointer,
    dropped under it and rose again), and a click on it waited forever for it to stand
    still (a browser test's rare 30 s timeout)."""
    ctx, page = new_page(browser, 375, 812)
    try:
        create_room(page, live_server, "我")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)
        tile = page.locator("#hand .hand-tile.playable").nth(2)
        box = tile.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.95
        page.mouse.move(x, y)
        got = page.wait_for_function(
            _HIT_WHEN_RAISED, arg=[x, y, box["y"], box["height"]], timeout=5000
        ).json_value()
        assert got["hit"], got
        tile.click(trial=True, timeout=3000)  # it stands still: Playwright may click it
        page.screenshot(path=str(shots_dir / "table-hover-low-375.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


# Every 100 ms while it is this seat's turn on 托管: the countdown shown.
_SAMPLE_AUTO_COUNTDOWN = """() => {
  window.__cd = [];
  setInterval(() => {
    const S = window.__gy;
    const v = S.view;
    if (v && v.phase === 'turn' && v.turn === S.seat && S.autoSeats.includes(S.seat)) {
      window.__cd.push(document.querySelector('#countdown').textContent);
    }
  }, 100);
}"""


def test_a_seat_on_auto_counts_no_seconds_and_english_scores_say_pts(
    live_server: str, browser: Any, shots_dir: Path
) -> None:
    """On 托管 the seat's turn is played at once: the status bar showed a "1s" countdown for
    the rest of the hand, as if time were running out. And the English seat scores read
    "0pts" / "-6pts": now "0 pts", "1 pt"."""
    ctx, page = new_page(browser, 375, 812)
    try:
        create_room(page, live_server, "我")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)
        assert re.fullmatch(r"\d+s", page.locator("#countdown").inner_text()), "my turn counts"
        page.evaluate(_SAMPLE_AUTO_COUNTDOWN)
        page.click("#auto-toggle")
        page.wait_for_function("window.__cd.length >= 3", timeout=30000)
        shown = page.evaluate("window.__cd")
        assert set(shown) == {""}, shown
        page.click("#lang-toggle")
        scores = page.locator("#table .score").evaluate_all(
            "els => els.map((e) => [Number(e.dataset.score), e.textContent])"
        )
        assert len(scores) == 4, scores
        for n, text in scores:
            assert text == (f"{n} pt" if abs(n) == 1 else f"{n} pts"), scores
        page.screenshot(path=str(shots_dir / "table-auto-en-375.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
