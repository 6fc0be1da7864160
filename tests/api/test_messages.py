"""Client message validation and the generated schema in docs/protocol.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from server.api.messages import ClientMessageAdapter, ServerMessageAdapter, render_doc

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_protocol_doc_schema_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render_doc(text) == text, "run: python -m server.api.messages --write"


@pytest.mark.parametrize(
    "msg",
    [
        {"type": "action", "seq": 1, "action": {"kind": "discard", "tile": "5m"}},
        {"type": "action", "action": {"kind": "discard", "tile": "9s", "bao_ting": True}},
        {"type": "action", "action": {"kind": "ding_que", "suit": "p"}},
        {"type": "action", "action": {"kind": "pass"}},
        {"type": "action", "action": {"kind": "discard", "tile": "7z"}},
        {"type": "action", "action": {"kind": "chow", "tiles": ["4m", "5m"]}},
        {"type": "ready"},
        {"type": "sync", "seq": 3},
        {"type": "auto", "on": False},
        {"type": "ping"},
    ],
)
def test_client_messages_accepted(msg: dict[str, Any]) -> None:
    assert ClientMessageAdapter.validate_python(msg).type == msg["type"]


@pytest.mark.parametrize(
    "msg",
    [
        {},
        [],
        {"type": "teleport"},
        {"type": "action"},
        {"type": "action", "action": {"kind": "chow", "tile": "5m"}},
        {"type": "action", "action": {"kind": "discard", "tile": "0m"}},
        {"type": "action", "action": {"kind": "discard", "tile": "8z"}},
        {"type": "action", "action": {"kind": "discard", "tile": "1f"}},
        {"type": "action", "action": {"kind": "chow", "tiles": ["4m"]}},
        {"type": "action", "action": {"kind": "pong", "tiles": ["4m", "5m"]}},
        {"type": "action", "action": {"kind": "ding_que", "suit": "z"}},
        {"type": "action", "action": {"kind": "pass", "extra": 1}},
        {"type": "ready", "extra": 1},
        {"type": "auto"},
        {"type": "action", "seq": "one", "action": {"kind": "pass"}},
    ],
)
def test_client_messages_refused(msg: Any) -> None:
    with pytest.raises(ValidationError):
        ClientMessageAdapter.validate_python(msg)


def test_server_error_shape() -> None:
    msg = {"type": "error", "code": "illegal_action", "message": "no", "seq": 4}
    assert ServerMessageAdapter.validate_python(msg).seq == 4
    with pytest.raises(ValidationError):
        ServerMessageAdapter.validate_python({**msg, "code": "made_up"})
