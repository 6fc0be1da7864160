"""Jintan (金坛麻将) in the browser against the real server: a room made in the lobby from
the options the server lists, a hand played with bots to its settlement by clicking, with a
chow chosen from two possible runs, the flowers and honours drawn by the page, and 花 / 番 of
the win shown as the ledger has them."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from conftest import LiveServer
from scripted import Hand, find_seed
from test_live import add_bots, as_rows, new_page, payment_rows, play_scripted
from test_review import assert_one_line
from test_table_explained import (
    _added_kong_by,
    check_added_kong_centre,
    check_last_discard_after_reload,
)

from server.rules.dealing import roll_dice
from server.rules.registry import find_game

#: 番 (jintan.md §J6) and 花 items (§J5) as the page names them in English.
FANS_EN = {
    "hun_yi_se": "half flush (混一色)", "dui_dui_hu": "all pongs (对对胡)",
    "gang_kai": "win on a kong (杠开)", "du_diao": "single wait (独吊)",
    "qing_yi_se": "full flush (清一色)", "qi_dui": "seven pairs (七对)",
}  # fmt: skip
FANS_ZH = {en: zh[zh.index("(") + 1 : -1] for en, zh in FANS_EN.items()}
HUA_EN = {
    "flower": "", "honour_pong": "pong ", "honour_concealed_triplet": "concealed triplet ",
    "honour_exposed_kong": "exposed kong ", "honour_added_kong": "added kong ",
    "honour_concealed_kong": "concealed kong ", "exposed_kong": "exposed kong ",
    "added_kong": "added kong ", "concealed_kong": "concealed kong ",
}  # fmt: skip


def create_jintan_room(page: Any, base: str, name: str) -> str:
    page.goto(base + "/")
    # the lobby is the site's: it names both games, a Jintan player's too
    assert page.title() == page.locator("#home-link").inner_text() == "贵阳捉鸡 · 金坛麻将"
    page.fill("#name", name)
    page.check("#opt-game-jintan")
    page.wait_for_selector("#game-options [data-option='base']")
    assert page.locator("#opt-players-4").is_hidden()  # Guiyang's own options step aside
    # each option of the game says what it does, under it
    assert page.locator("#gopt-base-hint").inner_text().startswith("一份 = 底数 + 花数 × 花分值")
    assert page.locator("#gopt-chow-hint").inner_text() == "不选：只能碰、杠、胡"
    # the language toggle relabels them, keeping what was entered
    page.fill("#gopt-base", "30")
    page.click("#lang-toggle")
    page.wait_for_function(
        "() => document.querySelector('#gopt-chow-hint').textContent"
        " === 'off: only pong, kong and win'"
    )
    assert page.locator("#gopt-base").input_value() == "30"
    assert page.locator("label:has(#gopt-base) > span").inner_text() == "Base"
    page.click("#lang-toggle")
    page.wait_for_function(
        "() => document.querySelector('#gopt-chow-hint').textContent === '不选：只能碰、杠、胡'"
    )
    page.fill("#gopt-base", "")
    page.fill("#gopt-base", "10")
    page.check("#opt-hands-4")
    page.screenshot(path=str(Path("screenshots") / "jintan-lobby.png"), full_page=True)
    page.click("#create-room")
    page.wait_for_selector("#room-code:not(:empty)")
    return page.locator("#room-code").inner_text().strip()


def _chow_from_two_runs(hand: Hand) -> bool:
    """A won hand in which seat 0 (the browser) chows, choosing one of two or more runs, and
    a flower and an honour are on the table."""
    s = hand.settlement
    if s["result"] != "win":
        return False
    chose = any(
        st.action["kind"] == "chow" and sum(a["kind"] == "chow" for a in st.legal) >= 2
        for st in hand.of(0)
    )
    flowers = any(s["flowers"])
    honours = any(t.endswith("z") for h in s["hands"] for t in h)
    return chose and flowers and honours


def test_a_jintan_hand_with_a_chosen_chow_to_its_settlement(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    ctx, page = new_page(browser, height=800)
    try:
        code = create_jintan_room(page, live.base, "金坛")
        room = live.room(code)
        assert room["game"] == "jintan" and room["options"]["chow"] is True
        assert "金坛" in page.locator("#room-options").inner_text()
        hand = find_seed(room["options"], _chow_from_two_runs, prefix="jt-chow", game="jintan")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        # the deal's dice by the wall (guiyang.md §2, which §J applies): the seed's two rolls
        # after the shuffle of the 144 tiles
        dice = page.locator("#dice")
        assert dice.get_attribute("data-dice") == ",".join(map(str, roll_dice(hand.seed, 144)))
        assert dice.locator(".die svg").count() == 2
        # 1条 is 一条 at a Jintan table: 幺鸡 is Guiyang's chicken
        assert page.evaluate("import('./tiles.js').then(m => m.tileName('1s'))") == "1条"

        seen = {"chow": False, "turned": 0, "claimed": False, "after_claim": 0, "reload": 0}

        def check(p: Any, seat: int, st: Any) -> None:
            # after this seat's chow or pong the centre no longer shows the claimed tile as
            # the last discard ("机器人2 打出 3条" above "你 碰 3条")
            if seen["claimed"]:
                seen["claimed"] = False
                assert p.locator("#last-discard .center-tile").count() == 0
                seen["after_claim"] += 1
            seen["claimed"] = st.action["kind"] in ("chow", "pong")
            # a reload marks the last discard again (the view's river_last, as Guiyang's)
            last = st.view["river_last"]
            if not seen["reload"] and last is not None and st.action["kind"] == "discard":
                check_last_discard_after_reload(p, last)
                seen["reload"] += 1
            # a chow turns the tile it took (in its place in the run), not its lowest
            for sv in st.view["seats"]:
                k = sv["seat"]
                where = "#my-melds" if k == 0 else f'#opponents .seat-panel[data-seat="{k}"]'
                for j, m in enumerate(sv["melds"]):
                    if m["kind"] == "chow":
                        meld = p.locator(f"{where} .meld").nth(j)
                        turned = meld.locator(".tile.turned-claim")
                        assert turned.count() == 1
                        assert turned.get_attribute("data-tile") == m["claimed"]
                        assert meld.get_attribute("data-turned") == str(
                            m["tiles"].index(m["claimed"])
                        )
                        seen["turned"] += m["claimed"] != m["tiles"][0]
            chows = [a for a in st.legal if a["kind"] == "chow"]
            if len(chows) >= 2 and st.action["kind"] == "chow":
                buttons = p.locator('#actions [data-action="chow"]')
                assert buttons.count() == len(chows)
                shown = sorted(b.get_attribute("data-action-tiles") for b in buttons.all())
                assert shown == sorted("".join(a["tiles"]) for a in chows)
                p.screenshot(path=str(shots_dir / "jintan-chow-choice.png"), full_page=True)
                seen["chow"] = True

        play_scripted({0: page}, hand, check)
        assert seen["chow"] and seen["turned"]  # (a chow not of its lowest tile was met)
        assert seen["after_claim"] and seen["reload"]
        page.wait_for_selector("#settle-row-0", timeout=30000)
        s = hand.settlement
        ledger = [r for r in live.ledger(code) if r["hand_no"] == 1]
        assert as_rows(ledger) == as_rows(s["payments"])
        assert Counter(map(tuple, payment_rows(page))) == as_rows(ledger)
        # each winning hand lays out its flowers, as the apps do beside a won hand
        for w in s["winners"]:
            laid = page.locator(f'#settle-winners .win-hand[data-seat="{w}"] .flowers .tile')
            assert laid.evaluate_all("els => els.map(e => e.dataset.tile)") == s["flowers"][w]
        assert any(s["flowers"][w] for w in s["winners"])  # (the case was met)
        # each win line shows its 花 and 番 as the payment's facts have them
        hua = page.locator("#settle-payments .jt-win .hua").evaluate_all(
            "els => els.map(e => Number(e.dataset.hua))"
        )
        fan = page.locator("#settle-payments .jt-win .fan").evaluate_all(
            "els => els.map(e => Number(e.dataset.fan))"
        )
        assert hua == [p["detail"]["hua_total"] for p in s["payments"]]
        assert fan == [p["detail"]["fan_total"] for p in s["payments"]]
        # the winner's badge names the hand by its 番, or 鸡胡 with none (§J6)
        for w in s["winners"]:
            d = next(p["detail"] for p in s["payments"] if p["to"] == w)
            fans = [FANS_ZH[f] for f in d["fan"] if f != "gang_kai"]
            badge = page.locator(f'#settle-winners .winner[data-seat="{w}"] .hand-type')
            want = " ".join(fans) if d["fan"] else "鸡胡"
            assert badge.inner_text() == ("七对" if s["hand_types"][str(w)] == "qi_dui" else want)
        # in English the win line names its 番 and 花 items in English, the Chinese after
        page.click("#lang-toggle")
        lines = page.locator("#settle-payments .jt-win").evaluate_all(
            "els => els.map(e => [e.querySelector('.hua').textContent,"
            " e.querySelector('.fan').textContent])"
        )
        assert len(lines) == len(s["payments"])
        for (hua_text, fan_text), p in zip(lines, s["payments"], strict=True):
            d = p["detail"]
            names = ", ".join(FANS_EN[f] for f in d["fan"])
            assert fan_text == f"fan (番) {d['fan_total']}" + (f": {names}" if names else "")
            assert hua_text.startswith(f"flowers (花) {d['hua_total']}")
            assert not re.search("[碰刻杠]", hua_text), hua_text
            for item in d["hua"]:
                assert HUA_EN[item["what"]] in hua_text, (item, hua_text)
            # and its tiles by their English names: 菊 / 北 / 2条 as Chrysanthemum, North,
            # 2 bamboo (no Chinese left in the line but the bracketed terms)
            assert not re.search("[一-鿿]", hua_text.replace("(花)", "")), hua_text
        how = {"zi_mo": "self-draw (自摸)", "dian_pao": "on a discard (接炮)"}.get(s["win_kind"])
        assert how is None or how in page.locator("#settle-winners").inner_text()
        page.screenshot(path=str(shots_dir / "jintan-settlement-en.png"), full_page=True)
        # 花, 番 and the sum apart (English ran "Winter 1 fan (番) 0" together): a dot in the
        # gap before each part (the first part's, and a wrapped line's, left outside the box)
        seps = page.locator("#settle-explain .jt-win").first.evaluate(
            "w => [...w.querySelectorAll('.hua, .fan, .formula')]"
            ".map(e => getComputedStyle(e, '::before').content)"
        )
        assert seps == ['"·"', '"·"', '"·"'], seps
        page.set_viewport_size({"width": 375, "height": 812})
        page.locator("#settle-explain").scroll_into_view_if_needed()
        page.screenshot(path=str(shots_dir / "jintan-settlement-en-375.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.set_viewport_size({"width": 1280, "height": 800})
        page.click("#lang-toggle")
        # each payer's line in 各家明细 says why it pays (§J7), the winner's does not
        role = {"zi_mo": "self_draw", "gang_kai": "self_draw", "qiang_gang": "robbed"}.get(
            s["win_kind"], "dealt_in"
        )
        roles = page.locator("#settle-explain .sgroup[data-dir]").evaluate_all(
            "els => els.map(e => [Number(e.closest('.settle-seat').dataset.seat), e.dataset.dir,"
            " (e.querySelector('.jt-role') || {dataset: {}}).dataset.role || null])"
        )
        payers = {p["from"] for p in s["payments"]}
        assert sorted(roles) == sorted(
            [[p, "out", role] for p in payers] + [[w, "in", None] for w in s["winners"]]
        )
        text = {"self_draw": "被自摸", "robbed": "被抢杠", "dealt_in": "点炮"}[role]
        assert text in page.locator("#settle-explain .jt-role").first.inner_text()
        page.screenshot(path=str(shots_dir / "jintan-settlement.png"), full_page=True)
        page.set_viewport_size({"width": 375, "height": 812})
        page.locator("#settle-explain").scroll_into_view_if_needed()
        page.screenshot(path=str(shots_dir / "jintan-settlement-375.png"))
        page.set_viewport_size({"width": 1280, "height": 800})
        page.click("#settlement-close")
        # flowers laid open and honours drawn by the table
        flowers = page.locator("#table .flowers .tile.flower").evaluate_all(
            "els => els.map(e => e.dataset.tile)"
        )
        assert sorted(flowers) == sorted(f for fl in s["flowers"] for f in fl)
        # 摊牌: the hand is over, the others' concealed tiles lie open, no backs left
        shown = page.locator("#opponents .seat-panel").evaluate_all(
            "els => els.map(e => [Number(e.dataset.seat),"
            " [...e.querySelectorAll('.concealed.shown .tile')].map(t => t.dataset.tile)])"
        )
        assert sorted(seat for seat, _ in shown) == [1, 2, 3]
        for seat, tiles in shown:
            assert sorted(tiles) == sorted(s["hands"][seat]) and tiles
        assert page.locator("#opponents .back-mini, #opponents .tile-back").count() == 0
        # a winner's winning tile lies apart, marked, as in the settlement
        for w in s["winners"]:
            tile = next(p["detail"]["tile"] for p in s["payments"] if p["to"] == w)
            marked = page.locator(f"#opponents [data-seat='{w}'] .concealed.shown .win-tile")
            assert w == 0 or marked.get_attribute("data-tile") == tile
        assert page.locator("#opponents .win-tile").count() == len(set(s["winners"]) - {0})
        # 门风: the dealer sits East, the others in turn order
        winds = page.locator("#opponents .seat-panel, #me").evaluate_all(
            "els => els.map(e => [Number(e.dataset.seat), e.querySelector('.wind').textContent,"
            " !!e.querySelector('[data-dealer=true]')])"
        )
        (dealer,) = [seat for seat, _, is_dealer in winds if is_dealer]
        assert sorted((seat, w) for seat, w, _ in winds) == [
            (seat, "东南西北"[(seat - dealer) % 4]) for seat in range(4)
        ]
        page.screenshot(path=str(shots_dir / "jintan-table.png"), full_page=True)
        page.set_viewport_size({"width": 375, "height": 812})
        page.wait_for_timeout(300)
        page.screenshot(path=str(shots_dir / "jintan-table-375.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        # the narrow centre's event line wraps between words only: 补花 stays whole, whatever
        # the length of the name before it
        lines = page.evaluate(
            """() => {
              const el = document.querySelector('#event-line');
              const out = [];
              for (let n = 1; n <= 10; n++) {
                el.textContent = `${'机'.repeat(n)} 补花 竹`;
                const r = document.createRange();
                const top = (k) => { r.setStart(el.firstChild, k); r.setEnd(el.firstChild, k + 1);
                  return Math.round(r.getBoundingClientRect().top); };
                out.push([top(n + 1), top(n + 2), top(0) < top(n + 4)]);
              }
              el.textContent = '';
              return out;
            }"""
        )
        assert all(bu == hua for bu, hua, _ in lines), lines
        assert any(wrapped for _, _, wrapped in lines)  # the centre is narrow enough to wrap
        # 规则 tells how a win counts (jintan.md §J5-§J7), with this room's numbers
        page.click("#rules-btn")
        page.wait_for_selector("#rules-dialog", state="visible")
        body = page.locator("#rules-body")
        hua = body.locator('[data-section="r_jt_hua"] li').all_inner_texts()
        assert hua == [
            "每张花牌：1 花",
            "字牌（风、箭）碰：1 花，暗刻：2 花",
            "字牌明杠：3 花，暗杠：4 花",
            "数牌明杠（含加杠）：1 花，暗杠：2 花",
            "补花：花牌不打也不留，摸到即亮出，从牌尾补一张",
        ]
        fans = body.locator("#rules-fan tbody tr").evaluate_all(
            "els => els.map(e => [e.dataset.handType, Number(e.dataset.fan)])"
        )
        assert dict(fans) == {
            "hun_yi_se": 1, "dui_dui_hu": 1, "gang_kai": 1, "du_diao": 1, "qing_yi_se": 2,
            "qi_dui": 2,
        }  # fmt: skip
        formula = body.locator('li[data-rule="formula"]').inner_text()
        options = room["options"]
        assert f"底数 {options['base']} + 花数 × 花分值 {options['flower_value']}" in formula
        assert "最多 ×4" in formula
        page.screenshot(path=str(shots_dir / "jintan-rules-375.png"), full_page=True)
        page.click("#rules-close")
        page.click("#lang-toggle")
        page.click("#rules-btn")
        names = body.locator("#rules-fan tbody tr").evaluate_all(
            "els => els.map(e => [e.dataset.handType, e.cells[0].textContent])"
        )
        assert dict(names) == FANS_EN
        body.locator("#rules-fan").scroll_into_view_if_needed()
        page.screenshot(path=str(shots_dir / "jintan-rules-en-375.png"))
        page.click("#rules-close")
        page.click("#lang-toggle")
        # the settlement closed, the table offers 准备 with the seconds left; in the last 5 s
        # it is urgent and ticks (the deadline is moved, READY_SECONDS is 30 s)
        ready = page.locator("#table-ready-btn")
        assert ready.is_visible() and re.fullmatch(r"准备\s+下一局 \d+s", ready.inner_text())
        assert "urgent" not in (ready.get_attribute("class") or "")
        ticks = page.evaluate("window.__gySound.counts.tick || 0")
        page.evaluate("window.__gy.deadline = Date.now() + 4500")
        page.wait_for_selector("#table-ready-btn.urgent")
        page.wait_for_function(f"(window.__gySound.counts.tick || 0) > {ticks}")
        page.screenshot(path=str(shots_dir / "jintan-ready-urgent-375.png"))
        ready.click()
        page.wait_for_function("window.__gy.readySeats.includes(0)")
        assert ready.is_hidden()
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _phone_table(live: LiveServer, browser: Any, name: str, want: Any, prefix: str) -> Any:
    """A phone's page seated at a Jintan room made in the lobby, dealt the first hand
    ``f"{prefix}-{n}"`` that satisfies ``want`` (bots in the other seats): (ctx, page, hand)."""
    ctx, page = new_page(browser, 375, 812, is_mobile=True, has_touch=True)
    code = create_jintan_room(page, live.base, name)
    hand = find_seed(live.room(code)["options"], want, prefix=prefix, game="jintan")
    live.fix_seeds(code, [hand.seed])
    add_bots(page)
    page.wait_for_selector("#hand .hand-tile", timeout=15000)
    return ctx, page, hand


def _offer_with_three_melds(hand: Hand) -> bool:
    """Seat 0 is offered a claim late in the hand while it has three melds or more: the
    page, with its rivers and melds, is then taller than a phone's screen."""
    return any(_late_offer(st) for st in hand.of(0))


def _late_offer(st: Any) -> bool:
    return (
        st.view["phase"] != "turn"
        and st.view["wall_count"] < 40
        and len(st.view["seats"][0]["melds"]) >= 3
        and any(a["kind"] in ("win", "pong", "chow", "kong") for a in st.legal)
    )


# Each button of #actions: inside the screen, and what a tap at its centre would hit.
_BUTTONS_HIT = """() => [...document.querySelectorAll('#actions button')].map(b => {
  const r = b.getBoundingClientRect();
  const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return { action: b.dataset.action, inside: r.top >= 0 && r.bottom <= innerHeight,
           hit: !!hit && (hit === b || b.contains(hit)) };
})"""


def test_claim_buttons_stay_on_screen_above_the_hand_on_a_phone(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # A playtest found 胡 / 碰 under the pinned hand (or below the screen) once a seat had
    # three melds: the buttons now stand pinned with the hand, whatever the page's scroll.
    ctx, page, hand = _phone_table(live, browser, "手机", _offer_with_three_melds, "jt-dock")
    try:
        taller: list[bool] = []  # per offer checked: the page taller than the screen

        def check(p: Any, seat: int, st: Any) -> None:
            if not _late_offer(st):
                return
            for scroll in ("0", "document.documentElement.scrollHeight"):
                p.evaluate(f"window.scrollTo(0, {scroll})")
                p.wait_for_timeout(50)
                buttons = p.evaluate(_BUTTONS_HIT)
                assert buttons and all(b["inside"] and b["hit"] for b in buttons), buttons
            taller.append(p.evaluate("document.documentElement.scrollHeight > innerHeight"))
            p.evaluate("window.scrollTo(0, 0)")
            p.screenshot(path=str(shots_dir / f"jintan-dock-375-{len(taller)}.png"))

        play_scripted({0: page}, hand, check)
        assert any(taller), taller  # the case the dock is for was met
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_a_huang_zhuang_says_nothing_is_paid_and_the_dealer_deals_again(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # jintan.md §J7-§J8, said in the settlement as Guiyang's 黄庄 says its 查叫
    ctx, page, hand = _phone_table(
        live, browser, "黄庄", lambda h: h.settlement["result"] == "huang_zhuang", "jt-huang"
    )
    try:
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-huang", timeout=30000)
        note = page.locator("#settle-huang")
        assert note.get_attribute("data-why") == "huang_jintan"
        assert note.inner_text() == "黄庄不计分，庄家连庄"
        page.screenshot(path=str(shots_dir / "jintan-huang-375.png"), full_page=True)
        page.click("#lang-toggle")
        assert note.inner_text() == "Exhausted (黄庄): nothing is paid, and the dealer deals again"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _self_draw_only_wait(st: Any) -> bool:
    return any(w["self_draw_only"] for w in st.view["waits"])


def test_a_wait_that_wins_by_self_draw_only_says_so(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # A playtest: "听牌 2条" with no 花 and no 番, 2条 discarded, no 胡 offered and no reason
    # given. Each such wait is now marked 只能自摸, and the bar says why once (一花起胡,
    # jintan.md §J4).
    ctx, page, hand = _phone_table(
        live, browser, "自摸", lambda h: any(map(_self_draw_only_wait, h.of(0))), "jt-zm-only"
    )
    try:
        marked: list[list[str]] = []

        def check(p: Any, seat: int, st: Any) -> None:
            shown = p.locator("#waits .wait").evaluate_all(
                "els => els.map(e => [e.dataset.selfDrawOnly,"
                " e.querySelector('.self-draw-only')?.textContent ?? ''])"
            )
            want = [
                [str(w["self_draw_only"]).lower(), "只能自摸" if w["self_draw_only"] else ""]
                for w in st.view["waits"]
            ]
            assert shown == want, (shown, st.view["waits"])
            why = p.locator("#waits .self-draw-why")
            if any(w["self_draw_only"] for w in st.view["waits"]):
                assert why.inner_text() == "一花起胡：无花无番不能接炮"
            else:
                assert why.count() == 0
            if _self_draw_only_wait(st) and not marked:
                p.locator("#waits").screenshot(path=str(shots_dir / "jintan-self-draw-only.png"))
            if _self_draw_only_wait(st):
                marked.append([w["tile"] for w in st.view["waits"] if w["self_draw_only"]])

        play_scripted({0: page}, hand, check)
        assert marked
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_after_an_added_kong_the_centre_says_bu_gang_not_the_old_discard(
    live: LiveServer, browser: Any
) -> None:
    ctx, page, hand = _phone_table(live, browser, "阿强", _added_kong_by(0), "addkong")
    try:
        check_added_kong_centre(page, hand, "补杠")
    finally:
        ctx.close()


def test_an_eight_flower_win_line_adds_up_to_what_is_paid(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # Eight flowers win at once, paid as a self-draw at the cap (jintan.md §J2): each seat
    # pays (底 + 花 × 花分值) × 4. The win line said "×1 (0番) = 50" beside 封顶 and a
    # payment of 200; it now multiplies by the cap and says why.
    ctx, page = new_page(browser, 375, 812, is_mobile=True, has_touch=True)
    try:
        page.goto(live.base + "/")
        detail = {
            "win": "ba_hua", "tile": None,
            "hua": [{"what": "flower", "tile": f"{k}f", "hua": 1} for k in range(1, 9)],
            "hua_total": 8, "fan": [], "fan_total": 0, "base": 10, "flower_value": 5,
            "capped": True,
        }  # fmt: skip
        line = (
            "d => import('./jintan.js').then(m => { const el = m.jintanWinEl(d);"
            " document.body.prepend(el); return [el.querySelector('.formula').textContent,"
            " el.querySelector('.formula').dataset.mult]; })"
        )
        formula, mult = page.evaluate(line, detail)
        assert mult == "4"
        assert formula == "底10 + 8花×5 = 50 · ×4 (八花封顶) = 200", formula
        page.click("#lang-toggle")
        formula, _ = page.evaluate(line, detail)
        want = "base 10 + flowers 8 × 5 = 50 · ×4 (eight flowers, capped) = 200"
        assert formula == want, formula
        # a win capped by its 番 keeps saying its 番
        capped = {**detail, "win": "zi_mo", "fan": ["qi_dui", "hun_yi_se"], "fan_total": 3}
        capped["hua"], capped["hua_total"] = capped["hua"][:1], 1
        formula, mult = page.evaluate(line, capped)
        assert (formula, mult) == ("base 10 + flowers 1 × 5 = 15 · ×4 (3 fan) = 60", "4")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_the_status_bar_keeps_every_button_whole_on_a_phone_in_english(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # From the second hand on, the bar above a phone's table holds 局数, the turn's seconds,
    # 规则, 上局结算, 解散 and 快捷语: in English "Phrases" ran off the screen's edge (the bar
    # scrolled sideways to reach it). Every button now stands whole on the one line.
    ctx, page, hand = _phone_table(
        live, browser, "Phone", lambda h: h.settlement["result"] == "huang_zhuang", "jt-huang"
    )
    try:
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        page.click("#ready-btn")
        page.wait_for_selector("#settlement-overlay", state="hidden", timeout=30000)
        page.wait_for_selector("#last-settlement-btn:not([hidden])")
        page.wait_for_function("window.__gy.view && window.__gy.view.turn === 0")
        page.wait_for_selector("#countdown:not(:empty)")
        for lang in ("zh", "en"):
            if page.evaluate("document.documentElement.lang").startswith("zh") != (lang == "zh"):
                page.click("#lang-toggle")
                page.wait_for_timeout(200)
            status = assert_one_line(page, "#status-bar", lang)
            for want in (
                "hand-no", "countdown", "rules-btn", "last-settlement-btn", "dissolve-btn",
                "phrase-btn",
            ):  # fmt: skip
                assert want in status, (lang, status)
            page.screenshot(path=str(shots_dir / f"jintan-status-bar-375-{lang}.png"))
            # and in a 16-hand room's last hands
            widest = "第16/16局" if lang == "zh" else "Hand 16/16"
            page.evaluate(f"document.querySelector('#hand-no').textContent = '{widest}'")
            assert_one_line(page, "#status-bar", lang)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_the_rules_say_how_flowers_are_replaced_and_that_eight_flowers_win(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # 规则 told how flowers count (§J5) but not what a flower does when drawn (补花) nor that
    # all eight win at once, paid at the cap (§J2): a first-time player met both unexplained.
    ctx, page = new_page(browser, 375, 812, is_mobile=True, has_touch=True)
    try:
        create_jintan_room(page, live.base, "规则")
        page.click("#room-rules-btn")
        page.wait_for_selector("#rules-dialog", state="visible")
        body = page.locator("#rules-body")
        bu = body.locator('[data-section="r_jt_hua"] li[data-rule="bu_hua"]')
        ba = body.locator('[data-section="r_jt_points"] li[data-rule="ba_hua"]')
        assert bu.inner_text() == "补花：花牌不打也不留，摸到即亮出，从牌尾补一张"
        assert ba.inner_text() == "八花：集齐八张花牌立即胡牌，按自摸封顶计分（每家付一份 ×4）"
        ba.scroll_into_view_if_needed()
        page.screenshot(path=str(shots_dir / "jintan-rules-flowers-375.png"))
        page.click("#rules-close")
        page.click("#lang-toggle")
        page.click("#room-rules-btn")
        assert bu.inner_text() == (
            "Flowers (补花): never kept or discarded; one drawn is laid open and replaced"
            " from the back of the wall"
        )
        assert ba.inner_text() == (
            "Eight flowers (八花): a seat with all eight wins at once, paid as a self-draw"
            " at the cap (each seat pays a share ×4)"
        )
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _robbed_by_0(hand: Hand) -> bool:
    s = hand.settlement
    return s["win_kind"] == "qiang_gang" and s["winners"] == [0]


def test_the_replay_of_a_robbed_kong_says_why_the_win_line_is_paid_three_times(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # 回放 of a 抢杠: the win line ended "= 15" while the robbed seat paid 45, with nothing
    # saying why (the table's settlement says it by the payer: 一家包三家 ×3). The replay now
    # says it under the win line (jintan.md §J7).
    ctx, page, hand = _phone_table(live, browser, "阿明", _robbed_by_0, "jt-rob")
    try:
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        s = hand.settlement
        (pay,) = s["payments"]
        d = pay["detail"]
        each = (d["base"] + d["hua_total"] * d["flower_value"]) * 2 ** min(d["fan_total"], 2)
        assert pay["points"] == 3 * each
        href = page.locator("#settle-replay").get_attribute("href")
        rp = ctx.new_page()
        rp.goto(href if href.startswith("http") else live.base + href)
        rp.wait_for_selector("#rp-last")
        rp.click("#rp-last")
        line = rp.locator("#rp-settlement .rp-win-count[data-seat='0'] .jt-rob")
        robbed = rp.evaluate(f"window.__replay.data.seats[{s['loser']}]")
        name = f"机器人{s['loser'] + 1}" if robbed.get("bot") else robbed["name"]
        assert line.inner_text() == f"抢杠：{name} 一家包三家，{each} ×3 = {pay['points']}"
        line.scroll_into_view_if_needed()
        rp.screenshot(path=str(shots_dir / "jintan-replay-rob-375.png"))
        assert not rp.locator("#rp-settlement .rp-win-count .jt-rob").count() > 1
    finally:
        ctx.close()


def test_a_seven_pairs_badge_names_its_suit_fan_too(live: LiveServer, browser: Any) -> None:
    """A 七对 won in one suit and honours is 七对 混一色 (jintan.md §J6: 七对 may add 混一色 or
    清一色), as its 番 line says; the winner's badge said 七对 alone."""
    ctx, page = new_page(browser, 375, 812, is_mobile=True, has_touch=True)
    try:
        page.goto(live.base + "/")
        badge = (
            "([ht, fan]) => import('./jintan.js').then(m => m.winnerHandText(ht, 1,"
            " [{ from: 0, to: 1, reason: 'hu', points: 60, detail: { fan } }]))"
        )
        assert page.evaluate(badge, ["qi_dui", ["qi_dui", "hun_yi_se"]]) == "七对 混一色"
        assert page.evaluate(badge, ["qi_dui", ["qi_dui"]]) == "七对"
        assert page.evaluate(badge, ["standard", []]) == "鸡胡"
        assert page.evaluate(badge, ["ba_hua", []]) == "八花"  # (by its name)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_the_flowers_laid_at_the_deal_are_said_in_the_centre(
    live: LiveServer, browser: Any
) -> None:
    """The deal's 补花 came with the deal's snapshot, not as events: the centre said
    nothing while flowers appeared by the seats. It now says who laid how many (§J2), a
    line each (whole on a phone), as it says each later 补花, until the next move."""
    ctx, page = new_page(browser, 375, 812)
    try:
        code = create_jintan_room(page, live.base, "开局花")
        room = live.room(code)
        game = find_game("jintan")
        seed = next(
            f"deal-flowers-{n}"
            for n in range(500)
            if sum(
                bool(sv["flowers"])
                for sv in game.view(
                    game.deal(game.options(room["options"]), f"deal-flowers-{n}", 0, 1), None
                ).to_dict()["seats"]
            )
            >= 2
        )
        counts = [
            len(sv["flowers"])
            for sv in game.view(
                game.deal(game.options(room["options"]), seed, 0, 1), None
            ).to_dict()["seats"]
        ]
        live.fix_seeds(code, [seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        names = ["开局花 (你)", "机器人2", "机器人3", "机器人4"]
        lines = [f"{names[i]} ×{n}" for i, n in enumerate(counts) if n]
        assert page.inner_text("#event-line").split("\n") == ["开局补花", *lines]
        page.screenshot(path=str(Path("screenshots") / "jintan-deal-flowers-375.png"))
        page.set_viewport_size({"width": 812, "height": 375})
        page.wait_for_timeout(300)
        page.screenshot(path=str(Path("screenshots") / "jintan-deal-flowers-812.png"))
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_timeout(300)
        page.screenshot(path=str(Path("screenshots") / "jintan-deal-flowers-1280.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
