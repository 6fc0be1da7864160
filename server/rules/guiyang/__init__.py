"""贵阳捉鸡 (Guiyang Zhuoji): the engine's public interface (spec/guiyang.md)."""

from ..events import project_event
from .engine import (
    acting_seats,
    apply,
    claims_decided,
    deal,
    default_action,
    legal_actions,
    new_hand,
    prompt_kind,
    resolve_claims,
    seed_hash,
    view,
    weekday_at,
)
from .options import HAND_TYPES, GuiyangOptions, dou_points, hand_type_values
from .scoring import hand_type, is_ready, ready_value, settle, waits
from .state import Action, IllegalAction, Meld, State

__all__ = [
    "HAND_TYPES",
    "Action",
    "GuiyangOptions",
    "IllegalAction",
    "Meld",
    "State",
    "acting_seats",
    "apply",
    "claims_decided",
    "deal",
    "default_action",
    "dou_points",
    "hand_type",
    "hand_type_values",
    "is_ready",
    "legal_actions",
    "new_hand",
    "project_event",
    "prompt_kind",
    "ready_value",
    "resolve_claims",
    "seed_hash",
    "settle",
    "view",
    "waits",
    "weekday_at",
]
