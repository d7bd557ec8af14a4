"""/mcp over Streamable HTTP: bearer-token authentication in front of the SDK's app.

Every HTTP request is authenticated (unknown, revoked or expired tokens get 401 before the
SDK sees the request) and counted against the token's rate limit. The token travels to the
tools in the ASGI scope; the SDK's DNS-rebinding protection checks Host and Origin against
``UME_MCP_ALLOWED_HOSTS`` and ``UME_MCP_ALLOWED_ORIGINS``.

The server is stateless (no ``Mcp-Session-Id`` kept in memory), so any worker of any app
process can answer any request, which serving several workers needs (docs/clients.md,
"Serving").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken as McpAccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send

from memory.api.auth import rate_limit, token_for
from memory.api.errors import ApiError
from memory.mcp.server import mcp_server
from memory.mcp.threads import BUSY_RETRY_AFTER, SLOT, Busy, run_auth, take_slot
from memory.models import AccessToken
from memory.services.tokens import token_authenticate

MCP_PATH = "/mcp"


def transport_security() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(settings.UME_MCP_ALLOWED_HOSTS),
        allowed_origins=list(settings.UME_MCP_ALLOWED_ORIGINS),
    )


# Other ways to turn a bearer secret into a token for this request (the OAuth connectors
# register theirs, see connectors/apps.py), and the extra WWW-Authenticate parameters of a
# 401 (where the protected resource metadata is). memory never imports them.
AUTHENTICATORS: list[Callable[[str, Scope], AccessToken | None]] = []
CHALLENGES: list[Callable[[Scope], str]] = []


def _authenticate(secret: str, address: str, scope: Scope | None = None) -> AccessToken:
    close_old_connections()
    try:
        token = token_authenticate(secret)
        if token is None and scope is not None:
            for authenticate in AUTHENTICATORS:
                token = authenticate(secret, scope)
                if token is not None:
                    break
        if token is None:  # counts the miss against the address (429 past the limit)
            token = token_for(secret, address=address)
        if token is None:
            raise ApiError(
                401,
                "unauthorized",
                "send a valid, unrevoked token as 'Authorization: Bearer <token>'",
            )
        rate_limit(token)
        return token
    finally:
        close_old_connections()


async def _json(send: Send, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
    data = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


class BearerTokenMiddleware:
    """Authenticates ``Authorization: Bearer <token>`` on every request to the wrapped app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = ""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                header = value.decode("latin-1")
        scheme, _, secret = header.partition(" ")
        try:
            if scheme.lower() != "bearer" or not secret.strip():
                raise ApiError(
                    401, "unauthorized", "send your token as 'Authorization: Bearer <token>'"
                )
            client = scope.get("client") or ("", 0)
            token = await run_auth(_authenticate, secret.strip(), str(client[0]), scope)
            slot = take_slot(token.owner_id)
        except Busy as exc:
            headers = {"Retry-After": str(BUSY_RETRY_AFTER)}
            await _json(send, 429, {"code": "busy", "message": str(exc)}, headers)
            return
        except ApiError as exc:
            headers = dict(exc.headers)
            if exc.status == 401:
                params = ['realm="ume"', *(c(scope) for c in CHALLENGES)]
                headers["WWW-Authenticate"] = "Bearer " + ", ".join(params)
            await _json(send, exc.status, {"code": exc.code, "message": exc.message}, headers)
            return
        if isinstance(scope.get("ume.log"), dict):  # the access log (ume/logs.py) names the user
            scope["ume.log"]["user_id"] = token.owner_id
        scope = dict(scope)
        scope["ume.token"] = token
        scope[SLOT] = slot
        # The SDK binds a stateful session to the credential that opened it; give it ours.
        scope["user"] = AuthenticatedUser(
            McpAccessToken(
                token=f"ume-token-{token.pk}",
                client_id=f"ume-token-{token.pk}",
                scopes=list(token.scopes or []),
                subject=str(token.owner_id),
            )
        )
        scope["auth"] = AuthCredentials(list(token.scopes or []))
        try:
            await self.app(scope, receive, send)
        finally:
            slot.release()


def build_mcp_app() -> tuple[ASGIApp, StreamableHTTPSessionManager]:
    """The /mcp ASGI app and the session manager whose ``run()`` the router's lifespan enters."""
    starlette_app = mcp_server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
        max_request_body_size=int(settings.UME_MAX_TRANSCRIPT_BYTES) + 64 * 1024,
    )
    return BearerTokenMiddleware(starlette_app), mcp_server.session_manager
