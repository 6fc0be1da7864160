"""Room options of Jintan mahjong (spec/jintan.md §J3, §J6)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class JintanOptions(BaseModel):
    """The options of a Jintan room, with the spec's defaults.

    ``base`` (底数, §J6) and ``flower_value`` (花分值) set the points of a win: (base + 花 ×
    flower_value) × 2^番, capped at ×4; ``chow`` allows 吃 (§J3). ``hands`` and the timers are
    room settings, as for Guiyang. Raises ``pydantic.ValidationError`` (naming the field) for
    an unknown key or a bad value.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    base: int = Field(default=10, ge=1, le=1000)
    flower_value: int = Field(default=5, ge=0, le=1000)
    chow: bool = True
    hands: Literal[4, 8, 16] = 8
    claim_seconds: int = Field(default=10, ge=1, le=120)
    turn_seconds: int = Field(default=20, ge=1, le=300)
    bank_seconds: int = Field(default=20, ge=0, le=600)

    @property
    def players(self) -> int:
        """Jintan is played by four (§J1)."""
        return 4
