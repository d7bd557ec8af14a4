"""Writes for connections and tokens from the dashboard, and the expiry of unused clients."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)

from connectors.models import Connection
from memory.models import AccessToken
from memory.services.tokens import token_revoke


def access_revoke(*, token: AccessToken) -> AccessToken:
    """Revoke a token; for an OAuth connection, also delete every grant and token the client
    holds for this person, so neither its access nor its refresh tokens work again.

    Takes effect on the next call: /mcp checks the connection on every request.
    """
    with transaction.atomic():
        token_revoke(token=token)
        connection = Connection.objects.filter(token=token).first()
        if connection is not None:
            mine = {"user_id": connection.owner_id, "application_id": connection.application_id}
            get_refresh_token_model().objects.filter(**mine).delete()
            get_access_token_model().objects.filter(**mine).delete()
            get_grant_model().objects.filter(**mine).delete()
    return token


def oauth_clients_expire(*, now: datetime, dry_run: bool = False) -> int:
    """Delete the dynamically registered clients that never completed an authorization
    within ``UME_OAUTH_UNUSED_CLIENT_HOURS`` of registering; how many (would) go.

    Such a client has no connection, no refresh token, no access token issued to a person
    (its registration access token has none) and no authorization code still pending. Clients
    made in the admin are never expired. Deleting one deletes its registration token and any
    expired codes with it. Run by ``manage.py cleanup``.
    """
    cutoff = now - timedelta(hours=int(settings.UME_OAUTH_UNUSED_CLIENT_HOURS))
    application = get_application_model()
    mine = {"application": OuterRef("pk")}
    unused = (
        application.objects.filter(
            registration_source=application.RegistrationSource.DCR, created__lt=cutoff
        )
        .exclude(Exists(Connection.objects.filter(**mine)))
        .exclude(Exists(get_refresh_token_model().objects.filter(**mine)))
        .exclude(Exists(get_access_token_model().objects.filter(user__isnull=False, **mine)))
        .exclude(Exists(get_grant_model().objects.filter(expires__gt=now, **mine)))
    )
    if dry_run:
        return unused.count()
    deleted = 0
    while True:  # in chunks: a flood of registrations is deleted with bounded memory
        ids = list(unused.order_by("pk").values_list("pk", flat=True)[:500])
        if not ids:
            return deleted
        with transaction.atomic():  # the conditions again: one may have been authorized since
            _total, by_model = unused.filter(pk__in=ids).delete()
        deleted += by_model.get(application._meta.label, 0)
