"""Bearer-token authentication, scopes and the body-size ceiling of the HTTP API. The token
checks and the rate limit are the domain's (``memory.services.access``); what they refuse is
answered as the API's JSON errors (``api.errors``).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja.security import HttpBearer

from api.errors import ApiError, too_large
from memory.models import AccessToken
from memory.services.access import rate_limit, token_for
from memory.services.tokens import token_has_scope

# Room for JSON punctuation or multipart framing around the largest transcript we accept.
BODY_OVERHEAD = 64 * 1024


def max_body_bytes() -> int:
    return int(settings.UME_MAX_TRANSCRIPT_BYTES) + BODY_OVERHEAD


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
