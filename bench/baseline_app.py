"""The reference of ``bench/load.py``: a bare FastAPI + uvicorn broadcast, nothing else.

``WS /ws/{room}``: every text frame a socket sends is sent, unchanged, to every socket of
that room (the sender included). No validation, no state, no storage: what a room server
can at best cost per frame on this machine, with the same web stack.

    python -m uvicorn --app-dir bench baseline_app:app --port 8001
"""

from __future__ import annotations

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

app = FastAPI(title="broadcast baseline")
rooms: dict[str, set[WebSocket]] = {}


@app.get("/health")
async def health() -> dict[str, int]:
    """``{"rooms": n}``: rooms with at least one socket."""
    return {"rooms": len(rooms)}


@app.websocket("/ws/{room}")
async def room_socket(websocket: WebSocket, room: str) -> None:
    """One socket of ``room``: each message in goes out to the room's sockets."""
    await websocket.accept()
    members = rooms.setdefault(room, set())
    members.add(websocket)
    try:
        while True:
            text = await websocket.receive_text()
            for ws in list(members):
                try:
                    await ws.send_text(text)
                except Exception:  # a peer that just left: drop it, keep serving the rest
                    members.discard(ws)
    except WebSocketDisconnect:
        pass
    finally:
        members.discard(websocket)
        if not members:
            rooms.pop(room, None)
