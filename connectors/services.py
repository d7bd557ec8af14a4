"""Writes for connections and tokens from the dashboard."""

from __future__ import annotations

from django.db import transaction
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model

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
