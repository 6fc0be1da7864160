"""API docs in production, and the log records' shape (JSON, context, redaction)."""

from __future__ import annotations

import io
import json
import logging
import logging.config
from collections.abc import Iterator

import pytest

from server.api.app import create_app
from server.config import Settings
from server.logs import ROOM, SEAT, log_config


def test_openapi_lists_no_admin_route_and_is_off_when_disabled() -> None:
    app = create_app(Settings(api_docs=True))
    paths = app.openapi()["paths"]
    assert "/api/rooms" in paths
    assert not [p for p in paths if p.startswith("/api/admin")]
    assert app.docs_url == "/docs" and app.openapi_url == "/openapi.json"
    off = create_app(Settings(api_docs=False))
    assert off.docs_url is None and off.openapi_url is None and off.redoc_url is None


@pytest.fixture
def restore_logging() -> Iterator[None]:
    names = ("server", "uvicorn", "uvicorn.access", "uvicorn.error")
    saved = {
        n: (
            logging.getLogger(n).handlers[:],
            logging.getLogger(n).propagate,
            logging.getLogger(n).level,
        )
        for n in names
    }
    root = logging.getLogger()
    root_saved = (root.handlers[:], root.level)
    yield
    for n, (handlers, propagate, level) in saved.items():
        logger = logging.getLogger(n)
        logger.handlers[:], logger.propagate = handlers, propagate
        logger.setLevel(level)
    root.handlers[:] = root_saved[0]
    root.setLevel(root_saved[1])


def test_json_log_lines_carry_context_and_no_token(restore_logging: None) -> None:
    config = log_config("json", "info")
    logging.config.dictConfig(config)
    stream = io.StringIO()
    handler = logging.getLogger("server").handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(stream)
    room, seat = ROOM.set("ABC234"), SEAT.set(2)
    try:
        logging.getLogger("server.api.ws").warning("GET /ws/rooms/ABC234?token=s3cr3t&x=1")
        logging.getLogger("server.room.actor").info("settled", extra={"room": "XYZ789", "hand": 3})
        logging.getLogger("server.room.actor").info("no context here")
    finally:
        ROOM.reset(room)
        SEAT.reset(seat)
    first, second, third = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "GET /ws/rooms/ABC234?token=***&x=1"
    assert (first["room"], first["seat"], first["level"]) == ("ABC234", 2, "WARNING")
    assert {"timestamp", "logger", "process"} <= first.keys() and "hand" not in first
    assert (second["room"], second["hand"]) == ("XYZ789", 3) and "seat" not in second
    assert "room" not in third and "seat" not in third  # another task's context is not its own
