"""The table's social side in the browser (issue 13): sounds and the mute switch, quick
phrases (快捷语) from one context shown at that seat in another, spectators (观战) who see no
concealed tile, bots seated and removed one seat at a time with Chinese names, an unknown
room's link, and the old tab of a seat taken by a new tab. Desktop 1280x800 and phone
375x812; screenshots under screenshots/."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import LiveServer
from scripted import Hand, find_seed
from test_live import add_bots, create_room, join_room, new_page, phone_page

DESKTOP = (1280, 800)
#: Records every WebSocket message the page receives in ``window.__wsLog`` (before app.js).
RECORD_WS = """
(() => {
  const Orig = window.WebSocket;
  window.__wsLog = [];
  window.WebSocket = class extends Orig {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        try { window.__wsLog.push(JSON.parse(e.data)); } catch (err) { /* not JSON */ }
      });
    }
  };
})();
"""


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A live server whose auto-play (托管) answers after 0.05 s (a whole hand in seconds)."""
    tmp = tempfile.mkdtemp(prefix="zj-social-")
    srv = LiveServer(f"sqlite+aiosqlite:///{tmp}/social.db", auto_seconds=0.05)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def desktop(browser: Any) -> tuple[Any, Any]:
    return new_page(browser, *DESKTOP)


def at_table(page: Any) -> None:
    page.wait_for_selector("#table:not([hidden]) #opponents .seat-panel", timeout=15000)


def shot(page: Any, shots_dir: Path, name: str) -> None:
    page.screenshot(path=str(shots_dir / name), full_page=False)


def in_viewport(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    return (
        bool(box)
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= vw
        and (box["y"] + box["height"] <= vh)
    )


# ---------------------------------------------------------------------------- sound


def _noisy(hand: Hand) -> bool:
    """A hand with a pong, a kong and a win (each sound has an event to follow)."""
    kinds = {s.action["kind"] for s in hand.steps}
    return {"pong", "kong"} <= kinds and hand.settlement.get("result") == "win"


def test_sounds_follow_events_and_mute_persists(
    fast: LiveServer, browser: Any, shots_dir: Path
) -> None:
    hand = find_seed({"hands": 4}, _noisy, "social-sound")
    ctx, page = desktop(browser)
    ctx.add_init_script(RECORD_WS)
    try:
        code = create_room(page, fast.base, "声")
        fast.fix_seeds(code, [hand.seed])
        add_bots(page)
        at_table(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        # the deal gives seat 0 (the dealer, us) the first move: the your-turn sound
        page.wait_for_function("(window.__gySound.counts.turn || 0) >= 1", timeout=5000)
        assert page.locator("#mute-toggle").get_attribute("data-muted") == "false"
        shot(page, shots_dir, "social-sound-table-1280.png")
        # auto-play plays the hand out; every discard / pong / kong / win event makes its sound
        page.click('#auto-toggle[data-action="auto_on"]')
        page.wait_for_selector("#settlement", state="visible", timeout=120000)
        page.wait_for_timeout(300)
        events = page.evaluate(
            "window.__wsLog.filter(m => m.type === 'event' || m.type === 'hand_end')"
            ".map(m => (m.events.find(e => ['discard', 'pong', 'kong', 'win'].includes(e.type))"
            " || m.events[0] || {}).type)"
        )
        seen = Counter(events)
        counts = page.evaluate("window.__gySound.counts")
        assert seen["pong"] >= 1 and seen["kong"] >= 1 and seen["win"] == 1, seen
        for kind in ("discard", "pong", "kong", "win"):
            assert counts.get(kind, 0) == seen[kind], (kind, counts, seen)
        # the mute switch is remembered across a reload
        page.click("#mute-toggle")
        assert page.locator("#mute-toggle").get_attribute("data-muted") == "true"
        assert page.evaluate("localStorage.getItem('gy.mute')") == "1"
        page.reload()
        page.wait_for_selector("#mute-toggle")
        assert page.locator("#mute-toggle").get_attribute("data-muted") == "true"
        assert page.locator("#mute-toggle").get_attribute("aria-pressed") == "true"
        # muted: sounds are asked for (counted) but none is made
        page.evaluate("import('./sound.js').then(m => m.play('discard'))")
        page.wait_for_function("(window.__gySound.counts.discard || 0) === 1")
        assert page.evaluate("window.__gySound.played.discard || 0") == 0
        page.click("#mute-toggle")
        page.reload()
        page.wait_for_selector("#mute-toggle")
        assert page.locator("#mute-toggle").get_attribute("data-muted") == "false"
        assert page.evaluate("localStorage.getItem('gy.mute')") == "0"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_mute_switch_on_a_phone(live_server: str, browser: Any, shots_dir: Path) -> None:
    ctx, page = phone_page(browser)
    try:
        page.goto(live_server + "/")
        page.wait_for_selector("#create-room")
        assert in_viewport(page, "#mute-toggle")
        page.tap("#mute-toggle")
        page.reload()
        page.wait_for_selector("#mute-toggle")
        assert page.locator("#mute-toggle").get_attribute("data-muted") == "true"
        assert in_viewport(page, "#mute-toggle")
        shot(page, shots_dir, "social-lobby-muted-375.png")
    finally:
        ctx.close()


# ---------------------------------------------------------------------------- 快捷语


def test_quick_phrase_appears_at_the_seat_in_the_other_context(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    ctx_a, a = desktop(browser)
    ctx_b, b = phone_page(browser)
    try:
        code = create_room(a, live_server, "阿甲")
        join_room(b, live_server, code, "阿乙")
        add_bots(a)
        at_table(a)
        at_table(b)
        # A (seat 0) says 快点出牌啊: B sees it at seat 0's panel (its 上家... at the table)
        a.click("#phrase-btn")
        a.wait_for_selector("#phrase-panel:not([hidden]) .phrase")
        shot(a, shots_dir, "social-phrases-panel-1280.png")
        a.click('#phrase-panel .phrase[data-phrase="hurry"]')
        bubble = b.locator('#opponents .seat-panel[data-seat="0"] .phrase-bubble')
        bubble.wait_for(state="visible", timeout=5000)
        assert bubble.inner_text() == "快点出牌啊"
        assert bubble.get_attribute("data-seat") == "0"
        assert b.locator(".phrase-bubble").count() == 1  # at that seat only
        mine = a.locator("#my-head .phrase-bubble")
        mine.wait_for(state="visible", timeout=5000)
        assert mine.inner_text() == "快点出牌啊"
        assert a.locator("#phrase-btn").is_disabled()  # 3 s before the next one
        shot(b, shots_dir, "social-phrase-bubble-375.png")
        # B (seat 1) sends an emote from the phone: A sees it at seat 1 (its 下家, right)
        b.tap("#phrase-btn")
        b.wait_for_selector("#phrase-panel:not([hidden]) .emote")
        assert in_viewport(b, "#phrase-panel")
        shot(b, shots_dir, "social-phrases-panel-375.png")
        b.tap('#phrase-panel .emote[data-phrase="emote_cool"]')
        b.wait_for_selector("#phrase-panel", state="hidden")  # a phrase sent closes it
        em = a.locator('#opponents .seat-panel[data-seat="1"] .phrase-bubble')
        em.wait_for(state="visible", timeout=5000)
        assert em.get_attribute("data-phrase") == "emote_cool"
        assert em.get_attribute("aria-label") == "得意"
        assert em.locator('.emote-face[data-emote="emote_cool"] svg').count() == 1
        assert a.locator('#opponents .seat-panel[data-seat="1"]').get_attribute("data-pos") == (
            "right"
        )
        shot(a, shots_dir, "social-phrase-bubble-1280.png")
        # the panel closes with its ×, with a tap elsewhere, and with Escape
        a.wait_for_function("!document.querySelector('#phrase-btn').disabled", timeout=5000)
        a.click("#phrase-btn")
        a.click("#phrase-close")
        a.wait_for_selector("#phrase-panel", state="hidden")
        a.click("#phrase-btn")
        a.mouse.click(640, 700)
        a.wait_for_selector("#phrase-panel", state="hidden")
        a.click("#phrase-btn")
        a.keyboard.press("Escape")
        a.wait_for_selector("#phrase-panel", state="hidden")
        # the bubble goes away by itself
        em.wait_for(state="detached", timeout=8000)
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()


# ---------------------------------------------------------------------------- 观战


FORBIDDEN_KEYS = {"hand", "drawn", "wall", "waits", "void_held", "concealed"}


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def _public_tiles(view: dict[str, Any]) -> Counter[str]:
    """Every tile a spectator may see: rivers, melds, flowers, the last discard."""
    out: Counter[str] = Counter()
    for sv in view["seats"]:
        out.update(d if isinstance(d, str) else d["tile"] for d in sv["discards"])
        for m in sv["melds"]:
            out.update(m["tiles"])
        out.update(sv.get("flowers") or [])
    return out


def _centre_tile(view: dict[str, Any]) -> str | None:
    """The tile the table's centre repeats: the claim window's discard, else ``river_last``."""
    if view.get("last_discard"):
        return str(view["last_discard"]["tile"])
    if last := view.get("river_last"):
        d = view["seats"][last["seat"]]["discards"][last["index"]]
        return str(d if isinstance(d, str) else d["tile"])
    return None


def test_spectator_sees_no_concealed_tile(browser: Any, live: LiveServer, shots_dir: Path) -> None:
    ctx_a, a = desktop(browser)
    specs = [desktop(browser), phone_page(browser)]
    try:
        code = create_room(a, live.base, "主人")
        add_bots(a)
        a.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        a.locator("#hand .hand-tile.playable").last.click()  # a discard in a river
        for (ctx, page), size in zip(specs, (1280, 375), strict=True):
            ctx.add_init_script(RECORD_WS)
            if size == 1280:  # a shared link
                page.goto(f"{live.base}/?room={code}")
            else:  # the code told by voice: typed in the lobby; 加入 says it is full
                page.goto(f"{live.base}/")
                page.fill("#join-code", code.lower())
                page.locator("#spectate-btn").wait_for(state="visible", timeout=5000)
                page.click("#join-btn")
                page.wait_for_selector('#join-error[data-code="room_full"]', timeout=5000)
            page.locator("#spectate-btn").wait_for(state="visible", timeout=5000)
            assert page.locator("#spectate-btn").inner_text() == "观战"
            shot(page, shots_dir, f"social-spectate-offer-{size}.png")
            page.click("#spectate-btn")
            page.wait_for_function(
                "document.querySelectorAll('#opponents .seat-panel').length === 4", timeout=10000
            )
            page.wait_for_selector('.river[data-seat="0"] .tile', timeout=10000)
            # 观战中 in the table's centre, and in the top bar where it has room, else in
            # the status bar (always somewhere at the top of the screen)
            assert page.locator("#prompt").inner_text() == "观战中"
            assert page.locator("#spectator-badge").is_visible() == (size == 1280)
            assert page.locator("#spectator-chip").is_visible() == (size != 1280)
            assert page.locator("#me").is_hidden()
            assert page.locator("#hand .tile, .hand-tile").count() == 0
            assert page.locator("#phrase-btn").is_hidden()
            # every face-up tile in the DOM is a public one: rivers, melds, flowers, centre
            # (the DOM and the view it was drawn from read in one go: one consistent state)
            placed, view = page.evaluate(
                """() => [[...document.querySelectorAll('.tile[data-tile]')].map(el => [
                    el.dataset.tile,
                    !!el.closest('.river, .melds, .flowers, #last-discard'),
                    !!el.closest('.concealed, #hand, #me')]), __gy.view]"""
            )
            assert all(public and not hidden for _, public, hidden in placed), placed
            dom = Counter(t for t, _, _ in placed)
            center = Counter([t] if (t := _centre_tile(view)) else [])
            assert dom == _public_tiles(view) + center, (dom, view)
            # the messages it received carry no concealed tile, no wall
            log = page.evaluate("window.__wsLog")
            assert log and log[0]["type"] == "snapshot" and log[0]["seat"] is None
            leaked = _keys(log) & FORBIDDEN_KEYS
            assert not leaked, leaked
            for m in log:
                for e in m.get("events", []) if m.get("type") == "event" else []:
                    if e["type"] == "draw":
                        assert "tile" not in e or e["tile"] is None, m
            # each seat's hand is there only as a count: 13 (14 with a drawn tile) less
            # three per meld
            sizes = [sv["concealed_count"] + 3 * len(sv["melds"]) for sv in view["seats"]]
            assert all(n in (13, 14) for n in sizes), view["seats"]
            shot(page, shots_dir, f"social-spectator-table-{size}.png")
            # a reload keeps watching (the link says so), still without a seat
            assert "watch=1" in page.url
            page.reload()
            page.wait_for_function(
                "document.querySelectorAll('#opponents .seat-panel').length === 4", timeout=10000
            )
            assert page.evaluate("__gy.seat") is None
            assert page.locator(".hand-tile").count() == 0
            assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        for ctx, _ in specs:
            ctx.close()


# ---------------------------------------------------------------------------- lobby


def test_bots_seated_and_removed_one_at_a_time_with_chinese_names(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    ctx_a, a = desktop(browser)
    ctx_b, b = phone_page(browser)
    try:
        code = create_room(a, live_server, "房主")
        a.wait_for_selector('#seat-list li[data-seat="2"] .seat-bot-add')
        a.click('#seat-list li[data-seat="2"] .seat-bot-add')
        seat2 = a.locator('#seat-list li[data-seat="2"]')
        a.wait_for_selector('#seat-list li[data-seat="2"][data-bot="true"]', timeout=5000)
        assert "机器人3" in seat2.inner_text()
        assert seat2.locator(".badge").count() == 0  # the name says 机器人: no badge repeats it
        assert a.locator("#seat-list li.empty").count() == 2
        # each seat by its wind for the first hand (the host's seat deals: 东, 庄)
        assert a.locator("#seat-list .seat-no").all_inner_texts() == ["东", "南", "西", "北"]
        dealer = a.locator("#seat-list .badge.seat-dealer")
        assert dealer.count() == 1 and dealer.locator("xpath=..").get_attribute("data-seat") == "0"
        a.click('#seat-list li[data-seat="3"] .seat-bot-add')
        a.wait_for_selector('#seat-list li[data-seat="3"][data-bot="true"]', timeout=5000)
        shot(a, shots_dir, "social-lobby-bots-1280.png")
        # take the bot out of seat 2 again: the seat is free for a friend
        a.click('#seat-list li[data-seat="2"] .seat-bot-remove')
        a.wait_for_selector('#seat-list li[data-seat="2"].empty', timeout=5000)
        assert a.locator('#seat-list li[data-seat="2"] .seat-bot-add').count() == 1
        # the friend opens the link on a phone: it shows the seats (bots by name) and joins
        b.goto(f"{live_server}/?room={code}")
        b.fill("#name", "朋友")
        b.click("#join-btn")
        b.wait_for_selector('#seat-list li[data-seat="1"] .badge.me', timeout=5000)
        assert "机器人4" in b.locator('#seat-list li[data-seat="3"]').inner_text()
        shot(b, shots_dir, "social-lobby-bots-375.png")
        # the last free seat, then the deal: the table names the bots in Chinese
        b.tap('#seat-list li[data-seat="2"] .seat-bot-add')
        at_table(a)
        at_table(b)
        names = a.locator("#opponents .seat-panel .seat-name").all_inner_texts()
        assert names == ["朋友", "机器人3", "机器人4"], names
        assert not a.locator("#opponents .seat-panel .badge", has_text="机器人").count()
        # in English too the bots are numbered by seat, not named by a wind
        a.click("#lang-toggle")
        names = a.locator("#opponents .seat-panel .seat-name").all_inner_texts()
        assert names == ["朋友", "Bot 3", "Bot 4"], names
        a.click("#lang-toggle")
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()


def test_stored_seat_of_an_unknown_room_says_so(browser: Any, live_server: str) -> None:
    ctx, page = desktop(browser)
    try:
        page.goto(live_server + "/")
        page.evaluate(
            "localStorage.setItem('gy.seat.ZZZZZZ', JSON.stringify({seat: 0, token: 'gone'}))"
        )
        page.goto(f"{live_server}/?room=ZZZZZZ")
        err = page.locator("#join-error")
        err.wait_for(state="visible", timeout=8000)
        assert err.get_attribute("data-code") == "unknown_room"
        assert "房间 ZZZZZZ 不存在" in err.inner_text()
        toast = page.locator("#toast")
        assert "unknown_room" not in toast.inner_text() and "不存在" in toast.inner_text()
        assert page.locator("#spectate-btn").is_hidden()
        assert page.evaluate("localStorage.getItem('gy.seat.ZZZZZZ')") is None
    finally:
        ctx.close()


@pytest.mark.parametrize("size", [DESKTOP, (375, 812)], ids=["1280", "375"])
def test_old_tab_stops_its_countdown_and_says_why(
    browser: Any, live_server: str, shots_dir: Path, size: tuple[int, int]
) -> None:
    ctx, page = new_page(browser, *size)
    try:
        code = create_room(page, live_server, "旧页")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        page.wait_for_function("document.querySelector('#countdown').dataset.seconds !== ''")
        other = ctx.new_page()
        other.goto(f"{live_server}/?room={code}")
        other.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        banner = page.locator("#replaced-banner")
        banner.wait_for(state="visible", timeout=5000)
        assert "另一个页面打开" in banner.inner_text() and "停止" in banner.inner_text()
        page.wait_for_timeout(1300)  # the countdown would have moved by now
        assert page.locator("#countdown").inner_text() == ""
        assert page.locator("#countdown").get_attribute("data-seconds") == ""
        assert "".join(page.locator(".seat-countdown").all_inner_texts()) == ""
        assert page.locator("#hand .hand-tile.playable").count() == 0
        assert page.locator("#phrase-btn").is_hidden()
        assert in_viewport(page, "#replaced-banner")
        shot(page, shots_dir, f"social-replaced-{size[0]}.png")
        # the new tab keeps counting down
        assert other.locator("#countdown").get_attribute("data-seconds") not in ("", None)
        # 在本页继续 takes the seat back; then the other tab says why
        page.click("#replaced-resume")
        page.wait_for_selector("#replaced-banner", state="hidden", timeout=5000)
        page.wait_for_function("document.querySelector('#countdown').dataset.seconds !== ''")
        other.locator("#replaced-banner").wait_for(state="visible", timeout=5000)
        time.sleep(0.1)
    finally:
        ctx.close()


def test_phrases_emotes_and_mute_under_the_csp(browser: Any, live_server: str) -> None:
    """The phrase panel, the drawn emotes, a bubble and the speaker icon under the server's
    real Content-Security-Policy: no violation reported."""
    from test_csp import WATCH, _csp_message

    ctx, page = new_page(browser, *DESKTOP, bypass_csp=False)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.add_init_script(WATCH)
    try:
        create_room(page, live_server, "策")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
        page.click("#mute-toggle")
        page.click("#phrase-btn")
        page.click('#phrase-panel .emote[data-phrase="emote_smile"]')
        page.wait_for_selector('#my-head .phrase-bubble[data-phrase="emote_smile"] svg')
        page.click("#mute-toggle")
        page.wait_for_timeout(300)
        assert page.evaluate("window.__csp") == []
        assert [m for m in console if _csp_message(m)] == []
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_spectator_of_an_open_room_waits_then_watches(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    ctx_a, a = desktop(browser)
    ctx_s, s = phone_page(browser)
    try:
        code = create_room(a, live_server, "等人")
        s.goto(f"{live_server}/?room={code}")
        s.locator("#spectate-btn").wait_for(state="visible", timeout=5000)
        s.tap("#spectate-btn")
        s.wait_for_selector('#seat-list li[data-seat="0"].taken', timeout=5000)
        # a spectator seats nobody: no bot buttons, no 补机器人
        assert s.locator("#add-bots").is_hidden()
        assert s.locator(".seat-bot-add, .seat-bot-remove").count() == 0
        assert s.locator("#seat-list li.empty").count() == 3
        assert s.locator("#room-info small.muted").last.inner_text() == "观战中 · 人满后自动开局"
        shot(s, shots_dir, "social-spectator-waiting-375.png")
        add_bots(a)
        at_table(s)  # the deal reaches the spectator by itself
        assert s.locator("#opponents .seat-panel").count() == 4
        assert s.locator(".hand-tile").count() == 0
        assert not s.errors, s.errors  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_s.close()


def test_countdown_ticks_in_the_last_seconds(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    """A 3 s turn: the your-turn sound, one tick at 3, 2 and 1 s left, then the server's
    default discard (its sound) when the time is up."""
    ctx, page = phone_page(browser)
    try:
        page.goto(live_server + "/")
        page.fill("#name", "快手")
        page.check("#opt-hands-4")
        page.fill("#opt-turn-seconds", "3")
        page.check("#opt-bank-seconds-0")
        page.click("#create-room")
        page.wait_for_selector("#room-code:not(:empty)")
        add_bots(page)
        page.wait_for_function("window.__gySound.log.includes('discard')", timeout=15000)
        log = page.evaluate("window.__gySound.log")
        assert log[:5] == ["turn", "tick", "tick", "tick", "discard"], log
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_the_page_offers_exactly_the_servers_phrases(browser: Any, live_server: str) -> None:
    from server.room.phrases import PHRASE_SECONDS, PHRASES

    ctx, page = desktop(browser)
    try:
        page.goto(live_server + "/")
        page.wait_for_selector("#create-room")
        got = page.evaluate(
            """async () => {
              const m = await import('./phrases.js');
              return {
                ids: [...m.PHRASES, ...m.EMOTES].map((p) => p.id),
                texts: [...m.PHRASES, ...m.EMOTES].map((p) => [m.phraseText(p.id, 'zh'),
                                                              m.phraseText(p.id, 'en')]),
                faces: m.EMOTES.map((e) => !!m.emoteSvg(e.id).querySelector('svg circle, svg')),
                seconds: m.PHRASE_SECONDS,
                unknown: m.phraseText('nope', 'zh'),
              };
            }"""
        )
        assert got["ids"] == list(PHRASES)
        assert all(zh and en and zh != en for zh, en in got["texts"]), got["texts"]
        assert got["texts"][:2] == [
            ["快点出牌啊", "Play a tile, quick!"],
            ["搞快点了嘛", "Hurry up a bit!"],
        ]
        assert got["faces"] == [True] * 5
        assert got["seconds"] == PHRASE_SECONDS
        assert got["unknown"] == ""
    finally:
        ctx.close()


# ---------------------------------------------------------------------------- the others


def test_the_others_bank_absence_and_ready_are_said(
    browser: Any, live_server: str, shots_dir: Path
) -> None:
    """What a player sees of the other human: on their turn past its limit 时间银行 (its
    seconds are theirs alone), not a frozen 0s; gone away, 离线 in words beside the grey
    dot; between hands, 已准备 on their seat and by name under the settlement."""
    ctx_a, a = desktop(browser)
    ctx_b, b = phone_page(browser)
    try:
        a.goto(live_server + "/")
        a.fill("#name", "阿甲")
        a.fill("#opt-turn-seconds", "2")
        a.check("#opt-bank-seconds-20")
        a.click("#create-room")
        a.wait_for_selector("#room-code:not(:empty)")
        code = a.locator("#room-code").inner_text().strip()
        join_room(b, live_server, code, "阿乙")
        add_bots(a)
        at_table(a)
        at_table(b)
        # A (the dealer) thinks past the turn's 2 s: B sees 时间银行 at A's seat
        theirs = b.locator('#opponents .seat-countdown[data-seat="0"]')
        b.wait_for_function(
            "document.querySelector('#opponents .seat-countdown[data-seat=\"0\"]')"
            ".textContent === '时间银行'",
            timeout=8000,
        )
        assert b.locator("#countdown").inner_text() == "时间银行"
        assert theirs.inner_text() == "时间银行"
        shot(b, shots_dir, "others-bank-375.png")
        # B goes away: A sees 离线 at B's seat; B back, it goes
        b.goto("about:blank")
        away = a.locator('#opponents .seat-panel[data-seat="1"] .badge.offline')
        away.wait_for(timeout=10000)
        assert away.inner_text() == "离线"
        shot(a, shots_dir, "others-offline-1280.png")
        b.goto(f"{live_server}/?room={code}")
        at_table(b)
        away.wait_for(state="detached", timeout=10000)
        # both on 托管: the bots and the server play the hand out
        for p in (a, b):
            p.click('#auto-toggle[data-action="auto_on"]')
        for p in (a, b):
            p.wait_for_selector("#settlement-overlay:not([hidden])", timeout=90000)
        # nobody has said 准备 yet: nothing said; then B does (the bots' come with it)
        assert a.locator("#ready-state").is_hidden()
        b.click("#ready-btn")
        a.wait_for_function(
            "document.querySelector('#ready-state').textContent.includes('阿乙')", timeout=5000
        )
        assert a.locator("#ready-state").inner_text() == "已准备：阿乙"  # (the bots: marks)
        a.click("#settlement-close")
        marks = a.locator("#opponents .seat-panel .badge.ready")
        assert marks.evaluate_all("els => els.map(e => e.closest('.seat-panel').dataset.seat)") == [
            "1",
            "2",
            "3",
        ]
        assert marks.first.inner_text() == "已准备"
        assert a.locator("#me .badge.ready").count() == 0  # A has not
        shot(a, shots_dir, "others-ready-1280.png")
        assert b.locator("#ready-state").inner_text() == "已准备，等待其他玩家…"
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()
