"""Request parameters shared by the API's routers: the client's address, a bearer token, and
a query datetime that is a 422 (not a 500) when out of range."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import Request
from pydantic import AfterValidator


def _utc_range(value: datetime) -> datetime:
    """A datetime whose UTC instant exists (years 1..9999); else ``ValueError`` (a 422)."""
    if value.tzinfo is not None:
        try:
            value.astimezone(UTC)
        except OverflowError:
            raise ValueError("out of range once converted to UTC") from None
    return value


#: A query datetime (ISO 8601) whose UTC instant is representable.
UtcDatetime = Annotated[datetime, AfterValidator(_utc_range)]


def client_address(request: Request) -> str:
    """The client's address (uvicorn sets it from ``X-Forwarded-For`` for trusted proxies)."""
    return request.client.host if request.client else "unknown"


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (exactly that scheme and
    one space), else None."""
    scheme, _, given = (authorization or "").partition(" ")
    return given if scheme == "Bearer" and given else None
