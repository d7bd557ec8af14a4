"""A connection: one OAuth client a person approved, seen as one of their access tokens.

Every connection owns a :class:`memory.models.AccessToken` row (named after the client, with
the approved scopes), so connections are listed, rate-limited, named on receipts and revoked
exactly like the bearer tokens people create themselves. The OAuth tokens themselves are
django-oauth-toolkit's rows, for the same person and client.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from memory.owned import OwnedManager


class Connection(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="connections"
    )
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.CASCADE,
        related_name="connections",
    )
    token = models.OneToOneField(
        "memory.AccessToken", on_delete=models.CASCADE, related_name="connection"
    )
    resource = models.URLField(max_length=500, help_text="the /mcp resource it is bound to")
    created_at = models.DateTimeField(default=timezone.now)

    objects = OwnedManager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["owner", "application"], name="connectors_conn_owner_app"),
        ]

    def __str__(self) -> str:
        return f"{self.application} for {self.owner}"


class Redemption(models.Model):
    """One authorization code exchanged under a connection, and the refresh-token family
    (django-oauth-toolkit's ``token_family``) it started.

    An OAuth token is live only while the connection of its family is: revoking a connection
    ends every token issued under it, and a later approval of the same client starts a new
    connection whose redemptions never include the old families. The code's digest lets a
    second use of the same code revoke the family its first use started.
    """

    connection = models.ForeignKey(Connection, on_delete=models.CASCADE, related_name="redemptions")
    code_sha256 = models.CharField(
        max_length=64,
        unique=True,
        null=True,
        blank=True,
        help_text="SHA-256 of the authorization code (none for families issued before codes "
        "were recorded)",
    )
    token_family = models.UUIDField(unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.token_family} for {self.connection}"
