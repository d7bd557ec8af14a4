"""The HTTP API under /v1/: one django-ninja ``NinjaAPI`` for every route (DESIGN.md "Serving")."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from ninja import NinjaAPI, Swagger
from ninja.operation import PathView

from memory.api.erase import router as erase_router
from memory.api.errors import install_handlers
from memory.api.parser import StrictJSONParser
from memory.api.views import router

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


def _method_not_allowed(self: PathView) -> JsonResponse:
    # django-ninja answers a wrong method with a plain-text 405 from ``PathView``, outside
    # every exception handler; give it the API's JSON error shape (and the Allow header).
    allowed = sorted({method for op in self.operations for method in op.methods})
    response = JsonResponse(
        {"code": "method_not_allowed", "message": f"use {', '.join(allowed)} on this route"},
        status=405,
    )
    response["Allow"] = ", ".join(allowed)
    return response


PathView._not_allowed = _method_not_allowed  # type: ignore[method-assign]
api.add_router("/", router)
api.add_router("/", erase_router)


def api_not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under /v1/: JSON like the rest of the API, not Django's HTML page."""
    return JsonResponse({"code": "not_found", "message": "no such API route"}, status=404)
