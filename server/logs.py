"""Logging: one JSON object per line (or plain text) for the app's and uvicorn's loggers.

Each JSON line has ``timestamp`` (UTC, ISO 8601), ``level``, ``logger``, ``process`` (pid),
``message``, and ``room``, ``hand``, ``seat`` when known: from ``extra={"room": ...}`` on the
call, else, for the socket layer's and uvicorn's lines, from the context variables
:data:`ROOM`, :data:`HAND`, :data:`SEAT` (the socket layer sets them for its connection's
task). Exceptions add ``exc_info``. Seat tokens are
redacted (``token=***``) from every record before any handler formats it.

``python -m server serve`` passes :func:`log_config` to uvicorn (``LOG_FORMAT`` = ``json``,
the default, or ``text``).
"""

from __future__ import annotations

import logging
import re
from contextvars import ContextVar
from typing import Any
from urllib.parse import unquote_plus

ROOM: ContextVar[str | None] = ContextVar("zhuoji_room", default=None)
HAND: ContextVar[int | None] = ContextVar("zhuoji_hand", default=None)
SEAT: ContextVar[int | None] = ContextVar("zhuoji_seat", default=None)

_TOKEN = re.compile(r"(token=)[^\s&#\"']+")
#: One parameter of a query string (after ``?``, ``&`` or ``;``).
_PARAM = re.compile(r"(?<=[?&;])[^\s&#\"';]+")


def _decoded(text: str) -> str:
    """``text`` percent-decoded until it no longer changes (at most 4 times)."""
    for _ in range(4):
        plain = unquote_plus(text)
        if plain == text:
            break
        text = plain
    return text


def _redact_param(match: re.Match[str]) -> str:
    part = match.group(0)
    name, eq, _ = part.partition("=")
    if eq and _decoded(name).strip().lower() == "token":
        return f"{name}=***"
    if _decoded(part).strip().lower().startswith("token="):  # ``token%3D<value>``
        return "token=***"
    return part


def redact(text: str) -> str:
    """``text`` with every ``token=<value>`` replaced by ``token=***``, and every query
    parameter that decodes to a token, however spelled (``?%74oken=``, ``?TOKEN=``,
    ``?token%3D...``), likewise."""
    return _PARAM.sub(_redact_param, _TOKEN.sub(r"\1***", text))


class TokenRedactingFilter(logging.Filter):
    """Replaces ``token=<value>`` with ``token=***`` in a record before any handler sees it.

    String arguments are redacted in place (uvicorn's access formatter unpacks ``args``), as
    is ``msg``; if the formatted message still holds a token, it replaces ``msg`` and ``args``
    becomes ``()``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        try:
            message = record.getMessage()
        except Exception:
            return True
        if redact(message) != message:
            record.msg, record.args = redact(message), ()
        return True


#: uvicorn's messages about a client breaking the protocol (logged by it as errors with a
#: traceback): the client's fault, so a warning without traceback.
CLIENT_PROTOCOL_ERRORS = frozenset({"Invalid UTF-8 sequence received from client."})


class ClientProtocolFilter(logging.Filter):
    """Turns uvicorn's records of :data:`CLIENT_PROTOCOL_ERRORS` (an invalid UTF-8 text
    frame) into one WARNING line without traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in CLIENT_PROTOCOL_ERRORS and record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


#: Loggers whose records may take room / hand / seat from the context variables: those of
#: the socket layer, which sets them for its own task. Tasks it happens to spawn (a room's
#: actor started by a connecting seat) inherit a copy, so other loggers pass ``extra=``.
CONTEXT_LOGGERS = ("server.api", "uvicorn")


class ContextFilter(logging.Filter):
    """Sets ``room``, ``hand``, ``seat`` on every record: from ``extra=`` if the call gave
    them, else (for :data:`CONTEXT_LOGGERS`) from the context variables, else ``None``."""

    def filter(self, record: logging.LogRecord) -> bool:
        from_context = record.name.startswith(CONTEXT_LOGGERS)
        for name, var in (("room", ROOM), ("hand", HAND), ("seat", SEAT)):
            if getattr(record, name, None) is None:
                setattr(record, name, var.get() if from_context else None)
        return True


def _json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    class Formatter(JsonFormatter):
        def add_fields(
            self, log_record: dict[str, Any], record: logging.LogRecord, message: dict[str, Any]
        ) -> None:
            super().add_fields(log_record, record, message)
            for name in ("room", "hand", "seat"):
                if log_record.get(name) is None:
                    log_record.pop(name, None)
            # uvicorn's colour hints are for its own text formatter
            log_record.pop("color_message", None)

    return Formatter(
        "%(timestamp)s %(levelname)s %(name)s %(process)d %(message)s %(room)s %(hand)s %(seat)s",
        rename_fields={"levelname": "level", "name": "logger", "process": "process"},
        timestamp=True,
    )


def log_config(fmt: str = "json", level: str = "info") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the app (``server.*``) and uvicorn: one stream
    handler on stderr with the redaction and context filters; ``fmt`` = ``json`` or ``text``."""
    level = level.upper()
    formatter: dict[str, Any]
    if fmt == "json":
        formatter = {"()": "server.logs._json_formatter"}
    else:
        formatter = {
            "format": "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s",
        }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "redact": {"()": "server.logs.TokenRedactingFilter"},
            "client_protocol": {"()": "server.logs.ClientProtocolFilter"},
            "context": {"()": "server.logs.ContextFilter"},
        },
        "formatters": {"main": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "main",
                "filters": ["client_protocol", "redact", "context"],
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"handlers": ["stderr"], "level": level, "propagate": False},
            "server": {"handlers": ["stderr"], "level": level, "propagate": False},
        },
        "root": {"handlers": ["stderr"], "level": "WARNING"},
    }
