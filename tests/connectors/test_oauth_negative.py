"""What the authorization server and /mcp refuse: a wrong redirect URI, missing or plain PKCE,
a token for another resource, a replayed code, an expired token; and what they publish."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from oauth2_provider.models import get_access_token_model
from pytest_django import Settings

from connectors.models import Connection
from memory.services.tokens import token_create
from tests.connectors.conftest import (
    Pkce,
    authorize_url,
    consent,
    query_of,
    register,
    session_cookies,
)

pytestmark = pytest.mark.django_db(transaction=True)
REDIRECT = "http://127.0.0.1:8977/callback"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def approve_code(base_url: str, client_id: str, cookies: dict, pkce: Pkce, **params: str) -> str:
    url = authorize_url(
        base_url,
        client_id,
        REDIRECT,
        code_challenge=pkce.challenge,
        code_challenge_method="S256",
        **params,
    )
    response = consent(url, cookies)
    assert response.status_code == 302, response.text[:300]
    return query_of(response.headers["Location"])["code"]


def exchange(base_url: str, client_id: str, code: str, verifier: str, **extra: str) -> Any:
    return httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": client_id,
            "code_verifier": verifier,
            **extra,
        },
    )


@pytest.fixture
def client_id(base_url: str) -> str:
    return register(base_url, REDIRECT)["client_id"]


def test_discovery_documents_and_the_401_challenge(base_url: str) -> None:
    unauthenticated = httpx.post(f"{base_url}/mcp", headers=MCP_HEADERS, json=LIST_TOOLS)
    assert unauthenticated.status_code == 401
    challenge = unauthenticated.headers["WWW-Authenticate"]
    prm_url = f"{base_url}/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith("Bearer ") and f'resource_metadata="{prm_url}"' in challenge
    for url in (prm_url, f"{base_url}/.well-known/oauth-protected-resource"):
        prm = httpx.get(url).json()
        assert prm["resource"] == f"{base_url}/mcp"
        assert prm["authorization_servers"] == [base_url]
        assert prm["scopes_supported"] == ["memory:read", "memory:write"]
    asm = httpx.get(f"{base_url}/.well-known/oauth-authorization-server").json()
    assert asm["issuer"] == base_url
    assert asm["authorization_endpoint"] == f"{base_url}/oauth/authorize/"
    assert asm["token_endpoint"] == f"{base_url}/oauth/token/"
    assert asm["registration_endpoint"] == f"{base_url}/oauth/register/"
    assert asm["code_challenge_methods_supported"] == ["S256"]
    assert asm["response_types_supported"] == ["code"]
    assert set(asm["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert asm["authorization_response_iss_parameter_supported"] is True


def test_a_wrong_redirect_uri_is_refused_without_redirecting(
    base_url: str, client_id: str, owner: User
) -> None:
    url = authorize_url(
        base_url,
        client_id,
        "http://127.0.0.1:8977/elsewhere",
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
    )
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        response = browser.get(url)
    assert response.status_code == 400
    assert "Location" not in response.headers
    assert "redirect" in response.text.lower()


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({}, "invalid_request"),  # no PKCE at all
        ({"code_challenge": "x" * 43, "code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": Pkce.make().challenge}, "invalid_request"),  # method defaults to plain
    ],
    ids=["missing", "plain", "plain-by-default"],
)
def test_pkce_is_required_and_only_s256(
    base_url: str, client_id: str, owner: User, params: Any, error: Any
) -> None:
    url = authorize_url(base_url, client_id, REDIRECT, **params)
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        response = browser.get(url)
    assert response.status_code == 302, response.text[:300]
    location = response.headers["Location"]
    assert location.startswith(REDIRECT)
    assert query_of(location)["error"] == error
    assert "code" not in query_of(location)


def test_a_grant_for_another_resource_is_refused(
    base_url: str, client_id: str, owner: User
) -> None:
    url = authorize_url(
        base_url,
        client_id,
        REDIRECT,
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
        resource="https://elsewhere.example/mcp",
    )
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        response = browser.get(url)
    assert response.status_code == 302
    assert query_of(response.headers["Location"])["error"] == "invalid_target"


def test_a_token_request_for_another_resource_is_refused(
    base_url: str, client_id: str, owner: User
) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    response = exchange(
        base_url, client_id, code, pkce.verifier, resource="https://elsewhere.example/mcp"
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"


def test_a_token_is_only_good_for_the_resource_it_was_issued_for(
    base_url: str, client_id: str, owner: User
) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    issued = exchange(base_url, client_id, code, pkce.verifier)
    assert issued.status_code == 200, issued.text
    token = issued.json()["access_token"]
    assert issued.json()["expires_in"] <= 3600
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    here = httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS)
    assert here.status_code == 200, here.text
    # The same server under another name is another resource: the token is not for it.
    other_name = base_url.replace("127.0.0.1", "localhost")
    there = httpx.post(f"{other_name}/mcp", headers=auth, json=LIST_TOOLS)
    assert there.status_code == 401


def test_a_replayed_code_is_refused(base_url: str, client_id: str, owner: User) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    assert exchange(base_url, client_id, code, pkce.verifier).status_code == 200
    again = exchange(base_url, client_id, code, pkce.verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_a_wrong_code_verifier_is_refused(base_url: str, client_id: str, owner: User) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    wrong = exchange(base_url, client_id, code, Pkce.make().verifier)
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"


def test_an_expired_token_is_refused(base_url: str, client_id: str, owner: User) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    token = exchange(base_url, client_id, code, pkce.verifier).json()["access_token"]
    get_access_token_model().objects.filter(user=owner).update(
        expires=timezone.now() - timedelta(seconds=1)
    )
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    assert httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code == 401


def test_denying_consent_sends_the_client_away_with_nothing(
    base_url: str, client_id: str, owner: User
) -> None:
    url = authorize_url(
        base_url,
        client_id,
        REDIRECT,
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
    )
    response = consent(url, session_cookies(owner), allow=False)
    assert response.status_code == 302
    params = query_of(response.headers["Location"])
    assert params["error"] == "access_denied" and "code" not in params
    assert not Connection.objects.exists()


def test_the_consent_page_needs_a_signed_in_person_and_names_client_and_scopes(
    base_url: str, client_id: str, owner: User
) -> None:
    url = authorize_url(
        base_url,
        client_id,
        REDIRECT,
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
    )
    anonymous = httpx.get(url)
    assert anonymous.status_code == 302 and "/login/" in anonymous.headers["Location"]
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        page = browser.get(url).text
    assert "Test connector" in page
    assert "memory:read" in page and "memory:write" in page
    assert "Approve" in page and "Deny" in page


def test_registration_refuses_other_grants_and_plain_http_off_loopback(base_url: str) -> None:
    def post(metadata: dict) -> httpx.Response:
        return httpx.post(f"{base_url}/oauth/register/", json=metadata)

    grants = post({"redirect_uris": [REDIRECT], "grant_types": ["client_credentials"]})
    assert grants.status_code == 400 and grants.json()["error"] == "invalid_client_metadata"
    http = post({"redirect_uris": ["http://assistant.example/callback"]})
    assert http.status_code == 400 and "loopback" in http.json()["error_description"]
    https = post(
        {
            "redirect_uris": ["https://assistant.example/callback"],
            "token_endpoint_auth_method": "none",
            "client_name": "Hosted assistant",
        }
    )
    assert https.status_code == 201


def test_read_only_consent_gives_a_token_that_cannot_write(
    base_url: str, client_id: str, owner: User
) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce, scope="memory:read")
    token = exchange(base_url, client_id, code, pkce.verifier).json()["access_token"]
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "save_memory", "arguments": {"text": "I moved to Porto."}},
    }
    response = httpx.post(f"{base_url}/mcp", headers=auth, json=call)
    assert response.status_code == 200
    assert "insufficient_scope" in response.text


def test_bearer_tokens_keep_working_beside_oauth(base_url: str, owner: User) -> None:
    _token, secret = token_create(owner=owner, name="desktop")
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {secret}"}
    assert httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code == 200


def test_a_connection_revoked_in_the_admin_can_neither_call_nor_refresh(
    base_url: str, client_id: str, owner: User
) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    issued = exchange(base_url, client_id, code, pkce.verifier).json()
    connection = Connection.objects.get(owner=owner)
    # what the admin's "Revoke the selected tokens" action does
    type(connection.token).objects.filter(pk=connection.token_id).update(revoked_at=timezone.now())
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {issued['access_token']}"}
    assert httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code == 401
    refresh = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": issued["refresh_token"],
            "client_id": client_id,
        },
    )
    assert refresh.status_code == 400 and refresh.json()["error"] == "invalid_grant"
    assert Connection.objects.for_owner(owner).count() == 1  # no new connection appeared


def test_oauth_calls_are_not_counted_as_bad_token_guesses(
    base_url: str, client_id: str, owner: User, settings: Settings
) -> None:
    settings.UME_BAD_TOKENS_PER_ADDRESS = 2
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    token = exchange(base_url, client_id, code, pkce.verifier).json()["access_token"]
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    statuses = [
        httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code for _ in range(4)
    ]
    assert statuses == [200] * 4
