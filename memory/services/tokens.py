"""Per-tool bearer tokens. The secret is shown once; only its SHA-256 is stored."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from memory.models import AccessToken
from memory.owned import Person
from memory.vocab import SCOPE_READ, SCOPE_WRITE, SCOPES

TOKEN_PREFIX = "ume_"


class TokenError(ValueError):
    pass


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def normalise_scopes(scopes: Iterable[str]) -> list[str]:
    chosen = {s.strip() for s in scopes if s.strip()}
    unknown = chosen - set(SCOPES)
    if unknown:
        raise TokenError(
            f"unknown scope(s): {', '.join(sorted(unknown))}; choose from {', '.join(SCOPES)}"
        )
    if not chosen:
        raise TokenError("a token needs at least one scope")
    if SCOPE_WRITE in chosen:
        chosen.add(SCOPE_READ)  # write implies read
    return sorted(chosen)


def token_create(
    *, owner: Person, name: str, scopes: Iterable[str] = SCOPES, expires_at: datetime | None = None
) -> tuple[AccessToken, str]:
    """A new token and its secret. The secret is never stored and cannot be shown again."""
    name = " ".join(name.split())
    if not name:
        raise TokenError("name the tool this token is for")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = AccessToken.objects.create(
        owner=owner,
        name=name[:100],
        prefix=secret[: len(TOKEN_PREFIX) + 8],
        secret_sha256=_digest(secret),
        scopes=normalise_scopes(scopes),
        expires_at=expires_at,
    )
    return token, secret


def token_revoke(*, token: AccessToken) -> AccessToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_authenticate(secret: str, *, now: datetime | None = None) -> AccessToken | None:
    """The live token for ``secret`` (not revoked, not expired, active owner), or None.

    Marks it used. Lookup is by the SHA-256 of the secret, so timing does not reveal prefixes.
    """
    if not secret or not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    now = now or timezone.now()
    token = (
        AccessToken.objects.select_related("owner")
        .filter(secret_sha256=_digest(secret), revoked_at__isnull=True, owner__is_active=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .first()
    )
    if token is None:
        return None
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 30:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def token_has_scope(token: AccessToken, scope: str) -> bool:
    scopes = set(token.scopes or [])
    return scope in scopes or (scope == SCOPE_READ and SCOPE_WRITE in scopes)
