"""Reads for the connections page: every one takes the owner."""

from __future__ import annotations

from django.db.models import F, QuerySet

from memory.models import AccessToken
from memory.owned import Person


def access_tokens(owner: Person) -> QuerySet[AccessToken]:
    """The owner's tokens and OAuth connections, live ones first, with the connected client."""
    return (
        AccessToken.objects.for_owner(owner)
        .select_related("connection__application")
        .order_by(F("revoked_at").asc(nulls_first=True), "-created_at", "-id")
    )


def access_token_get(owner: Person, token_id: int) -> AccessToken | None:
    return (
        AccessToken.objects.for_owner(owner)
        .filter(pk=token_id)
        .select_related("connection__application")
        .first()
    )
