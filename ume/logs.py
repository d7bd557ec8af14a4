"""Structured logs: ``UME_LOG_FORMAT=json`` prints one JSON object per line.

Every line emitted while a request (or a worker run) is in progress carries its
``request_id``. The access log (logger ``ume.request``) has the route pattern, never the
concrete path, so ids and labels in URLs do not leak; it has the user id, never a token or
any memory text. Workers (``ingest --pending``) and ``cleanup`` log on ``ume.worker`` with the
same fields where they apply.

Django's own records of a request (``django.request`` for every 4xx and 5xx,
``django.security.*``) carry the request object and its path, and the security ones quote
the exception; :class:`RequestRecordFilter`, on the handler, rewrites them to the same terms
as the access log (status, method, route pattern), drops the request, and keeps an
exception's type and frames but not its message (on every record), in both formats.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("ume_request_id", default="")

access_log = logging.getLogger("ume.request")
worker_log = logging.getLogger("ume.worker")

_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# LogRecord attributes that are not "extra" fields.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "request_id"}


def new_request_id(offered: str | None = None) -> str:
    """The caller's ``X-Request-ID`` when it is a short plain token, else a fresh one."""
    if offered and _SAFE_ID.match(offered):
        return offered
    return uuid.uuid4().hex


@contextmanager
def request_context(request_id: str | None = None) -> Iterator[str]:
    """Tag every log line inside the block with one request id (a worker run uses one too)."""
    rid = request_id or uuid.uuid4().hex
    reset = request_id_var.set(rid)
    try:
        yield rid
    finally:
        request_id_var.reset(reset)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = request_id_var.get()
        return True


def _route(request: Any) -> str:
    match = getattr(request, "resolver_match", None)
    return ("/" + match.route) if match is not None and match.route else "unmatched"


class RequestRecordFilter(logging.Filter):
    """Rewrites a record that carries a ``request`` (Django's ``log_response``): its message
    becomes ``"<status> <METHOD> <route pattern>"`` and the request object goes (its ``str``
    has the full URL with the query string, where tokens and search text travel). On every
    record an exception is told by its type and stack frames only, in the text format as in
    JSON: its message can quote the input."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = record.__dict__.pop("request", None)
        if request is not None:
            status = getattr(record, "status_code", "")
            method, route = str(getattr(request, "method", "") or ""), _route(request)
            record.__dict__.update(method=method, route=route)
            record.msg, record.args = "%s %s %s", (status, method, route)
        if record.exc_info and record.exc_info[0] is not None:
            kind, _value, tb = record.exc_info
            frames = "".join(traceback.format_tb(tb))
            record.exc_text = f"Traceback (most recent call last):\n{frames}{kind.__name__}"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id, extra fields.

    An exception is logged by its type and stack frames only: exception messages can quote
    the input (a transcript's text), and that must not reach the logs.
    """

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", "") or request_id_var.get()
        if rid:
            data["request_id"] = rid
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                data[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            data["exc_type"] = record.exc_info[0].__name__
            data["stack"] = "".join(traceback.format_tb(record.exc_info[2]))
        return json.dumps(data, default=str, ensure_ascii=False)


def _user_id(request: HttpRequest) -> int | None:
    token = getattr(request, "auth", None)
    owner_id = getattr(token, "owner_id", None)
    if isinstance(owner_id, int):
        return owner_id
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return int(user.pk)
    return None


class RequestLogMiddleware:
    """Django middleware: a request id for every request, echoed as ``X-Request-ID``, and one
    access-log line per response (route pattern, status, duration, user id)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = new_request_id(request.headers.get("X-Request-ID"))
        started = time.perf_counter()
        with request_context(rid):
            response = self.get_response(request)
            route = _route(request)
            access_log.info(
                "request",
                extra={
                    "method": request.method,
                    "route": route,
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                    "user_id": _user_id(request),
                },
            )
        response["X-Request-ID"] = rid
        return response


class AsgiAccessLog:
    """The same access log for an ASGI app mounted beside Django (``/mcp``).

    The app below records who the caller is in ``scope["ume.log"]["user_id"]``.
    """

    def __init__(self, app: ASGIApp, route: str) -> None:
        self.app, self.route = app, route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        offered = None
        for name, value in scope.get("headers", []):
            if name == b"x-request-id":
                offered = value.decode("latin-1")
        rid = new_request_id(offered)
        info: dict[str, Any] = {}
        scope = dict(scope)
        scope["ume.log"] = info
        status = {"code": 500}
        started = time.perf_counter()

        async def send_logged(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message = dict(message)
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        with request_context(rid):
            try:
                await self.app(scope, receive, send_logged)
            finally:
                access_log.info(
                    "request",
                    extra={
                        "method": scope.get("method", ""),
                        "route": self.route,
                        "status": status["code"],
                        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                        "user_id": info.get("user_id"),
                    },
                )
