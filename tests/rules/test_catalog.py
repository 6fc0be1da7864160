"""The options catalog a room form is built from (``GET /api/games``)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from server.rules.catalog import describe_options, label
from server.rules.guiyang import GuiyangOptions
from server.rules.jintan import JintanOptions


@pytest.mark.parametrize("model", [GuiyangOptions, JintanOptions])
def test_every_option_is_described_with_its_default_and_labels(model: type[BaseModel]) -> None:
    described = describe_options(model)
    assert [d["name"] for d in described] == list(model.model_fields)
    defaults = model().model_dump()
    for d in described:
        assert d["default"] == defaults[d["name"]]
        assert d["label_zh"] and d["label_en"]
        assert d["type"] in ("bool", "int", "choice", "str")


def test_types_choices_and_ranges() -> None:
    by_name = {d["name"]: d for d in describe_options(GuiyangOptions)}
    assert by_name["players"]["choices"] == [4, 3, 2]
    assert by_name["players"]["choice_labels"]["3"] == "三丁拐"
    assert by_name["scoring"]["choices"] == ["yi_kou_er", "yi_kou_san", "lian_zhuang"]
    assert by_name["wu_gu_ji"] == {
        "name": "wu_gu_ji",
        "default": False,
        "type": "bool",
        "label_zh": "乌骨鸡",
        "label_en": "Black-bone chicken 8p",
    }
    assert (by_name["base_points"]["min"], by_name["base_points"]["max"]) == (1, 1000)
    jintan = {d["name"]: d for d in describe_options(JintanOptions)}
    assert jintan["base"]["default"] == 10 and jintan["flower_value"]["min"] == 0
    assert jintan["chow"]["type"] == "bool"
    # the form's one-line hints: what 底数 and 花分值 make of a win (jintan.md §J6)
    assert jintan["base"]["hint_zh"] == "一份 = 底数 + 花数 × 花分值，再按番翻倍（最多 ×4）"
    assert jintan["chow"]["hint_en"] == "off: only pong, kong and win"
    assert "hint_zh" not in jintan["hands"] and "hint_zh" not in by_name["wu_gu_ji"]


def test_an_option_without_a_label_is_refused() -> None:
    from pydantic import Field

    class Unlabelled(BaseModel):
        fine: bool = Field(default=True, json_schema_extra=label("好", "fine"))
        bare: int = 3

    with pytest.raises(ValueError, match="Unlabelled.bare has no label"):
        describe_options(Unlabelled)
