"""The Connections page: the owner's tokens and OAuth connections, each revocable."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model
from pytest_django import DjangoAssertNumQueries

from connectors.oauth import connection_ensure
from memory.models import AccessToken
from memory.services.tokens import token_create

pytestmark = pytest.mark.django_db
LIST = reverse("connectors:list")


def make_connection(owner: Any, name: str = "Hosted assistant") -> Any:
    app = get_application_model().objects.create(
        name=name,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="https://assistant.example/callback",
    )
    connection = connection_ensure(
        owner=owner,
        application=app,
        scopes=["memory:write"],
        resource="http://testserver/mcp",
    )
    get_access_token_model().objects.create(
        user=owner,
        application=app,
        token="t-" + name,
        expires=timezone.now() + timedelta(hours=1),
        scope="memory:read memory:write",
        resource=["http://testserver/mcp"],
    )
    return connection


def test_the_page_lists_tokens_and_connections_of_the_owner_only(
    client: Client, owner: User, other_user: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    token_create(owner=owner, name="Desktop client")
    make_connection(owner)
    make_connection(other_user, name="Someone else's assistant")
    client.force_login(owner)
    with django_assert_num_queries(4):  # session, user, nav's pending count, the tokens
        html = client.get(LIST).content.decode()
    assert "Desktop client" in html and "Hosted assistant" in html
    assert "OAuth connector" in html and "memory:read, memory:write" in html
    assert "Someone else" not in html
    assert "http://testserver/mcp" in html


def test_revoking_a_connection_ends_its_oauth_tokens(client: Client, owner: User) -> None:
    connection = make_connection(owner)
    client.force_login(owner)
    url = reverse("connectors:revoke", args=[connection.token_id])
    response = client.post(url, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith(f'<tr id="token-{connection.token_id}"')
    assert "revoked" in html
    assert AccessToken.objects.get(pk=connection.token_id).revoked_at is not None
    assert not get_access_token_model().objects.filter(user=owner).exists()
    # a new approval makes a new connection, the revoked one stays revoked
    again = connection_ensure(
        owner=owner,
        application=connection.application,
        scopes=["memory:read"],
        resource="http://testserver/mcp",
    )
    assert again.pk != connection.pk and again.token.scopes == ["memory:read"]


def test_revoking_without_javascript_redirects_with_a_message(client: Client, owner: User) -> None:
    token, _secret = token_create(owner=owner, name="Desktop client")
    client.force_login(owner)
    response = client.post(reverse("connectors:revoke", args=[token.pk]), follow=True)
    assert response.redirect_chain[-1][0] == LIST
    assert "Revoked Desktop client." in response.content.decode()


def test_another_users_token_cannot_be_revoked_or_seen(
    client: Client, owner: User, other_user: User
) -> None:
    token, _secret = token_create(owner=owner, name="Desktop client")
    client.force_login(other_user)
    assert client.post(reverse("connectors:revoke", args=[token.pk])).status_code == 404
    assert AccessToken.objects.get(pk=token.pk).revoked_at is None
    client.logout()
    assert client.get(LIST)["Location"].startswith("/login/")
    assert client.get(reverse("connectors:revoke", args=[token.pk])).status_code in (302, 405)


def test_a_new_consent_widens_the_live_connection_instead_of_adding_one(owner: User) -> None:
    connection = make_connection(owner)
    connection.token.scopes = ["memory:read"]
    connection.token.save(update_fields=["scopes"])
    same = connection_ensure(
        owner=owner,
        application=connection.application,
        scopes=["memory:write"],
        resource="http://testserver/mcp",
    )
    assert same.pk == connection.pk
    assert AccessToken.objects.get(pk=connection.token_id).scopes == [
        "memory:read",
        "memory:write",
    ]


def test_the_admin_lists_connections_with_the_tokens(admin_client: Client, owner: User) -> None:
    make_connection(owner)
    tokens = admin_client.get("/admin/memory/accesstoken/").content.decode()
    assert "Hosted assistant" in tokens
    connections = admin_client.get("/admin/connectors/connection/").content.decode()
    assert "Hosted assistant" in connections


def test_a_consent_form_for_an_unknown_client_is_a_clear_400(client: Client, owner: User) -> None:
    # A forged (or stale) form: the page was never shown for this client.
    client.force_login(owner)
    response = client.post(
        "/oauth/authorize/",
        {
            "client_id": "https://nowhere.example/client.json",
            "redirect_uri": "https://nowhere.example/cb",
            "response_type": "code",
            "scope": "memory:read",
            "allow": "Authorize",
            "code_challenge": "x" * 43,
            "code_challenge_method": "S256",
            "resource": "http://testserver/mcp",
        },
    )
    assert response.status_code == 400 and "Location" not in response.headers
    assert b"invalid_client</strong>: this application is not known here" in response.content
