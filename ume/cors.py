"""CORS for the endpoints a browser-based MCP client calls itself: /mcp, the OAuth metadata,
registration, token and revocation endpoints. The MCP Inspector, or a connector running in a
web page, reads them from another origin, so the browser asks first (a preflight ``OPTIONS``)
and reads an answer only when it names its origin.

The origins allowed are ``UME_MCP_ALLOWED_ORIGINS``, the list the MCP SDK already checks
``Origin`` against on /mcp (``http://localhost:*`` is any port of localhost), so a browser
client that may call /mcp may also register and get its token, and no other origin may do
either. No cookies are involved (``Access-Control-Allow-Credentials`` is never sent): these
endpoints take a bearer token or a client's own credentials, never the person's session.
Preflights are answered here, before the guard and the bearer check (an ``OPTIONS`` carries
no token); other answers get the headers added as they are sent.
"""

from __future__ import annotations

from django.conf import settings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The paths (prefixes) a browser-based client calls across origins.
PATHS = ("/mcp", "/oauth/register/", "/oauth/token/", "/oauth/revoke/", "/.well-known/oauth-")
ALLOW_METHODS = "GET, POST, PUT, DELETE, OPTIONS"
ALLOW_HEADERS = (
    "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id"
)
# What a client's script may read of an answer: the session id, the OAuth challenge (where
# the protected resource metadata is, which scope to ask for) and how long to wait.
EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after"
MAX_AGE = "600"


def origin_allowed(origin: str, allowed: list[str] | tuple[str, ...]) -> bool:
    """Whether ``origin`` is in ``allowed``, as the MCP SDK reads that list: an exact origin,
    or ``scheme://host:*`` for any port of that host."""
    if not origin or origin == "null":
        return False
    for pattern in allowed:
        if origin == pattern:
            return True
        if pattern.endswith(":*") and origin.startswith(pattern[:-1]):
            port = origin[len(pattern) - 1 :]
            if port.isdigit():
                return True
    return False


def _covered(path: str) -> bool:
    """A path of :data:`PATHS`: a prefix ending in "/" or "-" covers what follows it; "/mcp"
    covers itself and what is below it, not "/mcpx"."""
    for prefix in PATHS:
        if prefix.endswith(("/", "-")):
            if path.startswith(prefix) or path == prefix.rstrip("/"):
                return True
        elif path == prefix or path.startswith(prefix + "/"):
            return True
    return False


def _origin(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"origin":
            return str(value.decode("latin-1"))
    return ""


class Cors:
    """Answers preflights and marks answers for allowed origins on :data:`PATHS`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _covered(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        origin = _origin(scope)
        allowed = origin_allowed(origin, list(settings.UME_MCP_ALLOWED_ORIGINS))
        if scope.get("method") == "OPTIONS":
            await _preflight(send, origin if allowed else None)
            return
        if not allowed:
            await self.app(scope, receive, send)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if not k.lower().startswith(b"access-control-")
                ]
                headers += [
                    (b"access-control-allow-origin", origin.encode("latin-1")),
                    (b"access-control-expose-headers", EXPOSE_HEADERS.encode()),
                    (b"vary", b"Origin"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, marked)


async def _preflight(send: Send, origin: str | None) -> None:
    """204 for every preflight; the CORS headers only for an allowed origin (without them
    the browser refuses the request it asked about)."""
    headers = [(b"content-length", b"0"), (b"vary", b"Origin")]
    if origin is not None:
        headers += [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", ALLOW_METHODS.encode()),
            (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
            (b"access-control-max-age", MAX_AGE.encode()),
        ]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
