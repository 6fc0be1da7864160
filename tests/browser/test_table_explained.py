"""The table and the settlement explained (issue 13), in Debian Chromium at 1280x800 and
375x812, on hands chosen offline (`scripted`) and played by clicking:

* melds: a concealed kong (闷豆) of another seat shows one face and three backs; a ponged
  tile is turned towards the seat it came from; the last-discard mark is back after a reload;
* 听牌提示: while choosing a discard, each tile that leaves the hand ready shows its waits and
  how many of each are unseen (counted here from the view: 4 minus hand, rivers, melds);
* the settlement: a 软报 win, a 连庄 win and a 金鸡 hand show their parts with the values of
  the spec (§6.2, §8.1, §8.5, §9.3, §10.2), read from the DOM;
* the room's rules: always reachable during play, complete, localised; 连N only in 连庄 rooms.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from conftest import SHOTS, LiveServer
from scripted import Hand, Step, find_seed, play_out
from test_live import add_bots, create_room, join_room, new_page, no_overflow, play_scripted
from test_table_layout import _in_view

from server.rules.registry import find_game
from server.rules.tiles import TILE_NAMES

SIZES = {"desktop": (1280, 800), "phone": (375, 812)}
# the second hand is dealt and being played
NEXT_HAND = (
    "window.__gy.room && window.__gy.room.hand_no === 2 && window.__gy.view"
    " && window.__gy.view.phase !== 'ended'"
)
# what the rules panel of a 三丁拐 一扣三 room says, among the rest
RULE_WORDS = (
    "三丁拐", "一扣三", "满堂鸡", "一炮多响", "过碰", "闷豆", "明豆", "转弯豆", "定缺",
    "出牌秒数 20s", "抢牌秒数 10s",
)  # fmt: skip
# spec §6.2, 一扣二 / 连庄 column (standard table)
FAN = {
    "ping_hu": 1, "da_dui_zi": 5, "qi_dui": 7, "long_qi_dui": 10, "qing_yi_se": 10,
    "qing_da_dui": 15, "qing_qi_dui": 17, "qing_long_bei": 20, "dan_diao": 7, "qing_dan_diao": 17,
}  # fmt: skip


def _shots(page: Any, shots: Path, name: str) -> None:
    """Screenshots at both sizes; the page is left at the desktop size."""
    for label, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        page.screenshot(path=str(shots / f"{name}-{label}.png"))
        no_overflow(page)
    page.set_viewport_size({"width": 1280, "height": 800})


def _rel(owner: int, src: int, n: int = 4) -> int:
    """Index of the turned tile of a pong: 上家 first, 对家 middle, 下家 last."""
    return {3: 0, 2: 1, 1: 2}[(src - owner) % n]


def _unseen(view: dict[str, Any], tile: str) -> int:
    """Copies of ``tile`` the seat cannot see: 4 minus its hand (and drawn tile), every
    unclaimed river tile and every meld tile."""
    seen = list(view["hand"]) + ([view["drawn"]] if view["drawn"] else [])
    for s in view["seats"]:
        claimed = set(s["claimed"])
        seen += [t for i, t in enumerate(s["discards"]) if i not in claimed]
        seen += [t for m in s["melds"] for t in m["tiles"]]
    return 4 - Counter(seen)[tile]


def _men_dou_and_hints(hand: Hand) -> bool:
    steps = hand.of(0)
    md = any(
        m["kind"] == "men_dou"
        for st in steps
        for s in st.view["seats"]
        if s["seat"] != 0
        for m in s["melds"]
    )
    hints = any(st.view["ting_hints"] and st.action["kind"] == "discard" for st in steps)
    pong = any(m["kind"] == "pong" for st in steps for s in st.view["seats"] for m in s["melds"])
    return md and hints and pong


def test_melds_hints_and_reload(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        code = create_room(page, live.base, "桌")
        options = live.room(code)["options"]
        hand = find_seed(options, _men_dou_and_hints, prefix="md")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        seen = {"men_dou": 0, "pong": 0, "hints": 0, "reload": 0}

        def check(page: Any, seat: int, st: Step) -> None:
            v = st.view
            for s in v["seats"]:
                k = s["seat"]
                where = "#my-melds" if k == 0 else f'#opponents .seat-panel[data-seat="{k}"]'
                for j, m in enumerate(s["melds"]):
                    meld = page.locator(f"{where} .meld").nth(j)
                    assert meld.get_attribute("data-kind") == m["kind"]
                    if m["kind"] == "men_dou" and k != 0:
                        # spec §4: one tile shown to all, three backs
                        faces = meld.locator(".tile:not(.tile-back)")
                        assert faces.count() == 1
                        assert faces.first.get_attribute("data-tile") == m["tiles"][0]
                        assert meld.locator(".tile.tile-back").count() == 3
                        seen["men_dou"] += 1
                    if m["kind"] == "pong":
                        turned = _rel(k, m["from"])
                        assert meld.get_attribute("data-turned") == str(turned)
                        tiles = meld.locator(".tile")
                        assert "turned-claim" in (tiles.nth(turned).get_attribute("class") or "")
                        assert meld.locator(".tile.turned-claim").count() == 1
                        seen["pong"] += 1
            hints = v["ting_hints"]
            if hints and st.action["kind"] == "discard":
                shown = page.locator("#ting-hints .ting-hint").evaluate_all(
                    "els => els.map(e => [e.dataset.tile, e.dataset.waits])"
                )
                want = [[t, ",".join(f"{w}:{n}" for w, n in ws)] for t, ws in hints.items()]
                assert sorted(shown) == sorted(want)
                for t, ws in hints.items():
                    for w, n in ws:  # the unseen counts, counted again from the view
                        assert n == _unseen(v, w), (t, w, n)
                marked = page.locator("#hand .hand-tile.ting").evaluate_all(
                    "els => [...new Set(els.map(e => e.dataset.tile))]"
                )
                assert sorted(marked) == sorted(hints)
                if not seen["hints"]:
                    _shots(page, shots_dir, "ting-hints")
                seen["hints"] += 1
            if seen["men_dou"] and not seen["reload"] and st.action["kind"] == "discard":
                _shots(page, shots_dir, "melds-men-dou")
                if v["river_last"] is not None:
                    check_last_discard_after_reload(page, v["river_last"])
                    seen["reload"] += 1

        play_scripted({0: page}, hand, check)
        assert seen["men_dou"] and seen["pong"] and seen["hints"] and seen["reload"], seen
        page.wait_for_selector("#settle-row-0", timeout=30000)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def play_bao(options: dict[str, Any], seed: str, dealer: int = 0, streak: int = 1) -> Hand | None:
    """`scripted.play_out`, but seat 0 declares 报听 (软报) with its first discard when it
    may (the bots never do); None when its first discard cannot declare."""
    rules = find_game("guiyang")
    state = rules.deal(rules.options(options), seed, dealer, streak)
    if not any(a.kind == "discard" and a.bao_ting for a in rules.legal_actions(state, 0)):
        return None
    hand = Hand(seed)
    while not rules.ended(state):
        if rules.claims_decided(state):
            state, _ = rules.resolve_claims(state)
            continue
        seat = rules.acting_seats(state)[0]
        action = rules.bot_action(state, seat)
        legal = rules.legal_actions(state, seat)
        if seat == 0 and action.kind == "discard":
            bao = [a for a in legal if a.kind == "discard" and a.bao_ting]
            same = [a for a in bao if a.tile == action.tile]
            action = (same or bao or [action])[0]
        hand.steps.append(
            Step(
                seat,
                action.to_dict(),
                [a.to_dict() for a in legal],
                rules.view(state, seat).to_dict(),
            )
        )
        state, _ = rules.apply(state, seat, action)
    hand.settlement = rules.view(state, None)["settlement"]
    return hand


def _hu_group(page: Any, seat: int) -> Any:
    return page.locator(
        f'#settle-explain .settle-seat[data-seat="{seat}"] .sgroup[data-reason="hu"][data-dir="in"]'
    )


def _parts(group: Any) -> dict[str, int]:
    rows = group.locator(".part").evaluate_all(
        "els => els.map(e => [e.dataset.part, Number(e.dataset.points)])"
    )
    return dict(rows)


def _check_settlement_view(page: Any, label: str) -> None:
    for lbl, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(200)
        _in_view(page, "#settlement-body h2")
        _in_view(page, "#ready-btn")
        no_overflow(page)
        page.screenshot(path=str(SHOTS / f"settle-{label}-{lbl}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})


def test_ruan_bao_win_explained(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        code = create_room(page, live.base, "报")
        options = live.room(code)["options"]
        hand = None
        for n in range(4000):
            h = play_bao(options, f"rb-{n}")
            s = h.settlement if h else {}
            if h and any(
                p["reason"] == "hu" and p["to"] == 0 and "ruan_bao" in p["detail"]["extras"]
                for p in s["payments"]
            ):
                hand = h
                break
        assert hand is not None, "no 软报 win in 4000 seeds"
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        s = hand.settlement
        ht = s["hand_types"]["0"]
        self_draw = s["win_kind"] in ("zi_mo", "gang_kai", "qiang_gang")
        # spec: hand type 番 (§6.2) + 自摸 1 (§8.1) + 杠开 / 热炮 1 (§8.3) + 软报 10 (§8.5)
        want = {"hand_type": FAN[ht], "ruan_bao": 10}
        if self_draw:
            want["zi_mo"] = 1
        if s["win_kind"] in ("gang_kai", "re_pao"):
            want[s["win_kind"]] = 1
        group = _hu_group(page, 0)
        assert group.count() == 1
        assert _parts(group) == want
        value = sum(want.values())
        payers = 3 if self_draw else 1
        assert int(group.get_attribute("data-points")) == value * payers
        got = dict(
            group.locator(".sg-other").evaluate_all(
                "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.points)])"
            )
        )
        assert got == ({1: value, 2: value, 3: value} if self_draw else {s["loser"]: value})
        # the 报听 discard lies sideways in the river, the winning tile is highlighted
        assert page.locator('#my-river .tile[data-bao-ting="true"]').count() == 1
        win_tile = next(p["detail"]["tile"] for p in s["payments"] if p["reason"] == "hu")
        wt = page.locator('#settle-winners .winner[data-seat="0"] .tile.win-tile')
        assert wt.count() == 1 and wt.get_attribute("data-tile") == win_tile
        shown = page.locator(
            '#settle-winners .winner[data-seat="0"] .win-concealed .tile'
        ).evaluate_all("els => els.map(e => e.dataset.tile)")
        rest = list(s["hands"][0])
        rest.remove(win_tile)
        assert Counter(shown) == Counter(rest)
        _check_settlement_view(page, "ruan-bao")
        # each seat's total first, and the seat blocks sum to the deltas
        for i in range(4):
            blk = page.locator(f'#settle-explain .settle-seat[data-seat="{i}"]')
            pts = blk.locator(".sgroup[data-points]").evaluate_all(
                "els => els.map(e => Number(e.dataset.points))"
            )
            assert sum(pts) == s["deltas"][i] == int(blk.get_attribute("data-delta"))
        # hand 2: the dealer kept the deal, but this room does not score 连庄: no 连N
        page.click("#ready-btn")
        page.wait_for_function(NEXT_HAND, timeout=60000)
        assert page.evaluate("window.__gy.view.dealer_streak") == 2
        badge = page.locator("#my-head .badge.dealer")
        assert badge.inner_text() == "庄"
        assert "连" not in page.locator("#dealer-info").inner_text()
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _pays_unequal_holders(pays: list[dict[str, Any]]) -> bool:
    """Whether some seat pays per-tile 鸡 of one kind to holders of different counts (the
    settlement must then show each holder's count, not one for the line)."""
    lines: dict[tuple[Any, ...], Counter[int]] = {}
    for p in pays:
        if p["reason"] == "ji":
            d = p["detail"]
            key = (
                p["from"],
                d.get("tile"),
                d.get("kind"),
                bool(d.get("jin")),
                bool(d.get("bao_ji")),
                d.get("at"),
            )
            lines.setdefault(key, Counter())[p["to"]] += 1
    return any(len(set(c.values())) > 1 for c in lines.values())


def test_lian_zhuang_and_jin_ji_explained(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        code = create_room(page, live.base, "庄", checks=("#opt-lian-zhuang", "#opt-yao-bai-ji"))
        options = live.room(code)["options"]
        assert options["scoring"] == "lian_zhuang"
        first = find_seed(options, lambda h: h.settlement["winners"] == [0], prefix="lz")

        def second_ok(seed: str) -> Hand | None:
            h = play_out(options, seed, dealer=0, streak=2)
            pays = h.settlement["payments"]
            streak = any(p["reason"] == "hu" and p["detail"]["streak"] == 2 for p in pays)
            jin = any(p["reason"] == "ji" and p["detail"]["jin"] for p in pays)
            # a non-dealer's self-draw: only the dealer's payment carries the +2
            s = h.settlement
            others_win = s["win_kind"] == "zi_mo" and 0 not in s["winners"]
            return h if streak and jin and others_win and _pays_unequal_holders(pays) else None

        second = next(h for n in range(3000) if (h := second_ok(f"lz2-{n}")))
        live.fix_seeds(code, [first.seed, second.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: page}, first)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        page.click("#ready-btn")
        page.wait_for_function(NEXT_HAND, timeout=60000)
        # 连庄 room: the dealer's streak is shown
        assert page.locator("#my-head .badge.dealer").get_attribute("data-streak") == "2"
        assert "连2" in page.locator("#dealer-info").inner_text()
        play_scripted({0: page}, second)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        s = second.settlement
        for w in s["winners"]:
            ht = s["hand_types"][str(w)]
            self_draw = s["win_kind"] in ("zi_mo", "gang_kai", "qiang_gang")
            base = (
                FAN[ht]
                + (1 if self_draw else 0)
                + (1 if s["win_kind"] in ("gang_kai", "re_pao") else 0)
            )
            parts = _parts(_hu_group(page, w))
            assert parts["hand_type"] == FAN[ht]
            if self_draw:
                assert parts["zi_mo"] == 1
            # §10.2: +N (N = 2) on each payment between the dealer (seat 0) and another seat
            others = [p for p in range(4) if p != w]
            payers = others if self_draw else [s["loser"]]
            want = {p: base + (2 if 0 in (w, p) else 0) for p in payers}
            if any(0 in (w, p) for p in payers):
                assert parts["lian_zhuang"] == 2
                # paid by the dealer alone (a non-dealer's self-draw): the chip says so
                chip = _hu_group(page, w).locator('.part[data-name="lian_zhuang"]')
                alone = w != 0 and len(payers) > 1
                assert chip.get_attribute("data-dealer-only") == str(alone).lower()
                assert ("庄家付" in chip.inner_text()) == alone
            got = dict(
                _hu_group(page, w)
                .locator(".sg-other")
                .evaluate_all(
                    "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.points)])"
                )
            )
            assert got == want
        # 金鸡: each golden 幺鸡 is worth 2 (§9.3), marked 金
        jin = page.locator('#settle-explain .sgroup[data-reason="ji"][data-tile="1s"]')
        assert jin.count() > 0
        for k in range(jin.count()):
            g = jin.nth(k)
            assert g.locator('.badge.jin[data-jin="true"]').count() == 1
            assert g.locator(".sg-count").get_attribute("data-each") == "2"
        # every per-tile 鸡 line: each other seat's part is its count of tiles x the value
        # each; the line says where the tiles lie (手上 / 碰杠里 / 河里); a count of this
        # seat's own tiles is the line's N张, and others' tiles (a seat paying holders, the
        # seed has some of different counts, or paid for 包鸡) are counted by each one's name
        theirs = 0
        groups = page.locator('#settle-explain .sgroup[data-reason="ji"]')
        for k in range(groups.count()):
            g = groups.nth(k)
            at = g.get_attribute("data-at")
            where = {"hand": "手上", "meld": "碰杠里", "river": "河里"}[at or ""]
            assert where in g.locator(".sg-sub").inner_text()
            each = int(g.locator(".sg-count").get_attribute("data-each"))
            others = g.locator(".sg-other").evaluate_all(
                "els => els.map(e => [Number(e.dataset.count), Number(e.dataset.points)])"
            )
            assert others and all(n > 0 and x == each * n for n, x in others), others
            count = g.locator(".sg-count").get_attribute("data-count")
            texts = g.locator(".sg-other").all_inner_texts()
            bao = g.get_attribute("data-bao") == "true"
            sub = g.locator(".sg-sub").inner_text()
            if (g.get_attribute("data-dir") == "in") != bao:  # this seat's own tiles
                assert "他家" not in sub, sub
                assert len({n for n, _ in others}) == 1, others
                assert count == str(others[0][0]), (count, others)
                assert not any("张)" in x for x in texts), texts
            else:
                theirs += 1
                assert f"他家{where}" in sub, sub  # (手上 alone read as this seat's hand)
                assert count == "", (count, others)
                assert all(f"({n}张)" in x for (n, _), x in zip(others, texts, strict=True)), texts
        assert theirs > 0
        # each seat's block opens with its points by reason (胡 / 鸡 / ...), the ledger's sums
        for i in range(4):
            nets: Counter[str] = Counter()
            for p in s["payments"]:
                nets[p["reason"]] += p["points"] * ((p["to"] == i) - (p["from"] == i))
            got = page.locator(f'#settle-explain .settle-seat[data-seat="{i}"] .sg-net')
            pairs = got.evaluate_all(
                "els => els.map(e => [e.dataset.reason, Number(e.dataset.points)])"
            )
            assert dict(pairs) == {r: v for r, v in nets.items() if v}, (i, pairs)
        golden = [c["tile"] for c in s["chicken_values"] if c["jin"]]
        assert "1s" in golden
        _check_settlement_view(page, "lian-zhuang-jin-ji")
        # in English: the parts named, the same numbers; the rules open over the settlement
        page.click("#lang-toggle")
        parts = _hu_group(page, s["winners"][0]).locator(".part").all_inner_texts()
        assert any(p.startswith("+self-draw") for p in parts) == (
            s["win_kind"] in ("zi_mo", "gang_kai", "qiang_gang")
        ), parts
        _check_settlement_view(page, "lian-zhuang-jin-ji-en")
        page.click("#settle-rules-btn")
        page.wait_for_selector("#rules-dialog", state="visible")
        _in_view(page, "#rules-close")
        assert "Dealer streak" in page.locator("#rules-body").inner_text()
        page.click("#rules-close")
        page.click("#lang-toggle")
        for w in s["winners"]:  # the winner's 胡 line, 连庄 marked 庄家付
            _hu_group(page, w).screenshot(path=str(shots_dir / f"settle-lian-zhuang-hu-{w}.png"))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_rules_panel_during_play(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        create_room(page, live.base, "规", players=3, checks=("#opt-yi-kou-san",))
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        for label, (w, h) in SIZES.items():
            page.set_viewport_size({"width": w, "height": h})
            page.click("#rules-btn")
            page.wait_for_selector("#rules-dialog", state="visible")
            _in_view(page, "#rules-close")
            text = page.locator("#rules-body").inner_text()
            for word in RULE_WORDS:
                assert word in text, (word, text)
            fans = page.locator("#rules-fan tbody tr").evaluate_all(
                "els => els.map(e => [e.dataset.handType, Number(e.dataset.fan)])"
            )
            # spec §6.2, 一扣三 column
            assert dict(fans) == {
                "ping_hu": 3, "da_dui_zi": 8, "qi_dui": 12, "long_qi_dui": 20, "qing_yi_se": 12,
                "qing_da_dui": 20, "qing_qi_dui": 24, "qing_long_bei": 36, "dan_diao": 12,
                "qing_dan_diao": 24,
            }  # fmt: skip
            dou = page.locator('#rules-body li[data-rule="men_dou"]').inner_text()
            assert "2" in dou
            page.screenshot(path=str(shots_dir / f"rules-{label}.png"))
            page.click("#rules-close")
            page.wait_for_selector("#rules-dialog", state="hidden")
        # in English too
        page.click("#lang-toggle")
        page.click("#rules-btn")
        text = page.locator("#rules-body").inner_text()
        for word in ("Full table", "Pass-pong lock: off", "Multiple winners: on", "Fan table"):
            assert word in text, (word, text)
        page.screenshot(path=str(shots_dir / "rules-en-desktop.png"))
        page.click("#rules-close")
        page.click("#lang-toggle")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _own_men_dou(hand: Hand) -> bool:
    return any(m["kind"] == "men_dou" for st in hand.of(0) for m in st.view["seats"][0]["melds"])


def test_own_concealed_kong_is_marked(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    """The owner sees its 闷豆's four faces, marked concealed (dashed, tagged 闷)."""
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        code = create_room(page, live.base, "闷")
        options = live.room(code)["options"]
        hand = find_seed(options, _own_men_dou, prefix="own")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        seen = []

        def check(page: Any, seat: int, st: Step) -> None:
            melds = st.view["seats"][0]["melds"]
            for j, m in enumerate(melds):
                if m["kind"] != "men_dou":
                    continue
                meld = page.locator("#my-melds .meld").nth(j)
                assert meld.get_attribute("data-kind") == "men_dou"
                assert meld.locator(".tile.tile-back").count() == 0
                faces = meld.locator(".tile.concealed-own").evaluate_all(
                    "els => els.map(e => e.dataset.tile)"
                )
                assert faces == m["tiles"]
                assert meld.locator(".meld-tag").inner_text() == "闷"
                if not seen:
                    _shots(page, shots_dir, "melds-own-men-dou")
                seen.append(j)

        play_scripted({0: page}, hand, check)
        assert seen
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _hints_at_discard(hand: Hand) -> bool:
    return any(st.view["ting_hints"] and st.action["kind"] == "discard" for st in hand.of(0))


def test_phone_tap_shows_the_hint_of_the_raised_tile(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """On a phone the first tap raises a tile; if discarding it leaves the hand ready, its
    hint (waits and unseen counts) is the one highlighted."""
    ctx, page = new_page(browser, 375, 812, is_mobile=True, has_touch=True)
    try:
        code = create_room(page, live.base, "提示")
        options = live.room(code)["options"]
        hand = find_seed(options, _hints_at_discard, prefix="th")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        seen = []

        def check(page: Any, seat: int, st: Step) -> None:
            hints = st.view["ting_hints"]
            if seen or not hints or st.action["kind"] != "discard":
                return
            tile = sorted(hints)[0]
            page.locator(f'#hand .hand-tile.ting[data-tile="{tile}"]').last.tap()
            page.wait_for_selector(f'#ting-hints .ting-hint.focus[data-tile="{tile}"]')
            assert page.locator("#ting-hints .ting-hint.focus").count() == 1
            waits = page.locator(f'#ting-hints .ting-hint.focus[data-tile="{tile}"] .wait')
            shown = waits.evaluate_all(
                "els => els.map(e => [e.dataset.tile, Number(e.dataset.unseen)])"
            )
            assert shown == hints[tile]
            assert page.locator("#my-river .tile").count() == len(st.view["seats"][0]["discards"])
            page.screenshot(path=str(shots_dir / "ting-hint-tapped-phone.png"))
            # back to nothing raised, so the scripted move is made as predicted
            page.evaluate("window.__gy.selected = null")
            seen.append(tile)

        play_scripted({0: page}, hand, check)
        assert seen
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def settled_hand(page: Any, live: LiveServer, name: str, want: Any, prefix: str) -> Hand:
    """A room of ``name`` and three bots dealt the first hand ``f"{prefix}-n"`` that satisfies
    ``want`` (`find_seed`), played out by the page to its settlement; returns the hand."""
    code = create_room(page, live.base, name)
    hand = find_seed(live.room(code)["options"], want, prefix=prefix)
    live.fix_seeds(code, [hand.seed])
    add_bots(page)
    page.wait_for_selector("#hand .hand-tile", timeout=15000)
    play_scripted({0: page}, hand)
    page.wait_for_selector("#settle-row-0", timeout=30000)
    return hand


def test_who_was_ready_is_marked(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    """A 黄庄 with 查叫 (spec §12): each seat's row says 叫牌 / 未叫 as the settlement's
    ``ready`` has it, and a line says why the hand paid what it paid (no 豆 or 鸡 on a 黄庄;
    the seats not ready pay the ready ones). In English too."""
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:

        def cha_jiao(h: Hand) -> bool:
            s = h.settlement
            return s["result"] == "huang_zhuang" and 0 < len(s["ready"]) < 4

        hand = settled_hand(page, live, "叫", cha_jiao, "ready")
        s = hand.settlement
        marks = [
            page.locator(f"#settle-row-{i} .badge[data-ready]").get_attribute("data-ready")
            for i in range(4)
        ]
        assert marks == [str(i in s["ready"]).lower() for i in range(4)]
        texts = [page.locator(f"#settle-row-{i} .badge[data-ready]").inner_text() for i in range(4)]
        assert texts == ["叫牌" if i in s["ready"] else "未叫" for i in range(4)]
        note = page.locator("#settle-huang")
        assert note.get_attribute("data-why") == "huang_cha_jiao"
        assert note.inner_text() == "黄庄不算豆和鸡；未叫的赔给叫牌的（查叫）"
        assert {p["reason"] for p in s["payments"]} <= {"cha_jiao", "cha_que"}
        _shots(page, shots_dir, "settlement-ready-marks")
        page.click("#lang-toggle")
        assert page.locator("#settle-row-0 .badge[data-ready]").inner_text() in (
            "ready (叫牌)",
            "not ready (未叫)",
        )
        assert "each seat not ready pays each ready seat" in note.inner_text()
        page.click("#lang-toggle")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _each_line_says(page: Any, seat: int, reason: str, way: str, texts: dict[int, str]) -> Any:
    """Seat ``seat``'s ``reason`` group of 各家明细 (``way`` "in" / "out") with a line per
    other seat saying that seat's own ``texts[other]`` beside its name, none under the title
    (one text there read as if it were every line's); each other seat's own group of that
    reason says its text under its title. Returns the group."""
    page.locator("#settle-explain").scroll_into_view_if_needed()
    group = page.locator(
        f'#settle-explain .settle-seat[data-seat="{seat}"]'
        f' .sgroup[data-reason="{reason}"][data-dir="{way}"]'
    )
    assert group.locator(".sg-sub").count() == 0
    lines = group.locator(".sg-other").evaluate_all(
        "els => els.map(e => [Number(e.dataset.seat), e.textContent])"
    )
    assert sorted(s for s, _ in lines) == sorted(texts)
    for other, text in lines:
        assert f"({texts[other]}) · " in text, (other, text)
    back = "in" if way == "out" else "out"
    for other, text in texts.items():
        sub = page.locator(
            f'#settle-explain .settle-seat[data-seat="{other}"]'
            f' .sgroup[data-reason="{reason}"][data-dir="{back}"] .sg-sub'
        ).inner_text()
        assert sub == text, (other, sub)
    return group


#: The hand types' names as the settlement says them (web/i18n.js HAND_TYPES).
HAND_TYPES_ZH = {
    "ping_hu": "平胡",
    "da_dui_zi": "大对子",
    "qi_dui": "七对",
    "long_qi_dui": "龙七对",
    "dan_diao": "单吊",
    "qing_yi_se": "清一色",
    "qing_da_dui": "清大对",
    "qing_qi_dui": "清七对",
    "qing_long_bei": "青龙背",
    "qing_dan_diao": "清单吊",
}


def _cha_jiao_of_unequal_values(hand: Hand) -> tuple[int, dict[int, str]] | None:
    """A 黄庄 where a seat not ready pays ready seats of different values: (that seat,
    {ready seat: "叫牌 <best hand> N番[ +连庄 K]"}), else None."""
    s = hand.settlement
    if s["result"] != "huang_zhuang":
        return None
    by: dict[int, dict[int, str]] = {}
    for p in s["payments"]:
        if p["reason"] == "cha_jiao":
            d = p["detail"]
            streak = f" +连庄 {d['streak']}" if d.get("streak") else ""
            text = f"叫牌 {HAND_TYPES_ZH[d['ready_type']]} {d['ready_value']}番{streak}"
            by.setdefault(p["from"], {})[p["to"]] = text
    return next(((who, m) for who, m in by.items() if len(set(m.values())) > 1), None)


def test_cha_jiao_names_each_ready_seats_value(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """查叫 (spec §12): a seat not ready pays each ready seat that seat's own 番; its
    line in 各家明细 says the value beside each payee when they differ (one value under
    the title read as if all three were paid for it), and a ready seat's line says its own."""
    ctx, page = new_page(browser, *SIZES["phone"])
    try:

        def unequal(h: Hand) -> bool:
            return _cha_jiao_of_unequal_values(h) is not None

        hand = settled_hand(page, live, "查叫", unequal, "ready")
        found = _cha_jiao_of_unequal_values(hand)
        assert found is not None
        payer, values = found
        out = _each_line_says(page, payer, "cha_jiao", "out", values)
        out.screenshot(path=str(shots_dir / "settlement-cha-jiao-values-375.png"))
        assert "[object" not in page.inner_text("#settle-explain")  # every line, any reason
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _cha_que_of_unequal_counts(hand: Hand) -> tuple[int, dict[int, str]] | None:
    """A hand where a seat is paid 查缺 by seats of different void suits or counts: (that
    seat, {payer: "缺X · 缺门 N张"}), else None."""
    by: dict[int, dict[int, str]] = {}
    for p in hand.settlement["payments"]:
        if p["reason"] == "cha_que":
            d = p["detail"]
            suit = {"m": "万", "p": "筒", "s": "条"}[d["suit"]]
            by.setdefault(p["to"], {})[p["from"]] = f"缺{suit} · 缺门 {d['tiles']}张"
    return next(((who, m) for who, m in by.items() if len(set(m.values())) > 1), None)


def _mo_da(state: Any, seat: int) -> Any:
    """摸打: a seat that passes every claim and discards each tile it draws (a player who
    keeps its void suit's tiles to the end), its void suit chosen as on time-out."""
    game = find_game("guiyang")
    legal = game.legal_actions(state, seat)
    kinds = {a.kind for a in legal}
    if "ding_que" in kinds:
        return game.default_action(state, seat)
    if "pass" in kinds:
        return next(a for a in legal if a.kind == "pass")
    discards = [a for a in legal if a.kind == "discard"]
    drawn = state.drawn[seat]
    same = [a for a in discards if drawn is not None and a.tile == TILE_NAMES[drawn]]
    return (same or discards)[-1]


def test_cha_que_names_each_payers_void_tiles(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """查缺 (spec §9.4): a seat still holding its void suit's tiles pays each ready seat one
    a tile; the ready seat paid by two says each payer's suit and count beside its name
    (the first payer's count was shown under the title, as if both held that many). Two
    humans of a 三丁拐 room keep their void tiles (摸打); the bot gets ready."""
    ctx0, p0 = new_page(browser, *SIZES["phone"])
    ctx1, p1 = new_page(browser, *SIZES["desktop"])
    try:
        code = create_room(p0, live.base, "甲", players=3)
        join_room(p1, live.base, code, "乙")

        def unequal(h: Hand) -> bool:
            return _cha_que_of_unequal_counts(h) is not None

        options = live.room(code)["options"]
        hand = find_seed(options, unequal, prefix="que", policy={0: _mo_da, 1: _mo_da})
        live.fix_seeds(code, [hand.seed])
        add_bots(p0)
        for page in (p0, p1):
            page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: p0, 1: p1}, hand)
        p0.wait_for_selector("#settle-row-0", timeout=30000)
        found = _cha_que_of_unequal_counts(hand)
        assert found is not None
        payee, texts = found
        got = _each_line_says(p0, payee, "cha_que", "in", texts)
        got.screenshot(path=str(shots_dir / "settlement-cha-que-counts-375.png"))
        assert not p0.errors and not p1.errors, (p0.errors, p1.errors)  # type: ignore[attr-defined]
    finally:
        ctx0.close()
        ctx1.close()


def test_a_robbed_kong_is_explained_as_one(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    """抢杠 (spec §8.4) is valued as a self-draw: the winner's parts say 抢杠（按自摸）, not
    自摸, which read as if the winner had drawn the tile."""
    ctx, page = new_page(browser, *SIZES["phone"])
    try:

        def robbed(h: Hand) -> bool:
            s = h.settlement
            return s["result"] == "win" and s["win_kind"] == "qiang_gang"

        hand = settled_hand(page, live, "抢杠", robbed, "rob")
        (winner,) = hand.settlement["winners"]
        part = page.locator(
            f'#settle-explain .settle-seat[data-seat="{winner}"]'
            ' .sgroup[data-reason="hu"][data-dir="in"] .part[data-name="zi_mo"]'
        )
        assert part.inner_text() == "+抢杠（按自摸） 1"
        page.click("#lang-toggle")
        assert part.inner_text() == "+robbed kong (as self-draw) 1"
        page.click("#lang-toggle")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def check_last_discard_after_reload(page: Any, last: dict[str, int]) -> None:
    """Reload ``page`` on its turn to discard: the river tile the view's ``river_last``
    names (``{"seat", "index"}``, seat 0 the page's) is marked again, and no other."""
    page.reload()
    page.wait_for_selector("#hand .hand-tile.playable", timeout=15000)
    seat = last["seat"]
    river = "#my-river" if seat == 0 else f'#opponents .seat-panel[data-seat="{seat}"] .river'
    page.wait_for_selector(f"{river} .tile.last-discard", timeout=5000)
    idx = page.locator(f"{river} .tile").evaluate_all(
        "els => els.findIndex(e => e.classList.contains('last-discard'))"
    )
    assert idx == last["index"]
    assert page.locator(".tile.last-discard").count() == 1


def _added_kong_by(seat: int) -> Any:
    """``want`` for `find_seed`: ``seat`` adds the fourth tile to its pong on its turn."""

    def added_kong(hand: Hand) -> bool:
        return any(_is_added_kong(st, seat) for st in hand.of(seat))

    return added_kong


def _is_added_kong(st: Step, seat: int) -> bool:
    a = st.action
    melds = st.view["seats"][seat]["melds"]
    return (
        a["kind"] == "kong"
        and st.view["phase"] == "turn"
        and any(m["kind"] == "pong" and m["tiles"][0] == a.get("tile") for m in melds)
    )


def check_added_kong_centre(page: Any, hand: Hand, name: str) -> None:
    """Play ``hand`` (seat 0 adds a kong) on ``page``: after the kong the centre no longer
    shows the last discard beside "X 杠" (it read as a kong of that discard), and the event
    line names the kong ``name`` (转弯豆 / 补杠)."""
    seen = {"after": False, "checked": 0}

    def check(p: Any, seat: int, st: Step) -> None:
        if seen["after"]:
            seen["after"] = False
            assert p.locator("#last-discard .center-tile").count() == 0
            line = p.locator("#event-line").inner_text()
            assert name in line or "补花" in line, line
            seen["checked"] += 1
        if _is_added_kong(st, seat):
            seen["after"] = True

    play_scripted({0: page}, hand, check)
    assert seen["checked"]


def test_after_an_added_kong_the_centre_shows_the_kong_not_the_old_discard(
    live: LiveServer, browser: Any
) -> None:
    ctx, page = new_page(browser, *SIZES["desktop"])
    try:
        code = create_room(page, live.base, "阿强")
        hand = find_seed(live.room(code)["options"], _added_kong_by(0), prefix="addkong")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        check_added_kong_centre(page, hand, "转弯豆")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
