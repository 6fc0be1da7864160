"""The admin console /admin in Debian's Chromium (issue 14): token login kept in
sessionStorage, Chinese column headers by default and English by the language switch, a
player's history paged, a CSV downloaded and parsed back to the API's numbers, a hand opened
and voided."""

from __future__ import annotations

import asyncio
import csv
import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from conftest import ADMIN_TOKEN, LiveServer

from bench.admin import fill
from server.store import Store
from tests.store.admin_data import store_room


def _seed(url: str) -> None:
    async def run() -> None:
        store = Store(url)
        try:
            # player0..3 with a profile each (display names player0, player0, player1,
            # player1), player4..7 seats without one
            await fill(store, 260, names=8, profiles=4)  # (over 1,000 payments)
            await store_room(store, "BOTS", ["ann", "bob", "cat", "dan"], 2)
        finally:
            await store.close()

    # Playwright's sync API holds the main thread's event loop: seed from another thread
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()


def _downloaded(download: Any) -> str:
    """A downloaded CSV's text, checked to open with a byte-order mark (Excel reads a UTF-8
    file without one as the local code page)."""
    raw = open(download.path(), "rb").read()
    assert raw.startswith(b"\xef\xbb\xbf"), raw[:20]
    return raw.decode("utf-8-sig")


def test_admin_pages_a_history_downloads_csv_and_voids_a_hand(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    _seed(live.database_url)
    # bypass_csp: Playwright's string wait_for_function needs eval (test_csp checks the CSP)
    # (far from UTC: the date filters are the admin's days, as the times shown)
    context = browser.new_context(
        accept_downloads=True, bypass_csp=True, timezone_id="Pacific/Auckland"
    )
    page = context.new_page()
    page.goto(f"{live.base}/admin")
    asked: list[str] = []
    # every dialog answered by the next of `answers` (True: OK), Cancel when none is left
    answers: list[bool] = []

    def on_dialog(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept() if answers and answers.pop(0) else dialog.dismiss()

    page.on("dialog", on_dialog)
    page.fill("#token", "wrong-token")
    page.click("#login button")
    page.wait_for_timeout(300)
    assert page.is_hidden("#console")
    assert page.evaluate("sessionStorage.getItem('zhuoji-admin-token')") is None

    page.fill("#token", ADMIN_TOKEN)
    page.click("#login button")
    page.wait_for_selector("#console", state="visible")
    page.wait_for_selector("#rows tr >> nth=1")
    assert page.evaluate("sessionStorage.getItem('zhuoji-admin-token')") == ADMIN_TOKEN

    # Chinese by default, as the rest of the site: readable headers (the field's name in the
    # header's title, as the CSV has it), values in words
    heads = "[...document.querySelectorAll('#rows th')].map(th => [th.title, th.textContent])"
    assert dict(page.evaluate(heads))["code"] == "房间号"
    assert page.text_content("#admin h1") == "战绩管理"
    assert page.text_content("#lang-toggle") == "EN"
    status = page.eval_on_selector_all(
        "#rows tr:not(:first-child)", "trs => trs.map(tr => tr.cells[2].textContent)"
    )
    assert set(status) <= {"等人", "进行中", "局间", "已结束", "已解散"} and "已结束" in status
    page.screenshot(path=str(shots_dir / "admin-rooms-zh-1280.png"))
    # the switch: English at once, the rows drawn again, kept for the next visit (gy.lang)
    page.click("#lang-toggle")
    assert dict(page.evaluate(heads))["code"] == "Room"
    assert page.text_content("#lang-toggle") == "中文"
    assert page.text_content("#query button[type=submit]") == "Show"
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.evaluate("localStorage.getItem('gy.lang')") == "en"
    page.screenshot(path=str(shots_dir / "admin-rooms-en-1280.png"))

    # a name only a profile has finds no seat by name: the count says where to look
    page.select_option("#list", "player")
    page.fill("#name", "player0")
    assert live.get("/api/admin/player/hands?name=player0", admin=True)["rows"] == []
    page.click("#query button[type=submit]")
    page.wait_for_function("document.querySelector('#count').textContent.includes('#profile id')")

    # a player's history, 5 rows a page
    page.fill("#name", "player6")
    page.fill("#limit", "5")
    page.click("#query button[type=submit]")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 6")
    api = live.get("/api/admin/player/hands?name=player6&limit=1000", admin=True)["rows"]
    assert len(api) > 10
    page.click("#next")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 11")
    totals = live.get("/api/admin/player?name=player6", admin=True)
    assert f"points {totals['points']}" in page.text_content("#totals")
    ids = page.eval_on_selector_all(
        "#rows tr:not(:first-child) td:first-child", "tds => tds.map(t => Number(t.textContent))"
    )
    assert ids == [r["id"] for r in api[:10]]

    with page.expect_download() as info:
        page.click("#csv")
    text = _downloaded(info.value)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [int(r["id"]) for r in rows] == [r["id"] for r in api]
    assert sum(int(r["points"]) for r in rows) == totals["points"]

    # the payments' CSV is every page of them, not the first 1,000
    page.select_option("#list", "ledger")
    page.fill("#name", "")
    every, cursor = [], None
    while True:
        got = live.get(
            f"/api/admin/ledger?limit=1000{f'&cursor={cursor}' if cursor else ''}", admin=True
        )
        every += got["rows"]
        if not (cursor := got["next"]):
            break
    assert len(every) > 1000
    with page.expect_download() as info:
        page.click("#csv")
    rows = list(csv.DictReader(io.StringIO(_downloaded(info.value))))
    assert [int(r["id"]) for r in rows] == [r["id"] for r in every]

    # Since / Until are the admin's days, Until's included (Auckland: UTC+13 in December)
    page.fill("#since", "2026-12-07")
    page.fill("#until", "2026-12-07")
    with page.expect_request(lambda r: "/api/admin/ledger?" in r.url) as req:
        page.click("#query button[type=submit]")
    sent = parse_qs(urlparse(req.value.url).query)
    assert (sent["since"], sent["until"]) == (
        ["2026-12-06T11:00:00.000Z"],
        ["2026-12-07T11:00:00.000Z"],
    )
    page.fill("#since", "")
    page.fill("#until", "")

    # the leaderboard: one row per profile (two named "player0") and per name without one;
    # a row opens that player's hands by profile id
    page.select_option("#list", "leaderboard")
    page.fill("#name", "")
    page.fill("#limit", "50")
    page.click("#query button[type=submit]")
    board = live.get("/api/admin/leaderboard?limit=50", admin=True)["rows"]
    assert len(board) == 12 and [r["player"] for r in board].count("player0") == 2
    page.wait_for_function(f"document.querySelectorAll('#rows tr').length === {len(board) + 1}")
    shown = page.eval_on_selector_all(
        "#rows tr:not(:first-child)", "trs => trs.map(tr => tr.cells[1].textContent)"
    )
    assert shown == [f"#{r['profile']}" if r["profile"] else "by name" for r in board]
    page.screenshot(path=str(shots_dir / "admin-leaderboard-1280.png"))
    row = next(i for i, r in enumerate(board) if r["profile"])
    page.click(f"#rows tr:nth-child({row + 2})")
    pid = board[row]["profile"]
    page.wait_for_function(f"document.querySelector('#totals').textContent.includes('#{pid}')")
    assert page.input_value("#name") == f"#{pid}"
    mine = live.get(f"/api/admin/player?profile={pid}", admin=True)
    assert (mine["points"], mine["hands"]) == (board[row]["points"], board[row]["hands"])
    assert f"points {mine['points']}" in page.text_content("#totals")
    for width, height in ((1280, 800), (375, 812)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(shots_dir / f"admin-player-by-profile-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})

    # a room's hands, one hand, void it
    page.select_option("#list", "rooms")
    page.fill("#name", "ann")
    page.fill("#limit", "50")
    page.click("#query button[type=submit]")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 2")
    page.click("#rows tr:nth-child(2)")
    page.wait_for_function("document.querySelector('#count').textContent.includes('BOTS')")
    # 下载 CSV now gives the room's hands shown, not the rooms list the form asks for
    with page.expect_download() as info:
        page.click("#csv")
    assert info.value.suggested_filename == "room-BOTS-hands.csv"
    rows = list(csv.DictReader(io.StringIO(_downloaded(info.value))))
    room_hands = live.get("/api/admin/rooms/BOTS/hands?limit=1000", admin=True)["rows"]
    assert [int(r["hand_no"]) for r in rows] == [h["hand_no"] for h in room_hands]
    page.click("#rows tr:nth-child(2)")
    page.wait_for_selector("#hand", state="visible")
    assert "Room BOTS hand 1" in page.text_content("#hand-title")
    # the breakdown is a block of tables, not laid out as the table's hand row (style.css #hand)
    assert page.evaluate("getComputedStyle(document.querySelector('#hand')).display") == "block"
    hand = live.get("/api/admin/rooms/BOTS/hands/1", admin=True)
    assert page.locator("#hand-payments tr").count() == len(hand["payments"]) + 1
    # each line names who pays whom (and their seats) and which chicken, where, it is for
    names = {s["seat"]: s["name"] for s in hand["seats"]}
    cells = page.eval_on_selector_all(
        "#hand-payments tr:not(:first-child)",
        "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))",
    )
    assert [c[1:3] for c in cells] == [
        [f"{names[p['from']]} ({p['from']})", f"{names[p['to']]} ({p['to']})"]
        for p in hand["payments"]
    ]
    ji = [c[4] for c, p in zip(cells, hand["payments"], strict=True) if p["reason"] == "ji"]
    assert ji and all(c.startswith("chicken (鸡) · ") for c in ji), ji
    assert any("one-bamboo chicken (幺鸡)" in c for c in ji), ji
    # the adjustment's seats: the defaults (bob -> ann) on each hand opened, not the seats
    # chosen on another (whose room may not have them: a blank choice was sent as seat 0)
    assert (page.input_value("#adjust-from"), page.input_value("#adjust-to")) == ("1", "0")
    page.select_option("#adjust-from", "3")
    page.click("#rows tr:nth-child(3)")
    page.wait_for_function("document.querySelector('#hand-title').textContent.includes('hand 2')")
    assert page.input_value("#adjust-from") == "1"
    page.click("#rows tr:nth-child(2)")
    page.wait_for_function("document.querySelector('#hand-title').textContent.includes('hand 1')")
    # a reason of spaces only is refused with the server's own words (not a bare code)
    page.fill("#adjust-points", "3")
    page.fill("#adjust-reason", "   ")
    answers.append(True)
    page.click("#adjust button")
    page.wait_for_function("document.querySelector('#error').textContent.startsWith('Invalid')")
    refused = page.text_content("#error")
    assert refused.startswith("Invalid correction (") and "): " in refused, refused
    assert live.get("/api/admin/corrections", admin=True)["rows"] == []
    # an adjustment from the page: 3 points from seat 1 to seat 0, asked once more, counted
    page.select_option("#adjust-from", "1")
    page.select_option("#adjust-to", "0")
    page.fill("#adjust-points", "3")
    page.fill("#adjust-reason", "wrong chicken")
    page.fill("#adjust-admin", "lee")
    asked.clear()
    answers.append(True)
    page.click("#adjust button")
    page.wait_for_selector("#hand-corrections tr >> nth=1")
    assert len(asked) == 1 and asked[0] == (
        f"Room BOTS hand 1: move 3 points from {names[1]} (1) to {names[0]} (0)?"
    ), asked
    made = live.get("/api/admin/corrections", admin=True)["rows"]
    assert [(c["kind"], c["from"], c["to"], c["points"], c["reason"]) for c in made] == [
        ("adjust", 1, 0, 3, "wrong chicken")
    ]
    adjusted = live.get("/api/admin/rooms/BOTS/hands/1", admin=True)
    assert adjusted["adjust"][:2] == [3, -3]
    assert adjusted["effective"][0] == hand["deltas"][0] + 3
    adjust_col = page.eval_on_selector_all(
        "#hand-deltas tr:not(:first-child)", "trs => trs.map(tr => tr.cells[3].textContent)"
    )
    assert adjust_col[:2] == ["3", "-3"], adjust_col
    for width, height in ((1280, 800), (375, 812)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator("#hand").screenshot(path=str(shots_dir / f"admin-hand-adjusted-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.fill("#void-reason", "misdeal")
    page.fill("#void-admin", "lee")
    # asked first (a void cannot be undone): Cancel voids nothing, OK voids
    asked.clear()
    page.click("#void button")
    assert len(asked) == 1 and "cannot be undone" in asked[0], asked
    assert live.get("/api/admin/corrections", admin=True)["rows"] == made  # no void
    answers.append(True)
    page.click("#void button")
    page.wait_for_function("document.querySelector('#hand-title').textContent.includes('voided')")
    history = live.get("/api/admin/corrections", admin=True)["rows"]
    assert [(c["kind"], c["room"], c["hand_no"], c["reason"]) for c in history] == [
        ("void", "BOTS", 1, "misdeal"),
        ("adjust", "BOTS", 1, "wrong chicken"),
    ]
    assert page.locator("#adjust").is_hidden()  # a voided hand has nothing to move
    # the hand shows its correction: what, why, by whom
    page.wait_for_selector("#hand-corrections tr >> nth=2")
    fixed = page.eval_on_selector_all(
        "#hand-corrections tr:not(:first-child)",
        "trs => trs.map(tr => [...tr.cells].map(t => t.textContent))",
    )
    void_row = next(r for r in fixed if r[0] == "void")
    assert "misdeal" in void_row and void_row[5].startswith("lee (token:")
    for width, height in ((1280, 800), (375, 812)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator("#hand").screenshot(path=str(shots_dir / f"admin-hand-voided-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    # the room's hands above follow: hand 1 voided, counting nothing
    heads = page.eval_on_selector_all("#rows th", "ths => ths.map(th => th.title)")
    voided = heads.index("voided")
    page.wait_for_function(
        f"document.querySelector('#rows tr:nth-child(2)').cells[{voided}].textContent === 'yes'"
    )
    assert history[0]["actor"].startswith("lee (token:")
    # a 查叫 line names the hand the ready seat waits for (no 黄庄 among these hands)
    line = {"reason": "cha_jiao", "detail": {"ready_value": 7, "ready_type": "qi_dui", "streak": 2}}
    said = page.evaluate("async (p) => (await import('/i18n.js')).paymentReasonText(p, {})", line)
    assert said == "ready check (查叫) · ready for seven pairs (七对): 7 · +dealer streak 2", said
    context.close()
