"""回放 and the seed's 验证 in Debian's Chromium (issues 13, 14).

* The page's wall rebuild (web/wall.js: CPython's MT19937 shuffle and the deal, ported) gives
  exactly the server's hands and wall (server/rules/dealing.py) for seeds of both games.
* A seat plays a scripted hand to its settlement, verifies the seed there, opens 回放 from
  the settlement, plays the replay to the end at the highest speed, and the replayed
  settlement shown equals the ledger; at 1280x800 and 375x812, with screenshots.
* The admin opens the same hand's replay from /admin's hand breakdown (no key: the token).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from conftest import ADMIN_TOKEN, LiveServer
from scripted import Hand, find_seed
from test_csp import WATCH, _csp_message
from test_live import add_bots, as_rows, create_room, new_page, payment_rows, play_scripted

from server.rules.dealing import roll_dice, seed_hash, shuffle_and_deal
from server.rules.registry import find_game
from tests.rules.test_replay_record import bot_steps

OK = "✓ 牌墙与开局公布的哈希一致"
SEEDS = [
    ("guiyang", "0f3a9c2e5b7d4e1f8a6b3c2d1e0f9a8b", 4, 0),
    ("guiyang", "seed-1", 3, 2),
    ("guiyang", "", 2, 1),
    ("guiyang", "贵阳捉鸡", 4, 3),
    ("jintan", "d41d8cd98f00b204e9800998ecf8427e", 4, 1),
    ("jintan", "jintan-7", 4, 0),
    ("jintan", "x" * 200, 4, 2),
]


def test_page_rebuilds_the_servers_wall_for_both_games(live: LiveServer, browser: Any) -> None:
    ctx = browser.new_context()  # the app's CSP in force: the module loads from 'self'
    try:
        page = ctx.new_page()
        page.goto(f"{live.base}/replay")  # no hand: the page says so, the module is there
        page.wait_for_selector("#rp-error:not([hidden])")
        got = page.evaluate(
            """async (cases) => {
                const w = await import('/wall.js');
                const out = [];
                for (const [game, seed, players, dealer] of cases) {
                  const deal = await w.rebuildDeal(game, seed, players, dealer);
                  out.push({ ...deal, hash: await w.seedHash(seed) });
                }
                return out;
            }""",
            [list(c) for c in SEEDS],
        )
        for (game, seed, players, dealer), js in zip(SEEDS, got, strict=True):
            hands, wall = shuffle_and_deal(list(find_game(game).tile_set), seed, players, dealer)
            assert js["hands"] == hands, (game, seed)
            assert js["wall"] == wall, (game, seed)
            assert js["hash"] == seed_hash(seed)
            assert len(wall) + sum(map(len, hands)) == len(find_game(game).tile_set)
        # a wrong published hash or a deal that differs is reported, not passed
        bad = page.evaluate(
            """async () => {
                const w = await import('/wall.js');
                const wrongHash = await w.checkSeed({ game: 'guiyang', seed: 'a',
                  publishedHash: '00', players: 4, dealer: 0 });
                const real = await w.rebuildDeal('guiyang', 'a', 4, 0);
                const otherDeal = await w.checkSeed({ game: 'guiyang', seed: 'b',
                  publishedHash: await w.seedHash('b'), players: 4, dealer: 0, deal: real });
                return [w.verdictText(wrongHash), wrongHash.ok,
                        w.verdictText(otherDeal), otherDeal.ok];
            }"""
        )
        assert bad == [
            "✗ 种子的哈希与开局公布的哈希不一致",
            False,
            "✗ 页面重建的牌墙与服务器的回放不一致",
            False,
        ]
    finally:
        ctx.close()


def _won_with_a_pass(hand: Hand) -> bool:
    """A won hand with a chicken paid, in which the human seat 0 passes a claim at least once."""
    return (
        hand.settlement["result"] == "win"
        and any(p["reason"] == "ji" for p in hand.settlement["payments"])
        and any(s.seat == 0 and s.action["kind"] == "pass" for s in hand.steps)
    )


def _viewer_rows(page: Any) -> list[tuple[int, int, int, str]]:
    return page.locator("#rp-payments tr.rp-payment").evaluate_all(
        "els => els.map(e => [Number(e.dataset.from), Number(e.dataset.to),"
        " Number(e.dataset.points), e.dataset.reason])"
    )


def _play_to_end(viewer: Any) -> None:
    """From the deal (⏮, disabled when already there) to the end at 32× speed."""
    viewer.wait_for_selector("body[data-at-end]")  # the replay is loaded and drawn
    if viewer.is_enabled("#rp-first"):
        viewer.click("#rp-first")
    viewer.wait_for_selector("body[data-at-end=false]")
    assert viewer.locator("#rp-count").inner_text().startswith("0 / ")
    viewer.select_option("#rp-speed", "32")
    viewer.click("#rp-play")
    viewer.wait_for_selector("body[data-at-end=true]", timeout=30000)
    viewer.wait_for_selector("#rp-settlement:not([hidden])")


def _no_overflow(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


def test_seat_verifies_the_seed_and_watches_the_replay_to_the_ledger(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    ctx, page = new_page(browser, width=1280, height=800)
    try:
        code = create_room(page, live.base, "回放")
        options = live.room(code)["options"]
        hand = find_seed(options, _won_with_a_pass, prefix="replay")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        ledger = [r for r in live.ledger(code) if r["hand_no"] == 1]
        assert as_rows(ledger) == as_rows(hand.settlement["payments"])
        assert Counter(map(tuple, payment_rows(page))) == as_rows(ledger)

        # 验证 in the table's settlement, folded under 牌局验证 until opened
        assert not page.locator("#settle-verify .verify-btn").is_visible()
        page.click("#settle-fair summary")
        page.click("#settle-verify .verify-btn")
        page.wait_for_selector("#settle-verify[data-ok]")
        assert page.locator("#settle-verify .verify-result").inner_text() == OK
        assert page.get_attribute("#settle-verify", "data-ok") == "true"
        wall = (page.locator("#settle-verify .verify-wall code").text_content() or "").split()
        hands, want_wall = shuffle_and_deal(list(find_game("guiyang").tile_set), hand.seed, 4, 0)
        assert wall == want_wall
        # (in one go: the settlement may be redrawn meanwhile, e.g. by the ready countdown)
        page.evaluate("document.querySelector('#settle-replay').scrollIntoView()")
        page.screenshot(path=str(shots_dir / "replay-table-settlement.png"))

        # 回放 from the settlement
        link = page.locator("#settle-replay")
        assert link.inner_text() == "回放"
        href = link.get_attribute("href") or ""
        assert href.startswith("/replay?hand=") and "&key=" in href and href.endswith("&seat=0")
        with ctx.expect_page() as popup:
            link.click()
        viewer = popup.value
        viewer.errors = []
        viewer.on("pageerror", lambda e: viewer.errors.append(str(e)))
        viewer.wait_for_selector("#rp-verify[data-ok]")
        assert viewer.locator("#rp-verify").inner_text() == OK
        # the game by the name the table gives it (once: the room and hand beside it)
        assert viewer.locator("#home-link").inner_text() == "贵阳捉鸡麻将"
        assert viewer.locator("#rp-info").inner_text() == f"房间 {code} · 第 1 局"
        # all four hands open at the deal: the dealt tiles of each seat
        for seat in range(4):
            tiles = viewer.locator(f"#rp-seat-{seat} .rp-hand .tile").evaluate_all(
                "els => els.map(e => e.dataset.tile)"
            )
            assert sorted(tiles) == sorted(hands[seat]), seat
        # the seats sit as at the table, this seat (0) at the bottom, 下家 right, 对家 top
        _assert_seats_around(viewer, {0: "bottom", 1: "right", 2: "top", 3: "left"})
        # and the deal's dice, as the table showed them (guiyang.md §2)
        dice = viewer.locator("#rp-dice .die").evaluate_all("els => els.map(e => +e.dataset.value)")
        assert tuple(dice) == roll_dice(hand.seed, 108)
        _play_to_end(viewer)
        assert Counter(map(tuple, _viewer_rows(viewer))) == as_rows(ledger)
        # a chicken's payment names its chicken and where it lies, as the table's
        # settlement does
        kinds = {"yao_ji": "幺鸡", "wu_gu_ji": "乌骨鸡", "fan_pai_ji": "翻牌鸡", "ben_ji": "本鸡"}
        where = {"hand": "手上", "meld": "碰杠里", "river": "河里"}
        want = sorted(
            f"鸡 · {'金鸡' if p['detail'].get('jin') else kinds[p['detail']['kind']]}"
            f" · {where[p['detail']['at']]}"
            for p in hand.settlement["payments"]
            if p["reason"] == "ji"
        )
        viewer.click("#rp-payments-box summary")  # the ledger's rows, folded at first
        shown = viewer.locator('#rp-payments tr.rp-payment[data-reason="ji"] .rp-reason')
        assert want and sorted(shown.all_inner_texts()) == want
        deltas = viewer.locator("#rp-deltas tr.rp-delta").evaluate_all(
            "els => els.map(e => Number(e.dataset.delta))"
        )
        assert deltas == hand.settlement["deltas"]
        # each seat's points by reason, summed from the ledger; each chicken line's tile
        for i in range(4):
            nets: Counter[str] = Counter()
            for p in hand.settlement["payments"]:
                nets[p["reason"]] += p["points"] * ((p["to"] == i) - (p["from"] == i))
            parts = viewer.locator(f'#rp-deltas tr.rp-delta[data-seat="{i}"] .sg-net')
            got = parts.evaluate_all(
                "els => els.map(e => [e.dataset.reason, Number(e.dataset.points)])"
            )
            assert dict(got) == {r: v for r, v in nets.items() if v}, (i, got)
        tiles = viewer.locator('#rp-payments tr.rp-payment[data-reason="ji"] .tile').count()
        assert tiles == len(want)
        assert viewer.get_attribute("#rp-ledger", "data-ok") == "true"
        steps = viewer.evaluate("window.__replay.frames.length") - 1
        assert viewer.locator("#rp-count").inner_text() == f"{steps} / {steps}"
        # each step in words: a claim window closing on the next draw names who draws what
        # (no raw label, no 裁定); the last step names the winner
        texts = viewer.locator("#rp-log li button").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
        assert not [x for x in texts if "act_" in x or "裁定" in x], texts
        draws = viewer.evaluate(
            "window.__replay.frames.map((f, i) => [i, f.step]).filter(([i, s]) => s &&"
            " s.seat === null && s.events[0] && s.events[0].type === 'draw')"
            ".map(([i, s]) => [i, s.events[0].seat, s.events[0].tile])"
        )
        assert draws
        names = {0: "回放", 1: "机器人2", 2: "机器人3", 3: "机器人4"}
        SUIT_NAMES = {"m": "万", "p": "筒", "s": "条"}  # noqa: N806
        for i, seat, tile in draws:
            name = "幺鸡" if tile == "1s" else f"{tile[0]}{SUIT_NAMES[tile[1]]}"
            assert texts[i] == f"{names[seat]} 摸 {name}", texts[i]
        winner = hand.settlement["winners"][0]
        assert texts[-1].startswith(names[winner]), texts[-1]
        # the settlement's winner line says how the hand won, as the table's does (· 自摸; the
        # winner of a discard 接炮, the payer's word being 点炮)
        how = {"zi_mo": "自摸", "dian_pao": "接炮", "gang_kai": "杠上开花", "qiang_gang": "抢杠"}
        line = viewer.locator("#rp-winners").inner_text()
        assert line.startswith("胡牌：") and f" · {how[hand.settlement['win_kind']]}" in line, line
        # step back shows the position before the end, with the seats' claim answers
        viewer.click("#rp-back")
        viewer.wait_for_selector("body[data-at-end=false]")
        assert viewer.locator("#rp-count").inner_text() == f"{steps - 1} / {steps}"
        viewer.click("#rp-fwd")
        viewer.wait_for_selector("body[data-at-end=true]")
        # the human's first pass is shown at its seat when stepped to it
        n = viewer.evaluate(
            "window.__replay.frames.findIndex(f => f.step && f.step.seat === 0"
            " && f.step.action.kind === 'pass')"
        )
        assert n > 0
        viewer.fill("#rp-pos", str(n))
        viewer.dispatch_event("#rp-pos", "input")
        viewer.wait_for_selector("#rp-seat-0 .rp-answer[data-answer=pass]")
        assert viewer.locator("#rp-seat-0 .rp-answer").inner_text() == "过"
        viewer.screenshot(path=str(shots_dir / "replay-1280-pass.png"))
        viewer.click("#rp-last")
        viewer.wait_for_selector("body[data-at-end=true]")
        viewer.screenshot(path=str(shots_dir / "replay-1280.png"), full_page=True)
        _no_overflow(viewer)

        viewer.set_viewport_size({"width": 375, "height": 812})
        _play_to_end(viewer)
        assert Counter(map(tuple, _viewer_rows(viewer))) == as_rows(ledger)
        _no_overflow(viewer)
        viewer.screenshot(path=str(shots_dir / "replay-375.png"), full_page=True)
        viewer.click("#rp-first")
        viewer.screenshot(path=str(shots_dir / "replay-375-start.png"))
        assert not viewer.errors, viewer.errors
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()

    # the admin: /admin -> the room -> the hand -> 回放 (no key, the token), CSP in force
    actx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        admin = actx.new_page()
        console: list[str] = []
        admin.on("console", lambda m: console.append(m.text))
        admin.add_init_script(WATCH)
        admin.goto(f"{live.base}/admin")
        admin.fill("#token", ADMIN_TOKEN)
        admin.click("#login button")
        admin.wait_for_selector("#console", state="visible")
        room_row = admin.locator("#rows tr", has_text=code).first
        # bots named as at the table (机器人2), not by the server's "Bot South"
        assert "机器人2" in room_row.inner_text() and "Bot " not in room_row.inner_text()
        room_row.click()
        admin.wait_for_selector(f"#count[data-room='{code}']")  # the room's hands
        admin.locator("#rows tr").nth(1).click()
        admin.wait_for_selector("#hand-replay-link:not([hidden])")
        assert "Bot " not in admin.locator("#hand").inner_text()
        console.clear()  # from here on: the viewer's messages only
        admin.click("#hand-replay-link")
        admin.wait_for_selector("#rp-verify[data-ok]")
        assert "key=" not in admin.url
        assert admin.locator("#rp-verify").inner_text() == OK
        _play_to_end(admin)
        assert Counter(map(tuple, _viewer_rows(admin))) == as_rows(ledger)
        admin.screenshot(path=str(shots_dir / "replay-admin.png"))
        # the viewer (tiles, controls, verify) needs nothing the CSP forbids
        assert admin.evaluate("window.__csp") == []
        assert [m for m in console if _csp_message(m)] == []
        # without the token and without a key: refused, said plainly
        other = browser.new_context().new_page()
        other.goto(f"{live.base}{href.split('&key=')[0]}")
        other.wait_for_selector("#rp-error:not([hidden])")
        assert other.get_attribute("#rp-error", "data-code") == "bad_key"
        other.context.close()
    finally:
        actx.close()


def _jintan_bot_hand(seed: str) -> tuple[list[Any], dict[str, Any]]:
    """The Jintan hand of ``seed`` (dealer 1) played by the bots: its steps and settlement."""
    steps, state = bot_steps("jintan", seed, dealer=1)
    return steps, find_game("jintan").settle(state).to_dict()


def _assert_seats_around(page: Any, want: dict[int, str]) -> None:
    """Each seat's panel has the position ``want`` gives it, and stands there: the bottom
    one below the top one, the left one left of the right one."""
    boxes = {}
    for seat, pos in want.items():
        panel = page.locator(f"#rp-seat-{seat}")
        assert panel.get_attribute("data-pos") == pos, (seat, pos)
        boxes[pos] = panel.bounding_box()
    if "top" in boxes:
        assert boxes["top"]["y"] < boxes["bottom"]["y"]
    if "left" in boxes:
        assert boxes["left"]["x"] < boxes["right"]["x"]
        assert boxes["left"]["y"] < boxes["bottom"]["y"]


def _store_jintan_hand(
    url: str, seed: str, code: str = "JTRP", profile_id: int | None = None
) -> dict[str, Any]:
    """A Jintan hand played by the bots and stored as the room stores it in room ``code``
    (seat 0 is ``profile_id``'s): its id, key and settlement (seeded from another thread:
    Playwright holds the main thread's loop)."""
    return _store_bot_hand(url, "jintan", seed, code, dealer=1, profile_id=profile_id)


def _store_bot_hand(
    url: str, game_name: str, seed: str, code: str, dealer: int, profile_id: int | None = None
) -> dict[str, Any]:
    """A hand of ``game_name`` dealt by ``dealer`` and played by the bots, stored as the
    room stores it in room ``code``: see :func:`_store_jintan_hand`."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from server.store import Store

    game = find_game(game_name)
    log, state = bot_steps(game_name, seed, dealer=dealer)
    settlement = game.settle(state).to_dict()

    async def run() -> dict[str, Any]:
        store = Store(url)
        try:
            await store.create_room(code, game_name, game.options({}).model_dump())
            for seat, name in enumerate(["甲", "乙", "丙", "丁"]):
                await store.add_player(
                    code, seat, name, "h", False, profile_id=profile_id if seat == 0 else None
                )
            started = await store.start_hand(code, 1, seed, dealer, 1)
            for idx, step in enumerate(log):
                await store.append_action(
                    code, 1, idx, step.seat, {"action": step.action.to_dict()}
                )
            assert await store.settle_hand(
                code,
                1,
                settlement["result"],
                settlement,
                settlement["payments"],
                settlement["deltas"],
            )
            return {"id": started.id, "key": started.replay_key, "settlement": settlement}
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def _open_replay(page: Any, live: LiveServer, hand: dict[str, Any], extra: str = "") -> None:
    """``page`` at 回放 of a stored ``hand`` (its id and key; ``extra``: more of the query),
    once the page has checked the wall and the ledger."""
    page.goto(f"{live.base}/replay?hand={hand['id']}&key={hand['key']}{extra}")
    page.wait_for_selector("#rp-verify[data-ok]")


def _step_texts(page: Any) -> list[str]:
    """回放's steps as its list reads them."""
    return page.locator("#rp-log li button").evaluate_all("els => els.map(e => e.textContent)")


def test_a_jintan_hand_replays_with_its_flowers(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    hand = _store_jintan_hand(live.database_url, "jintan-replay-1")
    ctx = browser.new_context(viewport={"width": 375, "height": 812})
    try:
        page = ctx.new_page()
        _open_replay(page, live, hand)
        assert page.locator("#rp-verify").inner_text() == OK
        assert page.locator("#home-link").inner_text() == "金坛麻将"  # not Guiyang's name
        assert page.title() == "回放 · 金坛麻将"
        # seat 0 (the default viewer) at the bottom, the others around it as at the table
        assert page.locator("#rp-seat-0").get_attribute("data-pos") == "bottom"
        # at the deal, its dice (guiyang.md §2, which §J applies), as the table showed them
        assert page.locator("#rp-dice .die").count() == 2
        flowers = page.locator(".rp-melds .tile.flower").count()
        laid = sum(len(s["flowers"]) for s in page.evaluate("window.__replay.data.initial.seats"))
        assert flowers == laid == 2  # 5f and 4f laid at the deal (§J2)
        # a step that laid flowers open says so: "乙 补花 春"
        said = page.evaluate(
            """() => window.__replay.frames.flatMap((f, i) => (f.step ? f.step.events : [])
                .filter((e) => e.type === 'flower').map((e) => [i, e.seat, e.tile]))"""
        )
        assert said  # this seed draws flowers during play
        names = {"1f": "春", "2f": "夏", "3f": "秋", "4f": "冬"}
        names |= {"5f": "梅", "6f": "兰", "7f": "竹", "8f": "菊"}
        seats = [x["name"] for x in page.evaluate("window.__replay.data.seats")]
        for pos, seat, tile in said:
            text = page.locator(f"#rp-log li[data-pos='{pos}']").text_content() or ""
            assert f"{seats[seat]} 补花" in text and names[tile] in text.split("补花")[-1]
        _play_to_end(page)
        s = hand["settlement"]
        assert Counter(map(tuple, _viewer_rows(page))) == as_rows(s["payments"])
        assert page.get_attribute("#rp-ledger", "data-ok") == "true"
        # how the win counts, once per winner, as the table says it: 花, 番, 底 and the sum
        win = next(p for p in s["payments"] if p["reason"] == "hu")
        d = win["detail"]
        line = page.locator(f".rp-win-count[data-seat='{win['to']}']")
        assert page.locator(".rp-win-count").count() == len(s["winners"])
        assert line.locator(".hua").get_attribute("data-hua") == str(d["hua_total"])
        assert line.locator(".fan").get_attribute("data-fan") == str(d["fan_total"])
        unit = d["base"] + d["hua_total"] * d["flower_value"]
        mult = 2 ** min(d["fan_total"], 2)
        assert line.locator(".formula").inner_text() == (
            f"底{d['base']} + {d['hua_total']}花×{d['flower_value']} = {unit}"
            f" · ×{mult} ({d['fan_total']}番) = {unit * mult}"
        )
        _no_overflow(page)
        page.locator("#rp-settlement").screenshot(path=str(shots_dir / "replay-jintan-end-375.png"))
        # the table's melds as the live table draws them: a claimed tile turned towards the
        # seat it came from (they lay flat), the flowers named 花 (they lay unnamed)
        melds = page.evaluate(
            """() => [...document.querySelectorAll('.rp-seat .rp-meld')].map((m) => ({
                owner: Number(m.closest('.rp-seat').dataset.seat), kind: m.dataset.kind,
                from: m.dataset.from === '' ? null : Number(m.dataset.from),
                turned: [...m.querySelectorAll('.tile')].flatMap(
                    (t, i) => t.classList.contains('turned-claim') ? [i] : []),
                size: m.querySelectorAll('.tile').length }))"""
        )
        claimed = [m for m in melds if m["from"] is not None and m["from"] != m["owner"]]
        assert claimed, melds  # this hand has a pong or an exposed kong
        for m in melds:
            if m in claimed and m["kind"] != "chow":
                # 下家 the last tile, 对家 the middle, 上家 the first
                off = (m["from"] - m["owner"]) % 4
                assert m["turned"] == [{1: m["size"] - 1, 2: 1, 3: 0}[off]], m
            elif m not in claimed:
                assert m["turned"] == [], m
        labels = page.locator(".rp-flowers small").all_inner_texts()
        assert labels and set(labels) == {"花"}, labels
        page.screenshot(path=str(shots_dir / "replay-jintan-table-375.png"), full_page=True)
    finally:
        ctx.close()


def test_a_jintan_huang_zhuang_says_nothing_is_paid(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    # jintan.md §J7-§J8: a 黄庄 pays nothing and the dealer deals again, said under the table
    seeds = (f"jt-huang-{n}" for n in range(3000))
    seed = next((s for s in seeds if _jintan_bot_hand(s)[1]["result"] == "huang_zhuang"), None)
    assert seed is not None, "no jt-huang-* seed of 3000 ends in 黄庄"
    hand = _store_jintan_hand(live.database_url, seed, code="JTHZ")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        _open_replay(page, live, hand, "&seat=2")
        # seen from seat 2 (the link of that seat's player): it sits at the bottom
        _assert_seats_around(page, {2: "bottom", 3: "right", 0: "top", 1: "left"})
        page.screenshot(path=str(shots_dir / "replay-seat2-1280.png"))
        note = page.locator("#rp-huang")
        assert note.get_attribute("data-why") == "huang_jintan"
        assert note.inner_text() == "黄庄不计分，庄家连庄"
    finally:
        ctx.close()


def test_a_win_on_a_kong_ends_the_steps_as_the_settlement_names_it(
    live: LiveServer, browser: Any
) -> None:
    """The self-draw that ends a hand on a kong's replacement tile is 杠上开花 in the steps,
    as in the settlement (it read 自摸). (Seed: a bots' Jintan hand won that way.)"""
    hand = _store_jintan_hand(live.database_url, "jintan-gk-633", code="JTGK")
    assert hand["settlement"]["win_kind"] == "gang_kai"
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        _open_replay(page, live, hand)
        texts = _step_texts(page)
        assert texts[-1].endswith(" 杠上开花"), texts[-1]
        assert not any(x.endswith(" 自摸") for x in texts), texts  # no other self-draw
    finally:
        ctx.close()


def test_a_claim_answer_reads_as_a_wish_and_a_lost_one_says_so(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """In 回放's steps a seat's claim in a window is what it asked for (要碰 ...), and one that
    another seat's claim beat is marked （未成）; the window's close names the claim taken.
    (Seed chosen for a window with two claims: a chow that a pong beats.)"""
    hand = _store_jintan_hand(live.database_url, "jintan-claims-44", code="JTCL")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        _open_replay(page, live, hand)
        texts = _step_texts(page)
        steps = page.evaluate("window.__replay.frames.map(f => f.step)")
        prompts = page.evaluate("window.__replay.frames.map(f => f.state.prompt)")
        wishes = lost = 0
        for i, step in enumerate(steps):
            if not i or step["seat"] is None or prompts[i - 1] != "claim":
                continue
            if step["action"]["kind"] == "pass":
                continue
            wishes += 1
            close = next(s for s in steps[i + 1 :] if s["seat"] is None)
            taken = any(
                e["type"] in ("pong", "kong", "chow", "win")
                and step["seat"] in e.get("winners", [e.get("seat")])
                for e in close["events"]
            )
            lost += not taken
            assert " 要" in texts[i] and texts[i].endswith("（未成）") == (not taken), texts[i]
        assert wishes >= 2 and lost >= 1, texts
        first_lost = next(i for i, x in enumerate(texts) if x.endswith("（未成）"))
        # the discard the claims are about stays in the centre until its window closes
        opened = max(
            i for i in range(1, first_lost) if (steps[i]["action"] or {}).get("kind") == "discard"
        )
        closed = next(i for i in range(first_lost, len(steps)) if steps[i]["seat"] is None)
        tile = steps[opened]["action"]["tile"]
        for pos in (opened - 1, opened, first_lost, closed - 1, closed):
            page.fill("#rp-pos", str(pos))
            page.dispatch_event("#rp-pos", "input")
            shown = (
                page.locator("#rp-discard").get_attribute("data-tile")
                if page.locator("#rp-discard").count()
                else None
            )
            assert shown == (tile if opened <= pos < closed else None), (pos, shown)
            if shown:  # who discarded it is said once: by the step itself at the discard
                words = page.locator("#rp-discard").inner_text().strip()
                assert (words == "") == (pos == opened), (pos, words)
        page.fill("#rp-pos", str(first_lost))
        page.dispatch_event("#rp-pos", "input")
        page.locator(f'#rp-log li[data-pos="{first_lost}"]').scroll_into_view_if_needed()
        page.screenshot(path=str(shots_dir / "replay-claim-lost-1280.png"))
        assert not [x for x in texts if "act_" in x], texts
    finally:
        ctx.close()


# the step line's text and the words of it laid over more than one line that would fit
# on one (or the middle overflowing)
_SPLIT_WORDS = """() => {
  const el = document.getElementById('rp-action');
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const split = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.data.matchAll(/\\S+/g)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
      if (tops.size < 2) continue;
      // broken although it fits on a line of the middle by itself
      const probe = document.createElement('span');
      probe.style.whiteSpace = 'nowrap';
      probe.textContent = m[0];
      n.parentNode.insertBefore(probe, n);
      const fits = probe.getBoundingClientRect().width <= el.clientWidth;
      probe.remove();
      if (fits) split.push(m[0]);
    }
  }
  const now = document.getElementById('rp-now');
  if (now.scrollWidth > now.clientWidth + 1) split.push('(wider than the middle)');
  return [el.textContent, split];
}"""


def test_the_replay_reads_in_english(live: LiveServer, browser: Any, shots_dir: Path) -> None:
    """A player who chose English at the table gets 回放 in English: its controls, seats,
    steps, settlement and errors (tile and player names stay as they are)."""
    import re

    hand = _store_jintan_hand(live.database_url, "jintan-replay-en", code="JTEN")
    ctx = browser.new_context(viewport={"width": 375, "height": 812})
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('gy.lang', 'en')")
        page.goto(f"{live.base}/replay?hand={hand['id']}&key={hand['key']}")
        page.wait_for_selector("#rp-verify[data-ok='true']")
        assert page.title() == "Replay · Jintan Mahjong"
        assert page.locator("#home-link").inner_text() == "Jintan Mahjong"
        whole = "(() => { const b = document.querySelector('#home-link');"
        whole += " return b.scrollWidth <= b.clientWidth; })()"
        assert page.evaluate(whole), "the game's name is cut short on a phone"
        assert page.locator("#rp-info").inner_text() == "Room JTEN · hand 1"
        assert page.locator("#rp-play").inner_text() == "Play"
        assert page.get_attribute("#rp-back", "title") == "One step back"
        assert page.locator("#rp-now .rp-step-no").inner_text() == "Step 0"
        cjk = re.compile("[\u4e00-\u9fff]")
        for sel in ("#rp-controls", ".rp-title", ".rp-log-box summary", "#rp-wall summary"):
            assert not cjk.search(page.locator(sel).first.inner_text()), sel
        winds = page.locator(".rp-seat-head .muted").all_inner_texts()
        assert sorted(winds) == ["E", "N", "S", "W"]
        # the dealer's badge says so in words ("D" alone told a newcomer nothing)
        assert page.locator(".rp-seat-head .badge").all_inner_texts() == ["Dealer"]
        # no word of a step is broken across lines in the phone's narrow centre (it read
        # "characte / rs"), and none sticks out of it
        steps = page.evaluate("window.__replay.frames.length")
        broken = []
        for pos in range(steps):
            page.fill("#rp-pos", str(pos))
            page.dispatch_event("#rp-pos", "input")
            text, split = page.evaluate(_SPLIT_WORDS)
            broken += [(pos, text, word) for word in split]
        assert not broken, broken[:5]
        _play_to_end(page)
        page.click("#rp-payments-box summary")
        heads = page.locator("#rp-payments th").all_inner_texts()
        assert heads == ["Pays", "To", "Points", "Reason"]
        ledger = page.locator("#rp-ledger").inner_text()
        assert ledger == "✓ The replay settles as the ledger has it"
        assert not cjk.search(page.locator("#rp-settlement h2").inner_text())
        _no_overflow(page)
        page.screenshot(path=str(shots_dir / "replay-en-375.png"), full_page=True)
        page.goto(f"{live.base}/replay?hand={hand['id']}&key=wrong")
        page.wait_for_selector("#rp-error:not([hidden])")
        assert page.locator("#rp-error").inner_text().startswith("This replay link is not valid")
    finally:
        ctx.close()


# a long Guiyang hand (the wall runs out; pongs and a 转弯杠) and a Jintan one with four
# claimed melds (chows, pongs, a kong) and flowers on the same side seat
PHONE_HANDS = [("guiyang", "gy-phone-17", 0, "GYPH", 0), ("jintan", "jt-phone-30", 1, "JTPH", 2)]

# every seat's panel, the centre and the controls, each with its box and whether its
# content overflows it; any element of the table or the controls out of the screen's width
_ON_SCREEN = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  const cut = (e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
  const all = [...document.querySelectorAll('#rp-board *, #rp-controls *')];
  return {
    vw: innerWidth, vh: innerHeight, scrollY, scrollWidth: document.documentElement.scrollWidth,
    top: box(document.getElementById('topbar')), now: box(document.getElementById('rp-now')),
    bar: box(document.getElementById('rp-controls')),
    buttons: [...document.querySelectorAll('#rp-controls button, #rp-pos, #rp-speed')].map(box),
    seats: [...document.querySelectorAll('.rp-seat')].map((e) =>
      ({ seat: Number(e.dataset.seat), pos: e.dataset.pos, cut: cut(e), ...box(e) })),
    outside: all.filter((e) => { const r = e.getBoundingClientRect();
      return r.width && (r.left < -0.5 || r.right > innerWidth + 0.5); })
      .map((e) => e.outerHTML.slice(0, 80)),
  };
}"""


def _one_screen_at(
    page: Any, pos: int, n: int, viewer: int, where: Any
) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]:
    """Step the open replay (``n`` steps) to ``pos`` and check what a phone's one-screen
    table must hold at every step (`_ON_SCREEN`): no scrolling either way, nothing outside
    the screen, the controls inside it and below the top bar with every button inside
    them, the four seats and the step line between the top bar and the controls and
    nothing cut off in them, ``viewer`` at the bottom with its hand on one line, as at the
    table. Returns what `_ON_SCREEN` read, the viewer's seat and the others by position."""
    page.fill("#rp-pos", str(pos))
    page.dispatch_event("#rp-pos", "input")
    assert page.locator("#rp-count").inner_text() == f"{pos} / {n}"
    got = page.evaluate(_ON_SCREEN)
    assert got["scrollY"] == 0, where
    assert got["scrollWidth"] <= got["vw"], where
    assert got["outside"] == [], (where, got["outside"])
    bar, vw = got["bar"], got["vw"]
    assert bar["left"] >= 0 and bar["right"] <= vw, where
    assert bar["top"] >= got["top"]["bottom"] and bar["bottom"] <= got["vh"], where
    for b in got["buttons"]:
        assert bar["top"] <= b["top"] and b["bottom"] <= bar["bottom"], (where, b)
    assert len(got["seats"]) == 4
    for s in got["seats"] + [got["now"]]:
        assert s["left"] >= 0 and s["right"] <= vw, (where, s)
        assert s["top"] >= got["top"]["bottom"], (where, s)  # not under the top bar
        assert s["bottom"] <= bar["top"], (where, s)  # nor under the controls
        assert not s.get("cut"), (where, s)
    me = next(s for s in got["seats"] if s["seat"] == viewer)
    assert me["pos"] == "bottom", where
    tops = page.locator(f"#rp-seat-{viewer} .rp-hand .tile").evaluate_all(
        "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, (where, tops)
    return got, me, {s["pos"]: s for s in got["seats"] if s["seat"] != viewer}


def test_a_phone_shows_the_whole_table_on_one_screen(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """At 375x812 回放 is one screen, as the table on a phone and the apps' replays: the seat
    it is seen from at the bottom with its hand, the other three around the step line, the
    step controls pinned at the foot; at every step looked at, each seat's panel and the
    controls lie inside the screen (none under the top bar or the controls, nothing cut off
    inside a panel, nothing wider than the screen), without scrolling."""
    ctx = browser.new_context(
        viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True
    )
    try:
        page = ctx.new_page()
        hands = [
            (_store_bot_hand(live.database_url, game, seed, code, dealer), game, viewer)
            for game, seed, dealer, code, viewer in PHONE_HANDS
        ]
        # and a shorter phone (375x667): its tiles a size down, the same table
        for height, (hand, game, viewer) in [(812, h) for h in hands] + [(667, hands[1])]:
            page.set_viewport_size({"width": 375, "height": height})
            _open_replay(page, live, hand, f"&seat={viewer}")
            n = page.evaluate("window.__replay.frames.length") - 1
            assert n > 60, (game, n)  # a long hand: full rivers late on
            # the top bar is one line: the game, 回放, the room and hand (the height is the table's)
            tops = [page.locator(s).bounding_box()["y"] for s in ("#home-link", "#rp-info")]
            assert abs(tops[0] - tops[1]) < 8, (game, tops)
            for pos in sorted({0, 6, n // 3, 2 * n // 3, n - 1, n}):
                where = (game, height, pos)
                got, me, by = _one_screen_at(page, pos, n, viewer, where)
                assert all(me["top"] >= s["bottom"] for s in [*by.values(), got["now"]]), where
                assert by["top"]["bottom"] <= min(by["left"]["top"], by["right"]["top"]), where
                assert by["left"]["right"] <= got["now"]["left"] <= got["now"]["right"], where
                assert got["now"]["right"] <= by["right"]["left"], where
                if pos in (6, n - 1):
                    name = f"replay-phone-{game}-{height}-{pos}.png"
                    page.screenshot(path=str(shots_dir / name))
            # the settlement, under the table, is one tap away at the end
            page.click("#rp-to-settlement")
            top = "document.getElementById('rp-settlement').getBoundingClientRect().top"
            for _ in range(50):  # a smooth scroll (no wait_for_function: the CSP forbids eval)
                if page.evaluate(top) < height / 2:
                    break
                page.wait_for_timeout(50)
            assert page.evaluate(top) < height / 2, game
    finally:
        ctx.close()


def test_a_phone_on_its_side_shows_the_whole_table_on_one_screen(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    """At 812x375 and 667x375 (a phone held sideways) 回放 is one screen, as the table held
    sideways and the apps' replays: 上家 and 下家 down the sides, 对家 at the top of the
    middle, the step line under it, the seat it is seen from at the bottom with its hand on
    one line, the step controls one thin row pinned at the foot; at every step looked at,
    each seat's panel, the centre and the controls lie inside the screen, nothing cut off
    or wider than the screen, the tiles no smaller than 15 px, without scrolling. The wall's
    check and the list of steps come below the table."""
    ctx = browser.new_context(
        viewport={"width": 812, "height": 375}, is_mobile=True, has_touch=True
    )
    try:
        page = ctx.new_page()
        # the phone test's hands again, in rooms of their own (the module shares its server)
        hands = [
            (_store_bot_hand(live.database_url, game, seed, code[:2] + "LD", dealer), game, viewer)
            for game, seed, dealer, code, viewer in PHONE_HANDS
        ]
        for width in (812, 667):
            page.set_viewport_size({"width": width, "height": 375})
            for hand, game, viewer in hands:
                _open_replay(page, live, hand, f"&seat={viewer}")
                n = page.evaluate("window.__replay.frames.length") - 1
                for pos in sorted({0, 6, n // 3, 2 * n // 3, n - 1, n}):
                    where = (game, width, pos)
                    got, me, by = _one_screen_at(page, pos, n, viewer, where)
                    bar, now = got["bar"], got["now"]
                    assert bar["bottom"] - bar["top"] <= 44, (where, bar)  # one thin row
                    # 对家 above the step line above you, in the middle; 上家 left, 下家 right
                    assert by["top"]["bottom"] <= now["top"] and now["bottom"] <= me["top"], where
                    for mid in (by["top"], now, me):
                        assert by["left"]["right"] <= mid["left"], (where, mid)
                        assert mid["right"] <= by["right"]["left"], (where, mid)
                    widths = page.locator(".rp-seat .tile").evaluate_all(
                        "els => els.map(e => e.getBoundingClientRect().width)"
                    )
                    assert min(widths) >= 15, (where, min(widths))
                    if pos in (6, n - 1):
                        name = f"replay-landscape-{game}-{width}-{pos}.png"
                        page.screenshot(path=str(shots_dir / name))
                # the wall's check and the steps are below the table, a scroll away
                below = page.evaluate(
                    "[...document.querySelectorAll('.rp-head, .rp-log-box')]"
                    ".map(e => e.getBoundingClientRect().top)"
                )
                board = page.locator("#rp-board").bounding_box()
                assert all(y >= board["y"] + board["height"] for y in below), (game, width)
    finally:
        ctx.close()
