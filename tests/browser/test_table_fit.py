"""What a UI review found not fitting (Debian's Chromium, 1280x800 and 375x812):

* the settlement's winner line on a phone in English: how the hand was won ("on a discard
  (接炮)") stays on the winner's name's line, whole, and never starts a line of its own; the
  winning hand's fourteen tiles stand in one row;
* a 2-player room (二丁拐): the table's centre is a compact middle of the table, not a large
  empty panel filling the screen between 对家 and you;
* reconnecting on a phone: the top bar keeps the game's name whole (the connection is a mark
  there, its words stand over the table), in Chinese and in English.

Reads bounding boxes; screenshots under screenshots/ (fit-*.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import LiveServer
from scripted import Hand, find_seed
from test_jintan_table import create_jintan_room
from test_live import add_bots, create_room, new_page, phone_page, play_scripted
from test_review import assert_one_line

# The win kind's text ``kind`` in the winner's title, wherever it stands (an element of its
# own or part of a text node): each line box it covers, and the winner's name's box.
_KIND_BOXES = """kind => {
  const title = document.querySelector('#settle-winners .winner-title');
  const name = title.querySelector('b').getBoundingClientRect();
  const walker = document.createTreeWalker(title, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const i = node.data.indexOf(kind);
    if (i < 0) continue;
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + kind.length);
    const lines = [...range.getClientRects()]
      .map(r => ({ top: r.top, bottom: r.bottom, right: r.right }));
    return { name: { top: name.top, bottom: name.bottom }, lines, width: title.clientWidth,
             left: title.getBoundingClientRect().left };
  }
  return null;
}"""


def _dian_pao_with_a_hand_type(hand: Hand) -> bool:
    """A win on a discard with a hand type longer than 平胡 (a long English line)."""
    s = hand.settlement
    if s.get("result") != "win" or s.get("win_kind") != "dian_pao" or len(s["winners"]) != 1:
        return False
    return s["hand_types"][str(s["winners"][0])] != "ping_hu"


def _kind_on_the_name_line(page: Any, kind: str, label: str) -> None:
    g = page.evaluate(_KIND_BOXES, kind)
    assert g is not None, (label, kind, page.inner_text("#settle-winners .winner-title"))
    name, lines = g["name"], g["lines"]
    # whole: one line box (a text broken over two lines has a box per line)
    tops = {round(r["top"]) for r in lines}
    assert len(tops) == 1, (label, "broken", lines)
    # on the name's line: the kind's box and the name's box share their vertical span
    kind_box = lines[0]
    assert kind_box["top"] < name["bottom"] and name["top"] < kind_box["bottom"], (label, g)
    assert kind_box["right"] <= g["left"] + g["width"] + 0.5, (label, "cut", g)


def test_the_win_kind_stays_on_the_winners_line_on_a_phone(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    ctx, page = phone_page(browser)
    try:
        page.add_init_script("localStorage.setItem('gy.lang', 'en')")
        code = create_room(page, live.base, "Me")
        hand = find_seed(live.room(code)["options"], _dian_pao_with_a_hand_type, prefix="fit-dp")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-winners .winner-title", timeout=30000)
        page.locator("#settle-winners").scroll_into_view_if_needed()
        page.screenshot(path=str(shots_dir / "fit-settlement-en-375.png"))
        _kind_on_the_name_line(page, "on a discard (接炮)", "en 375")
        # the winning hand in one row, the winning tile too (at 21 px it wrapped alone)
        tops = page.eval_on_selector_all(
            "#settle-winners .win-hand .tile", "ts => ts.map(t => t.getBoundingClientRect().top)"
        )
        assert len(tops) == 14 and max(tops) - min(tops) < 8, tops
        # the hand type is said too, in English with its Chinese name
        assert page.inner_text("#settle-winners .winner-title .hand-type").endswith(")")
        page.click("#lang-toggle")
        page.wait_for_function(
            "document.querySelector('#settle-winners .winner-title').textContent.includes('接炮')"
        )
        _kind_on_the_name_line(page, "接炮", "zh 375")
        page.screenshot(path=str(shots_dir / "fit-settlement-zh-375.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


_TABLE_BOXES = """() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height }; };
  return { board: box('#board'), center: box('#center'), me: box('#me'),
           top: box('#opponents .seat-panel.pos-top') };
}"""


def test_a_two_player_table_has_a_compact_centre(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    ctx, page = new_page(browser, 1280, 800)
    try:
        create_room(page, live_server, "我", players=2)
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        page.wait_for_selector("#opponents .seat-panel.pos-top")
        for width, height in ((1280, 800), (375, 812)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(200)
            page.screenshot(path=str(shots_dir / f"fit-two-players-{width}.png"))
            g = page.evaluate(_TABLE_BOXES)
            board, center, me, top = g["board"], g["center"], g["me"], g["top"]
            # the middle of the table, not a panel filling the board: at most 420 px wide
            # and a few lines high, centred between 对家 (above) and you (below)
            assert center["width"] <= 421, (width, center)
            assert center["height"] <= 200, (width, center)
            mid = center["x"] + center["width"] / 2
            assert abs(mid - (board["x"] + board["width"] / 2)) <= 2, (width, center, board)
            assert center["y"] >= top["y"] + top["height"], (width, center, top)
            assert center["y"] + center["height"] <= me["y"], (width, center, me)
            # the wall count is still there
            assert page.locator("#center #wall-count").inner_text().strip()
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


# The top bar's game name (#home-link) shown whole, and the connection's mark and words.
_BAR = """() => {
  const brand = document.querySelector('#home-link');
  const conn = document.querySelector('#conn-state').getBoundingClientRect();
  const banner = document.querySelector('#conn-banner');
  const b = banner && banner.getBoundingClientRect();
  return { brandScroll: brand.scrollWidth, brandClient: brand.clientWidth,
           brandWidth: brand.getBoundingClientRect().width, connWidth: conn.width,
           banner: banner && !banner.hidden && b.width > 0 ? { text: banner.textContent,
             x: b.x, y: b.y, width: b.width, height: b.height } : null };
}"""


def _bar_keeps_the_name(page: Any, words: str, label: str) -> None:
    assert_one_line(page, "#topbar", label)
    g = page.evaluate(_BAR)
    assert g["brandScroll"] <= g["brandClient"], (label, "the name is cut", g)
    assert g["brandWidth"] >= 80, (label, g)
    assert g["connWidth"] <= 24, (label, g)  # a mark, not the words
    banner = g["banner"]
    assert banner is not None and words in banner["text"], (label, g)
    assert banner["x"] >= 0 and banner["x"] + banner["width"] <= 375, (label, banner)
    assert banner["y"] >= 0 and banner["y"] + banner["height"] <= 812, (label, banner)
    assert banner["height"] <= 44, (label, "one line", banner)


def test_reconnecting_keeps_the_game_name_whole_on_a_phone(
    browser: Any, live: LiveServer, shots_dir: Path
) -> None:
    ctx, page = phone_page(browser)
    state = "document.querySelector('#conn-state').dataset.state"
    try:
        create_room(page, live.base, "断线")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=30000)
        assert page.locator("#conn-banner").is_hidden()
        ctx.set_offline(True)
        page.wait_for_function(f"{state} === 'reconnecting'", timeout=3000)
        page.wait_for_function(
            "Number(document.querySelector('#conn-state').dataset.attempt) >= 2", timeout=10000
        )
        _bar_keeps_the_name(page, "重连中", "zh")
        page.screenshot(path=str(shots_dir / "fit-reconnecting-zh-375.png"))
        page.click("#lang-toggle")
        _bar_keeps_the_name(page, "Reconnecting", "en")
        page.screenshot(path=str(shots_dir / "fit-reconnecting-en-375.png"))
        # a desktop's bar has room for the words: no banner there
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_timeout(100)
        assert page.locator("#conn-banner").is_hidden()
        assert "Reconnecting" in page.inner_text("#conn-state")
        page.set_viewport_size({"width": 375, "height": 812})
        ctx.set_offline(False)
        page.wait_for_function(f"{state} === 'connected'", timeout=5000)
        assert page.locator("#conn-banner").is_hidden()
        # closed (a token refused, the room gone): the name stays whole beside 重新连接
        page.evaluate("window.__gy.socket.h.onState('closed')")
        page.wait_for_selector("#reconnect-btn", state="visible")
        _bar_keeps_the_name(page, "Disconnected", "en closed")
        page.screenshot(path=str(shots_dir / "fit-closed-en-375.png"))
        page.click("#lang-toggle")
        _bar_keeps_the_name(page, "已断开", "zh closed")
        page.screenshot(path=str(shots_dir / "fit-closed-zh-375.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


# What lies outside the screen of a phone on its side, or under the top bar.
_LANDSCAPE = """() => {
  const box = (e) => e.getBoundingClientRect();
  const bar = box(document.querySelector('#topbar'));
  const out = (r) => r.top < 0 || r.bottom > innerHeight + 0.5
    || r.left < 0 || r.right > innerWidth + 0.5;
  const under = (r) => getComputedStyle(document.querySelector('#topbar')).position !== 'static'
    && r.top < bar.bottom;
  const sel = ['#status-bar #hand-no', '#center #wall-count', '#opponents .seat-head',
               '#my-head', '#hand .hand-tile', '#actions .act'];
  const bad = [];
  for (const s of sel) for (const e of document.querySelectorAll(s)) {
    const r = box(e);
    if (out(r) || under(r)) bad.push([s, Math.round(r.top), Math.round(r.bottom)]);
  }
  // your river above the pinned hand, your name and score clear of the claim buttons
  const dock = box(document.querySelector('#dock'));
  for (const e of document.querySelectorAll('#my-river .tile')) {
    const r = box(e);
    if (r.bottom > dock.top + 0.5) bad.push(['#my-river .tile', Math.round(r.bottom), dock.top]);
  }
  // the centre keeps at least one line, and the discard it shows lies inside it
  const c = box(document.querySelector('#center'));
  if (c.height < 30) bad.push(['#center', Math.round(c.height)]);
  for (const e of document.querySelectorAll('#center .center-tile')) {
    const r = box(e);
    if (r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5) {
      bad.push(['#center .center-tile', Math.round(r.bottom), Math.round(c.bottom)]);
    }
  }
  const acts = document.querySelector('#actions');
  if (acts.children.length) {
    const a = box(acts);
    for (const e of document.querySelectorAll('#my-head > *')) {
      const r = box(e);
      if (r.bottom > a.top + 0.5 && r.top < a.bottom && r.right > a.left && r.left < a.right) {
        bad.push(['#my-head covered', e.className || e.id]);
      }
    }
  }
  return { bad, scroll: document.documentElement.scrollHeight, height: innerHeight,
           acts: document.querySelectorAll('#actions .act').length };
}"""


def _late_claim_offer(hand: Hand) -> bool:
    """Seat 0 is offered a claim when the wall is nearly gone (the rivers are full)."""
    return any(
        st.view["phase"] != "turn"
        and st.view["wall_count"] < 20
        and any(a["kind"] in ("pong", "chow", "kong", "win") for a in st.legal)
        for st in hand.of(0)
    )


@pytest.mark.parametrize(
    ("game", "width", "height"),
    [("guiyang", 812, 375), ("jintan", 667, 375), ("guiyang", 1280, 800)],
)
def test_a_phone_on_its_side_shows_the_whole_table_on_one_screen(
    browser: Any, live: LiveServer, shots_dir: Path, game: str, width: int, height: int
) -> None:
    """A phone in landscape (812x375, and 667x375 with Jintan's flowers): at every turn of
    a hand the table is on one screen: the status line, the opponents' names, the centre,
    your river above your hand, your hand and the claim buttons (over your river's far end,
    never over your name and score) all inside it and none under the top bar (it was 519 px
    high and scrolled itself, the pinned bar over the opponents' names, the hand half below
    the edge with 碰 / 过; later the page grew with the rivers and the pinned hand lay over
    your discards). 1280x800: the same with the rivers' tiles a size up (24 px wide)."""
    phone = width < 900
    ctx, page = new_page(browser, width, height, is_mobile=phone, has_touch=phone)
    try:
        if game == "jintan":
            code = create_jintan_room(page, live.base, "横屏")
        else:
            code = create_room(page, live.base, "横屏")
        options = live.room(code)["options"]
        hand = find_seed(options, _late_claim_offer, prefix="landscape", game=game)
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        seen = []

        def check(p: Any, seat: int, st: Any) -> None:
            if st.view["phase"] != "turn":
                p.wait_for_selector("#actions .act")
            g = p.evaluate(_LANDSCAPE)
            assert g["bad"] == [] and g["scroll"] <= g["height"], (st.view["wall_count"], g)
            if st.view["phase"] != "turn" and st.view["wall_count"] < 20 and not seen:
                p.screenshot(path=str(shots_dir / f"fit-landscape-claim-{game}-{width}.png"))
                if not phone:
                    sizes = p.locator("#board .river .tile").evaluate_all(
                        "els => els.map(e => e.getBoundingClientRect().width)"
                    )
                    assert sizes and min(sizes) >= 28, sizes
                seen.append(g)

        play_scripted({0: page}, hand, check)
        assert seen
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


# Where the selected tile's 打出 bar and your hand stand: every hand tile inside the screen,
# no sideways scrolling, and the bar clear of your name, score and clock.
_TURN_FIT = """screen => {
  const box = (e) => e.getBoundingClientRect();
  const bad = [];
  for (const e of document.querySelectorAll('#hand .hand-tile')) {
    const r = box(e);
    if (r.left < -0.5 || r.right > screen + 0.5) {
      bad.push(['tile', Math.round(r.left), Math.round(r.right)]);
    }
  }
  const wide = document.documentElement.scrollWidth;
  if (wide > screen || innerWidth > screen) bad.push(['scrolls', wide, innerWidth]);
  const a = box(document.querySelector('#actions'));
  for (const e of document.querySelectorAll('#my-head > *')) {
    const r = box(e);
    if (r.bottom > a.top + 0.5 && r.top < a.bottom - 0.5 && r.right > a.left && r.left < a.right) {
      bad.push(['#my-head covered', e.className || e.id]);
    }
  }
  return { bad, tiles: document.querySelectorAll('#hand .hand-tile').length,
           width: box(document.querySelector('#hand .hand-tile')).width };
}"""


@pytest.mark.parametrize(("width", "height"), [(320, 568), (375, 812), (812, 375)])
def test_a_phone_shows_the_whole_hand_and_its_clock_on_the_first_turn(
    browser: Any, live_server: str, shots_dir: Path, width: int, height: int
) -> None:
    """The dealer's first turn on a phone, a tile tapped (打出 offered): the fourteen tiles
    all inside the screen (at 320 px the first and the drawn tile were cut off and the page
    scrolled sideways) and, on a phone on its side, the 打出 bar clear of your name, score
    and clock (your river still empty, the bar lay over them)."""
    ctx, page = new_page(browser, width, height, is_mobile=True, has_touch=True)
    try:
        create_room(page, live_server, "小屏")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        page.locator("#hand .hand-tile.playable").first.tap()
        page.wait_for_selector("#discard-btn")
        g = page.evaluate(_TURN_FIT, width)  # (a page too wide makes innerWidth wider)
        page.screenshot(path=str(shots_dir / f"fit-first-turn-{width}x{height}.png"))
        assert g["tiles"] == 14 and g["bad"] == [], g
        assert g["width"] >= 17, g  # small, never unreadable
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
