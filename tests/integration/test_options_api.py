"""Every option of spec §14 through the room API: accepted, echoed with defaults filled,
shown in the room's info; bad values and contradictory scoring flags refused by name."""

from __future__ import annotations

import pytest
from live_helpers import Live

NON_DEFAULT = {
    "players": 3,
    "scoring": "yi_kou_san",
    "yao_bai_ji": True,
    "man_tang_ji": False,
    "fan_table": "app",
    "dou_values": "all_three",
    "multiple_winners": False,
    "pass_pong_lock": True,
    "wu_gu_ji": True,
    "ben_ji": True,
    "xing_qi_ji": True,
    "chui_feng_ji": True,
    "time_zone": "Europe/Berlin",
    "base_points": 5,
    "hands": 16,
    "claim_seconds": 7,
    "turn_seconds": 30,
}
DEFAULTS = {
    "players": 4,
    "scoring": "yi_kou_er",
    "yao_bai_ji": False,
    "man_tang_ji": True,
    "fan_table": "standard",
    "dou_values": "standard",
    "multiple_winners": True,
    "pass_pong_lock": False,
    "wu_gu_ji": False,
    "ben_ji": False,
    "xing_qi_ji": False,
    "chui_feng_ji": False,
    "time_zone": "Asia/Shanghai",
    "base_points": 1,
    "hands": 8,
    "claim_seconds": 10,
    "turn_seconds": 20,
}


async def test_defaults_and_every_option_round_trip(live: Live) -> None:
    async with live.client() as client:
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {}})
        assert r.status_code == 201 and r.json()["options"].items() >= DEFAULTS.items()
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": NON_DEFAULT})
        assert r.status_code == 201 and r.json()["options"].items() >= NON_DEFAULT.items()
        info = (await client.get(f"/api/rooms/{r.json()['code']}")).json()
        assert info["options"] == r.json()["options"]


async def test_scoring_checkboxes(live: Live) -> None:
    async with live.client() as client:
        for flags, scoring in [
            ({"lian_zhuang": True}, "lian_zhuang"),
            ({"yi_kou_san": True}, "yi_kou_san"),
            ({"lian_zhuang": False, "yi_kou_san": False}, "yi_kou_er"),
        ]:
            r = await client.post("/api/rooms", json={"game": "guiyang", "options": flags})
            assert r.status_code == 201 and r.json()["options"]["scoring"] == scoring
        r = await client.post(
            "/api/rooms",
            json={"game": "guiyang", "options": {"lian_zhuang": True, "yi_kou_san": True}},
        )
        assert r.status_code == 422
        message = str(r.json()["detail"])
        assert "lian_zhuang" in message and "yi_kou_san" in message
        for flags in ({"lian_zhuang": "false"}, {"yi_kou_san": 1}):
            r = await client.post("/api/rooms", json={"game": "guiyang", "options": flags})
            assert r.status_code == 422, flags
            assert next(iter(flags)) in str(r.json()["detail"])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("players", 5),
        ("scoring", "yi_kou_si"),
        ("yao_bai_ji", "maybe"),
        ("fan_table", "x"),
        ("dou_values", "all"),
        ("base_points", 0),
        ("hands", 5),
        ("claim_seconds", 0),
        ("turn_seconds", -1),
        ("multiple_winners", "sometimes"),
        ("wu_gu_ji", "maybe"),
        ("ben_ji", 2),
        ("xing_qi_ji", "often"),
        ("chui_feng_ji", [1]),
        ("time_zone", "Nowhere/Atlantis"),
        # names the zone database reads as a directory or a file name too long: still a
        # 422, not a 503 "unavailable" (an OSError passed for a database outage)
        ("time_zone", "America"),
        ("time_zone", "Z" * 300),
        # no coercion, as in the WebSocket messages: a string, a number or a float that
        # would pass for the value is refused
        ("players", "3"),
        ("base_points", "10"),
        ("base_points", True),
        ("hands", "8"),
        ("base_points", 5.0),
        ("yao_bai_ji", "off"),
        ("man_tang_ji", 0),
        ("claim_seconds", "7"),
    ],
)
async def test_a_bad_value_is_refused_naming_its_field(
    live: Live, field: str, value: object
) -> None:
    async with live.client() as client:
        r = await client.post("/api/rooms", json={"game": "guiyang", "options": {field: value}})
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"][-1] == field
