"""HTTPS for what Django does not serve: /mcp goes from the ASGI router straight to the MCP
SDK, so Django's ``SECURE_SSL_REDIRECT`` never sees it. The same rule is applied here: under
``UME_HTTPS`` a plain-HTTP request to /mcp is redirected (301, as Django answers /v1/), and
the scheme is read the way Django reads it (``SECURE_PROXY_SSL_HEADER``, set by
``UME_BEHIND_PROXY``)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from django.conf import settings


def request_headers(scope: MutableMapping[str, Any]) -> dict[str, str]:
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}


def request_scheme(scope: MutableMapping[str, Any]) -> str:
    """``https`` when the request came over TLS, to this server or to the trusted proxy."""
    scheme = str(scope.get("scheme") or "http")
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy and request_headers(scope).get("x-forwarded-proto") == proxy[1]:
        return "https"
    return scheme


def https_redirect(scope: MutableMapping[str, Any]) -> str | None:
    """Where a plain-HTTP request must go instead (``SECURE_SSL_HOST`` or its own host, same
    path and query), or None when it may be served as it came."""
    if not settings.SECURE_SSL_REDIRECT or request_scheme(scope) == "https":
        return None
    server = scope.get("server") or ("127.0.0.1", 80)
    host = settings.SECURE_SSL_HOST or request_headers(scope).get("host") or str(server[0])
    query = scope.get("query_string", b"").decode("latin-1")
    return f"https://{host}{scope.get('path', '')}" + (f"?{query}" if query else "")
