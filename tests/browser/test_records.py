"""战绩 in the browser (issue 14): a player plays a hand with bots, opens 战绩, opens the room,
opens the hand and sees the ledger's deltas (in the table's settlement renderer), the charts
are drawn; the player code brings the same profile back in a second browser context; the
pages keep the Content-Security-Policy."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from conftest import ADMIN_TOKEN, LiveServer
from scripted import Hand, find_seed
from test_live import add_bots, as_rows, create_room, new_page, payment_rows, play_scripted
from test_replay_viewer import OK, _play_to_end, _store_jintan_hand, _viewer_rows


def _short_win(hand: Hand) -> bool:
    """A win soon for seat 0 to play, by a seat with a meld (战绩 must show it)."""
    s = hand.settlement
    return (
        s["result"] == "win" and len(hand.of(0)) <= 14 and any(s["melds"][w] for w in s["winners"])
    )


def _nets(ledger: list[dict[str, Any]], n: int = 4) -> list[int]:
    net = [0] * n
    for p in ledger:
        net[p["from"]] -= p["points"]
        net[p["to"]] += p["points"]
    return net


def _shots(page: Any, shots: Path, name: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / f"{name}-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 812})
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / f"{name}-375.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, (name, width)
    # nor hidden inside: no table scrolled sideways, no seat's name cut in a heading
    hidden = page.evaluate(
        "[...document.querySelectorAll('#records .scroll-x, #record-hands th')]"
        ".filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1)"
        ".map(e => e.id || e.className || e.textContent)"
    )
    assert not hidden, (name, hidden)
    # a chart's x labels side by side, none over the next
    overlaps = page.evaluate(
        """[...document.querySelectorAll('#records svg.chart')].flatMap((svg) => {
          const boxes = [...svg.querySelectorAll('text.xtick')].map((e) => e.getBBox())
            .sort((a, b) => a.x - b.x);
          return boxes.slice(1).filter((b, k) => b.x < boxes[k].x + boxes[k].width)
            .map((b) => svg.id);
        })"""
    )
    assert not overlaps, (name, overlaps)
    # every point between two labelled grid lines (a phone's chart of -16..19 was labelled
    # only 0 and 20: its losses stood below the last label)
    outside = page.evaluate(
        """[...document.querySelectorAll('#records svg.chart')].flatMap((svg) => {
          const ys = [...svg.querySelectorAll('line.grid, line.zero')]
            .map((l) => +l.getAttribute('y1'));
          const labels = svg.querySelectorAll('text.tick:not(.xtick)').length;
          const pts = [...svg.querySelectorAll('polyline')].flatMap((p) =>
            p.getAttribute('points').split(' ').map((xy) => +xy.split(',')[1]));
          const out = pts.filter((y) => y < Math.min(...ys) - 0.5 || y > Math.max(...ys) + 0.5);
          return out.length || labels !== ys.length ? [svg.id] : [];
        })"""
    )
    assert not outside, (name, outside)
    # hand numbers at an even step (1 2 3 / 2 4 6 ...), then the last: never "2 3 5 6 8"
    for labels in page.locator("#records svg.chart").evaluate_all(
        "svgs => svgs.map(svg => [...svg.querySelectorAll('text.xtick')].map(e => e.textContent))"
    ):
        labels = [x for x in labels if x]  # (the start of a room's chart has none)
        if all(x.isdigit() for x in labels) and len(labels) > 2:
            steps = [int(b) - int(a) for a, b in zip(labels, labels[1:], strict=False)]
            assert len(set(steps[:-1])) == 1 and 0 < steps[-1] <= 2 * steps[0], (name, labels)
    page.set_viewport_size({"width": 1280, "height": 800})


def _seed_session(live: LiveServer, code: str, profile_id: int, hands: int) -> list[Any]:
    """A finished room of ``hands`` bot-played hands with the profile in seat 0, stored
    directly."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from server.store import Store
    from tests.store.test_profiles import seat_room

    async def run() -> list[Any]:
        store = Store(live.database_url)
        try:
            seats = [("小明", profile_id), ("Bot South", None), ("Bot West", None)]
            played = await seat_room(store, code, [*seats, ("Bot North", None)], hands)
            await store.set_room_status(code, "finished")  # the session is over
            return played
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as pool:  # Playwright holds the main thread's loop
        return pool.submit(asyncio.run, run()).result()


def test_records_of_a_hand_played_and_the_player_code(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    ctx, page = new_page(browser, height=800)
    ctx2 = None
    try:
        page.goto(live.base + "/")
        page.wait_for_selector("#profile-line:not([hidden])")
        code_shown = page.locator("#player-code").inner_text()
        assert len(code_shown) == 23 and code_shown.count("-") == 3
        _shots(page, shots_dir, "records-lobby-profile")

        code = create_room(page, live.base, "小明")
        options = live.room(code)["options"]
        hand = find_seed(options, _short_win, prefix="records")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        ledger = [r for r in live.ledger(code) if r["hand_no"] == 1]
        nets = _nets(ledger)
        assert nets == hand.settlement["deltas"]
        seats = live.room(code)["seats"]
        assert [s["bot"] for s in seats] == [False, True, True, True]
        # the seat is the profile's: the admin finds the room by the profile id
        profile = page.evaluate("JSON.parse(localStorage.getItem('gy.profile'))")
        assert profile["code"] == code_shown and profile["name"] == "小明"
        by_profile = live.get(f"/api/admin/rooms?profile={profile['id']}", admin=True)["rooms"]
        assert [r["code"] for r in by_profile] == [code]

        # the admin console finds the player's hands by "#<profile id>"
        admin = ctx.new_page()
        admin.goto(f"{live.base}/admin")
        admin.fill("#token", ADMIN_TOKEN)
        admin.click("#login button")
        admin.wait_for_selector("#console", state="visible")
        admin.select_option("#list", "player")
        admin.fill("#name", f"#{profile['id']}")
        with admin.expect_response(lambda r: "/api/admin/player/hands" in r.url) as resp:
            admin.click("#query button[type=submit]")
        assert f"profile={profile['id']}" in resp.value.url
        assert [r["room"] for r in resp.value.json()["rows"]] == [code]
        admin.close()

        # an earlier-style session of six hands for the same profile (for the charts)
        six = _seed_session(live, "SIXHND", profile["id"], 6)
        # its second hand voided by the admin: it counts nowhere (已打5局, 共7局 of 8 played)
        live.post("/api/admin/rooms/SIXHND/hands/2/void", {"reason": "misdeal"}, admin=True)
        # and 5 points of its third hand moved from seat 1 to seat 0: they count, marked
        fix = {"from": 1, "to": 0, "points": 5, "reason": "wrong 鸡 counted"}
        live.post("/api/admin/rooms/SIXHND/hands/3/adjustments", fix, admin=True)

        # 战绩: the room with its four names and standings, the running total
        page.goto(live.base + "/?records")
        row = page.locator(f'#records-rooms .rec-room[data-code="{code}"]')
        row.wait_for()
        totals = row.locator(".rec-seats li").evaluate_all(
            "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.total)])"
        )
        # each seat's total, listed from the best (ties by seat), as the apps' 战绩
        order = sorted(range(4), key=lambda i: (-nets[i], i))
        assert totals == [[i, nets[i]] for i in order]
        names = row.locator(".rec-seats .name").all_inner_texts()
        # bots named as at the table (机器人2 ...), not by the server's "Bot South"
        seat_names = ["小明 (我)", "机器人2", "机器人3", "机器人4"]
        assert names == [seat_names[i] for i in order]
        bots = row.locator(".rec-seats li").evaluate_all("els => els.map(e => e.dataset.bot)")
        assert bots == [str(i != 0).lower() for i in order]
        assert row.locator(".rec-seats .badge").count() == 0  # the names say 机器人
        opts = row.locator(".rec-opts").inner_text()
        assert "贵阳捉鸡" in opts and opts.endswith("· 已打1局"), opts  # played, not "· 1 局"
        page.wait_for_selector("#total-chart")
        codes = page.locator("#records-rooms .rec-room").evaluate_all(
            "els => els.map(e => e.dataset.code)"
        )
        assert codes == ["SIXHND", code]
        total = page.locator("#total-line")
        want_total = nets[0] + sum(s["deltas"][0] for k, s in enumerate(six) if k != 1) + 5
        assert total.get_attribute("data-total") == str(want_total)
        assert total.get_attribute("data-hands") == "6"
        assert total.inner_text().startswith("共6局 · 累计"), total.inner_text()
        six_opts = page.locator('#records-rooms .rec-room[data-code="SIXHND"] .rec-opts')
        assert six_opts.inner_text().endswith("· 已打5局"), six_opts.inner_text()
        last = page.locator("#total-chart g.series").get_attribute("data-last")
        assert last == str(want_total)
        # 0, then 7 hands (the voided one flat)
        assert page.locator("#total-chart g.series circle").count() == 8
        assert page.locator("#records-code").inner_text() == code_shown
        _shots(page, shots_dir, "records-list")

        # the room: each hand's deltas, the standings chart; the replay button's place
        row.click()
        hand_row = page.locator('#record-hands tr.rec-hand[data-hand-no="1"]')
        hand_row.wait_for()
        assert hand_row.get_attribute("data-deltas") == ",".join(map(str, nets))
        # how it ended: the win's kind under the hand's number, the winner's cell marked 胡
        # (and a dealer-in's 炮)
        st = hand.settlement
        assert hand_row.get_attribute("data-result") == st["win_kind"]
        word = {"zi_mo": "自摸", "dian_pao": "点炮", "gang_kai": "杠上开花", "qiang_gang": "抢杠"}
        assert hand_row.locator(".rec-result").inner_text() == word[st["win_kind"]]
        roles = hand_row.locator("td.num").evaluate_all("els => els.map(e => e.dataset.role || '')")
        assert roles == [
            "won" if i in st["winners"] else "dealt_in" if i == st["loser"] else ""
            for i in range(4)
        ]
        assert page.locator("#standings-chart g.series").count() == 4
        final = page.locator("#record-hands tfoot td[data-seat]").all_inner_texts()
        assert final == [f"+{d}" if d > 0 else str(d) for d in nets]
        # 最终 only for a session that is over; this one goes on: the standings so far
        assert row.get_attribute("data-status") in ("playing", "between")
        assert page.locator("#record-hands tfoot td").first.inner_text() == "目前"
        replay_href = hand_row.locator("a.replay").get_attribute("href")
        assert replay_href and replay_href.startswith("/replay?hand=")
        _shots(page, shots_dir, "records-room")

        # one hand: the settlement as at the table, the ledger's numbers
        hand_row.locator("button.view-hand").click()
        page.wait_for_selector("#settlement-overlay:not([hidden]) #settle-row-0")
        shown = page.locator("#settle-totals tr.settle-row").evaluate_all(
            "els => els.map(e => Number(e.dataset.delta))"
        )
        assert shown == nets
        assert as_rows(
            [
                dict(zip(("from", "to", "points", "reason"), r, strict=True))
                for r in payment_rows(page)
            ]
        ) == as_rows(ledger)
        assert page.locator("#ready-btn").is_hidden()
        # the winning hand whole, its melds too (no table view beside a stored settlement)
        for w in hand.settlement["winners"]:
            laid = page.locator(f'#settlement-overlay .win-hand[data-seat="{w}"] .meld')
            kinds = laid.evaluate_all("els => els.map(e => e.dataset.kind)")
            assert kinds == [m["kind"] for m in hand.settlement["melds"][w]]
        page.locator("#settle-hands summary").click()  # 各家手牌: every seat's melds too
        laid = page.locator("#settle-hands .settle-hand .meld").count()
        assert laid == sum(len(m) for m in hand.settlement["melds"]) > 0
        # 验证 checks the seed against the hash the deal published, as at the table (it said
        # the hash differed: the stored hand's view had none), with this hand's dealer
        page.click("#settle-fair summary")
        page.click("#settle-verify .verify-btn")
        page.wait_for_selector("#settle-verify[data-ok]")
        assert page.locator("#settle-verify .verify-result").inner_text() == OK, page.locator(
            "#settle-verify .verify-result"
        ).inner_text()
        _shots(page, shots_dir, "records-hand")
        page.locator("#settle-hands").screenshot(path=str(shots_dir / "records-hand-melds-375.png"))
        page.click("#settlement-close")
        page.wait_for_selector("#settlement-overlay", state="hidden")

        # 回放 from 战绩: the hand watched to its end; the replayed settlement is the ledger's
        viewer = page.context.new_page()
        viewer.goto(live.base + replay_href)
        _play_to_end(viewer)
        assert Counter(map(tuple, _viewer_rows(viewer))) == as_rows(ledger)
        assert viewer.get_attribute("#rp-ledger", "data-ok") == "true"
        viewer.close()

        # the six-hand session: the standings after each hand, drawn and tabled
        page.click("#records-back-rooms")
        page.locator('#records-rooms .rec-room[data-code="SIXHND"]').click()
        page.locator('#record-hands tr.rec-hand[data-hand-no="6"]').wait_for()
        rows = page.locator("#record-hands tr.rec-hand").evaluate_all(
            "els => els.map(e => e.dataset.deltas)"
        )
        counted = [[0] * 4 if k == 1 else list(s["deltas"]) for k, s in enumerate(six)]
        counted[2][0] += 5
        counted[2][1] -= 5
        assert rows == [",".join(map(str, d)) for d in counted]
        # the adjusted hand's two cells are marked 调, and a line says what moved
        adjusted = page.locator('#record-hands tr.rec-hand[data-hand-no="3"] td[data-adjusted]')
        assert adjusted.evaluate_all("els => els.map(e => e.dataset.adjusted)") == ["5", "-5"]
        assert adjusted.locator(".rec-mark.adjusted").all_inner_texts() == ["调", "调"]
        assert page.locator(".rec-adjusted").all_inner_texts() == [
            "调：第3局管理员调整了积分（小明 +5；机器人2 -5），表中已计入"
        ]
        voided = page.locator('#record-hands tr.rec-hand[data-hand-no="2"]')
        assert "voided" in (voided.get_attribute("class") or "")
        assert voided.locator("td.num").all_inner_texts() == ["作废"] * 4
        final = page.locator("#record-hands tfoot td[data-seat]").all_inner_texts()
        assert page.locator("#record-hands tfoot td").first.inner_text() == "最终"
        sums = [sum(d[i] for d in counted) for i in range(4)]
        assert final == [f"+{d}" if d > 0 else str(d) for d in sums]
        lasts = page.locator("#standings-chart g.series").evaluate_all(
            "els => els.map(e => Number(e.dataset.last))"
        )
        assert lasts == sums
        _shots(page, shots_dir, "records-session")
        # in English too: longer words ("self-draw (自摸)") pushed 查看 out of the card
        page.click("#lang-toggle")
        page.wait_for_function("document.documentElement.lang === 'en'")
        _shots(page, shots_dir, "records-session-en")
        page.click("#lang-toggle")
        page.wait_for_function("document.documentElement.lang !== 'en'")
        # a chart of big numbers (an admin's adjustment may move 1,000,000) keeps its y labels
        # whole inside it: none starts left of the chart (they were cut to "00000")
        leftmost = page.evaluate(
            """async () => {
              const m = await import('./records.js');
              const svg = m.lineChart([{label: 'a', values: [0, 1000000, -1000000], cls: ''}],
                                      {width: 343});
              document.body.append(svg);
              const xs = [...svg.querySelectorAll('text.tick')].map((t) => t.getBBox().x);
              svg.remove();
              return Math.min(...xs);
            }"""
        )
        assert leftmost >= 0, leftmost
        # the session's last hand names no next dealer (there is none); an earlier one does
        # the adjusted hand's settlement says what its totals count beyond its own numbers
        page.locator('#record-hands tr.rec-hand[data-hand-no="3"] button.view-hand').click()
        page.wait_for_selector("#settlement-overlay:not([hidden]) #settle-row-0")
        assert page.inner_text("#settle-corrected") == (
            "管理员调整了这一局：小明 +5；机器人2 -5（总分已计入）"
        )
        page.click("#settlement-close")
        page.wait_for_selector("#settlement-overlay", state="hidden")
        for no, says in ((5, True), (6, False)):
            page.locator(f'#record-hands tr.rec-hand[data-hand-no="{no}"] button.view-hand').click()
            page.wait_for_selector("#settlement-overlay:not([hidden]) #settle-row-0")
            assert ("下局庄家" in page.inner_text("#settlement-overlay")) is says, no
            page.click("#settlement-close")
            page.wait_for_selector("#settlement-overlay", state="hidden")
        # a Jintan room: its rules as its table lists them; each rank says it is one
        jt = _store_jintan_hand(live.database_url, "records-jt", "JTREC", profile["id"])
        jt_total = jt["settlement"]["deltas"][0]
        page.goto(live.base + "/?records")
        jt_row = page.locator('#records-rooms .rec-room[data-code="JTREC"]')
        jt_row.wait_for()
        assert jt_row.locator(".rec-opts").inner_text() == (
            "金坛麻将 · 底数 10 · 花分值 5 · 可吃 · 8局 · 时间银行 20s · 已打1局"
        )  # the defaults (jintan.md §J1), the time bank too
        ranks = jt_row.locator(".rec-seats li").evaluate_all(
            "els => els.map(e => [e.dataset.rank, e.querySelector('.rank').textContent,"
            " Number(e.dataset.seat)])"
        )
        assert [text for _, text, _ in ranks] == [f"第{rank}名" for rank, _, _ in ranks]
        deltas = jt["settlement"]["deltas"]
        want = sorted((1 + sum(d > deltas[i] for d in deltas), i) for i in range(4))
        # listed by rank (then seat), each seat with its own
        assert [(int(rank), seat) for rank, _, seat in ranks] == want
        # the running total is one per game: Jintan's points are not added to Guiyang's
        # (drawn from its own request: waited for, not read as the rooms' list arrives)
        page.locator('#total-line .total-game[data-game="jintan"]').wait_for()
        totals = page.locator("#total-line .total-game").evaluate_all(
            "els => els.map(e => [e.dataset.game, Number(e.dataset.total),"
            " Number(e.dataset.hands)])"
        )
        assert totals == [["guiyang", want_total, 6], ["jintan", jt_total, 1]]
        assert page.locator("#total-line").get_attribute("data-total") is None
        assert page.locator("#total-chart g.series").count() == 2
        _shots(page, shots_dir, "records-jintan")
        assert not page.errors, page.errors  # type: ignore[attr-defined]

        # another device: a fresh profile at first, then the player code brings this one back
        ctx2, page2 = new_page(browser, width=375, height=812, is_mobile=True, has_touch=True)
        page2.goto(live.base + "/")
        page2.wait_for_selector("#profile-line:not([hidden])")
        fresh = page2.evaluate("JSON.parse(localStorage.getItem('gy.profile'))")
        assert fresh["id"] != profile["id"]
        page2.click("#restore-open")
        page2.fill("#restore-code", code_shown.lower().replace("-", " "))
        page2.screenshot(path=str(shots_dir / "records-restore-375.png"), full_page=True)
        page2.click("#restore-btn")
        page2.wait_for_selector("#restore-msg:not([hidden])")
        assert "小明" in page2.locator("#restore-msg").inner_text()
        restored = page2.evaluate("JSON.parse(localStorage.getItem('gy.profile'))")
        assert (restored["id"], restored["code"]) == (profile["id"], code_shown)
        assert page2.locator("#player-code").inner_text() == code_shown
        assert page2.locator("#name").input_value() == "小明"
        page2.goto(live.base + "/?records")
        page2.locator(f'#records-rooms .rec-room[data-code="{code}"]').wait_for()
        guiyang_total = page2.locator('#total-line .total-game[data-game="guiyang"]')
        assert guiyang_total.get_attribute("data-total") == str(want_total)
        assert not page2.errors, page2.errors  # type: ignore[attr-defined]
        ctx2.close()

        # a wrong code changes nothing
        ctx2, page2 = new_page(browser)
        page2.goto(live.base + "/")
        page2.wait_for_selector("#profile-line:not([hidden])")
        before = page2.evaluate("localStorage.getItem('gy.profile')")
        page2.click("#restore-open")
        page2.fill("#restore-code", "BBBBB-BBBBB-BBBBB-BBBBB")
        page2.click("#restore-btn")
        page2.wait_for_selector("#restore-msg[data-kind='error']")
        assert page2.evaluate("localStorage.getItem('gy.profile')") == before
    finally:
        ctx.close()
        if ctx2 is not None:
            ctx2.close()


def test_records_pages_keep_the_csp(live: LiveServer, browser: Any) -> None:
    """With the policy enforced (no bypass), the lobby and 战绩 load without a violation."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN")
    try:
        page = ctx.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(live.base + "/")
        page.wait_for_selector("#profile-line:not([hidden])")
        page.goto(live.base + "/?records")
        page.wait_for_selector("#records:not([hidden]) #records-code:not(:empty)")
        page.wait_for_selector("#records-chart p, #total-chart")
        assert problems == []
    finally:
        ctx.close()


def test_seats_from_before_profiles_are_claimed_by_the_browser(
    live: LiveServer, browser: Any
) -> None:
    """A browser that holds the token of a seat taken before profiles existed (localStorage
    gy.seat.<code>) claims it for its profile: the room appears in 战绩."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from server.room.manager import hash_token
    from server.store import Store

    async def seed() -> None:
        store = Store(live.database_url)
        try:
            await store.create_room("OLDBRW", "guiyang", {"players": 4, "hands": 8})
            await store.add_player("OLDBRW", 0, "老王", hash_token("old-seat-token"), False)
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as pool:  # Playwright holds the main thread's loop
        pool.submit(asyncio.run, seed()).result()
    ctx, page = new_page(browser)
    try:
        ctx.add_init_script(
            "localStorage.setItem('gy.seat.OLDBRW',"
            " JSON.stringify({seat: 0, token: 'old-seat-token'}))"
        )
        with page.expect_response(lambda r: r.url.endswith("/api/me/claim")) as resp:
            page.goto(live.base + "/")
        assert resp.value.status == 200 and resp.value.json() == {"room": "OLDBRW", "seat": 0}
        page.goto(live.base + "/?records")
        row = page.locator('#records-rooms .rec-room[data-code="OLDBRW"]')
        row.wait_for()
        assert row.locator(".rec-seats li.me .name").inner_text() == "老王 (我)"
        claimed = page.evaluate("JSON.parse(localStorage.getItem('gy.claimed'))")
        profile = page.evaluate("JSON.parse(localStorage.getItem('gy.profile'))")
        assert claimed == [f"{profile['id']}:OLDBRW"]
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()
