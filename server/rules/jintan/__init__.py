"""金坛麻将 (Jintan mahjong): the engine's public interface (spec/jintan.md), the same
functions as `server.rules.guiyang` offers."""

from ..errors import IllegalAction
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
    waits,
)
from .options import JintanOptions
from .scoring import FAN_VALUES, Score, score, settle
from .state import Action, Meld, State

__all__ = [
    "FAN_VALUES",
    "Action",
    "IllegalAction",
    "JintanOptions",
    "Meld",
    "Score",
    "State",
    "acting_seats",
    "apply",
    "claims_decided",
    "deal",
    "default_action",
    "legal_actions",
    "new_hand",
    "project_event",
    "prompt_kind",
    "resolve_claims",
    "score",
    "seed_hash",
    "settle",
    "view",
    "waits",
]
