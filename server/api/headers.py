"""Security headers on every HTTP response of the app (pages, API, static files, errors
handled by the app): a Content-Security-Policy the browser client satisfies without
``'unsafe-inline'`` (its scripts are ES modules from ``/``, its styles one stylesheet, tile
faces inline SVG markup without style attributes), ``frame-ancestors 'none'`` (plus
``X-Frame-Options: DENY`` for old browsers), ``X-Content-Type-Options: nosniff`` and
``Referrer-Policy: no-referrer``.

The API documentation pages (``/docs``, ``/redoc``: FastAPI's Swagger UI and ReDoc load
from a CDN with an inline bootstrap script) get a policy that allows exactly that.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",  # CSP 3: also ws:/wss: to this origin
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
DOCS_CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net",
        "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com",
        "font-src 'self' https://fonts.gstatic.com",
        "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
#: Headers set on every response (unless the response set them itself).
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}
DOCS_PATHS = ("/docs", "/redoc")


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` to every HTTP response start (WebSockets
    pass through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = str(scope.get("path", "")).startswith(DOCS_PATHS)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
                if docs:
                    headers["Content-Security-Policy"] = DOCS_CSP
            await send(message)

        await self.app(scope, receive, send_with_headers)
