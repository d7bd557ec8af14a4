"""The ASGI guard in front of Django and /mcp: limits enforced before a body is read.

Django's ASGI handler spools the whole request body to a temporary file before any view or
middleware runs, so a size check in Django cannot refuse "before reading". This guard runs
first, in the router (``ume.asgi``):

- a ``Content-Length`` over the route's limit is refused with 413 without reading a byte;
- a body with no declared length (chunked) is counted as it arrives and cut off at the limit
  (413), so nothing past the limit is read or spooled;
- a write to ``/v1/`` without a live token is refused with 401 before its body is read;
- a write to the upload pages or the admin (the routes that take large bodies) without the
  session of a signed-in, active user is sent to the sign-in page (302; 401 JSON for HTMX)
  before its body is read, so nobody signed out can make the server spool a file;
- the database being down is a 503 with ``Retry-After``, JSON on ``/v1/`` and ``/mcp``;
- every error ``/mcp`` answers is a JSON-RPC error object (the SDK answers some in plain text);
- ``GET /mcp`` is a 405: the server is stateless and has no event stream to hold open.

Limits: ``/mcp`` takes ``UME_MAX_TRANSCRIPT_BYTES`` plus 64 KB of JSON around it; the upload
page takes a whole chat export (``UME_MAX_IMPORT_BYTES``); ``/v1/``, the other upload routes
and admin take ``UME_MAX_REQUEST_BYTES``; every other dashboard form (login included)
takes ``UME_MAX_FORM_BYTES``.
"""

from __future__ import annotations

import json
import logging
from importlib import import_module
from typing import Any
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.db.utils import InterfaceError, OperationalError
from django.shortcuts import resolve_url
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memory.services.access import Refused

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
API_PREFIX = "/v1/"
# Routes that take files or whole transcripts; every other form is small.
LARGE_BODY_PREFIXES = (API_PREFIX, MCP_PATH, "/review/uploads/", "/admin/")
UPLOAD_PATH = "/review/uploads/new/"
# Dashboard routes with large bodies whose writes need a signed-in session (the admin's own
# sign-in form is small, and its limit is the admin's).
SIGNED_IN_PREFIXES = ("/review/uploads/", "/admin/")
SIGNED_OUT_PATHS = ("/admin/login/",)
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
DB_RETRY_AFTER = "5"
GUARD_TOKEN = "ume.guard_token"  # the token the guard found, in the ASGI scope


def _is_mcp(path: str) -> bool:
    return path == MCP_PATH or path.startswith(MCP_PATH + "/")


def body_limit(path: str) -> int:
    if _is_mcp(path):  # the largest transcript a save takes, as the SDK's own limit
        return int(settings.UME_MAX_TRANSCRIPT_BYTES) + 64 * 1024
    if path == UPLOAD_PATH:  # a whole chat export; files are spooled to disk, never held whole
        return max(int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE), int(settings.UME_MAX_IMPORT_BYTES))
    if path.startswith(LARGE_BODY_PREFIXES):
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    return int(settings.UME_MAX_FORM_BYTES)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class _Refused(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str]) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


def error_body(path: str, status: int, code: str, message: str) -> bytes:
    """JSON-RPC on /mcp, ``{"code", "message"}`` elsewhere."""
    if _is_mcp(path):
        rpc_code = {
            400: -32700,
            405: -32601,
            413: -32600,
            401: -32001,
            429: -32002,
            503: -32003,
        }.get(status, -32600 if status < 500 else -32603)
        body: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": rpc_code,
                "message": message,
                "data": {"status": status, "code": code},
            },
        }
    else:
        body = {"code": code, "message": message}
    return json.dumps(body).encode()


async def send_error(
    send: Send, path: str, status: int, code: str, message: str, headers: dict[str, str]
) -> None:
    data = error_body(path, status, code, message)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


def _live_token(header: str | None, address: str) -> Any:
    """The live token the ``Authorization`` header names, or None."""
    from memory.services.access import token_for

    scheme, _, secret = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    close_old_connections()
    try:
        return token_for(secret.strip(), address=address)
    finally:
        close_old_connections()


def _signed_in(cookie_header: str | None) -> bool:
    """Whether the session cookie names the live session of an active user: what
    ``request.user`` would be, checked the way Django checks it (the session's user, its
    password hash still matching, the user active) without reading the request's body."""
    from django.contrib.auth import get_user
    from django.http import HttpRequest
    from django.http.cookie import parse_cookie

    key = parse_cookie(cookie_header or "").get(settings.SESSION_COOKIE_NAME)
    if not key:
        return False
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    close_old_connections()
    try:
        return bool(get_user(request).is_authenticated)  # type: ignore[arg-type]
    finally:
        close_old_connections()


def _login_required(scope: Scope, path: str) -> _Refused:
    message = "sign in first: this page takes uploads only from a signed-in user"
    headers = {"Connection": "close", "Cache-Control": "no-store"}
    if _header(scope, b"hx-request") == "true":  # htmx does not follow a redirect into a swap
        return _Refused(401, "unauthorized", message, headers)
    login = resolve_url(settings.LOGIN_URL)
    headers["Location"] = f"{login}?{urlencode({'next': path})}"
    return _Refused(302, "login_required", message, headers)


class Guard:
    """Wraps the router; see the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        try:
            await self._check_before_reading(scope, path)
        except _Refused as exc:
            await send_error(send, path, exc.status, exc.code, exc.message, exc.headers)
            return
        except (OperationalError, InterfaceError):
            await self._database_down(send, path)
            return
        await self._run(scope, receive, send, path)

    async def _check_before_reading(self, scope: Scope, path: str) -> None:
        if _is_mcp(path) and scope.get("method") == "GET":
            # A stateless server has no stream to offer: the SSE stream a GET opens would never
            # end. The transport allows answering 405 instead.
            raise _Refused(
                405,
                "method_not_allowed",
                "this server is stateless and offers no event stream; POST JSON-RPC messages",
                {"Allow": "POST"},
            )
        limit = body_limit(path)
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                raise _Refused(400, "invalid_input", "Content-Length is not a number", {}) from None
            if size > limit:
                raise _Refused(
                    413,
                    "payload_too_large",
                    f"the request body ({size:,} bytes) is over the limit of {limit:,} bytes",
                    {"Connection": "close"},
                )
        if path.startswith(API_PREFIX) and scope.get("method") in WRITE_METHODS:
            client = scope.get("client") or ("", 0)
            try:
                live = await sync_to_async(_live_token, thread_sensitive=False)(
                    _header(scope, b"authorization"), str(client[0])
                )
            except Refused as exc:  # too many invalid tokens from this address
                raise _Refused(exc.status, exc.code, exc.message, exc.headers) from None
            # The API's authentication uses it instead of looking the token up again.
            scope[GUARD_TOKEN] = live
            if live is None:
                raise _Refused(
                    401,
                    "unauthorized",
                    "send a valid, unrevoked token as 'Authorization: Bearer <token>'",
                    {"WWW-Authenticate": 'Bearer realm="ume"', "Connection": "close"},
                )

        if (
            path.startswith(SIGNED_IN_PREFIXES)
            and path not in SIGNED_OUT_PATHS
            and scope.get("method") in WRITE_METHODS
        ):
            cookies = _header(scope, b"cookie")
            if not await sync_to_async(_signed_in, thread_sensitive=False)(cookies):
                raise _login_required(scope, path)

    async def _database_down(self, send: Send, path: str) -> None:
        message = "the database is unavailable; try again shortly"
        headers = {"Retry-After": DB_RETRY_AFTER}
        await send_error(send, path, 503, "unavailable", message, headers)

    async def _run(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        exchange = _Exchange(receive, send, path)
        try:
            await self.app(scope, exchange.receive, exchange.send)
        except (OperationalError, InterfaceError):
            log.error("database unavailable: %s %s", scope.get("method"), path)
            if not exchange.started:
                await self._database_down(send, path)
            return
        if exchange.over and not exchange.started:
            await send_error(
                send,
                path,
                413,
                "payload_too_large",
                f"the request body is over the limit of {exchange.limit:,} bytes",
                {"Connection": "close"},
            )


class _Exchange:
    """One request through the guard: the body counted as it arrives (cut off past the
    path's limit), and on /mcp the SDK's plain-text refusals rewritten as JSON-RPC errors."""

    def __init__(self, receive: Receive, send: Send, path: str) -> None:
        self._receive, self._send, self.path = receive, send, path
        self.limit = body_limit(path)
        self.mcp = _is_mcp(path)
        self.read = 0
        self.over = False  # the body went past the limit: the app saw a disconnect
        self.started = False  # a response has started going out
        self.rewrite = False  # holding an error response to answer it as JSON
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = b""

    async def receive(self) -> Message:
        if self.over:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.read += len(message.get("body", b""))
            if self.read > self.limit:
                # Stop here: the app sees a client that went away, we answer 413.
                self.over = True
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if self.over:
            return  # the 413 the guard sends replaces whatever the app makes of the cut-off body
        if message["type"] == "http.response.start":
            await self._start(message)
        elif message["type"] == "http.response.body" and self.rewrite:
            await self._rewritten(message)
        else:
            await self._send(message)

    async def _start(self, message: Message) -> None:
        status = int(message["status"])
        content_type = ""
        for key, value in message.get("headers", []):
            if key.lower() == b"content-type":
                content_type = value.decode("latin-1")
        if self.mcp and status >= 400 and "json" not in content_type:
            # Plain-text refusals of the SDK (wrong Content-Type, Host, Origin, size): answer
            # them as JSON-RPC errors instead.
            self.rewrite, self.status = True, status
            self.headers = [
                (k, v)
                for k, v in message.get("headers", [])
                if k.lower() not in {b"content-type", b"content-length"}
            ]
            return
        self.started = True
        await self._send(message)

    async def _rewritten(self, message: Message) -> None:
        self.body += message.get("body", b"")
        if message.get("more_body"):
            return
        text = self.body.decode("utf-8", "replace").strip() or "request refused"
        data = error_body(self.path, self.status, _code(self.status), text)
        headers = [
            *self.headers,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
        ]
        self.started = True
        await self._send({"type": "http.response.start", "status": self.status, "headers": headers})
        await self._send({"type": "http.response.body", "body": data})


def _code(status: int) -> str:
    return {
        400: "invalid_input",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        405: "method_not_allowed",
        406: "not_acceptable",
        413: "payload_too_large",
        415: "unsupported_media_type",
        421: "misdirected_request",
        429: "rate_limited",
    }.get(status, "error")
