"""Who may call: per-tool access tokens, their rate counters, and idempotency keys for writes."""

from __future__ import annotations

from django.db import models

from memory.models.base import Recorded, owner_key
from memory.vocab import (
    SCOPE_READ,
    SCOPE_WRITE,
)


def default_scopes() -> list[str]:
    return [SCOPE_READ, SCOPE_WRITE]


class AccessToken(Recorded):
    """A per-tool bearer token. Only the SHA-256 of the secret is stored."""

    owner = owner_key("memory_tokens")
    name = models.CharField(max_length=100, help_text="The tool this token is for.")
    prefix = models.CharField(max_length=24, unique=True)
    secret_sha256 = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=default_scopes)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class RateCount(models.Model):
    """The counter of one key (requests of a token a minute, failed sign-ins of an account or an
    address in a quarter hour) in its current window, incremented atomically in the database so
    that a limit holds across every process and host. One row per key: a new window resets it."""

    key = models.CharField(max_length=200, unique=True)
    bucket = models.BigIntegerField(
        help_text="The current window's number: seconds since the epoch // its length."
    )
    count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.key} #{self.bucket}: {self.count}"


class IdempotencyKey(Recorded):
    """The first result of a write sent with an idempotency key, so that a retry with the same
    key returns it instead of writing again. Per owner; cleanup removes expired keys."""

    key = models.CharField(max_length=255)
    scope = models.CharField(max_length=200, help_text="The route or tool it was sent to.")
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request's arguments.")
    status = models.PositiveSmallIntegerField(default=0, help_text="0 while the write runs.")
    response = models.JSONField(default=dict, blank=True)
    holder = models.CharField(
        max_length=32, blank=True, default="", help_text="The request running the write."
    )
    lease_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="While the write runs, until when its holder keeps the key; a retry after "
        "that (the holder died) takes the key over.",
    )
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="memory_idempotencykey_unique"),
        ]
        indexes = [models.Index(fields=["expires_at"], name="memory_idemkey_expires")]

    def __str__(self) -> str:
        return f"{self.key} ({self.scope})"
