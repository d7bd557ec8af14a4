"""Content-Security-Policy for every page ume renders (the dashboard, htmx included).

Scripts, styles, images and fonts come from our own static files only: htmx is served from
them, runs no inline code, and its indicator styles are switched off in ``base.html``
(``includeIndicatorStyles: false``), so no ``'unsafe-inline'`` is needed. The interactive API
docs at ``/v1/docs`` load Swagger UI from its CDN and keep django-ninja's own page.

A page whose form sends the browser elsewhere names that one origin in its own policy
(:func:`policy_allowing_form_redirect`): Chromium checks ``form-action`` against every
redirect that follows a submission, so the OAuth consent page allows exactly the redirect URI
it asks about, on that response only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse

_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$")


def _directives(form_action: str = "'self'") -> list[str]:
    return [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        f"form-action {form_action}",
        "frame-ancestors 'none'",
    ]


POLICY = "; ".join(_directives())
EXEMPT = ("/v1/docs",)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT):
            response.headers.setdefault("Content-Security-Policy", POLICY)
        return response


def origin_source(uri: str) -> str | None:
    """The CSP source expression for the origin of ``uri``: scheme, host and, when the URI
    names one, its port (``http://127.0.0.1:53682``). None when CSP cannot name that origin
    (not http or https, no host, or an IP-literal host such as ``[::1]``, which the
    source-list grammar has no form for)."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not _HOST.match(host):
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def policy_allowing_form_redirect(uri: str) -> str:
    """:data:`POLICY` with the origin of ``uri`` added to ``form-action``, for a page whose
    form is answered with a redirect there; :data:`POLICY` itself when CSP cannot name it."""
    source = origin_source(uri)
    if source is None:
        return POLICY
    return "; ".join(_directives(f"'self' {source}"))
