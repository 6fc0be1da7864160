"""Room options of Jintan mahjong (spec/jintan.md §J3, §J6)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..catalog import label as _label


class JintanOptions(BaseModel):
    """The options of a Jintan room, with the spec's defaults.

    ``base`` (底数, §J6) and ``flower_value`` (花分值) set the points of a win: (base + 花 ×
    flower_value) × 2^番, capped at ×4; ``chow`` allows 吃 (§J3). ``hands`` and the timers are
    room settings, as for Guiyang. Raises ``pydantic.ValidationError`` (naming the field) for
    an unknown key or a bad value (not coerced: ``"10"`` is no number).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    base: int = Field(
        default=10,
        ge=1,
        le=1000,
        json_schema_extra=_label(
            "底数",
            "Base",
            hint=(
                "一份 = 底数 + 花数 × 花分值，再按番翻倍（最多 ×4）",
                "a share = base + flowers (花) × points per flower,"
                " doubled per fan (番), at most ×4",
            ),
        ),
    )
    flower_value: int = Field(
        default=5,
        ge=0,
        le=1000,
        json_schema_extra=_label(
            "花分值",
            "Points per flower (花)",
            hint=(
                "每 1 花加的分（花牌、字牌的碰 / 暗刻 / 杠、数牌的杠都算花）",
                "what each flower (花) adds: flower tiles,"
                " honour pongs / triplets / kongs, suit kongs",
            ),
        ),
    )
    chow: bool = Field(
        default=True,
        json_schema_extra=_label(
            "可吃", "Chow allowed", hint=("不选：只能碰、杠、胡", "off: only pong, kong and win")
        ),
    )
    hands: Literal[4, 8, 16] = Field(default=8, json_schema_extra=_label("局数", "Hands"))
    claim_seconds: int = Field(
        default=10, ge=1, le=120, json_schema_extra=_label("抢牌秒数", "Claim seconds")
    )
    turn_seconds: int = Field(
        default=20, ge=1, le=300, json_schema_extra=_label("出牌秒数", "Turn seconds")
    )
    bank_seconds: int = Field(
        default=20, ge=0, le=600, json_schema_extra=_label("时间银行", "Time bank (seconds)")
    )

    @property
    def players(self) -> int:
        """Jintan is played by four (§J1)."""
        return 4
