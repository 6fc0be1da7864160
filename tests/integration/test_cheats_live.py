"""What a cheating client tries against a live server, and what it gets instead: a typed
refusal that changes nothing (``docs/protocol.md``)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from live_helpers import ADMIN_TOKEN, Live


def forged(kind: str, key: list[Any], snap: dict[str, Any]) -> str:
    """A cursor as the server encodes one, with values of the forger's choosing."""
    raw = json.dumps({"l": kind, "k": key, "s": snap}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


#: Cursors no list ever made: a key of the wrong shape or type, numbers beyond the
#: database's integers (each was a 500 ``internal`` with a traceback in the log).
FORGED: list[tuple[list[Any], dict[str, Any]]] = [
    ([], {"sd": 1, "c": 0}),
    (["x"], {"sd": 1, "c": 0}),
    ([None], {"sd": 1, "c": 0}),
    ([{"a": 1}], {"sd": 1, "c": 0}),
    ([1.5], {"sd": 1, "c": 0}),
    ([1, 2], {"sd": 1, "c": 0}),
    ([10**30], {"sd": 1, "c": 0}),
    ([10], {"sd": 10**30, "c": 0}),
    ([10], {"sd": 1, "c": -(10**30)}),
]


@pytest.mark.parametrize(("key", "snap"), FORGED)
async def test_forged_cursors_are_bad_cursor(
    live: Live, key: list[Any], snap: dict[str, Any]
) -> None:
    """A player (any one: a profile is free) or an admin paging with a forged cursor gets
    400 ``bad_cursor``, never a 500."""
    async with live.client() as client:
        me = (await client.post("/api/profiles", json={"name": "mallory"})).json()
        player = {"Authorization": f"Bearer {me['code']}"}
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        for path, kind, headers, params in (
            ("/api/me/rooms", "me-rooms", player, {}),
            ("/api/me/history", "player", player, {}),
            ("/api/admin/rooms", "rooms", admin, {}),
            ("/api/admin/ledger", "ledger", admin, {}),
            ("/api/admin/corrections", "corrections", admin, {}),
            ("/api/admin/player/hands", "player", admin, {"name": "x"}),
        ):
            cursor = forged(kind, key, snap)
            r = await client.get(path, params={**params, "cursor": cursor}, headers=headers)
            assert r.status_code == 400, (path, r.status_code, r.text)
            assert r.json()["detail"]["code"] == "bad_cursor", path
        board = forged("leaderboard", [10**30, 1, "x", 0, 1], {"sd": 1, "c": 0})
        r = await client.get("/api/admin/leaderboard", params={"cursor": board}, headers=admin)
        assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_cursor"
