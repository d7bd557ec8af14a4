"""The HTTP API under /v1/: one django-ninja ``NinjaAPI`` for every route (DESIGN.md "Serving")."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from ninja import NinjaAPI, Swagger

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
api.add_router("/", router)
api.add_router("/", erase_router)


def api_not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under /v1/: JSON like the rest of the API, not Django's HTML page."""
    return JsonResponse({"code": "not_found", "message": "no such API route"}, status=404)
