"""The web client against a mocked API and WebSocket (no game server needed).

``web/`` is served by a plain HTTP server; ``/api/*`` and ``/ws/*`` are answered by
Playwright routes that follow docs/protocol.md. These tests pin the client's rendering and
the messages it sends; ``test_live.py`` plays against the real server.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

CODE = "MOCK42"


def seat_view(seat: int, **kw: Any) -> dict[str, Any]:
    d = {
        "seat": seat,
        "concealed_count": 13,
        "melds": [],
        "discards": [],
        "bao_ting": False,
        "ding_que": None,
    }
    d.update(kw)
    return d


def base_view() -> dict[str, Any]:
    return {
        "phase": "turn",
        "players": 4,
        "dealer": 0,
        "dealer_streak": 2,
        "turn": 0,
        "wall_count": 47,
        "seed_hash": "ab" * 32,
        "seed": None,
        "hand": [
            "1m",
            "2m",
            "3m",
            "5p",
            "5p",
            "9p",
            "1s",
            "2s",
            "3s",
            "7s",
            "7s",
            "8s",
            "9s",
            "4m",
        ],
        "drawn": "4m",
        "seats": [
            seat_view(0, concealed_count=14, discards=["9m", "1p"]),
            seat_view(
                1,
                concealed_count=10,
                melds=[{"kind": "pong", "tiles": ["6m"] * 3, "from": 3}],
                discards=["2p", "4s"],
                auto=True,
            ),
            seat_view(2, discards=["1s", "7p", "8m"], bao_ting=True),
            seat_view(
                3,
                concealed_count=9,
                melds=[{"kind": "ming_dou", "tiles": ["3p"] * 4, "from": 0}],
                discards=["5s", "6s"],
            ),
        ],
        "last_discard": {"seat": 3, "tile": "6s"},
        "waits": [{"tile": "3m", "unseen": 2}, {"tile": "6p", "unseen": 4}],
    }


def room_info(totals: list[int] | None = None) -> dict[str, Any]:
    return {
        "code": CODE,
        "game": "guiyang",
        "options": {
            "players": 4,
            "scoring": "lian_zhuang",
            "yao_bai_ji": True,
            "man_tang_ji": True,
            "hands": 8,
            "base_points": 1,
        },
        "seats": [
            {"seat": 0, "name": "小明", "bot": False, "connected": True},
            {"seat": 1, "name": "Bot 1", "bot": True, "connected": True},
            {"seat": 2, "name": "阿花", "bot": False, "connected": False},
            {"seat": 3, "name": "Bot 3", "bot": True, "connected": True},
        ],
        "hand_no": 3,
        "totals": totals or [12, -4, 0, -8],
        "dealer": 0,
        "dealer_streak": 2,
        "status": "playing",
    }


class MockServer:
    """Playwright routes for the REST API and the room WebSocket."""

    def __init__(self, page: Any, create_status: int = 201) -> None:
        self.page = page
        self.sent: list[dict[str, Any]] = []
        self.sockets: list[Any] = []
        self.create_status = create_status
        self.view = base_view()
        legal = [{"kind": "discard", "tile": t} for t in sorted(set(self.view["hand"]))]
        legal += [{"kind": "discard", "tile": "9p", "bao_ting": True}]
        legal += [{"kind": "kong", "tile": "7s"}] if False else []
        self.legal = legal
        page.route("**/api/**", self._api)
        page.route_web_socket("**/ws/rooms/**", self._ws)

    def _api(self, route: Any) -> None:
        req = route.request
        url = req.url
        if req.method == "POST" and url.endswith("/api/rooms"):
            body = json.loads(req.post_data or "{}")
            if self.create_status != 201:
                route.fulfill(
                    status=422,
                    content_type="application/json",
                    body=json.dumps(
                        {
                            "detail": [
                                {
                                    "loc": ["body", "options", "base_points"],
                                    "msg": "Input should be greater than or equal to 1",
                                    "type": "greater_than_equal",
                                }
                            ]
                        }
                    ),
                )
                return
            route.fulfill(
                status=201,
                content_type="application/json",
                body=json.dumps(
                    {"code": CODE, "game": "guiyang", "options": body.get("options", {})}
                ),
            )
        elif url.endswith("/join"):
            route.fulfill(
                status=200,
                content_type="application/json",
                body=json.dumps({"seat": 0, "token": "tok0"}),
            )
        elif url.endswith("/bots"):
            route.fulfill(
                status=200, content_type="application/json", body=json.dumps({"seats": [1, 3]})
            )
        else:
            route.fulfill(status=200, content_type="application/json", body=json.dumps(room_info()))

    def _ws(self, ws: Any) -> None:
        self.sockets.append(ws)
        ws.on_message(lambda m: self.sent.append(json.loads(m)))
        ws.send(
            json.dumps(
                {
                    "type": "snapshot",
                    "version": 5,
                    "seat": 0,
                    "view": self.view,
                    "legal": self.legal,
                    "deadline": int(time.time() * 1000) + 15000,
                    "room": room_info(),
                }
            )
        )

    def push(self, msg: dict[str, Any]) -> None:
        self.sockets[-1].send(json.dumps(msg))

    def wait_sent(self, pred: Any, timeout: float = 5.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for m in self.sent:
                if pred(m):
                    return m
            self.page.wait_for_timeout(50)
        raise AssertionError(f"no matching client message; sent: {self.sent}")


@pytest.fixture
def context(browser: Any) -> Any:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale="zh-CN")
    yield ctx
    ctx.close()


def test_lobby_create_table_discard_claim_settle(
    context: Any, static_server: str, shots_dir: Path
) -> None:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    mock = MockServer(page)
    page.goto(static_server + "/")
    page.fill("#name", "小明")
    # exclusive checkboxes
    page.check("#opt-yi-kou-san")
    page.check("#opt-lian-zhuang")
    assert not page.is_checked("#opt-yi-kou-san")
    page.check("#opt-yao-bai-ji")
    page.screenshot(path=str(shots_dir / "mock-lobby.png"), full_page=True)

    with page.expect_request("**/api/rooms") as req_info:
        page.click("#create-room")
    sent_opts = json.loads(req_info.value.post_data)["options"]
    assert sent_opts["scoring"] == "lian_zhuang"
    assert sent_opts["yao_bai_ji"] is True and sent_opts["man_tang_ji"] is True
    assert sent_opts["players"] == 4 and sent_opts["hands"] == 8

    page.wait_for_selector("#hand .hand-tile")
    assert "room=MOCK42" in page.url
    assert page.locator("#room-code-top").inner_text() == CODE
    assert page.locator("#hand .hand-tile").count() == 14
    drawn = page.locator("#hand .hand-tile.drawn")
    assert drawn.count() == 1 and drawn.get_attribute("data-tile") == "4m"
    # main part sorted: m before p before s
    tiles = page.locator("#hand .hand-main .hand-tile").evaluate_all(
        "els => els.map(e => e.dataset.tile)"
    )
    assert tiles == ["1m", "2m", "3m", "5p", "5p", "9p", "1s", "2s", "3s", "7s", "7s", "8s", "9s"]
    assert page.locator('.seat-panel[data-seat="1"] .badge.auto').count() == 1
    assert page.locator('.seat-panel[data-seat="2"] .badge.baoting').count() == 1
    assert (
        page.locator('.river[data-seat="3"] .tile[data-last="true"]').get_attribute("data-tile")
        == "6s"
    )
    assert page.locator("#waits .wait").count() == 2
    assert page.locator("#wall-count").get_attribute("data-count") == "47"
    assert page.locator("#conn-state").get_attribute("data-state") == "connected"
    assert page.locator('[data-action="bao_ting"]').count() == 1
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots_dir / "mock-table.png"), full_page=True)

    # 报听 + discard 9p sends the legal object with bao_ting
    page.click('[data-action="bao_ting"]')
    page.click('#hand .hand-tile[data-tile="9p"]')
    msg = mock.wait_sent(lambda m: m.get("type") == "action")
    assert msg["action"] == {"kind": "discard", "tile": "9p", "bao_ting": True}
    assert isinstance(msg["seq"], int)

    # a claim prompt
    v = base_view()
    v.update(
        phase="claim",
        turn=1,
        hand=v["hand"][:13],
        drawn=None,
        last_discard={"seat": 1, "tile": "5p"},
    )
    v["seats"][1]["discards"].append("5p")
    mock.push(
        {
            "type": "event",
            "version": 6,
            "event": {"type": "discard", "seat": 1, "tile": "5p"},
            "view": v,
            "legal": [{"kind": "pong"}, {"kind": "pass"}],
            "deadline": int(time.time() * 1000) + 8000,
        }
    )
    page.wait_for_selector('[data-action="pong"]')
    assert page.locator("#hand .hand-tile.playable").count() == 0
    page.screenshot(path=str(shots_dir / "mock-claim.png"), full_page=True)
    page.click('[data-action="pass"]')
    mock.wait_sent(lambda m: m.get("type") == "action" and m["action"] == {"kind": "pass"})

    # settlement
    v2 = dict(v, phase="ended", seed="deadbeef" * 4)
    settlement = {
        "result": "win",
        "winners": [2],
        "hand_types": {"2": "qi_dui"},
        "win_kind": "dian_pao",
        "turned": "3s",
        "chickens": ["1s", "4s"],
        "payments": [
            [1, 2, 7, "hu"],
            [1, 2, 10, "sha_bao"],
            [0, 2, 1, "ji"],
            {"from": 3, "to": 2, "points": 1, "reason": "ji"},
            [3, 0, 2, "chong_feng_ji"],
        ],
        "deltas": [1, -17, 19, -3],
        "next_dealer": 2,
        "seed": "deadbeef" * 4,
    }
    mock.push(
        {
            "type": "event",
            "version": 7,
            "event": {"type": "win", "seat": 2},
            "view": v2,
            "legal": [],
            "deadline": None,
        }
    )
    mock.push(
        {
            "type": "hand_end",
            "version": 8,
            "settlement": settlement,
            "totals": [13, -21, 19, -11],
            "next_hand": 4,
        }
    )
    page.wait_for_selector("#settlement", state="visible")
    assert page.locator("#settlement .payment").count() == 5
    assert "杀报" in page.locator("#settle-payments").inner_text()
    assert "冲锋鸡" in page.locator("#settle-payments").inner_text()
    assert "七对" in page.locator("#settle-winners").inner_text()
    assert page.locator("#settle-row-1").get_attribute("data-total") == "-21"
    assert page.locator("#settle-row-2").get_attribute("data-delta") == "19"
    assert page.locator("#settle-seed").inner_text() == "deadbeef" * 4
    page.screenshot(path=str(shots_dir / "mock-settlement.png"), full_page=True)
    page.click("#ready-btn")
    mock.wait_sent(lambda m: m.get("type") == "ready")

    # a new hand hides the settlement
    v3 = base_view()
    mock.push(
        {
            "type": "snapshot",
            "version": 0,
            "seat": 0,
            "view": v3,
            "legal": [],
            "deadline": None,
            "room": room_info([13, -21, 19, -11]),
        }
    )
    page.wait_for_selector("#settlement", state="hidden")
    assert page.locator("#last-settlement-btn").is_visible()

    # the last hand of the session: final standings, no ready button
    mock.push(
        {
            "type": "event",
            "version": 1,
            "event": {"type": "huang_zhuang"},
            "view": v2,
            "legal": [],
            "deadline": None,
        }
    )
    mock.push(
        {
            "type": "hand_end",
            "version": 2,
            "settlement": dict(
                settlement, result="huang_zhuang", winners=[], payments=[], deltas=[0, 0, 0, 0]
            ),
            "totals": [13, -21, 19, -11],
            "next_hand": None,
        }
    )
    mock.push({"type": "session_end", "totals": [13, -21, 19, -11]})
    page.wait_for_selector("#final-standings", state="visible")
    order = page.locator("#final-standings li").evaluate_all(
        "els => els.map(e => Number(e.dataset.seat))"
    )
    assert order == [2, 0, 3, 1]
    assert page.locator("#ready-btn").is_hidden()
    assert "黄庄" in page.locator("#settle-result").inner_text()

    # English toggle
    page.click("#lang-toggle")
    assert "Settlement" in page.locator("#settlement").inner_text()
    page.click("#lang-toggle")
    assert not errors, errors


def test_phone_width_and_reconnect(browser: Any, static_server: str, shots_dir: Path) -> None:
    ctx = browser.new_context(
        viewport={"width": 375, "height": 800}, locale="zh-CN", is_mobile=True, has_touch=True
    )
    try:
        page = ctx.new_page()
        mock = MockServer(page)
        page.add_init_script(
            f"localStorage.setItem('gy.seat.{CODE}', JSON.stringify({{seat: 0, token: 'tok0'}}))"
        )
        page.goto(static_server + "/")
        page.screenshot(path=str(shots_dir / "mock-lobby-375.png"), full_page=True)
        page.goto(static_server + f"/?room={CODE}")
        page.wait_for_selector("#hand .hand-tile")
        # nothing wider than the screen
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= 375, overflow
        page.screenshot(path=str(shots_dir / "mock-table-375.png"), full_page=True)
        # the server closes the socket: the client shows 重连中 and reconnects
        mock.sockets[-1].close()
        page.wait_for_function(
            "document.querySelector('#conn-state').dataset.state === 'reconnecting'", timeout=3000
        )
        assert "重连" in page.locator("#conn-state").inner_text()
        page.wait_for_function(
            "document.querySelector('#conn-state').dataset.state === 'connected'", timeout=8000
        )
        assert len(mock.sockets) == 2
    finally:
        ctx.close()


def test_lobby_shows_422(context: Any, static_server: str) -> None:
    page = context.new_page()
    MockServer(page, create_status=422)
    page.goto(static_server + "/")
    page.click("#advanced summary")
    page.fill("#opt-base-points", "0")
    page.click("#create-room")
    err = page.locator("#lobby-error")
    err.wait_for(state="visible")
    assert "base_points" in err.inner_text()
    assert "422" in err.inner_text()
