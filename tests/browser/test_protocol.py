"""The web client's use of the newer protocol, against the real server (see conftest.py):
prompts sent with every action (``stale_prompt`` shown gently), old / duplicate versions
dropped and a lost message resynced (``prev_version``), the dissolve vote and its final
standings, the time-bank option in the lobby, and claim windows that show nothing to a seat
with nothing to claim.

To lose or replay a message the browser's WebSocket is routed through Playwright
(``page.route_web_socket``): every frame still goes to and comes from the real server, the
route only drops one on purpose or sends an old one again, like a flaky network would.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SHOTS, LiveServer
from scripted import Hand, Step, find_seed
from test_live import (
    add_bots,
    create_room,
    join_room,
    new_page,
    no_overflow,
    phone_page,
    play_scripted,
    step,
)


def frames(page: Any) -> list[tuple[str, dict[str, Any]]]:
    """Record the page's WebSocket frames in order: ("sent" | "recv", message)."""
    log: list[tuple[str, dict[str, Any]]] = []

    def on_ws(ws: Any) -> None:
        ws.on("framesent", lambda p: log.append(("sent", json.loads(p))))
        ws.on("framereceived", lambda p: log.append(("recv", json.loads(p))))

    page.on("websocket", on_ws)
    return log


def discard_one(page: Any, timeout: float = 60) -> str:
    """Pass any claim offered, then discard one tile when it is this seat's turn; return it.
    A hand that ends first (a bot won quickly) is left with 准备 for the next one."""
    end = time.monotonic() + timeout
    while True:
        assert time.monotonic() < end, "no turn to discard"
        ready = page.locator("#ready-btn:not([disabled])")
        if ready.count() and ready.first.is_visible():
            try:
                ready.first.click(timeout=1000)
            except Exception:  # re-rendered under us
                pass
            continue
        tiles = page.locator("#hand .hand-tile.playable")
        if tiles.count():
            before = page.locator("#my-river .tile").count()
            tile = tiles.first.get_attribute("data-tile")
            try:
                tiles.first.click(timeout=1000)
            except Exception:  # re-rendered under us
                continue
            page.wait_for_function(
                "n => document.querySelectorAll('#my-river .tile').length > n", arg=before
            )
            return tile
        if not step(page):
            page.wait_for_timeout(50)


def wait_turn(page: Any, timeout: float = 60) -> None:
    """Pass any claim offered until this seat may discard."""
    end = time.monotonic() + timeout
    while not page.locator("#hand .hand-tile.playable").count():
        assert time.monotonic() < end, "no turn"
        for sel in ('#actions [data-action="pass"]:not([disabled])',):
            if page.locator(sel).count():
                try:
                    page.locator(sel).first.click(timeout=800)
                except Exception:
                    pass
        page.wait_for_timeout(50)


def state(page: Any, expr: str) -> Any:
    return page.evaluate(f"window.__gy.{expr}")


WINDOW_PROBE = """() => {
  const g = window.__gy, v = g.view;
  const last = v && v.last_discard;
  const open = !!(v && v.phase === 'claim' && g.legal.length === 0 && last);
  let marked = [];
  if (open) {
    const river = last.seat === g.seat ? '#my-river'
      : `.opponent[data-seat="${last.seat}"] .river`;
    marked = [...document.querySelectorAll(`${river} .tile.last-discard`)]
      .map((e) => e.dataset.tile);
  }
  return {
    open, last, legal: g.legal, deadline: g.deadline, marked,
    countdown: document.querySelector('#countdown').textContent,
    prompt: document.querySelector('#prompt').textContent,
    claimCountdown: document.querySelectorAll('#claim-countdown').length,
    buttons: document.querySelectorAll('#actions button').length,
    acting: document.querySelectorAll('.seat-panel.acting').length,
    seatCountdowns: [...document.querySelectorAll(".seat-countdown")]
      .map((e) => e.textContent).join(""),
  };
}"""


@pytest.fixture(scope="module")
def slow_claims() -> Iterator[LiveServer]:
    """A server whose claim windows stay open 1.5 s (``claim_min_ms``) and whose dissolve
    votes end after 6 s (``vote_seconds``)."""
    tmp = tempfile.mkdtemp(prefix="zj-browser-proto-")
    srv = LiveServer(f"sqlite+aiosqlite:///{tmp}/proto.db", claim_min_ms=1500, vote_seconds=6)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------- prompts


def test_actions_carry_prompt_and_stale_prompt_is_quiet(live: LiveServer, browser: Any) -> None:
    """Every action is sent with the prompt of the message that carried its legal list; an
    answer to an old prompt gets ``stale_prompt``, which only re-renders (no error toast)."""
    ctx, page = new_page(browser)
    log = frames(page)
    try:
        create_room(page, live.base, "令")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        for _ in range(3):
            discard_one(page)
        actions = 0
        for k, (way, msg) in enumerate(log):
            if way != "sent" or msg.get("type") != "action":
                continue
            actions += 1
            carrier = next(
                m for w, m in reversed(log[:k]) if w == "recv" and isinstance(m.get("legal"), list)
            )
            assert msg["prompt"] == carrier["prompt"], (msg, carrier["prompt"])
            assert msg["action"] in carrier["legal"]
        assert actions >= 3
        # the last answer sent again (a late double answer): stale_prompt, and quietly so
        last = next(m for w, m in reversed(log) if w == "sent" and m.get("type") == "action")
        page.evaluate(
            "([a, p]) => window.__gy.socket.sendAction(a, p)", [last["action"], last["prompt"]]
        )
        page.wait_for_function("window.__gy.staleCount === 1", timeout=5000)
        assert any(w == "recv" and m.get("code") == "stale_prompt" for w, m in log)
        assert page.locator("#toast").is_hidden()
        assert state(page, "pending") is False
        assert page.locator("#hand .hand-tile").count() > 0
        # and play goes on: the next move is accepted
        discard_one(page)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


# ---------------------------------------------------------------------------- versions


def test_old_versions_dropped_and_lost_message_resynced(live: LiveServer, browser: Any) -> None:
    ctx, page = new_page(browser)
    route: dict[str, Any] = {
        "drop": False,
        "unknown_prev": False,
        "dropped": [],
        "events": [],
        "client": None,
    }

    def on_route(ws: Any) -> None:
        server = ws.connect_to_server()
        route["client"] = ws
        ws.on_message(lambda m: server.send(m))

        def from_server(m: Any) -> None:
            msg = json.loads(m)
            if msg.get("type") == "event":
                if route["unknown_prev"]:  # as if sent by an owner that does not know
                    route["unknown_prev"] = False
                    msg["prev_version"] = None
                    m = json.dumps(msg)
                if route["drop"]:
                    route["drop"] = False
                    route["dropped"].append(msg)
                    return  # lost on the way
                route["events"].append(msg)
            ws.send(m)

        server.on_message(from_server)

    page.route_web_socket("**/ws/rooms/**", on_route)
    log = frames(page)
    try:
        create_room(page, live.base, "版")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile.playable", timeout=30000)

        # 1. a lost event: the next one's prev_version shows the gap -> sync -> snapshot
        route["drop"] = True
        tile = page.locator("#hand .hand-tile.playable").first.get_attribute("data-tile")
        page.locator("#hand .hand-tile.playable").first.click()
        page.wait_for_function("window.__gy.syncCount === 1", timeout=10000)
        assert route["dropped"], "nothing was dropped"
        lost = route["dropped"][0]
        page.wait_for_function("!window.__gy.syncPending", timeout=10000)
        syncs = [m for w, m in log if w == "sent" and m.get("type") == "sync"]
        assert len(syncs) == 1
        after_sync = [
            m for w, m in log if w == "recv" and m.get("type") == "snapshot" and m["version"] > 0
        ]
        assert after_sync and after_sync[-1]["version"] >= lost["version"]
        river = page.locator("#my-river .tile").evaluate_all("els => els.map(e => e.dataset.tile)")
        assert river[-1:] == [tile] or tile in river

        # 2. old messages sent again are dropped (a replayed event, an old hand_end)
        wait_turn(page)
        before = page.evaluate("JSON.stringify([window.__gy.view, window.__gy.legal])")
        seen = state(page, "seen")
        first = route["events"][0]
        assert first["version"] <= seen["version"]
        route["client"].send(json.dumps(first))
        fake_end = {
            "type": "hand_end",
            "hand_no": seen["hand"],
            "version": seen["version"],  # not newer than what the page has
            "prev_version": None,
            "settlement": {"result": "huang_zhuang", "winners": [], "payments": []},
            "totals": [0, 0, 0, 0],
            "next_hand": 2,
            "deadline": None,
        }
        route["client"].send(json.dumps(fake_end))
        page.wait_for_timeout(500)
        assert page.evaluate("JSON.stringify([window.__gy.view, window.__gy.legal])") == before
        assert page.locator("#settlement-overlay").is_hidden()
        assert state(page, "syncCount") == 1  # no needless sync either
        # the page still plays
        discard_one(page)

        # 3. a newer event without a usable prev_version (null): the page cannot tell
        # whether it missed something, so it resyncs (sync -> snapshot)
        wait_turn(page)
        route["unknown_prev"] = True
        discard_one(page)
        page.wait_for_function("window.__gy.syncCount === 2", timeout=10000)
        page.wait_for_function("!window.__gy.syncPending", timeout=10000)
        syncs = [m for w, m in log if w == "sent" and m.get("type") == "sync"]
        assert len(syncs) == 2
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


# ---------------------------------------------------------------------------- dissolve


def test_dissolve_vote(slow_claims: LiveServer, browser: Any, shots_dir: Path) -> None:
    """Two players and two bots. A vote refused while the hand goes on, then a vote the other
    player lets run out (silence agrees): both players see the final standings marked as
    dissolved; the room is ``dissolved``."""
    live = slow_claims
    ctx_a, a = new_page(browser)
    ctx_b, b = phone_page(browser)
    try:
        code = create_room(a, live.base, "解甲")
        b.goto(f"{live.base}/?room={code}")
        b.fill("#name", "解乙")
        b.click("#join-btn")
        b.wait_for_selector("#room-code:not(:empty)")
        add_bots(a)
        for p in (a, b):
            p.wait_for_selector("#hand .hand-tile", timeout=15000)
            p.wait_for_selector("#dissolve-btn", state="visible", timeout=5000)

        # a proposal needs a confirmation; cancel closes it
        a.click("#dissolve-btn")
        a.wait_for_selector("#dissolve-confirm", state="visible")
        a.click("#dissolve-cancel")
        a.wait_for_selector("#vote-overlay", state="hidden")

        # 1. proposed by A: B is asked, the hand goes on meanwhile; B refuses (B's first
        # answer is lost with its socket, which swallowed it: on the next socket the
        # snapshot says B has not voted, and B's buttons work again)
        a.click("#dissolve-btn")
        a.click("#dissolve-confirm")
        b.wait_for_selector("#vote-agree", state="visible", timeout=5000)
        b.wait_for_function("Number(document.querySelector('#vote-countdown').dataset.seconds) > 0")
        a.wait_for_selector("#vote-wait", state="visible")
        assert a.locator("#vote-agree").count() == 0
        votes = b.locator("#vote-list li").evaluate_all("els => els.map(e => e.dataset.vote)")
        assert votes == ["agree", "pending", "agree", "agree"], votes  # bots agree at once
        # who asked, as the apps say it, and what silence means
        asked = b.inner_text("#vote-proposer")
        assert asked.startswith("解甲") and asked.endswith(" 申请解散房间"), asked
        assert a.inner_text("#vote-proposer") == "你申请了解散房间"
        assert b.inner_text("#vote-silence") == "倒计时结束时未表态的玩家视为同意"
        a.screenshot(path=str(shots_dir / "live-vote.png"), full_page=True)
        b.screenshot(path=str(shots_dir / "live-vote-375.png"), full_page=True)
        no_overflow(b)
        # the vote does not stop the hand (its clocks run): A, the dealer on turn, still
        # discards with the dialog open
        before = a.locator("#my-river .tile").count()
        a.locator("#hand .hand-tile.playable").first.click(timeout=3000)
        a.wait_for_function(
            "n => document.querySelectorAll('#my-river .tile').length > n", arg=before
        )
        b.evaluate("() => { window.__gy.socket.ws.send = () => {}; }")
        b.click("#vote-agree")
        b.wait_for_selector("#vote-agree[disabled]")
        b.evaluate("() => window.__gy.socket.drop()")
        b.wait_for_selector("#vote-refuse:not([disabled])", timeout=5000)
        b.click("#vote-refuse", timeout=5000)
        for p in (a, b):
            p.wait_for_selector('#vote-result[data-result="refused"]', timeout=5000)
        assert "解乙" in a.locator("#vote-result").inner_text()
        assert live.room(code)["status"] == "playing"
        a.click("#vote-close")
        b.click("#vote-close")

        # 2. proposed by B, A says nothing: when the vote's time ends (vote_seconds = 6)
        # nobody has refused, A's silence agrees (as the apps count it) and the room is
        # dissolved; both see the final standings
        b.click("#dissolve-btn")
        b.click("#dissolve-confirm")
        a.wait_for_selector("#vote-agree", state="visible", timeout=5000)
        for p in (a, b):
            p.wait_for_selector('#final-standings[data-dissolved="true"]', timeout=12000)
            assert p.locator("#vote-overlay").is_hidden()
            assert p.locator("#ready-btn").is_hidden()
            assert p.locator("#dissolve-btn").is_hidden()
        # why it ended: who asked, and who said nothing
        said = "解甲 (你) 超时未表态，视为同意"
        assert a.inner_text("#dissolved-how") == "解乙 申请解散房间；" + said
        said = "解甲 超时未表态，视为同意"
        assert b.inner_text("#dissolved-how") == "你申请了解散房间；" + said
        room = live.room(code)
        assert room["status"] == "dissolved"
        for p in (a, b):
            shown = p.locator("#final-standings li").evaluate_all(
                "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.total)])"
            )
            assert sorted(shown) == [[i, room["totals"][i]] for i in range(4)]
            assert "已解散" in p.locator("#final-standings").inner_text()
            assert p.locator("#session-state").get_attribute("data-state") == "dissolved"
            assert state(p, "legal") == []
        a.screenshot(path=str(shots_dir / "live-dissolved.png"), full_page=True)
        b.screenshot(path=str(shots_dir / "live-dissolved-375.png"), full_page=True)
        no_overflow(b)
        # a reload shows the same end
        b.reload()
        b.wait_for_selector('#final-standings[data-dissolved="true"]', timeout=10000)
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()


def test_ready_from_auto_play_takes_the_seat_back(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """A player on 托管 who presses 准备 after the hand is back: 托管 is off before the next
    deal (it went on discarding for them within a second), and the seat says so."""
    ctx, page = phone_page(browser)
    try:
        code = create_room(page, live.base, "回来")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        page.click('#auto-toggle[data-action="auto_on"]')
        page.wait_for_selector("#settlement", state="visible", timeout=120000)
        assert live.room(code)["seats"][0]["auto"] is True
        page.click("#ready-btn")
        page.wait_for_function("() => window.__gy.room && window.__gy.room.hand_no === 2")
        page.wait_for_selector('#auto-toggle[data-action="auto_on"]', timeout=10000)
        assert live.room(code)["seats"][0]["auto"] is False
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_alone_with_bots_dissolve_waits_for_the_hand_end(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """Alone with bots, 解散 during a hand says why it must wait (the room refuses it:
    ``hand_with_bots``) and offers no vote; after the hand it ends the session at once,
    offered as soon as the settlement shows (the polled room status may still say playing).
    (The server without held claim windows: 托管 plays the hand out in seconds.)"""
    ctx, page = phone_page(browser)
    try:
        code = create_room(page, live.base, "独自")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        page.click("#dissolve-btn")
        page.wait_for_selector('#dissolve-text[data-refused="true"]')
        assert "打完才能解散" in page.inner_text("#dissolve-text")
        assert page.locator("#dissolve-confirm").count() == 0
        page.screenshot(path=str(shots_dir / "live-dissolve-alone-375.png"))
        no_overflow(page)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.screenshot(path=str(shots_dir / "live-dissolve-alone-1280.png"))
        no_overflow(page)
        page.set_viewport_size({"width": 375, "height": 812})
        page.click("#dissolve-cancel")
        page.wait_for_selector("#vote-overlay", state="hidden")
        # the room says the same to a client that asks anyway
        page.evaluate("() => window.__gy.socket.send({type: 'dissolve', agree: true})")
        page.wait_for_selector("#toast:not([hidden])")
        assert "本局打完才能解散" in page.inner_text("#toast")
        assert live.room(code)["status"] == "playing"
        page.click('#auto-toggle[data-action="auto_on"]')
        page.wait_for_selector("#settlement", state="visible", timeout=120000)
        # as before the page's poll of the room caught up: the hand has ended all the same
        page.evaluate("() => { window.__gy.room.status = 'playing'; }")
        page.click("#settle-dissolve-btn")
        assert page.get_attribute("#dissolve-text", "data-refused") == "false"
        page.click("#dissolve-confirm")
        page.wait_for_selector('#final-standings[data-dissolved="true"]', timeout=10000)
        assert live.room(code)["status"] == "dissolved"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_a_vote_between_hands_holds_the_deal(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """Between hands an open dissolve vote holds the next deal: the ready countdown says so
    (it sat at 下一局 0s), and once the vote is refused it counts again."""
    ctx_a, a = new_page(browser)
    ctx_b, b = phone_page(browser)
    try:
        code = create_room(a, live.base, "间甲")
        join_room(b, live.base, code, "间乙")
        add_bots(a)
        for p in (a, b):
            p.wait_for_selector("#hand .hand-tile", timeout=15000)
            p.click('#auto-toggle[data-action="auto_on"]')
        for p in (a, b):
            p.wait_for_selector("#settlement", state="visible", timeout=120000)
        a.click("#settle-dissolve-btn")
        a.click("#dissolve-confirm")
        b.wait_for_selector("#vote-agree", state="visible", timeout=5000)
        held = "document.querySelector('#ready-countdown').textContent === '解散投票中，等待结果'"
        a.wait_for_function(held, timeout=5000)
        a.screenshot(path=str(shots_dir / "vote-between-hands-1280.png"))
        b.click("#vote-refuse")
        a.wait_for_function(
            "/^下一局 \\d+s$/.test(document.querySelector('#ready-countdown').textContent)",
            timeout=5000,
        )
        assert live.room(code)["status"] == "between"
        assert not a.errors and not b.errors, (a.errors, b.errors)  # type: ignore[attr-defined]
    finally:
        ctx_a.close()
        ctx_b.close()


# ---------------------------------------------------------------------------- lobby


def test_lobby_bank_seconds(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    for value in (60, 0):
        ctx, page = phone_page(browser) if value else new_page(browser)
        try:
            page.goto(live.base + "/")
            assert page.is_checked("#opt-bank-seconds-20")  # the server's default
            page.fill("#name", "银")
            page.check(f"#opt-bank-seconds-{value}")
            if value:
                page.screenshot(path=str(shots_dir / "live-lobby-375.png"), full_page=True)
                # 加入房间 (one field) above the long 创建房间 form: a phone needs no scroll
                top = [page.locator(c).bounding_box()["y"] for c in ("#join-card", "#create-card")]
                assert top[0] < top[1] and top[0] < 812, top
                no_overflow(page)
            page.click("#create-room")
            page.wait_for_selector("#room-code:not(:empty)")
            code = page.locator("#room-code").inner_text().strip()
            assert live.room(code)["options"]["bank_seconds"] == value
            shown = f"{value}s" if value else "不用"  # no bank: said so, not "0s"
            assert f"时间银行 {shown}" in page.locator("#room-options").inner_text()
        finally:
            ctx.close()


# ---------------------------------------------------------------------------- claim windows


def test_claim_window_without_claim_shows_nothing(
    slow_claims: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """Every discard opens a claim window (1.5 s here); a seat with nothing to claim gets no
    deadline and no actions: no countdown, no waiting text, just the marked discard."""
    ctx, page = new_page(browser)
    try:
        create_room(page, slow_claims.base, "窗")
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        checked = {"own": False, "other": False}
        end = time.monotonic() + 120
        while not all(checked.values()):
            assert time.monotonic() < end, checked
            # one synchronous read of the state and the DOM (nothing re-renders meanwhile)
            st = page.evaluate(WINDOW_PROBE)
            if st["open"]:
                whose = "own" if st["last"]["seat"] == 0 else "other"
                if not checked[whose]:
                    assert st["deadline"] is None
                    assert st["countdown"] == "" and st["prompt"] == "", st
                    assert st["claimCountdown"] == 0 and st["buttons"] == 0, st
                    assert st["acting"] == 0 and st["seatCountdowns"] == "", st
                    assert st["marked"] == [st["last"]["tile"]], st
                    page.screenshot(
                        path=str(shots_dir / f"live-claim-window-{whose}.png"), full_page=True
                    )
                    checked[whose] = True
                page.wait_for_timeout(50)
                continue
            if st["legal"]:
                step(page)
            page.wait_for_timeout(50)
        assert SHOTS.exists()
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


class Seen(Exception):
    """What a test came to see has been seen: the scripted hand stops there."""


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 812)])
def test_a_claim_answered_says_so_while_its_window_waits(
    slow_claims: LiveServer, browser: Any, shots_dir: Path, width: int, height: int
) -> None:
    """A 碰 answered while its window stays open (1.5 s here; a seat that may win thinking
    does the same) is said where its button was: 已选择碰，等待其他玩家… (a blank bar read as
    a lost tap), until the window closes."""
    ctx, page = new_page(browser, width=width, height=height)
    try:
        code = create_room(page, slow_claims.base, "碰")

        def pongs(h: Hand) -> bool:  # early (each discard's window stays open 1.5 s)
            return any(s.action["kind"] == "pong" for s in h.of(0)[:6])

        hand = find_seed(slow_claims.room(code)["options"], pongs, prefix="wait")
        slow_claims.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        seen: list[str] = []

        def check(page: Any, seat: int, st: Step) -> None:
            if st.action["kind"] != "pong" or seen:
                return
            wait = page.locator("#claim-wait")
            wait.wait_for(timeout=1200)
            seen.append(wait.inner_text())
            assert wait.get_attribute("data-action") == "pong"
            assert page.locator("#actions button").count() == 0
            page.screenshot(path=str(shots_dir / f"claim-wait-{width}.png"))
            wait.wait_for(state="detached", timeout=5000)  # the window closed: my turn
            raise Seen

        with pytest.raises(Seen):  # (the rest of the hand is not this test's)
            play_scripted({0: page}, hand, after_step=check)
        assert seen == ["已选择碰，等待其他玩家…"]
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_time_bank_counts_down_after_the_limit(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """A turn of 2 s with a 20 s time bank: the countdown counts the turn's own 2 s, then
    the bank's seconds, shown as 时间银行 (``bank_from``, docs/protocol.md Timers), on the
    status bar and on the seat's own panel; the seat then still discards in time."""
    ctx, page = phone_page(browser)
    try:
        page.goto(live.base + "/")
        page.fill("#name", "等")
        page.fill("#opt-turn-seconds", "2")
        page.check("#opt-bank-seconds-20")
        page.click("#create-room")
        page.wait_for_selector("#room-code:not(:empty)")
        add_bots(page)
        page.wait_for_function(
            "() => { const S = window.__gy; return S.view && S.view.phase === 'turn' &&"
            " S.view.turn === S.seat && S.legal.length > 0; }",
            timeout=30000,
        )
        cd = page.locator("#countdown")
        if cd.get_attribute("data-bank") == "false":  # still within the turn's own 2 s
            assert 0 < int(cd.get_attribute("data-seconds")) <= 2
        page.wait_for_selector('#countdown[data-bank="true"]', timeout=5000)
        secs = int(cd.get_attribute("data-seconds"))
        assert 10 < secs <= 20, secs
        assert cd.inner_text().startswith("时间银行"), cd.inner_text()
        own = page.locator('#my-head .seat-countdown[data-seat="0"]')
        assert own.inner_text().startswith("时间银行"), own.inner_text()
        page.screenshot(path=str(shots_dir / "time-bank-375.png"))
        no_overflow(page)
        assert discard_one(page, timeout=15)
    finally:
        ctx.close()
