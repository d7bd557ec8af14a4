"""Content-Security-Policy for every page ume renders (the dashboard, htmx included).

Scripts, styles, images and fonts come from our own static files only: htmx is served from
them, runs no inline code, and its indicator styles are switched off in ``base.html``
(``includeIndicatorStyles: false``), so no ``'unsafe-inline'`` is needed. The interactive API
docs at ``/v1/docs`` load Swagger UI from its CDN and keep django-ninja's own page.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
EXEMPT = ("/v1/docs",)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT):
            response.headers.setdefault("Content-Security-Policy", POLICY)
        return response
