"""Hand replays for the 回放 viewer (issue 14): ``GET /api/replays/{hand_id}?key=<replay_key>``.

A finished hand's replay is computed by the engine from the stored seed and action log
(:func:`server.rules.replay.replay_record`, the replay the audit runs). The key (32 hex
digits, ``hands.replay_key``, migration 0007) reaches the hand's seats only, in the
settlement they are sent (``hand_end.replay``, ``snapshot.replay``); the admin
(``Authorization: Bearer <ADMIN_TOKEN>``) needs no key. Shapes: ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import JSONResponse

from server.api.admin import require_admin
from server.api.params import HandId
from server.rules.registry import UnknownGame, find_game
from server.rules.replay import log_steps, replay_record
from server.rules.types import IllegalAction
from server.store.store import HandRecord, Store

router = APIRouter()


def _error(status: int, code: str, message: str) -> HTTPException:
    return HTTPException(status, {"code": code, "message": message})


async def _replay(store: Store, hand: HandRecord) -> dict[str, Any]:
    room = await store.get_room(hand.code)
    if room is None:  # pragma: no cover - a hand's room is deleted with it (CASCADE)
        raise _error(404, "not_found", f"no hand {hand.id}")
    actions = await store.hand_actions(hand.code, hand.hand_no)
    payments = await store.ledger_by_hand(hand.code, hand.hand_no)
    try:
        game = find_game(room.game)
        record = await asyncio.to_thread(
            replay_record,
            game,
            room.options,
            log_steps(actions),
            seed=hand.seed,
            dealer=hand.dealer,
            dealer_streak=hand.dealer_streak,
            weekday=hand.weekday,
        )
    except (IllegalAction, UnknownGame, KeyError, TypeError, ValueError) as exc:
        raise _error(500, "replay_failed", f"the hand's log does not replay: {exc}") from None
    names = {p.seat: p for p in room.players}
    settlement = record["settlement"]

    def summed(rows: list[dict[str, Any]]) -> list[tuple[int, int, int, str]]:
        return sorted((p["from"], p["to"], p["points"], p["reason"]) for p in rows)

    replay_ok = (
        settlement is not None
        and list(settlement["deltas"]) == hand.deltas
        and summed(settlement["payments"]) == summed(payments)
    )
    return {
        "hand_id": hand.id,
        "room": hand.code,
        "hand_no": hand.hand_no,
        "game": room.game,
        "options": room.options,
        "seats": [
            {
                "seat": s,
                "name": names[s].name if s in names else "",
                "bot": names[s].is_bot if s in names else False,
            }
            for s in range(record["players"])
        ],
        "started_at": hand.started_at.isoformat(),
        "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
        **record,
        "ledger": {"deltas": hand.deltas, "payments": payments},
        "replay_ok": replay_ok,
    }


@router.get(
    "/api/replays/{hand_id}",
    responses={
        403: {"description": "bad_key (or forbidden: a wrong admin token)"},
        404: {"description": "not_found"},
        409: {"description": "hand_not_finished"},
    },
)
async def hand_replay(
    request: Request,
    hand_id: HandId,
    key: str | None = None,
    authorization: str | None = Header(default=None),
) -> Any:
    """A finished hand's replay, step by step with every hand open: ``{"hand_id", "room",
    "hand_no", "game", "options", "seats": [{"seat", "name", "bot"}], "started_at",
    "ended_at", "seed", "seed_hash", "players", "dealer", "dealer_streak", "weekday",
    "deal": {"hands", "wall"}, "initial", "steps": [{"n", "seat", "action", "events",
    "state"}], "settlement", "ledger": {"deltas", "payments"}, "replay_ok"}``
    (:func:`server.rules.replay.replay_record`; ``replay_ok``: the replayed settlement
    gives the ledger's deltas and payments).

    Access: ``key`` = the hand's replay key, or ``Authorization: Bearer <ADMIN_TOKEN>``
    (then no key is needed; a wrong token is 403 ``forbidden``, and any token 404
    ``admin_off`` on a server without ``ADMIN_TOKEN``, as on every admin route).
    Errors: 404 ``not_found`` (no such hand), 403 ``bad_key`` (missing or wrong key), 409
    ``hand_not_finished`` (the hand is not settled: nothing of it is shown, key or not),
    500 ``replay_failed`` (a stored log that does not replay).
    """
    admin = False
    if authorization is not None:
        await require_admin(request, authorization)
        admin = True
    store: Store = request.app.state.store
    hand = await store.hand_by_id(hand_id)
    if hand is None:
        raise _error(404, "not_found", f"no hand {hand_id}")
    if not admin and (
        key is None
        or hand.replay_key is None
        or not secrets.compare_digest(key.encode(), hand.replay_key.encode())
    ):
        raise _error(403, "bad_key", "this replay needs the key its players were given")
    if hand.ended_at is None:
        raise _error(409, "hand_not_finished", "the hand is not finished yet")
    body = await _replay(store, hand)
    return JSONResponse(body, headers={"Cache-Control": "private, no-store"})
