"""Room options of Guiyang Zhuoji (spec/guiyang.md §14) and the value tables (§6.2, §9.2)."""

from __future__ import annotations

from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..catalog import label as _label

Scoring = Literal["yi_kou_er", "yi_kou_san", "lian_zhuang"]


class GuiyangOptions(BaseModel):
    """The options of a Guiyang room, all with the defaults of §14.

    Raises ``pydantic.ValidationError`` (naming the field) for an unknown key or a bad value;
    values are not coerced (``"10"`` is no number, ``"off"`` / ``0`` no boolean), as in the
    WebSocket messages.
    The scoring modes 一扣二 / 一扣三 / 连庄 are one choice (§10.1), so "一扣三 with 连庄"
    cannot be expressed here; a client sending both flags is refused by the API layer.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    players: Literal[4, 3, 2] = Field(
        default=4,
        json_schema_extra=_label("人数", "Players", {"4": "4人", "3": "三丁拐", "2": "二丁拐"}),
    )
    scoring: Scoring = Field(
        default="yi_kou_er",
        json_schema_extra=_label(
            "计分",
            "Scoring",
            {"yi_kou_er": "一扣二", "yi_kou_san": "一扣三", "lian_zhuang": "连庄"},
        ),
    )
    yao_bai_ji: bool = Field(default=False, json_schema_extra=_label("摇摆鸡", "Swinging chicken"))
    man_tang_ji: bool = Field(
        default=True, json_schema_extra=_label("满堂鸡", "Full-table chicken")
    )
    fan_table: Literal["standard", "app"] = Field(
        default="standard",
        json_schema_extra=_label("番表", "Fan table", {"standard": "标准", "app": "App番表"}),
    )
    dou_values: Literal["standard", "all_three"] = Field(
        default="standard",
        json_schema_extra=_label("豆", "Kong points", {"standard": "标准", "all_three": "全3分"}),
    )
    multiple_winners: bool = Field(
        default=True, json_schema_extra=_label("一炮多响", "Several winners on one discard")
    )
    pass_pong_lock: bool = Field(default=False, json_schema_extra=_label("过碰", "Pass-pong lock"))
    #: §9.6 more chicken options.
    wu_gu_ji: bool = Field(
        default=False, json_schema_extra=_label("乌骨鸡", "Black-bone chicken 8p")
    )
    ben_ji: bool = Field(
        default=False, json_schema_extra=_label("本鸡", "Turned tile is a chicken")
    )
    xing_qi_ji: bool = Field(default=False, json_schema_extra=_label("星期鸡", "Weekday chicken"))
    chui_feng_ji: bool = Field(
        default=False, json_schema_extra=_label("吹风鸡", "5p turned blows the chickens")
    )
    #: IANA zone whose weekday at the deal gives the 星期鸡 rank (§9.6).
    time_zone: str = Field(
        default="Asia/Shanghai",
        max_length=64,
        json_schema_extra=_label("时区 (星期鸡)", "Time zone (weekday chicken)"),
    )
    base_points: int = Field(
        default=1, ge=1, le=1000, json_schema_extra=_label("底分", "Base points")
    )
    hands: Literal[4, 8, 16] = Field(default=8, json_schema_extra=_label("局数", "Hands"))
    claim_seconds: int = Field(
        default=10, ge=1, le=120, json_schema_extra=_label("抢牌秒数", "Claim seconds")
    )
    turn_seconds: int = Field(
        default=20, ge=1, le=300, json_schema_extra=_label("出牌秒数", "Turn seconds")
    )
    #: Room timers, not rules: each seat's time bank per hand (seconds beyond the limits).
    bank_seconds: int = Field(
        default=20, ge=0, le=600, json_schema_extra=_label("时间银行", "Time bank (seconds)")
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        """A zone name ``zoneinfo`` knows (e.g. ``Asia/Shanghai``), else a ValueError (also
        for a name the zone database reads as a directory, ``America``, or a file name too
        long: an OSError there is the client's, not an outage)."""
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise ValueError(f"unknown time zone {value!r} (an IANA name like Asia/Shanghai)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _scoring_flags(cls, data: object) -> object:
        """Accept the room form's two exclusive checkboxes ``lian_zhuang`` / ``yi_kou_san``."""
        if not isinstance(data, dict) or not ({"lian_zhuang", "yi_kou_san"} & data.keys()):
            return data
        data = dict(data)
        lz = data.pop("lian_zhuang", False)
        yks = data.pop("yi_kou_san", False)
        for name, value in (("lian_zhuang", lz), ("yi_kou_san", yks)):
            if not isinstance(value, bool):  # strict, as the fields are: "false" is no bool
                raise ValueError(f"{name} must be true or false, not {value!r}")
        if lz and yks:
            raise ValueError(
                "lian_zhuang (连庄) and yi_kou_san (一扣三) exclude each other (§10.1)"
            )
        flag = "lian_zhuang" if lz else "yi_kou_san" if yks else None
        if flag and data.get("scoring", flag) != flag:
            raise ValueError(f"scoring {data['scoring']!r} contradicts {flag} (§10.1)")
        if flag:
            data["scoring"] = flag
        return data


HAND_TYPES = (
    "ping_hu",
    "da_dui_zi",
    "qi_dui",
    "long_qi_dui",
    "dan_diao",
    "qing_yi_se",
    "qing_da_dui",
    "qing_qi_dui",
    "qing_long_bei",
    "qing_dan_diao",
)

# §6.2: 番 per hand type for each scoring column.
_STANDARD = dict(
    ping_hu=1,
    da_dui_zi=5,
    qi_dui=7,
    long_qi_dui=10,
    qing_yi_se=10,
    qing_da_dui=15,
    qing_qi_dui=17,
    qing_long_bei=20,
    dan_diao=7,
    qing_dan_diao=17,
)
_APP = dict(
    ping_hu=1,
    da_dui_zi=5,
    qi_dui=10,
    long_qi_dui=20,
    qing_yi_se=10,
    qing_da_dui=15,
    qing_qi_dui=20,
    qing_long_bei=30,
    dan_diao=10,
    qing_dan_diao=20,
)
_YI_KOU_SAN = dict(
    ping_hu=3,
    da_dui_zi=8,
    qi_dui=12,
    long_qi_dui=20,
    qing_yi_se=12,
    qing_da_dui=20,
    qing_qi_dui=24,
    qing_long_bei=36,
    dan_diao=12,
    qing_dan_diao=24,
)


def hand_type_values(options: GuiyangOptions) -> dict[str, int]:
    """Return hand type id -> 番 for the room's scoring mode and ``fan_table`` (§6.2)."""
    if options.scoring == "yi_kou_san":
        return _YI_KOU_SAN
    return _APP if options.fan_table == "app" else _STANDARD


def dou_points(options: GuiyangOptions) -> dict[str, int]:
    """Return 豆 kind -> points per payer (§9.2), before ``base_points``."""
    if options.dou_values == "all_three":
        return {"men_dou": 3, "zhuan_wan_dou": 3, "ming_dou": 3}
    return {"men_dou": 2, "zhuan_wan_dou": 3, "ming_dou": 1}
