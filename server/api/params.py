"""Request parameters shared by the API's routers: the client's address, a bearer token, and
query datetimes and path / query integers that are a 422 (not a 500) when out of range."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Path, Query, Request
from pydantic import AfterValidator

from server.store.admin import MAX_LIMIT


def _utc_range(value: datetime) -> datetime:
    """A datetime whose UTC instant exists (years 1..9999); else ``ValueError`` (a 422)."""
    if value.tzinfo is not None:
        try:
            value.astimezone(UTC)
        except OverflowError:
            raise ValueError("out of range once converted to UTC") from None
    return value


def _plain(text: str) -> str:
    """``text`` without control characters (but newline and tab) or format characters
    (bidi overrides, zero-width ones); else ``ValueError`` (a 422). PostgreSQL cannot
    store a NUL at all: it was a 503 there."""
    if any(unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t" for c in text):
        raise ValueError("must not contain control or format characters")
    return text


#: Free text a client gives (a reason, a name to search by, a filter's value).
PlainText = Annotated[str, AfterValidator(_plain)]

#: A query datetime (ISO 8601) whose UTC instant is representable.
UtcDatetime = Annotated[datetime, AfterValidator(_utc_range)]

#: The largest integer of an id column (PostgreSQL's BIGINT, SQLite's INTEGER) and of a
#: hand number (an INTEGER column, 32 bits on PostgreSQL): a number beyond it in a path or
#: query is a 422, not a database error.
MAX_ID = 2**63 - 1
MAX_HAND_NO = 2**31 - 1
#: A hand's number in a path (``.../hands/{hand_no}``).
HandNo = Annotated[int, Path(ge=1, le=MAX_HAND_NO)]
#: A hand's id in a path (``/api/replays/{hand_id}``).
HandId = Annotated[int, Path(ge=1, le=MAX_ID)]
#: A profile's id in a query (``profile=``).
ProfileId = Annotated[int | None, Query(ge=1, le=MAX_ID)]
#: A page's size (``limit=``): 1..``MAX_LIMIT``, as documented (not clamped).
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]


def client_address(request: Request) -> str:
    """The client's address (uvicorn sets it from ``X-Forwarded-For`` for trusted proxies)."""
    return request.client.host if request.client else "unknown"


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (exactly that scheme and
    one space), else None."""
    scheme, _, given = (authorization or "").partition(" ")
    return given if scheme == "Bearer" and given else None
