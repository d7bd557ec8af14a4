"""The HTTP API under /v1/: one django-ninja ``NinjaAPI`` for every route (docs/clients.md, "The HTTP API")."""

from __future__ import annotations

import functools
from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any

from django.http import HttpRequest, HttpResponseBase, HttpResponseNotAllowed, JsonResponse
from django.urls import URLPattern, URLResolver
from ninja import NinjaAPI, Swagger

from api.erase import router as erase_router
from api.errors import error_response, install_handlers
from api.export import router as export_router
from api.openapi import document_headers
from api.parser import StrictJSONParser
from api.views import router

api = NinjaAPI(
    title="ume API",
    version="1",
    description=(
        "Review-first long-term memory for AI assistants. Authenticate with "
        "`Authorization: Bearer <token>` (create one with `manage.py create_token`). "
        "Errors are JSON `{code, message}`."
    ),
    urls_namespace="api",
    docs=Swagger(),
    parser=StrictJSONParser(),
)
install_handlers(api)
api.add_router("/", router)
api.add_router("/", erase_router)
api.add_router("/", export_router)
document_headers(router, erase_router, export_router)


def _json_405(response: HttpResponseBase) -> HttpResponseBase:
    if not isinstance(response, HttpResponseNotAllowed):
        return response
    allowed = ", ".join(sorted(method.strip() for method in response["Allow"].split(",")))
    return error_response(
        405, "method_not_allowed", f"use {allowed} on this route", headers={"Allow": allowed}
    )


def _answering_405_in_json(view: Callable[..., Any]) -> Callable[..., Any]:
    # django-ninja answers a method no operation of a path takes with a plain-text
    # ``HttpResponseNotAllowed`` from its path view, before and outside every exception
    # handler, and has no setting for it (vitalik/django-ninja#485 proposed one; it was closed
    # unmerged). So each route's view is wrapped where Django gets it: the same 405, with the
    # API's JSON error shape and the Allow header.
    if iscoroutinefunction(view):

        @functools.wraps(view)
        async def async_wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            return _json_405(await view(request, *args, **kwargs))

        return async_wrapped

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        return _json_405(view(request, *args, **kwargs))

    return wrapped


def api_urls() -> tuple[list[URLPattern | URLResolver], str, str]:
    """``api.urls`` (for ``path("v1/", ...)``), every route answering a wrong method in JSON."""
    patterns, app_name, namespace = api.urls
    return (
        [
            URLPattern(p.pattern, _answering_405_in_json(p.callback), p.default_args, p.name)
            if isinstance(p, URLPattern)
            else p
            for p in patterns
        ],
        app_name,
        namespace,
    )


def api_not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under /v1/: JSON like the rest of the API, not Django's HTML page."""
    return JsonResponse({"code": "not_found", "message": "no such API route"}, status=404)
