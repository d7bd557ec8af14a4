"""Clients registered dynamically that nobody authorized are deleted by the cron job."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)
from pytest_django import Settings

from connectors.oauth import connection_ensure
from connectors.services import oauth_clients_expire

pytestmark = pytest.mark.django_db
Application = get_application_model()
AccessToken = get_access_token_model()


def make_client(name: str, *, hours_ago: float, dcr: bool = True, source: str = "") -> Any:
    app = Application.objects.create(
        name=name,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8977/callback",
        registration_source=source or ("dcr" if dcr else "manual"),
        hash_client_secret=False,  # the hashing is not what is tested here
    )
    Application.objects.filter(pk=app.pk).update(
        created=timezone.now() - timedelta(hours=hours_ago)
    )
    # what registration issues with every client: a token for RFC 7592, for no person
    AccessToken.objects.create(
        application=app,
        user=None,
        token_checksum=f"reg-{app.pk}".ljust(64, "0"),
        expires=timezone.now() + timedelta(days=3650),
        scope="dcr",
    )
    return app


def names() -> set[str]:
    return set(Application.objects.values_list("name", flat=True))


def test_only_old_unused_registered_clients_expire(owner: Any, settings: Settings) -> None:
    settings.UME_OAUTH_UNUSED_CLIENT_HOURS = 24
    now = timezone.now()
    make_client("old unused", hours_ago=25)
    make_client("old unused 2", hours_ago=100)
    make_client("recent unused", hours_ago=23)
    make_client("old manual", hours_ago=100, dcr=False)
    connected = make_client("old connected", hours_ago=100)
    connection_ensure(
        owner=owner, application=connected, scopes=["memory:read"], resource="http://t/mcp"
    )
    with_token = make_client("old with a token", hours_ago=100)
    access = AccessToken.objects.create(
        application=with_token,
        user=owner,
        token_checksum="a".ljust(64, "1"),
        expires=now + timedelta(hours=1),
        scope="memory:read",
    )
    get_refresh_token_model().objects.create(
        application=make_client("old with a refresh token", hours_ago=100),
        user=owner,
        token_checksum="r".ljust(64, "2"),
        access_token=None,
    )
    pending = make_client("old, code pending", hours_ago=100)
    get_grant_model().objects.create(
        application=pending,
        user=owner,
        code="c1",
        expires=now + timedelta(seconds=60),
        redirect_uri="http://127.0.0.1:8977/callback",
        code_challenge="x" * 43,
        code_challenge_method="S256",
    )
    abandoned = make_client("old, code abandoned", hours_ago=100)
    get_grant_model().objects.create(
        application=abandoned,
        user=owner,
        code="c2",
        expires=now - timedelta(hours=90),
        redirect_uri="http://127.0.0.1:8977/callback",
        code_challenge="x" * 43,
        code_challenge_method="S256",
    )
    everyone = names()
    kept = everyone - {"old unused", "old unused 2", "old, code abandoned"}

    assert oauth_clients_expire(now=now, dry_run=True) == 3
    assert names() == everyone  # a dry run deletes nothing

    assert oauth_clients_expire(now=now) == 3
    assert names() == kept
    assert AccessToken.objects.filter(pk=access.pk).exists()
    # their registration tokens and codes went with them
    assert AccessToken.objects.filter(user__isnull=True).count() == len(kept)
    assert not get_grant_model().objects.filter(code="c2").exists()
    assert oauth_clients_expire(now=now) == 0


def test_the_window_is_the_setting(settings: Settings) -> None:
    make_client("two hours old", hours_ago=2)
    settings.UME_OAUTH_UNUSED_CLIENT_HOURS = 3
    assert oauth_clients_expire(now=timezone.now()) == 0
    settings.UME_OAUTH_UNUSED_CLIENT_HOURS = 1
    assert oauth_clients_expire(now=timezone.now()) == 1


def test_the_cron_job_runs_the_expiry(capsys: pytest.CaptureFixture[str]) -> None:
    make_client("stale", hours_ago=48)
    make_client("stale 2", hours_ago=48)
    call_command("cleanup", "--dry-run", "--json")
    assert json.loads(capsys.readouterr().out)["sweeps"] == {
        "oauth_clients_expired": 2,
        "recall_vectors_filled": 0,
    }
    assert len(names()) == 2
    call_command("cleanup")
    assert "oauth clients expired: 2" in capsys.readouterr().out
    assert not names()
    call_command("cleanup", "--json")
    assert json.loads(capsys.readouterr().out)["sweeps"] == {
        "oauth_clients_expired": 0,
        "recall_vectors_filled": 0,
    }


def test_clients_made_from_a_metadata_document_expire_alike(owner: Any) -> None:
    # ume makes one when a person opens the consent page for a document; nobody approved
    # these, and the next consent page fetches the document again.
    now = timezone.now()
    make_client("document, unused", hours_ago=30, source="cimd")
    make_client("document, recent", hours_ago=2, source="cimd")
    connected = make_client("document, connected", hours_ago=30, source="cimd")
    connection_ensure(
        owner=owner, application=connected, scopes=["memory:read"], resource="http://t/mcp"
    )
    assert oauth_clients_expire(now=now) == 1
    assert names() == {"document, recent", "document, connected"}
