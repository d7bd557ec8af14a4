"""Writes for connections and tokens from the dashboard, clients known by their metadata
document, and the expiry of unused clients."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)

from connectors.fetch import fetch_document
from connectors.metadata import (
    FAILURE_BACKOFF_SECONDS,
    MetadataRefused,
    cache_seconds,
    document_problem,
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
    """Delete the dynamically registered clients, and the clients ume made from a metadata
    document, that never completed an authorization within ``UME_OAUTH_UNUSED_CLIENT_HOURS`` of
    being made; how many (would) go. (A metadata-document client is made again from its
    document the next time a person opens its consent page.)

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
            registration_source__in=[
                application.RegistrationSource.DCR,
                application.RegistrationSource.CIMD,
            ],
            created__lt=cutoff,
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


# At most this many documents are fetched at once per process: each fetch may hold its
# thread for the whole timeout, and the rest of ume needs its threads.
MAX_CONCURRENT_FETCHES = 4
_fetches = threading.BoundedSemaphore(MAX_CONCURRENT_FETCHES)


def metadata_client_resolve(*, client_id: str, now: datetime) -> Any:
    """The client (django-oauth-toolkit ``Application``) that ``client_id``, a metadata
    document URL, stands for; fetched and validated when it is new or its copy is stale.

    A client of another kind that has this id (made in the admin) is returned as it is. A
    metadata client's copy is kept for :func:`connectors.metadata.cache_seconds` of its answer;
    past that, it is fetched again, and a document that can no longer be used is refused (the
    old copy is not used instead). Raises :class:`MetadataRefused` with the reason; a refusal
    is remembered for ``FAILURE_BACKOFF_SECONDS``, during which the URL is not fetched again.
    Called only for a signed-in person's consent page, never from the anonymous endpoints.
    """
    application = get_application_model()
    known = application.objects.filter(client_id=client_id).first()
    if known is not None:
        if known.registration_source != application.RegistrationSource.CIMD:
            return known
        if known.cimd_expires_at is not None and known.cimd_expires_at > now:
            return known
    backoff = "ume:client-metadata-refused:" + hashlib.sha256(client_id.encode()).hexdigest()
    held = cache.get(backoff)
    if held:
        raise MetadataRefused(f"{held} (checked less than a minute ago; try again later)")
    with _fetch_slot() as free:
        if not free:
            raise MetadataRefused("ume is fetching too many documents at once; try again")
        try:
            fetched = fetch_document(
                client_id,
                local=bool(settings.UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA),
                timeout=float(settings.UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS),
            )
            problem = document_problem(
                fetched.data,
                client_id=client_id,
                loopback_redirects=bool(settings.UME_OAUTH_LOOPBACK_REDIRECTS),
            )
            if problem:
                raise MetadataRefused(problem)
            expires = now + timedelta(seconds=cache_seconds(fetched.cache_control))
            return _metadata_client_save(client_id, fetched.data, expires=expires)
        except MetadataRefused as refused:
            cache.set(backoff, str(refused), FAILURE_BACKOFF_SECONDS)
            raise


@contextmanager
def _fetch_slot() -> Iterator[bool]:
    free = _fetches.acquire(blocking=False)
    try:
        yield free
    finally:
        if free:
            _fetches.release()


def _metadata_client_save(client_id: str, data: dict[str, Any], *, expires: datetime) -> Any:
    """Create or update the public client a validated document describes."""
    application = get_application_model()
    fields = {
        "name": str(data.get("client_name") or ""),
        "redirect_uris": " ".join(data["redirect_uris"]),
        "client_type": application.CLIENT_PUBLIC,
        "authorization_grant_type": application.GRANT_AUTHORIZATION_CODE,
        "registration_source": application.RegistrationSource.CIMD,
        "cimd_expires_at": expires,
        "skip_authorization": False,
        "user": None,
    }
    with transaction.atomic():
        row = application.objects.select_for_update().filter(client_id=client_id).first()
        if row is None:
            row = application(client_id=client_id)
        elif row.registration_source != application.RegistrationSource.CIMD:
            raise MetadataRefused("another client of this server already has this client_id")
        for name, value in fields.items():
            setattr(row, name, value)
        try:
            row.full_clean(exclude=["client_secret"], validate_unique=False)
        except ValidationError as error:
            raise MetadataRefused("; ".join(error.messages)) from None
        try:
            with transaction.atomic():
                row.save()
        except IntegrityError:  # made meanwhile by another person's consent page: use it
            row = application.objects.get(client_id=client_id)
            if row.registration_source != application.RegistrationSource.CIMD:
                raise MetadataRefused(
                    "another client of this server already has this client_id"
                ) from None
    return row
