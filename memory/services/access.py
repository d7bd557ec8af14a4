"""Who may call: a bearer token looked up, guesses throttled by address, and the per-token rate
limit. The HTTP API (``api/``), the MCP server (``mcp_server/``) and the request guard
(``ume/guard.py``) all check tokens here; each answers a :class:`Refused` in its own shape (the
API as JSON ``{"code", "message"}``, MCP as a JSON-RPC error, the guard before the body is
read).

The rate limit counts requests per token in fixed one-minute windows, atomically in the
database (``memory.services.ratelimit``), so the limit holds exactly across every worker and
host.
"""

from __future__ import annotations

from django.conf import settings

from memory.models import AccessToken
from memory.services.ratelimit import rate_hit
from memory.services.tokens import token_authenticate


class Refused(Exception):
    """A request refused before it reaches a view or a tool: an HTTP status, a stable code,
    a message a person can act on, and the headers that go with it (``Retry-After``)."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def rate_limit(token: AccessToken, *, now: float | None = None) -> None:
    """Count one request for ``token``; refused (429, with Retry-After) past the per-minute
    limit."""
    hit = rate_hit(f"token:{token.pk}", window=60, now=now)
    limit = int(settings.UME_API_RATE_LIMIT)
    if hit.count > limit:
        retry_after = hit.retry_after
        raise Refused(
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
            raise Refused(
                429,
                "rate_limited",
                f"too many invalid tokens from this address; retry in {miss.retry_after} s",
                headers={"Retry-After": str(miss.retry_after)},
            )
    return token
