"""Player profiles and a player's own records (issue 14) on the real databases: codes, seats
and seat rows naming the profile, the records of a profile's rooms only (checked against
hands played by bots), keyset pages, voids, the admin's profile filter, claiming a seat."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from server.store import Conflict, NotFound, Store
from server.store import admin as q
from server.store import profiles as pr
from server.store.models import Player, SeatDelta
from tests.store.admin_data import bot_hand


async def seat_room(
    store: Store, code: str, seats: list[tuple[str, int | None]], hands: int
) -> list[dict[str, Any]]:
    """A Guiyang room seating ``(name, profile_id)`` pairs (``None``: a bot), ``hands``
    bot-played hands settled; returns the settlements."""
    from server.rules import guiyang

    await store.create_room(code, "guiyang", guiyang.GuiyangOptions().model_dump())
    for seat, (name, profile) in enumerate(seats):
        await store.add_player(
            code, seat, name, f"token-{code}-{seat}", profile is None, profile_id=profile
        )
    out = []
    for hand_no in range(1, hands + 1):
        seed = f"{code}-{hand_no}"
        await store.start_hand(code, hand_no, seed, 0, 1)
        actions, settlement = bot_hand(seed, hand_no * 1000)
        for idx, (seat, action) in enumerate(actions):
            await store.append_action(code, hand_no, idx, seat, {"action": action.to_dict()})
        assert await store.settle_hand(
            code,
            hand_no,
            settlement["result"],
            settlement,
            settlement["payments"],
            settlement["deltas"],
        )
        out.append(settlement)
    return out


def test_player_codes() -> None:
    secret = pr.new_secret()
    assert len(secret) == 20 and set(secret) <= set(pr.CODE_ALPHABET)
    code = pr.format_code(secret)
    assert len(code) == 23 and code.count("-") == 3
    assert pr.normal_secret(code) == secret
    assert pr.normal_secret(" " + code.lower().replace("-", " ") + " ") == secret
    assert pr.normal_secret(code[:-1]) is None
    assert pr.normal_secret(code[:-1] + "0") is None  # 0 is not in the alphabet
    assert pr.hash_secret(secret) != secret and len(pr.hash_secret(secret)) == 64


async def test_profiles_are_found_by_code_and_renamed(store: Store) -> None:
    ann, secret = await pr.create_profile(store, "  ann ")
    ann2, secret2 = await pr.create_profile(store, "ann")
    assert ann.name == ann2.name == "ann" and ann.id != ann2.id and secret != secret2
    found = await pr.profile_by_secret(store, pr.format_code(secret).lower())
    assert found is not None and found.id == ann.id
    assert await pr.profile_by_secret(store, pr.new_secret()) is None
    assert await pr.profile_by_secret(store, "not a code") is None
    renamed = await pr.rename_profile(store, ann.id, "Annie")
    assert (renamed.id, renamed.name) == (ann.id, "Annie")
    assert (await pr.profile_by_secret(store, secret)).name == "Annie"  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        await pr.rename_profile(store, ann.id, "a\u202eb")
    with pytest.raises(ValueError):
        await pr.create_profile(store, "   ")
    with pytest.raises(NotFound):
        await pr.rename_profile(store, 10**9, "x")
    # only the hash is stored
    async with store.engine.connect() as conn:
        from server.store.models import Profile

        stored = (await conn.execute(select(Profile.secret_hash))).scalars().all()
    assert secret not in stored and pr.hash_secret(secret) in stored


async def test_records_of_a_profile(store: Store) -> None:
    ann, _ = await pr.create_profile(store, "ann")
    bob, _ = await pr.create_profile(store, "bob")
    other, _ = await pr.create_profile(store, "ann")  # the same name, another person
    r1 = await seat_room(
        store, "R1", [("ann", ann.id), ("bob", bob.id), ("b1", None), ("b2", None)], 3
    )
    r2 = await seat_room(
        store, "R2", [("ann", other.id), ("Ann!", ann.id), ("b", None), ("c", None)], 2
    )
    r3 = await seat_room(store, "R3", [("bob", bob.id), ("x", None), ("y", None), ("z", None)], 1)

    # seats and seat rows name the profile; bots none
    async with store.engine.connect() as conn:
        seats = (await conn.execute(select(Player.name, Player.profile_id, Player.is_bot))).all()
        rows = (await conn.execute(select(SeatDelta.seat, SeatDelta.profile_id))).all()
    assert ("b1", None, True) in seats and ("ann", ann.id, False) in seats
    assert sorted(p for s, p in rows if s == 1 and p is not None) == [ann.id] * 2 + [bob.id] * 3

    rooms, nxt = await pr.my_rooms(store, ann.id)
    assert nxt is None and [r["code"] for r in rooms] == ["R2", "R1"]
    assert [r["seat"] for r in rooms] == [1, 0]
    want1 = [sum(s["deltas"][i] for s in r1) for i in range(4)]
    assert rooms[1]["standings"] == want1 and rooms[1]["hands"] == 3
    assert rooms[1]["ranks"] == [1 + sum(o > t for o in want1) for t in want1]
    assert [s["name"] for s in rooms[0]["seats"]] == ["ann", "Ann!", "b", "c"]
    assert [s["bot"] for s in rooms[0]["seats"]] == [False, False, True, True]
    assert [r["code"] for r in (await pr.my_rooms(store, other.id))[0]] == ["R2"]
    # pages of one room: each room once
    page, cursor = await pr.my_rooms(store, bob.id, limit=1)
    page2, end = await pr.my_rooms(store, bob.id, limit=1, cursor=cursor)
    assert end is None and [r["code"] for r in page + page2] == ["R3", "R1"]

    room, hands, _ = await pr.my_room_hands(store, ann.id, "R1")
    assert room["seat"] == 0 and room["code"] == "R1"
    assert [h["deltas"] for h in hands] == [s["deltas"] for s in r1]
    assert all(isinstance(h["id"], int) for h in hands)
    # how each hand ended, from its stored settlement (the 战绩 table's result column)
    assert any(s["winners"] for s in r1), "the seeds give a won hand"
    assert [(h["winners"], h["win_kind"], h["loser"]) for h in hands] == [
        (s["winners"], s["win_kind"], s["loser"]) for s in r1
    ]
    running = [0] * 4
    for h, s in zip(hands, r1, strict=True):
        running = [a + b for a, b in zip(running, s["deltas"], strict=True)]
        assert h["standings"] == running

    hand = await pr.my_hand(store, ann.id, "R1", 2)
    assert hand["settlement"] == r1[1] and hand["deltas"] == r1[1]["deltas"]
    assert hand["seat"] == 0 and hand["id"] == hands[1]["id"]
    assert hand["totals"] == [r1[0]["deltas"][i] + r1[1]["deltas"][i] for i in range(4)]
    assert [(p["from"], p["to"], p["points"]) for p in hand["payments"]] == [
        (p["from"], p["to"], p["points"]) for p in r1[1]["payments"]
    ]

    # another player's room, whether it exists or not, is not found
    for code in ("R3", "NOPE"):
        with pytest.raises(NotFound):
            await pr.my_room_hands(store, ann.id, code)
        with pytest.raises(NotFound):
            await pr.my_hand(store, ann.id, code, 1)
    with pytest.raises(NotFound):
        await pr.my_room_hands(store, other.id, "R1")  # same name, not the same player
    with pytest.raises(NotFound):
        await pr.my_hand(store, ann.id, "R1", 9)

    # history: newest first, running totals over every counted hand of the profile
    mine = [
        (c, n, s["deltas"][seat])
        for c, seat, ss in (("R1", 0, r1), ("R2", 1, r2))
        for n, s in enumerate(ss, 1)
    ]
    history, nxt = await pr.my_history(store, ann.id)
    assert nxt is None
    assert [(h["room"], h["hand_no"], h["points"]) for h in history] == list(reversed(mine))
    total = 0
    for (_, _, d), h in zip(mine, reversed(history), strict=True):
        total += d
        assert h["total"] == total
    # paged one by one: the same rows and totals
    got, cursor = [], None
    while True:
        page, cursor = await pr.my_history(store, ann.id, limit=2, cursor=cursor)
        got += page
        if cursor is None:
            break
    assert got == history

    # a voided hand counts for nothing from then on; an adjustment counts
    await q.correct(store, "R1", 1, kind="void", reason="misdeal", actor="lee")
    await q.correct(
        store,
        "R1",
        3,
        kind="adjust",
        reason="miscount",
        actor="lee",
        from_seat=1,
        to_seat=0,
        points=5,
    )
    history, _ = await pr.my_history(store, ann.id)
    by = {(h["room"], h["hand_no"]): h for h in history}
    assert by[("R1", 1)]["points"] == 0 and by[("R1", 1)]["voided"] is True
    assert by[("R1", 3)]["points"] == r1[2]["deltas"][0] + 5
    want_total = r1[1]["deltas"][0] + r1[2]["deltas"][0] + 5 + sum(s["deltas"][1] for s in r2)
    assert history[0]["total"] == want_total
    page, cursor = await pr.my_history(store, ann.id, limit=1)
    rest, _ = await pr.my_history(store, ann.id, limit=10, cursor=cursor)
    assert [h["total"] for h in page + rest] == [h["total"] for h in history]
    assert (await pr.my_rooms(store, ann.id))[0][1]["hands"] == 2

    # the admin's filters take the profile id
    assert [r["code"] for r in (await q.rooms(store, profile=ann.id))[0]] == ["R2", "R1"]
    assert [r["code"] for r in (await q.rooms(store, player="ann"))[0]] == ["R2", "R1"]
    totals = await q.player_totals(store, None, profile=ann.id)
    assert totals["profile"] == ann.id and totals["hands"] == 4  # R1's void left out
    assert totals["points"] == want_total
    assert totals["player"] == "ann"  # the profile's display name (its seats: "ann", "Ann!")
    # by name: only seats without a profile; every "ann" here is a profile's (two people)
    by_name = await q.player_totals(store, "ann")
    assert (by_name["profile"], by_name["hands"], by_name["points"]) == (None, 0, 0)
    pays, _ = await q.payments(store, profile=bob.id, limit=1000)
    want = [
        p for s, seat in ((s, 1) for s in r1) for p in s["payments"] if seat in (p["from"], p["to"])
    ]
    want += [p for s in r3 for p in s["payments"] if 0 in (p["from"], p["to"])]
    assert len(pays) == len(want) and {p["room"] for p in pays} == {"R1", "R3"}
    with pytest.raises(ValueError):
        await q.player_history(store, None)


async def test_a_seat_without_profile_is_claimed_by_its_token(store: Store) -> None:
    settled = await seat_room(store, "OLD", [("ann", None), ("bob", None)] + [("b", None)] * 2, 2)
    async with store.engine.begin() as conn:  # two humans seated before profiles existed
        await conn.execute(Player.__table__.update().where(Player.seat < 2).values(is_bot=False))
    ann, _ = await pr.create_profile(store, "ann")
    eve, _ = await pr.create_profile(store, "eve")
    assert (await pr.my_rooms(store, ann.id))[0] == []
    assert await pr.claim_seat(store, ann.id, "OLD", "token-OLD-0") == 0
    assert await pr.claim_seat(store, ann.id, "OLD", "token-OLD-0") == 0  # again: the same
    with pytest.raises(Conflict):
        await pr.claim_seat(store, eve.id, "OLD", "token-OLD-0")
    for code, token in (("OLD", "wrong"), ("OLD", "token-OLD-2"), ("NOPE", "token-OLD-0")):
        with pytest.raises(NotFound):  # a bot's seat cannot be claimed either
            await pr.claim_seat(store, eve.id, code, token)
    rooms, _ = await pr.my_rooms(store, ann.id)
    assert [r["code"] for r in rooms] == ["OLD"]
    assert rooms[0]["standings"] == [sum(s["deltas"][i] for s in settled) for i in range(4)]
    history, _ = await pr.my_history(store, ann.id)
    assert [h["points"] for h in history] == [settled[1]["deltas"][0], settled[0]["deltas"][0]]
    assert await pr.seat_of(store, ann.id, "OLD") == 0
    assert await pr.seat_of(store, eve.id, "OLD") is None


async def test_admin_cli_takes_a_profile_id(store: Store, database_url: str) -> None:
    import json

    from tests.store.test_admin_cli import _cli

    ann, _ = await pr.create_profile(store, "ann")
    await seat_room(store, "P1", [("ann", ann.id), ("x", None), ("y", None), ("z", None)], 2)
    await seat_room(store, "Q2", [("ann", None), ("x", None), ("y", None), ("z", None)], 1)
    out = _cli(database_url, "player", "--profile", str(ann.id))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0] == await q.player_totals(store, None, profile=ann.id)
    assert lines[0]["hands"] == 2 and lines[0]["profile"] == ann.id
    assert lines[1:] == (await q.player_history(store, None, profile=ann.id))[0]
    out = _cli(database_url, "rooms", "--profile", str(ann.id))
    assert [json.loads(line)["code"] for line in out.stdout.splitlines()] == ["P1"]
    out = _cli(database_url, "player")
    assert out.returncode == 2 and "NAME or --profile" in out.stderr


async def test_running_totals_are_kept_per_game(store: Store) -> None:
    """`my_history`'s ``total`` adds a hand to the earlier hands of its own game only:
    Guiyang's points (底分 1) and Jintan's (底数 10) are never summed (paged too)."""
    ann, _ = await pr.create_profile(store, "ann")
    gy1 = await seat_room(store, "G1", [("ann", ann.id), ("x", None), ("y", None), ("z", None)], 2)
    await store.create_room("J1", "jintan", {})
    for seat, name in enumerate(("ann", "x", "y", "z")):
        await store.add_player(
            "J1", seat, name, f"token-J1-{seat}", seat > 0, profile_id=ann.id if seat == 0 else None
        )
    jt = []
    for hand_no, points in ((1, 30), (2, 20)):
        await store.start_hand("J1", hand_no, f"J1-{hand_no}", 0, 1)
        pays = [{"from": p, "to": 0, "points": points, "reason": "hu"} for p in (1, 2, 3)]
        deltas = [3 * points, -points, -points, -points]
        settlement = {"result": "win", "winners": [0], "payments": pays, "deltas": deltas}
        assert await store.settle_hand("J1", hand_no, "win", settlement, pays, deltas)
        jt.append(deltas[0])
    gy2 = await seat_room(store, "G2", [("ann", ann.id), ("x", None), ("y", None), ("z", None)], 1)
    order = [("guiyang", s["deltas"][0]) for s in gy1]
    order += [("jintan", d) for d in jt] + [("guiyang", gy2[0]["deltas"][0])]
    running = {"guiyang": 0, "jintan": 0}
    want = []
    for game, d in order:
        running[game] += d
        want.append((game, running[game]))
    history, _ = await pr.my_history(store, ann.id)
    assert [(h["game"], h["total"]) for h in reversed(history)] == want
    assert history[0]["total"] == sum(s["deltas"][0] for s in gy1 + gy2)  # no Jintan in it
    page, cursor = await pr.my_history(store, ann.id, limit=2)
    rest, _ = await pr.my_history(store, ann.id, limit=10, cursor=cursor)
    assert [h["total"] for h in page + rest] == [h["total"] for h in history]
