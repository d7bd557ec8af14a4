"""What the authorization server and /mcp refuse: a wrong redirect URI, missing or plain PKCE,
a token for another resource, a replayed code, an expired token; and what they publish."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
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


def test_a_replayed_code_is_refused_and_revokes_the_tokens_of_its_first_use(
    base_url: str, client_id: str, owner: User
) -> None:
    cookies = session_cookies(owner)
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, cookies, pkce)
    first = exchange(base_url, client_id, code, pkce.verifier)
    assert first.status_code == 200
    rotated = refresh(base_url, client_id, first.json()["refresh_token"]).json()
    # another approval of the same client, by another of the person's devices
    other_pkce = Pkce.make()
    other = exchange(
        base_url,
        client_id,
        approve_code(base_url, client_id, cookies, other_pkce),
        other_pkce.verifier,
    ).json()
    assert mcp_status(base_url, rotated["access_token"]) == 200

    again = exchange(base_url, client_id, code, pkce.verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # everything descended from the code's first use is dead, rotations included
    assert mcp_status(base_url, rotated["access_token"]) == 401
    assert refresh(base_url, client_id, rotated["refresh_token"]).json()["error"] == "invalid_grant"
    # what another code issued is not
    assert mcp_status(base_url, other["access_token"]) == 200
    assert refresh(base_url, client_id, other["refresh_token"]).status_code == 200


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
    assert "the name the application gave itself when it registered" in page
    # the answer goes to a program on this machine, and the page says so
    assert "data-loopback" in page and "a program on this computer" in page


def test_the_consent_page_says_nothing_of_loopback_for_a_website(
    base_url: str, owner: User
) -> None:
    website = register(base_url, "https://claude.ai/api/mcp/auth_callback", name="Claude")
    url = authorize_url(
        base_url,
        website["client_id"],
        "https://claude.ai/api/mcp/auth_callback",
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
    )
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        page = browser.get(url).text
    assert "<code>claude.ai</code>" in page
    assert "data-loopback" not in page


def test_the_consent_page_lets_its_form_go_to_this_redirect_uri_only(
    base_url: str, client_id: str, owner: User
) -> None:
    url = authorize_url(
        base_url,
        client_id,
        "http://127.0.0.1:53682/callback",  # a loopback redirect may use any port (RFC 8252)
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
    )
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        page = browser.get(url)
        elsewhere = browser.get(f"{base_url}/connections/")
    assert page.status_code == 200
    directives = dict(
        d.strip().split(" ", 1) for d in page.headers["Content-Security-Policy"].split(";")
    )
    assert directives["form-action"] == "'self' http://127.0.0.1:53682"
    assert directives["frame-ancestors"] == "'none'" and directives["script-src"] == "'self'"
    assert "form-action 'self';" in elsewhere.headers["Content-Security-Policy"]


def test_approval_prompt_auto_does_not_skip_the_consent_page(
    base_url: str, client_id: str, owner: User
) -> None:
    cookies = session_cookies(owner)
    pkce = Pkce.make()
    assert (
        exchange(
            base_url, client_id, approve_code(base_url, client_id, cookies, pkce), pkce.verifier
        ).status_code
        == 200
    )
    url = authorize_url(
        base_url,
        client_id,
        REDIRECT,
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
        approval_prompt="auto",
    )
    with httpx.Client(cookies=cookies) as browser:
        response = browser.get(url)
    assert response.status_code == 200, response.headers.get("Location")
    assert "Approve" in response.text and "Deny" in response.text


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
    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="memory:write"' in challenge
    assert "resource_metadata=" in challenge
    assert response.json()["error"]["data"]["code"] == "insufficient_scope"
    assert response.json()["id"] == 2


def test_approve_read_only_grants_less_than_asked_and_a_later_approval_widens_it(
    base_url: str, client_id: str, owner: User
) -> None:
    cookies = session_cookies(owner)
    pkce = Pkce.make()
    url = authorize_url(
        base_url, client_id, REDIRECT, code_challenge=pkce.challenge, code_challenge_method="S256"
    )
    with httpx.Client(cookies=cookies) as browser:
        page = browser.get(url).text
    assert '<button type="submit" name="allow" value="read-only">Approve read-only</button>' in page
    answer = consent(url, cookies, allow="read-only")
    assert answer.status_code == 302
    issued = exchange(
        base_url, client_id, query_of(answer.headers["Location"])["code"], pkce.verifier
    )
    assert issued.json()["scope"] == "memory:read"
    connection = Connection.objects.for_owner(owner).select_related("token").get()
    assert connection.token.scopes == ["memory:read"]
    # the client asks again for both (a step-up); this time the person approves both
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, cookies, pkce)
    assert exchange(base_url, client_id, code, pkce.verifier).json()["scope"] == (
        "memory:read memory:write"
    )
    connection.token.refresh_from_db()
    assert connection.token.scopes == ["memory:read", "memory:write"]
    assert Connection.objects.for_owner(owner).count() == 1


def test_a_read_only_request_offers_no_read_only_button(
    base_url: str, client_id: str, owner: User
) -> None:
    url = authorize_url(
        base_url,
        client_id,
        REDIRECT,
        code_challenge=Pkce.make().challenge,
        code_challenge_method="S256",
        scope="memory:read",
    )
    with httpx.Client(cookies=session_cookies(owner)) as browser:
        page = browser.get(url).text
    assert "Approve</button>" in page and "Approve read-only" not in page


def test_bearer_tokens_keep_working_beside_oauth(base_url: str, owner: User) -> None:
    _token, secret = token_create(owner=owner, name="desktop")
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {secret}"}
    assert httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code == 200


def refresh(base_url: str, client_id: str, refresh_token: str) -> httpx.Response:
    return httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": client_id,
        },
    )


def mcp_status(base_url: str, access_token: str) -> int:
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {access_token}"}
    return httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code


def revoke_in_the_admin(connection: Connection) -> None:
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", password="pw-root-1"))
    response = admin.post(
        "/admin/memory/accesstoken/",
        {"action": "revoke", "_selected_action": [connection.token_id]},
    )
    assert response.status_code == 302


def revoke_on_the_connections_page(connection: Connection) -> None:
    page = Client()
    page.force_login(connection.owner)
    response = page.post(reverse("connectors:revoke", args=[connection.token_id]))
    assert response.status_code == 302


@pytest.mark.parametrize(
    "revoke", [revoke_in_the_admin, revoke_on_the_connections_page], ids=["admin", "page"]
)
def test_a_revoked_connection_stays_revoked_when_the_client_is_approved_again(
    base_url: str, client_id: str, owner: User, revoke: Any
) -> None:
    cookies = session_cookies(owner)
    pkce = Pkce.make()
    old = exchange(
        base_url, client_id, approve_code(base_url, client_id, cookies, pkce), pkce.verifier
    )
    assert old.status_code == 200, old.text
    old_tokens = old.json()
    revoke(Connection.objects.for_owner(owner).get())
    assert mcp_status(base_url, old_tokens["access_token"]) == 401

    pkce = Pkce.make()
    new = exchange(
        base_url, client_id, approve_code(base_url, client_id, cookies, pkce), pkce.verifier
    )
    assert new.status_code == 200, new.text
    new_tokens = new.json()
    assert Connection.objects.for_owner(owner).count() == 2  # the revoked one, and a new one
    # the new approval works, and revives nothing of the revoked connection
    assert mcp_status(base_url, new_tokens["access_token"]) == 200
    assert mcp_status(base_url, old_tokens["access_token"]) == 401
    stale = refresh(base_url, client_id, old_tokens["refresh_token"])
    assert stale.status_code == 400 and stale.json()["error"] == "invalid_grant"
    rotated = refresh(base_url, client_id, new_tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    assert mcp_status(base_url, rotated.json()["access_token"]) == 200
    assert mcp_status(base_url, old_tokens["access_token"]) == 401


def test_a_refresh_token_of_a_revoked_connection_is_refused(
    base_url: str, client_id: str, owner: User
) -> None:
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    issued = exchange(base_url, client_id, code, pkce.verifier).json()
    revoke_in_the_admin(Connection.objects.for_owner(owner).get())
    assert mcp_status(base_url, issued["access_token"]) == 401
    again = refresh(base_url, client_id, issued["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert Connection.objects.for_owner(owner).count() == 1  # no new connection appeared


def test_a_deactivated_persons_refresh_token_and_code_get_nothing(
    base_url: str, client_id: str, owner: User
) -> None:
    cookies = session_cookies(owner)
    pkce = Pkce.make()
    issued = exchange(
        base_url, client_id, approve_code(base_url, client_id, cookies, pkce), pkce.verifier
    ).json()
    pending = Pkce.make()
    code = approve_code(base_url, client_id, cookies, pending)
    User.objects.filter(pk=owner.pk).update(is_active=False)
    refused = refresh(base_url, client_id, issued["refresh_token"])
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
    exchanged = exchange(base_url, client_id, code, pending.verifier)
    assert exchanged.status_code == 400 and exchanged.json()["error"] == "invalid_grant"
    # back to active, the same refresh token still works: nothing was lost on the way
    User.objects.filter(pk=owner.pk).update(is_active=True)
    assert refresh(base_url, client_id, issued["refresh_token"]).status_code == 200


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
