"""Durable storage (SQLAlchemy 2 async): rooms, players, hands, the action log, the ledger.

Use :class:`Store`; the schema is created only by Alembic (``Store.migrate()`` or
``python -m server migrate``).
"""

from server.store.store import (
    Conflict,
    FinishedHand,
    HandRecord,
    NotFound,
    PlayerRecord,
    RoomRecord,
    StartedHand,
    Store,
    transient,
)

__all__ = [
    "Conflict",
    "FinishedHand",
    "HandRecord",
    "NotFound",
    "PlayerRecord",
    "RoomRecord",
    "StartedHand",
    "Store",
    "transient",
]
