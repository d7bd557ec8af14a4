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
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_server.server import mcp_server, tool_scope
from mcp_server.threads import BUSY_RETRY_AFTER, SLOT, Busy, run_auth, take_slot
from memory.models import AccessToken
from memory.services.access import Refused, rate_limit, token_for
from memory.services.tokens import token_authenticate, token_has_scope
from memory.vocab import SCOPE_READ, SCOPE_WRITE

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
            raise Refused(
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


# JSON-RPC error codes of the answers given before the SDK sees a request: the same as the
# guard's refusals of /mcp (ume/guard.py), in the server error range of JSON-RPC 2.0.
NOT_PERMITTED = -32001
RETRY_LATER = -32002


async def _jsonrpc_error(
    send: Send,
    status: int,
    *,
    code: str,
    message: str,
    headers: dict[str, str],
    request_id: Any = None,
) -> None:
    """An HTTP error whose body is a JSON-RPC error, so an MCP client tells the agent why
    (the SDK surfaces a JSON-RPC error from a non-2xx answer as the call's error). ``data``
    is the guard's ``{"status", "code"}``, and for a 429 the seconds to wait (as
    ``Retry-After``)."""
    data: dict[str, Any] = {"status": status, "code": code}
    if "Retry-After" in headers:
        data["retryAfter"] = int(headers["Retry-After"])
    error = {
        "code": RETRY_LATER if status == 429 else NOT_PERMITTED,
        "message": message,
        "data": data,
    }
    await _json(send, status, {"jsonrpc": "2.0", "id": request_id, "error": error}, headers)


def _challenge(scope: Scope, *params: str) -> str:
    """``WWW-Authenticate`` for /mcp (RFC 6750 section 3, RFC 9728 section 5.1)."""
    return "Bearer " + ", ".join(['realm="ume"', *params, *(c(scope) for c in CHALLENGES)])


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body (the guard has bounded it), and a ``receive`` that hands it on."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


def _write_call(body: bytes) -> tuple[bool, Any]:
    """Whether a JSON-RPC body (one message or a batch) calls a tool that needs memory:write,
    and that call's id. A body that is not JSON is left to the SDK to refuse."""
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False, None
    for message in parsed if isinstance(parsed, list) else [parsed]:
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            continue
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if isinstance(name, str) and tool_scope(name) == SCOPE_WRITE:
            return True, message.get("id")
    return False, None


class BearerTokenMiddleware:
    """Authenticates ``Authorization: Bearer <token>`` on every request to the wrapped app.

    A token without ``memory:write`` that calls a write tool gets 403 with
    ``error="insufficient_scope", scope="memory:write"`` (RFC 6750), so an OAuth client asks
    the person for more (the MCP authorization spec's step-up); to read that, the bodies of
    such tokens' requests are read here, and handed on unchanged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token, slot = await self._authenticated(scope, send)
        if token is None or slot is None:
            return
        try:
            if scope.get("method") == "POST" and not token_has_scope(token, SCOPE_WRITE):
                body, receive = await _buffered(receive)
                writes, request_id = _write_call(body)
                if writes:
                    await _refuse_write(scope, send, request_id)
                    return
            await self.app(_with_token(scope, token, slot), receive, send)
        finally:
            slot.release()

    async def _authenticated(self, scope: Scope, send: Send) -> tuple[AccessToken | None, Any]:
        """The request's token and its thread slot, or (None, None) once refused."""
        header = ""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                header = value.decode("latin-1")
        scheme, _, secret = header.partition(" ")
        presented = scheme.lower() == "bearer" and bool(secret.strip())
        try:
            if not presented:
                raise Refused(
                    401, "unauthorized", "send your token as 'Authorization: Bearer <token>'"
                )
            client = scope.get("client") or ("", 0)
            token = await run_auth(_authenticate, secret.strip(), str(client[0]), scope)
            return token, take_slot(token.owner_id)
        except Busy as exc:
            headers = {"Retry-After": str(BUSY_RETRY_AFTER)}
            await _jsonrpc_error(send, 429, code="busy", message=str(exc), headers=headers)
        except Refused as exc:
            headers = dict(exc.headers)
            if exc.status == 401:
                # No token: only where to get one (RFC 6750 section 3.1); a bad one: invalid_token.
                params = ['error="invalid_token"'] if presented else []
                params.append(f'scope="{SCOPE_READ} {SCOPE_WRITE}"')
                headers["WWW-Authenticate"] = _challenge(scope, *params)
            if exc.status == 429:
                await _jsonrpc_error(send, 429, code=exc.code, message=exc.message, headers=headers)
            else:
                await _json(send, exc.status, {"code": exc.code, "message": exc.message}, headers)
        return None, None


async def _refuse_write(scope: Scope, send: Send, request_id: Any) -> None:
    challenge = _challenge(scope, 'error="insufficient_scope"', f'scope="{SCOPE_WRITE}"')
    await _jsonrpc_error(
        send,
        403,
        code="insufficient_scope",
        message=f"insufficient_scope: this token does not have the {SCOPE_WRITE} scope; "
        "connect again and allow ume to save and change memories",
        headers={"WWW-Authenticate": challenge},
        request_id=request_id,
    )


def _with_token(scope: Scope, token: AccessToken, slot: Any) -> Scope:
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
    return scope


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
