"""Migration 0006 (player profiles) over a database that already holds rooms (issue 14), on
SQLite and PostgreSQL: every row stays as it was (the seat rows keep their ``player_id``),
the old seats have no profile, the room is rebuilt and plays on, the admin's queries by name
give the same numbers, and a seat's token claims it for a profile afterwards."""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import Connection

from server.bus.memory import MemoryBus
from server.room.actor import Timing
from server.room.clock import ManualClock
from server.room.manager import RoomManager, hash_token
from server.rules import guiyang
from server.store import Store
from server.store import admin as q
from server.store import profiles as pr
from server.store.models import Action, Hand, LedgerEntry, Player, Room, SeatDelta
from server.store.schema import migrations_dir
from tests.store.admin_data import bot_hand
from tests.store.test_store import HEAD

TIMING = Timing(claim_seconds=10, turn_seconds=20, claim_min_ms=0, auto_seconds=1, ready_seconds=30)
NAMES = ["ann", "bob", "ann", "Bot West"]  # two people called ann; seat 3 a bot


async def _upgrade(store: Store, target: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.attributes["configure_logger"] = False

    def run(conn: Connection) -> None:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, target)

    await store._write(run)


async def _legacy_room(store: Store, code: str, hands: int) -> list[dict[str, Any]]:
    """A room as the release before 0006 stored it (only the columns it knew): four seats,
    ``hands`` settled hands with their action logs, status ``between``."""
    options = guiyang.GuiyangOptions(hands=8).model_dump()
    settlements = []
    async with store.engine.begin() as conn:
        room_id = (
            await conn.execute(
                insert(Room)
                .values(code=code, game="guiyang", options=options, status="between")
                .returning(Room.id)
            )
        ).scalar_one()
        seat_ids = []
        for seat, name in enumerate(NAMES):
            seat_ids.append(
                (
                    await conn.execute(
                        insert(Player)
                        .values(
                            room_id=room_id,
                            seat=seat,
                            name=name,
                            token_hash=hash_token(f"tok-{code}-{seat}"),
                            is_bot=seat == 3,
                        )
                        .returning(Player.id)
                    )
                ).scalar_one()
            )
        for hand_no in range(1, hands + 1):
            seed = f"{code}-{hand_no}"
            actions, settlement = bot_hand(seed, hand_no * 1000)
            hand_id = (
                await conn.execute(
                    insert(Hand)
                    .values(
                        room_id=room_id,
                        hand_no=hand_no,
                        seed=seed,
                        dealer=0,
                        dealer_streak=1,
                        ended_at=func.now(),
                        result=settlement["result"],
                        settlement=settlement,
                    )
                    .returning(Hand.id)
                )
            ).scalar_one()
            for idx, (seat, action) in enumerate(actions):
                await conn.execute(
                    insert(Action).values(
                        hand_id=hand_id, idx=idx, seat=seat, payload={"action": action.to_dict()}
                    )
                )
            for p in settlement["payments"]:
                await conn.execute(
                    insert(LedgerEntry).values(
                        hand_id=hand_id,
                        from_seat=p["from"],
                        to_seat=p["to"],
                        points=p["points"],
                        reason=p["reason"],
                        detail=p.get("detail"),
                    )
                )
            for seat, d in enumerate(settlement["deltas"]):
                await conn.execute(
                    insert(SeatDelta).values(
                        hand_id=hand_id, seat=seat, player_id=seat_ids[seat], delta=d
                    )
                )
            settlements.append(settlement)
    return settlements


async def _dump(store: Store) -> dict[str, list[Any]]:
    out = {}
    async with store.engine.connect() as conn:
        for table, order in (
            ("rooms", "id"),
            ("players", "id"),
            ("hands", "id"),
            ("actions", "id"),
            ("ledger_entries", "id"),
            ("seat_deltas", "id"),
        ):
            cols = {
                "rooms": "id, code, status",
                "players": "id, room_id, seat, name, token_hash, is_bot",
                "hands": "id, room_id, hand_no, seed, result",
                "actions": "id, hand_id, idx, seat",
                "ledger_entries": "id, hand_id, from_seat, to_seat, points, reason",
                "seat_deltas": "id, hand_id, seat, player_id, delta",
            }[table]
            rows = await conn.execute(text(f"SELECT {cols} FROM {table} ORDER BY {order}"))
            out[table] = [tuple(r) for r in rows]
    return out


async def test_profiles_migration_keeps_old_rooms_working(database_url: str) -> None:
    store = Store(database_url)
    try:
        await _upgrade(store, "0005")
        settlements = await _legacy_room(store, "OLD111", 2)
        before = await _dump(store)
        assert len(before["seat_deltas"]) == 8 and all(r[3] for r in before["seat_deltas"])

        await _upgrade(store, "head")
        await _upgrade(store, "head")  # idempotent
        assert await _dump(store) == before  # every row as it was, player_id kept
        async with store.engine.connect() as conn:
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
            profiles = await conn.scalar(text("SELECT count(*) FROM profiles"))
            seat_profiles = (await conn.execute(select(Player.profile_id))).scalars().all()
            row_profiles = (await conn.execute(select(SeatDelta.profile_id))).scalars().all()
        assert version == [(HEAD,)] and profiles == 0
        assert seat_profiles == [None] * 4 and row_profiles == [None] * 8

        # the admin's queries by name count the seats without profile as before: here both
        # "ann" seats (two people, one name, as the release before profiles counted them)
        by_name = await q.player_totals(store, "ann")
        assert (by_name["profile"], by_name["hands"], by_name["points"]) == (
            None,
            4,
            sum(s["deltas"][0] + s["deltas"][2] for s in settlements),
        )
        rooms, _ = await q.rooms(store)
        want = [sum(s["deltas"][i] for s in settlements) for i in range(4)]
        assert rooms[0]["standings"] == want and rooms[0]["hands"] == 2
        assert [s["bot"] for s in rooms[0]["seats"]] == [False, False, False, True]

        # the room is rebuilt from the store and plays on
        record = await store.get_room("OLD111")
        assert record is not None and [p.profile_id for p in record.players] == [None] * 4
        clock = ManualClock()
        manager = RoomManager(store, MemoryBus(), clock, TIMING)
        actor = await manager.get("OLD111")
        info = actor.info()  # type: ignore[union-attr]
        assert info["hand_no"] == 2 and info["totals"] == want and info["status"] == "between"
        assert [s["name"] for s in info["seats"]] == NAMES
        _, seat = await manager.authenticate("OLD111", "tok-OLD111-2")
        assert seat == 2
        await manager.close()

        # the second "ann" claims her seat with its token: her records, not the other ann's
        ann, _ = await pr.create_profile(store, "ann")
        assert await pr.claim_seat(store, ann.id, "OLD111", hash_token("tok-OLD111-2")) == 2
        mine, _ = await pr.my_rooms(store, ann.id)
        assert [(r["code"], r["seat"], r["standings"]) for r in mine] == [("OLD111", 2, want)]
        history, _ = await pr.my_history(store, ann.id)
        assert [h["points"] for h in history] == [s["deltas"][2] for s in reversed(settlements)]
        assert history[0]["total"] == want[2]
        # the admin's "ann" by name is now the other ann's seat only; hers is her profile's
        by_name = await q.player_totals(store, "ann")
        assert (by_name["hands"], by_name["points"]) == (2, want[0])
        board = {(r["profile"], r["player"]): r["points"] for r in (await q.leaderboard(store))[0]}
        assert board[(ann.id, "ann")] == want[2] and board[(None, "ann")] == want[0]
        # a hand settled after the migration names her profile on her seat's row only
        await store.start_hand("OLD111", 3, "OLD111-3", 0, 1)
        _, s3 = bot_hand("OLD111-3", 3000)
        assert await store.settle_hand("OLD111", 3, s3["result"], s3, s3["payments"], s3["deltas"])
        async with store.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(SeatDelta.seat, SeatDelta.profile_id)
                    .join(Hand, Hand.id == SeatDelta.hand_id)
                    .where(Hand.hand_no == 3)
                    .order_by(SeatDelta.seat)
                )
            ).all()
        assert [tuple(r) for r in rows] == [(0, None), (1, None), (2, ann.id), (3, None)]
        assert (await q.player_totals(store, None, profile=ann.id))["points"] == (
            want[2] + s3["deltas"][2]
        )
    finally:
        await store.close()
