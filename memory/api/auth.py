"""Bearer-token authentication, scopes, the per-token rate limit and the body-size ceiling.

The rate limit counts requests per token in fixed one-minute windows in Django's cache. With
``UME_CACHE=locmem`` (the default) that cache is per process: a deployment with N workers lets
a token make up to N times ``UME_API_RATE_LIMIT`` requests a minute. ``UME_CACHE=database``
keeps the counters in the shared database, so the limit holds across every process.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from ninja.security import HttpBearer

from memory.api.errors import ApiError, too_large
from memory.models import AccessToken
from memory.services.tokens import token_authenticate, token_has_scope

# Room for JSON punctuation or multipart framing around the largest transcript we accept.
BODY_OVERHEAD = 64 * 1024


def max_body_bytes() -> int:
    return int(settings.UME_MAX_TRANSCRIPT_BYTES) + BODY_OVERHEAD


def rate_limit(token: AccessToken, *, now: float | None = None) -> None:
    """Count one request for ``token``; raise 429 with Retry-After past the per-minute limit."""
    now = time.time() if now is None else now
    window = int(now // 60)
    key = f"ume:api-rate:{token.pk}:{window}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # evicted between add and incr
        cache.set(key, 1, timeout=120)
        count = 1
    limit = int(settings.UME_API_RATE_LIMIT)
    if count > limit:
        retry_after = max(1, 60 - int(now % 60))
        raise ApiError(
            429,
            "rate_limited",
            f"more than {limit} requests a minute with this token; retry in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
        )


def check_declared_size(request: HttpRequest) -> None:
    """Refuse a body whose declared length is already over the limit, before reading it."""
    raw = request.META.get("CONTENT_LENGTH") or "0"
    try:
        declared = int(raw)
    except ValueError as exc:
        raise ApiError(400, "invalid_input", "Content-Length is not a number") from exc
    if declared > max_body_bytes():
        raise too_large(
            f"the request body ({declared:,} bytes) is over the limit of {max_body_bytes():,} bytes"
        )


class TokenAuth(HttpBearer):
    """``Authorization: Bearer <token>`` for a live token holding ``scope``.

    Unknown, revoked and expired tokens get 401; a live token without the scope gets 403
    ``insufficient_scope`` (write implies read). The view then acts for ``request.auth.owner``.
    """

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def authenticate(self, request: HttpRequest, token: str) -> AccessToken | None:
        found = token_authenticate(token.strip())
        if found is None:
            return None
        if not token_has_scope(found, self.scope):
            raise ApiError(
                403, "insufficient_scope", f"this token does not have the {self.scope} scope"
            )
        rate_limit(found)
        check_declared_size(request)
        return found
