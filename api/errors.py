"""API errors: every failure is JSON ``{"code", "message"}`` with a stable code.

Codes: ``invalid_input`` and ``invalid_json`` (400), ``invalid_edit`` and
``invalid_decision`` (400, an edit or review decision the engine refused), ``unauthorized``
(401), ``insufficient_scope`` (403), ``not_found`` (404, also for another owner's objects),
``method_not_allowed`` (405), ``already_decided``, ``idempotency_in_progress`` and
``suppressed`` (409; a name an active suppression covers, with ``suppression_id``),
``stale_revision`` (412, with ``current_revision``), ``invalid_rollback`` (400),
``idempotency_key_reused`` (422), ``payload_too_large`` (413),
``rate_limited`` (429), ``internal_error`` (500), ``unavailable`` (503, the database is down;
with ``Retry-After``).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db.utils import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic import Field

from memory.services.access import Refused

log = logging.getLogger(__name__)


class FieldErrorOut(Schema):
    field: str
    message: str


class ErrorOut(Schema):
    """Every error answer (the handlers below write it; it is here for the OpenAPI schema)."""

    code: str = Field(description="Stable: see the list at the top of api/errors.py.")
    message: str
    errors: list[FieldErrorOut] | None = Field(
        default=None, description="invalid_input from validation: each field's problem."
    )
    current_revision: int | None = Field(
        default=None, description="stale_revision: the node's revision now."
    )


# What any route can answer: a bad body, query or Content-Length (400), a missing or bad token
# (401), a token without the scope (403), a body over the limit (413), the rate limit (429), a
# failure (500) and the database down (503).
EVERY_ROUTE = (400, 401, 403, 413, 429, 500, 503)
# What an ``Idempotency-Key`` adds to a write: a retry still running (409), a reused key (422).
IDEMPOTENT = (409, 422)


def answers(ok: dict[int, Any], *codes: int) -> dict[int, Any]:
    """A route's ``response=``: its successes, and ``ErrorOut`` for every error status it can
    answer (``EVERY_ROUTE`` and ``codes``), so the OpenAPI schema documents all of them."""
    return {**ok, **dict.fromkeys(sorted({*EVERY_ROUTE, *codes}), ErrorOut)}


class ApiError(Refused):
    """Raised anywhere in the API to answer with ``status`` and ``{"code", "message"}`` (a
    :class:`~memory.services.access.Refused` from the domain is answered the same way)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(status, code, message, headers=headers)
        self.extra = extra


class BodyError(ValueError):
    """The request body is not JSON we can read (not UTF-8, malformed, nested too deeply)."""


def error_response(
    status: int, code: str, message: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> JsonResponse:
    response = JsonResponse({"code": code, "message": message, **extra}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def not_found(what: str = "object") -> ApiError:
    # The same answer whether the row does not exist or belongs to someone else.
    return ApiError(404, "not_found", f"no such {what}")


def too_large(message: str = "the request body is too large") -> ApiError:
    return ApiError(413, "payload_too_large", message)


def _location(loc: Any) -> str:
    parts = [str(p) for p in loc if p not in {"body", "payload", "query", "path", "form"}]
    return ".".join(parts) or "body"


def _validation(request: HttpRequest, exc: Any) -> HttpResponse:
    errors = [
        {"field": _location(e.get("loc", ())), "message": str(e.get("msg", "invalid"))}
        for e in exc.errors
    ]
    first = errors[0] if errors else {"field": "body", "message": "invalid input"}
    return error_response(
        400, "invalid_input", f"{first['field']}: {first['message']}", errors=errors[:20]
    )


def _http_error(request: HttpRequest, exc: Any) -> HttpResponse:
    cause = exc.__cause__
    if isinstance(cause, RequestDataTooBig):
        return error_response(413, "payload_too_large", "the request body is too large")
    if isinstance(cause, BodyError):
        return error_response(400, "invalid_json", str(cause))
    if isinstance(cause, ValueError | MultiPartParserError):
        return error_response(400, "invalid_input", "the request body could not be read")
    code = {400: "invalid_input", 401: "unauthorized", 403: "forbidden", 404: "not_found"}
    return error_response(exc.status_code, code.get(exc.status_code, "error"), str(exc))


def _unexpected(request: HttpRequest, exc: Any) -> HttpResponse:
    if isinstance(exc, RequestDataTooBig):
        return error_response(413, "payload_too_large", "the request body is too large")
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent | MultiPartParserError):
        return error_response(400, "invalid_input", "the form data could not be read")
    if isinstance(exc, OperationalError | InterfaceError):
        log.error("database unavailable: %s %s: %s", request.method, request.path, exc)
        return error_response(
            503,
            "unavailable",
            "the database is unavailable; try again shortly",
            headers={"Retry-After": "5"},
        )
    log.exception("API request failed: %s %s", request.method, request.path)
    return error_response(500, "internal_error", "something went wrong; nothing was changed")


def _api_error(request: HttpRequest, exc: Any) -> HttpResponse:
    extra = getattr(exc, "extra", {})
    return error_response(exc.status, exc.code, exc.message, headers=exc.headers, **extra)


def _unauthorized(request: HttpRequest, exc: Any) -> HttpResponse:
    return error_response(
        401,
        "unauthorized",
        "send a valid, unrevoked token as 'Authorization: Bearer <token>'",
        headers={"WWW-Authenticate": 'Bearer realm="ume"'},
    )


def _not_found(request: HttpRequest, exc: Any) -> HttpResponse:
    return error_response(404, "not_found", "not found")


def install_handlers(api: NinjaAPI) -> None:
    api.add_exception_handler(Refused, _api_error)  # ApiError is one
    api.add_exception_handler(AuthenticationError, _unauthorized)
    api.add_exception_handler(ValidationError, _validation)
    api.add_exception_handler(HttpError, _http_error)
    api.add_exception_handler(Http404, _not_found)
    api.add_exception_handler(Exception, _unexpected)
