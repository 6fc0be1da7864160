"""The room's one error type (re-exported by `server.room.actor`)."""

from __future__ import annotations


class RoomError(Exception):
    """A refused command: ``code`` as in the protocol's error codes, ``message`` for humans."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
