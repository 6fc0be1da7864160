"""What a room form needs to know of a game's options: each option's name, type, default,
choices or range, its Chinese and English label and, for some, a hint (``GET /api/games``).

Labels live on the options models' fields (``json_schema_extra``, see `label`), so a new
option cannot be added without one; `describe_options` reads them back.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel


def label(
    zh: str,
    en: str,
    choices: dict[str, str] | None = None,
    hint: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """A field's ``json_schema_extra``: its Chinese and English label, (for a choice) the
    Chinese label of each value, and an optional one-line hint (Chinese, English) that the
    room form shows under the option (what it does, in the room's numbers' terms)."""
    extra: dict[str, Any] = {"label_zh": zh, "label_en": en}
    if choices:
        extra["choice_labels"] = choices
    if hint:
        extra["hint_zh"], extra["hint_en"] = hint
    return extra


def describe_options(model: type[BaseModel]) -> list[dict[str, Any]]:
    """One entry per field of ``model``, in declaration order: ``{"name", "type" ("bool" |
    "int" | "choice" | "str"), "default", "choices"? (values), "choice_labels"?, "min"?,
    "max"?, "label_zh", "label_en", "hint_zh"?, "hint_en"?}``.

    Raises:
        ValueError: a field has no label (every option must have one).
    """
    out = []
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra
        if not isinstance(extra, dict) or "label_zh" not in extra:
            raise ValueError(f"option {model.__name__}.{name} has no label")
        entry: dict[str, Any] = {"name": name, "default": field.default}
        annotation = field.annotation
        if typing.get_origin(annotation) is typing.Literal:
            entry["type"] = "choice"
            entry["choices"] = list(typing.get_args(annotation))
        elif annotation is bool:
            entry["type"] = "bool"
        elif annotation is int:
            entry["type"] = "int"
        else:
            entry["type"] = "str"
        for meta in field.metadata:
            for attr, key in (("ge", "min"), ("le", "max")):
                if getattr(meta, attr, None) is not None:
                    entry[key] = getattr(meta, attr)
        entry["label_zh"] = extra["label_zh"]
        entry["label_en"] = extra["label_en"]
        for key in ("choice_labels", "hint_zh", "hint_en"):
            if key in extra:
                entry[key] = extra[key]
        out.append(entry)
    return out
