"""ume's OAuth 2.1 profile for remote MCP connectors, on django-oauth-toolkit.

What the toolkit does: authorization codes with PKCE (S256 only, by its RFC 9700 gate),
dynamic client registration (RFC 7591), authorization server metadata (RFC 8414), protected
resource metadata (RFC 9728), rotating refresh tokens with reuse detection, tokens hashed
at rest, resource indicators (RFC 8707) stored on grants and tokens, and the `iss`
authorization-response parameter (RFC 9207).

What ume adds (the MCP profile and ume's own model):

- one protected resource, ``/mcp``: every token is bound to it (a request without a
  ``resource`` gets it; a request for any other resource is refused with ``invalid_target``);
- the resource server side of ``/mcp``: an OAuth token is accepted only for the resource it
  was issued for, only while the person's connection is live, and acts as that connection's
  :class:`memory.models.AccessToken` (scopes, rate limit, receipts), narrowed to the scopes of
  the OAuth token itself;
- a connection per person and client, created when a token is first issued after consent;
  each code it redeems is recorded with the refresh-token family it starts
  (:class:`connectors.models.Redemption`), and a token works, on /mcp and on refresh, only
  while the connection of its own family is live: once revoked, no later approval of the
  same client revives it;
- a code presented a second time revokes the tokens its first use issued (RFC 6749
  section 4.1.2); a deactivated person's code or refresh token gets nothing.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import MutableMapping
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_refresh_token_model
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from connectors.models import Connection, Redemption
from memory.models import AccessToken
from memory.owned import Person
from memory.services.tokens import normalise_scopes
from memory.vocab import SCOPES
from ume.https import request_headers, request_scheme

MCP_PATH = "/mcp"
PRM_PATH = "/.well-known/oauth-protected-resource"


def canonical(uri: str) -> str:
    """A resource URI compared the way RFC 8707 clients send it: no trailing slash, lower host."""
    parts = urlsplit(uri.strip())
    path = parts.path.rstrip("/")
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}"


def public_origin(scheme: str, host: str) -> str:
    """``UME_PUBLIC_URL`` when set, else the origin this request came to."""
    if settings.UME_PUBLIC_URL:
        return str(settings.UME_PUBLIC_URL)
    return f"{scheme}://{host}".lower()


def mcp_resource(request: HttpRequest) -> str:
    return public_origin(request.scheme or "http", request.get_host()) + MCP_PATH


def _scope_origin(scope: MutableMapping[str, Any]) -> str:
    # Django's own rule for trusting a proxy: SECURE_PROXY_SSL_HEADER (UME_BEHIND_PROXY).
    server = scope.get("server") or ("127.0.0.1", 80)
    host = request_headers(scope).get("host") or f"{server[0]}:{server[1]}"
    return public_origin(request_scheme(scope), host)


def mcp_resource_for_scope(scope: MutableMapping[str, Any]) -> str:
    """The /mcp resource identifier as seen by an ASGI request to /mcp."""
    return _scope_origin(scope) + MCP_PATH


def mcp_challenge(scope: MutableMapping[str, Any]) -> str:
    """The ``WWW-Authenticate`` parameters for a 401 from /mcp (RFC 9728 section 5.1)."""
    return f'resource_metadata="{_scope_origin(scope)}{PRM_PATH}{MCP_PATH}"'


class UmeOAuth2Validator(OAuth2Validator):
    """The toolkit's validator, held to one resource and to live connections."""

    def _check_and_set_request_resource(self, request: Any) -> None:
        super()._check_and_set_request_resource(request)
        ours = canonical(_origin_of(request) + MCP_PATH)
        if not request.resource:
            request.resource = [ours]
        for resource in request.resource:
            if canonical(resource) != ours:
                raise errors.CustomOAuth2Error(
                    error="invalid_target",
                    description=f"this server issues tokens only for {ours}",
                    request=request,
                )
        request.resource = [ours]

    def validate_refresh_token(
        self, refresh_token: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        """The toolkit's check, except that a token rotated by another request less than
        ``UME_OAUTH_REFRESH_GRACE_SECONDS`` ago is refused with a clear error and revokes
        nothing (a client's concurrent or retried refresh): the pair it was exchanged for is
        hashed at rest, so it cannot be sent again. Past the grace, or for a token revoked
        rather than rotated, the toolkit revokes the token's whole family, as before. The
        grace is ume's, not the toolkit's (whose grace would answer with the old pair, which
        hashed storage cannot do)."""
        with transaction.atomic():
            # The presented token's row is held while deciding: a concurrent rotation of it
            # has either committed (its pair is seen, and this request is refused as rotated
            # moments ago) or waits until this validation is done (and this request then loses
            # the claim in ``_claim_rotation``). Never between the two reads: there the
            # toolkit would see a token just revoked, call it reused and revoke the family,
            # the winner's new pair with it.
            _hold(refresh_token)
            if _rotated_moments_ago(refresh_token):
                raise errors.InvalidGrantError(description=ROTATED_MOMENTS_AGO, request=request)
            valid = bool(
                super().validate_refresh_token(refresh_token, client, request, *args, **kwargs)
            )
        rotated = getattr(request, "refresh_token_instance", None)
        if valid and rotated is not None and rotated.revoked is not None:
            raise errors.InvalidGrantError(description=ROTATED_MOMENTS_AGO, request=request)
        return valid

    def validate_code(
        self, client_id: str, code: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        if super().validate_code(client_id, code, client, request, *args, **kwargs):
            return bool(request.user.is_active)
        # A code used a second time: whoever holds it, the tokens of its first use are not
        # to be trusted either (RFC 6749 section 4.1.2).
        families = Redemption.objects.filter(
            code_sha256=_sha256(code), connection__application=client
        ).values_list("token_family", flat=True)
        for family in families:
            get_refresh_token_model().revoke_family(family)
        return False

    def _save_bearer_token(self, token: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        if request.grant_type == "refresh_token":
            _claim_rotation(request)
            # Checked in save_bearer_token's transaction, before the rotation: a connection
            # revoked between validation and here gets nothing either.
            previous = getattr(request, "refresh_token_instance", None)
            if previous is None or not _family_live(previous.token_family, request.user):
                raise errors.InvalidGrantError(
                    description="this connection was revoked; connect again", request=request
                )
        saved = super()._save_bearer_token(token, request, *args, **kwargs)
        if request.grant_type != "authorization_code" or request.user is None:
            return saved
        connection = connection_ensure(
            owner=request.user,
            application=request.client,
            scopes=str(token.get("scope", "")).split(),
            resource=request.resource[0],
        )
        issued = get_refresh_token_model().objects.get(
            token_checksum=_sha256(token["refresh_token"])
        )
        Redemption.objects.create(
            connection=connection,
            code_sha256=_sha256(request.code),
            token_family=issued.token_family,
        )
        return saved


ROTATED_MOMENTS_AGO = (
    "this refresh token was exchanged moments ago by another request of this client; "
    "use the tokens that request received"
)


def _hold(refresh_token: str) -> None:
    """Lock the rows of ``refresh_token`` until the transaction ends (PostgreSQL; SQLite lets
    one writer in at a time anyway)."""
    rows = get_refresh_token_model().objects.select_for_update()
    list(rows.filter(token_checksum=_sha256(refresh_token)).only("pk"))


def _rotated_moments_ago(refresh_token: str) -> bool:
    """Whether ``refresh_token`` was rotated (exchanged for a new pair, not revoked) within
    the grace period, and has no live row of its own."""
    grace = settings.UME_OAUTH_REFRESH_GRACE_SECONDS
    if grace <= 0:
        return False
    rows = get_refresh_token_model().objects.filter(token_checksum=_sha256(refresh_token))
    if rows.filter(revoked__isnull=True).exists():
        return False
    since = timezone.now() - timedelta(seconds=grace)
    return (
        get_access_token_model()
        .objects.filter(source_refresh_token__in=rows.filter(revoked__gt=since).values("pk"))
        .exists()
    )


def _claim_rotation(request: Any) -> None:
    """Make this request the one rotation of its refresh token, or refuse it.

    Concurrent refreshes with one token all pass validation (it reads without a lock). The
    first to run this conditional write holds the row until its transaction ends; the others
    wait, then match no row (PostgreSQL re-reads it; SQLite lets one writer in at a time) and
    are refused with :data:`ROTATED_MOMENTS_AGO`, without touching the family: the winner's new
    pair stays good. Runs inside the toolkit's ``save_bearer_token`` transaction."""
    presented = getattr(request, "refresh_token_instance", None)
    if presented is None:
        return
    claimed = (
        get_refresh_token_model()
        .objects.filter(pk=presented.pk, revoked__isnull=True)
        .update(revoked=None)
    )
    if not claimed:
        raise errors.InvalidGrantError(description=ROTATED_MOMENTS_AGO, request=request)


def _sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _family_live(family: Any, user: Any) -> bool:
    """Whether tokens of this refresh-token family may still act: their person is active and
    the connection the family was redeemed under is not revoked."""
    if family is None or user is None or not user.is_active:
        return False
    return Redemption.objects.filter(
        token_family=family, connection__token__revoked_at__isnull=True
    ).exists()


def _origin_of(request: Any) -> str:
    """The origin an oauthlib request (built by the toolkit from Django's) came to."""
    headers = request.headers or {}
    scheme = "https" if headers.get("X_DJANGO_OAUTH_TOOLKIT_SECURE") else "http"
    # Django validated HTTP_HOST against ALLOWED_HOSTS before the toolkit saw it.
    return public_origin(scheme, str(headers.get("HTTP_HOST", "")))


def _granted(scopes: list[str]) -> list[str]:
    chosen = [s for s in scopes if s in SCOPES]
    return normalise_scopes(chosen) if chosen else []


def connection_ensure(
    *, owner: Person, application: Any, scopes: list[str], resource: str
) -> Connection:
    """The person's live connection to ``application``, created (with its access token row)
    on the first token after consent; a new consent widens its scopes."""
    granted = _granted(scopes)
    with transaction.atomic():
        connection = (
            Connection.objects.select_for_update()
            .select_related("token")
            .for_owner(owner)
            .filter(application=application, token__revoked_at__isnull=True)
            .first()
        )
        if connection is not None:
            merged = sorted(set(connection.token.scopes or []) | set(granted))
            if merged != sorted(connection.token.scopes or []):
                connection.token.scopes = merged
                connection.token.save(update_fields=["scopes"])
            return connection
        name = " ".join(str(application.name or "").split()) or f"OAuth client {application.pk}"
        token = AccessToken.objects.create(
            owner=owner,
            name=name[:100],
            prefix="oauth_" + secrets.token_hex(5),
            # Never a usable bearer secret: the connection's OAuth tokens stand for it.
            secret_sha256=hashlib.sha256(secrets.token_bytes(32)).hexdigest(),
            scopes=granted or ["memory:read"],
        )
        return Connection.objects.create(
            owner=owner, application=application, token=token, resource=resource
        )


def mcp_authenticate(secret: str, scope: MutableMapping[str, Any]) -> AccessToken | None:
    """The connection token an OAuth access token acts as on /mcp, or None.

    None when the token is unknown, expired, issued for another resource, not issued to a
    person, or when the connection it was issued under has been revoked (even if the person
    has since approved the same client again). The returned
    row carries the OAuth token's own scopes (never more than the connection's).
    """
    if not secret or secret.startswith("ume_") or len(secret) > 512:
        return None
    oauth_token = (
        get_access_token_model()
        .objects.select_related("application", "user", "refresh_token")
        .filter(token_checksum=_sha256(secret))
        .first()
    )
    if oauth_token is None or oauth_token.is_expired() or oauth_token.user is None:
        return None
    if not oauth_token.user.is_active or oauth_token.application is None:
        return None
    ours = canonical(mcp_resource_for_scope(scope))
    if [canonical(r) for r in (oauth_token.resource or [])] != [ours]:
        return None
    # The connection this token was issued under, through its refresh token's family: never
    # merely some live connection of the same person and client, which a later approval makes.
    refresh_token = getattr(oauth_token, "refresh_token", None)
    if refresh_token is None or refresh_token.token_family is None:
        return None
    connection = (
        Connection.objects.for_owner(oauth_token.user)
        .select_related("token", "token__owner")
        .filter(
            application=oauth_token.application,
            redemptions__token_family=refresh_token.token_family,
            token__revoked_at__isnull=True,
        )
        .first()
    )
    if connection is None:
        return None
    token = connection.token
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 30:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    allowed = set(token.scopes or [])
    token.scopes = [s for s in _granted(oauth_token.scope.split()) if s in allowed]
    return token
