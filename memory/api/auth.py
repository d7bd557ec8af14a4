"""Bearer-token authentication, scopes, the per-token rate limit and the body-size ceiling.

The rate limit counts requests per token in fixed one-minute windows, atomically in the
database (``memory.services.ratelimit``), so the limit holds exactly across every worker and
host.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja.security import HttpBearer

from memory.api.errors import ApiError, too_large
from memory.models import AccessToken
from memory.services.ratelimit import rate_hit
from memory.services.tokens import token_authenticate, token_has_scope

# Room for JSON punctuation or multipart framing around the largest transcript we accept.
BODY_OVERHEAD = 64 * 1024


def max_body_bytes() -> int:
    return int(settings.UME_MAX_TRANSCRIPT_BYTES) + BODY_OVERHEAD


def rate_limit(token: AccessToken, *, now: float | None = None) -> None:
    """Count one request for ``token``; raise 429 with Retry-After past the per-minute limit."""
    hit = rate_hit(f"token:{token.pk}", window=60, now=now)
    limit = int(settings.UME_API_RATE_LIMIT)
    if hit.count > limit:
        retry_after = hit.retry_after
        raise ApiError(
            429,
            "rate_limited",
            f"more than {limit} requests a minute with this token; retry in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
        )


def token_for(secret: str, *, address: str) -> AccessToken | None:
    """The live token for ``secret``, or None. Unknown tokens are counted per address: past
    ``UME_BAD_TOKENS_PER_ADDRESS`` a minute they are refused with 429 instead of 401, so
    guessing tokens is throttled like guessing passwords (a live token costs no extra query)."""
    token = token_authenticate(secret)
    if token is None:
        miss = rate_hit(f"bad-token:{address}", window=60)
        if miss.count > int(settings.UME_BAD_TOKENS_PER_ADDRESS):
            raise ApiError(
                429,
                "rate_limited",
                f"too many invalid tokens from this address; retry in {miss.retry_after} s",
                headers={"Retry-After": str(miss.retry_after)},
            )
    return token


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
        # The ASGI guard already looked up the token of an API write (ume/guard.py).
        scope = getattr(request, "scope", None) or {}
        found = scope.get("ume.guard_token")
        if found is None:
            found = token_for(token.strip(), address=str(request.META.get("REMOTE_ADDR") or ""))
        if found is None:
            return None
        if not token_has_scope(found, self.scope):
            raise ApiError(
                403, "insufficient_scope", f"this token does not have the {self.scope} scope"
            )
        rate_limit(found)
        check_declared_size(request)
        return found
