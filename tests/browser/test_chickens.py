"""The chicken options of spec/guiyang.md §9.6 in the browser: ticked in the lobby, shown in
the room's rules, and their chickens explained in the settlement (kind, tile, 金)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from conftest import LiveServer
from scripted import Hand, find_seed
from test_live import add_bots, as_rows, create_room, new_page, payment_rows, play_scripted

LABELS = {"yao_ji": "幺鸡", "wu_gu_ji": "乌骨鸡", "fan_pai_ji": "翻牌鸡", "ben_ji": "本鸡"}


def expected_kind(detail: dict[str, Any]) -> str:
    """What the settlement names a ``ji`` line, from the payment's facts."""
    if detail["jin"]:
        text = "金乌骨" if detail["tile"] == "8p" else "金鸡"
    else:
        text = LABELS[detail["kind"]]
    return f"包鸡 · {text}" if detail.get("bao_ji") else text


def _wu_gu_and_ben_ji(hand: Hand) -> bool:
    """A won hand paying 乌骨鸡 and 本鸡 chickens."""
    s = hand.settlement
    kinds = {p["detail"].get("kind") for p in s["payments"] if p["reason"] == "ji"}
    return s["result"] == "win" and {"wu_gu_ji", "ben_ji"} <= kinds


def test_wu_gu_ji_and_ben_ji_from_lobby_to_settlement(
    live: LiveServer, browser: Any, shots_dir: Path
) -> None:
    ctx, page = new_page(browser)
    try:
        code = create_room(page, live.base, "乌骨", checks=("#opt-wu-gu-ji", "#opt-ben-ji"))
        options = live.room(code)["options"]
        assert options["wu_gu_ji"] and options["ben_ji"] and not options["xing_qi_ji"]
        hand = find_seed(options, _wu_gu_and_ben_ji, prefix="wugu")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        rules = page.locator("#room-options").inner_text()
        assert "乌骨鸡" in rules and "本鸡" in rules and "星期鸡" not in rules

        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        s = hand.settlement
        ledger = [r for r in live.ledger(code) if r["hand_no"] == 1]
        assert as_rows(ledger) == as_rows(s["payments"])
        assert Counter(map(tuple, payment_rows(page))) == as_rows(ledger)

        # every chicken line names its kind as the payment's facts say
        shown = page.locator('#settle-payments tr.payment[data-reason="ji"]').evaluate_all(
            "els => els.map(e => e.querySelector('.ji-kind').textContent)"
        )
        want = [expected_kind(p["detail"]) for p in s["payments"] if p["reason"] == "ji"]
        assert Counter(shown) == Counter(want)
        # the chickens of the hand, golden ones marked 金
        chickens = page.locator("#settle-chickens .chicken").evaluate_all(
            "els => els.map(e => [e.dataset.tile, e.classList.contains('jin')])"
        )
        assert chickens == [[c["tile"], c["jin"]] for c in s["chicken_values"]]
        badges = page.locator("#settle-chickens .badge").all_inner_texts()
        golden = [c["tile"] for c in s["chicken_values"] if c["jin"]]
        assert badges == [("金乌骨" if t == "8p" else "金鸡") for t in golden]
        page.screenshot(path=str(shots_dir / "chickens-settlement.png"), full_page=True)
        # in English every chicken's name says what it is, the Chinese name beside it
        page.click("#lang-toggle")
        names = page.locator(
            "#settle-payments .ji-kind, #settle-chickens .badge"
        ).all_text_contents()
        assert names and all(re.search("[a-z]", n) for n in names), names
        page.click("#lang-toggle")
        page.set_viewport_size({"width": 375, "height": 812})
        page.wait_for_timeout(200)
        page.screenshot(path=str(shots_dir / "chickens-settlement-375.png"), full_page=True)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def _golden(hand: Hand) -> bool:
    """A won hand whose turned tile made 幺鸡 golden (金鸡)."""
    s = hand.settlement
    return s["result"] == "win" and any(c["jin"] for c in s["chicken_values"])


def test_a_golden_chicken_is_named_in_english(live: LiveServer, browser: Any) -> None:
    ctx, page = new_page(browser)
    try:
        page.add_init_script("localStorage.setItem('gy.lang', 'en')")
        code = create_room(page, live.base, "Gold")
        hand = find_seed(live.room(code)["options"], _golden, prefix="golden")
        live.fix_seeds(code, [hand.seed])
        add_bots(page)
        page.wait_for_selector("#hand .hand-tile", timeout=15000)
        play_scripted({0: page}, hand)
        page.wait_for_selector("#settle-row-0", timeout=30000)
        badges = page.locator("#settle-chickens .badge").all_text_contents()
        golden = [c["tile"] for c in hand.settlement["chicken_values"] if c["jin"]]
        names = {"1s": "golden chicken (金鸡)", "8p": "golden black-bone (金乌骨)"}
        assert badges == [names[t] for t in golden], badges
    finally:
        ctx.close()
