"""Dynamic client registration (RFC 7591) and its update (RFC 7592): ume's policy on both,
bounded metadata, typed fields, and a per-address limit counted atomically."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_application_model
from pytest_django import Settings

from connectors.registration import (
    MAX_BODY_BYTES,
    MAX_REDIRECT_URIS,
    MAX_UNKNOWN_FIELDS,
    metadata_problem,
)

REDIRECT = "http://127.0.0.1:8977/callback"
GOOD: dict[str, Any] = {
    "client_name": "Test connector",
    "redirect_uris": [REDIRECT],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
}
Application = get_application_model()


def post(client: Client, body: Any, address: str = "192.0.2.1") -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body)
    return client.post(
        "/oauth/register/", data=raw, content_type="application/json", REMOTE_ADDR=address
    )


def refused(response: Any) -> str:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    payload = response.json()
    assert payload["error"] == "invalid_client_metadata"
    return str(payload["error_description"])


# --- the policy, pure -----------------------------------------------------------------------

# Malformed shapes: every one is refused with a reason, none raises.
MALFORMED: list[tuple[Any, str]] = [
    ([], "JSON object"),
    ("text", "JSON object"),
    (None, "JSON object"),
    ({**GOOD, "grant_types": [{"a": 1}]}, "grant_types must be an array of strings"),
    ({**GOOD, "grant_types": "authorization_code"}, "grant_types must be an array"),
    ({**GOOD, "grant_types": [["authorization_code"]]}, "array of strings"),
    ({**GOOD, "grant_types": [None]}, "array of strings"),
    ({**GOOD, "response_types": [1]}, "response_types must be an array of strings"),
    ({**GOOD, "redirect_uris": REDIRECT}, "redirect_uris must be an array"),
    ({**GOOD, "redirect_uris": [{"uri": REDIRECT}]}, "redirect_uris must be an array"),
    ({**GOOD, "redirect_uris": [REDIRECT, 7]}, "redirect_uris must be an array"),
    ({**GOOD, "redirect_uris": []}, "at least one redirect URI"),
    ({k: v for k, v in GOOD.items() if k != "redirect_uris"}, "at least one redirect URI"),
    ({**GOOD, "redirect_uris": ["http://[::1/callback"]}, "not a valid URI"),
    ({**GOOD, "redirect_uris": ["https:///no-host"]}, "https, or http on a loopback host"),
    ({**GOOD, "redirect_uris": ["myapp://callback"]}, "https, or http on a loopback host"),
    ({**GOOD, "redirect_uris": ["https://a.example/cb#frag"]}, "fragment"),
    ({**GOOD, "client_name": {"en": "x"}}, "client_name must be a string"),
    ({**GOOD, "client_name": 12}, "client_name must be a string"),
    ({**GOOD, "client_name#fr": ["x"]}, "client_name#fr must be a string"),
    ({**GOOD, "client_name": "n" * 201}, "client_name is longer than 200"),
    ({**GOOD, "logo_uri": "https://a.example/" + "l" * 2000}, "logo_uri is longer than 2000"),
    ({**GOOD, "contacts": "me@example.org"}, "contacts must be an array"),
    ({**GOOD, "contacts": ["a@example.org"] * 11}, "contacts may list at most 10"),
    ({**GOOD, "token_endpoint_auth_method": ["none"]}, "must be a string"),
    ({**GOOD, "token_endpoint_auth_method": "private_key_jwt"}, "must be one of"),
    ({**GOOD, "jwks": "keys"}, "jwks must be a JSON object"),
    ({**GOOD, "scope": 3}, "scope must be a string"),
    ({**GOOD, "grant_types": ["client_credentials"]}, "only authorization_code"),
    ({**GOOD, "grant_types": ["implicit"]}, "only authorization_code"),
    ({**GOOD, "grant_types": ["refresh_token"]}, "only authorization_code"),
    ({**GOOD, "response_types": ["token"]}, 'only "code"'),
    ({**GOOD, "redirect_uris": ["http://assistant.example/cb"]}, "loopback host only"),
    (
        {**GOOD, "redirect_uris": [f"https://a.example/{i}" for i in range(MAX_REDIRECT_URIS + 1)]},
        f"at most {MAX_REDIRECT_URIS}",
    ),
    (
        {**GOOD, "redirect_uris": ["https://a.example/" + "p" * 2000]},
        "longer than 2000 characters",
    ),
    (
        {**GOOD, **{f"x_{i}": i for i in range(MAX_UNKNOWN_FIELDS + 1)}},
        f"at most {MAX_UNKNOWN_FIELDS} fields",
    ),
    ({**GOOD, "x" * 101: 1}, "field name is longer"),
]


@pytest.mark.parametrize(("metadata", "reason"), MALFORMED)
def test_malformed_metadata_is_refused_with_its_reason(metadata: Any, reason: str) -> None:
    problem = metadata_problem(metadata)
    assert problem is not None and reason in problem


@pytest.mark.parametrize(
    "metadata",
    [
        GOOD,
        {"redirect_uris": ["https://assistant.example/callback"]},
        {**GOOD, "client_name#fr": "Connecteur", "jwks": {"keys": []}, "x_vendor": [1, {"a": 2}]},
        {**GOOD, "redirect_uris": [f"https://a.example/{i}" for i in range(MAX_REDIRECT_URIS)]},
        {**GOOD, "client_id": "echoed on an update", "registration_access_token": "x"},
    ],
)
def test_well_formed_metadata_is_accepted(metadata: dict[str, Any]) -> None:
    assert metadata_problem(metadata) is None


def test_loopback_http_only_where_the_server_allows_it() -> None:
    refusal = metadata_problem(GOOD, loopback_redirects=False)
    assert refusal is not None and "UME_OAUTH_LOOPBACK_REDIRECTS=true" in refusal
    assert metadata_problem(GOOD, loopback_redirects=True) is None


# --- POST /oauth/register/ ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_dict_in_grant_types_is_a_400_not_a_500() -> None:
    response = post(Client(), {**GOOD, "grant_types": [{"a": 1}]})
    assert "grant_types must be an array of strings" in refused(response)
    assert not Application.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("metadata", "reason"), MALFORMED)
def test_the_endpoint_refuses_every_malformed_shape_and_stores_nothing(
    metadata: Any, reason: str
) -> None:
    assert reason in refused(post(Client(), metadata))
    assert not Application.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", [b"{not json", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000, b"", b"null"]
)
def test_a_body_that_is_not_a_json_object_is_refused(body: bytes) -> None:
    refused(post(Client(), body))
    assert not Application.objects.exists()


@pytest.mark.django_db
def test_a_body_over_the_cap_is_refused_before_it_is_read_as_metadata() -> None:
    padding = "p" * MAX_BODY_BYTES
    response = post(Client(), {**GOOD, "software_statement": padding})
    assert f"at most {MAX_BODY_BYTES} bytes" in refused(response)
    assert not Application.objects.exists()


@pytest.mark.django_db
def test_what_is_stored_is_bounded() -> None:
    largest = {
        **GOOD,
        "client_name": "n" * 200,
        "redirect_uris": [f"https://a.example/{i}/" + "p" * 1400 for i in range(10)],
    }
    assert post(Client(), largest).status_code == 201
    app = Application.objects.get()
    assert len(app.redirect_uris) < MAX_BODY_BYTES and len(app.name) == 200
    assert post(Client(), {**largest, "x": "p" * 2000}).status_code == 400


@pytest.mark.django_db
def test_registrations_are_limited_per_address(settings: Settings) -> None:
    settings.UME_OAUTH_REGISTRATIONS_PER_HOUR = 2
    client = Client()
    assert [post(client, GOOD).status_code for _ in range(2)] == [201, 201]
    third = post(client, GOOD)
    assert third.status_code == 429
    assert third.json()["error"] == "too_many_requests"
    assert "from this address" in third.json()["error_description"]
    assert 1 <= int(third["Retry-After"]) <= 3600
    # a refused attempt is counted too, and stores nothing
    assert post(client, {**GOOD, "grant_types": [{"a": 1}]}).status_code == 429
    assert Application.objects.count() == 2
    # another address has its own allowance
    assert post(client, GOOD, address="198.51.100.7").status_code == 201


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs parallel connections: runs on PostgreSQL (DATABASE_URL=postgres://...)",
)
@pytest.mark.django_db(transaction=True)
def test_parallel_registrations_from_one_address_get_exactly_the_limit(
    settings: Settings,
) -> None:
    settings.UME_OAUTH_REGISTRATIONS_PER_HOUR = 3
    statuses: list[int] = []
    start = threading.Barrier(10, timeout=30)

    def register() -> None:
        try:
            start.wait()
            statuses.append(post(Client(), GOOD).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=register) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(statuses) == [201] * 3 + [429] * 7
    assert Application.objects.count() == 3


# --- PUT /oauth/register/<client_id>/ (RFC 7592) --------------------------------------------


def _update(client: Client, registered: dict[str, Any], metadata: Any) -> Any:
    return client.put(
        f"/oauth/register/{registered['client_id']}/",
        data=json.dumps(metadata),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {registered['registration_access_token']}",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ({**GOOD, "redirect_uris": ["http://elsewhere.example/cb"]}, "loopback host only"),
        ({**GOOD, "grant_types": ["implicit"]}, "only authorization_code"),
        ({**GOOD, "grant_types": ["client_credentials"]}, "only authorization_code"),
        ({**GOOD, "grant_types": [{"a": 1}]}, "array of strings"),
        ({**GOOD, "client_name": "n" * 201}, "longer than 200"),
        ({**GOOD, "software_statement": "p" * MAX_BODY_BYTES}, "bytes"),
    ],
)
def test_an_update_is_held_to_the_registration_policy(metadata: Any, reason: str) -> None:
    client = Client()
    registered = post(client, GOOD).json()
    before = Application.objects.values().get()
    assert reason in refused(_update(client, registered, metadata))
    assert Application.objects.values().get() == before


@pytest.mark.django_db
def test_a_valid_update_is_applied() -> None:
    client = Client()
    registered = post(client, GOOD).json()
    changed = {**GOOD, "client_name": "Renamed", "redirect_uris": ["https://a.example/cb"]}
    response = _update(client, registered, {**changed, "client_id": registered["client_id"]})
    assert response.status_code == 200, response.content
    app = Application.objects.get()
    assert (app.name, app.redirect_uris) == ("Renamed", "https://a.example/cb")
    assert app.authorization_grant_type == "authorization-code"
    assert get_access_token_model().objects.filter(application=app).count() == 1


# --- the answer (RFC 7591 section 3.2.1) ------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_a_confidential_client_gets_its_own_auth_method_and_a_secret_that_never_expires(
    method: str,
) -> None:
    response = post(Client(), {**GOOD, "token_endpoint_auth_method": method})
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["token_endpoint_auth_method"] == method
    assert answer["client_secret"] and answer["client_secret_expires_at"] == 0
    assert response["Cache-Control"] == "no-store" and response["Pragma"] == "no-cache"


@pytest.mark.django_db
def test_the_secret_works_the_way_the_answer_says() -> None:
    """A client_secret_post client sends its secret in the body: the token endpoint takes it
    (a wrong code is invalid_grant, not invalid_client)."""
    client = Client()
    answer = post(client, {**GOOD, "token_endpoint_auth_method": "client_secret_post"}).json()
    base = {"grant_type": "authorization_code", "code": "nope", "redirect_uri": REDIRECT}
    right = client.post(
        "/oauth/token/",
        {**base, "client_id": answer["client_id"], "client_secret": answer["client_secret"]},
    )
    wrong = client.post(
        "/oauth/token/", {**base, "client_id": answer["client_id"], "client_secret": "x"}
    )
    assert right.json()["error"] == "invalid_grant"
    assert wrong.json()["error"] == "invalid_client"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("asked", "echoed"),
    [
        (None, "memory:read memory:write"),
        ("memory:read", "memory:read"),
        ("memory:write memory:read offline_access", "memory:read memory:write"),
        ("openid", "memory:read memory:write"),
    ],
)
def test_the_answer_echoes_the_scopes_the_client_may_ask_for(asked: Any, echoed: str) -> None:
    body = dict(GOOD) if asked is None else {**GOOD, "scope": asked}
    answer = post(Client(), body).json()
    assert answer["scope"] == echoed
    assert answer["token_endpoint_auth_method"] == "none" and "client_secret" not in answer


@pytest.mark.django_db
def test_reading_and_updating_a_registration_are_never_cached() -> None:
    client = Client()
    registered = post(client, {**GOOD, "token_endpoint_auth_method": "client_secret_post"}).json()
    read = client.get(
        f"/oauth/register/{registered['client_id']}/",
        HTTP_AUTHORIZATION=f"Bearer {registered['registration_access_token']}",
    )
    assert read.status_code == 200 and read["Cache-Control"] == "no-store"
    assert read.json()["scope"] == "memory:read memory:write"
    updated = _update(
        client,
        registered,
        {**GOOD, "token_endpoint_auth_method": "client_secret_post", "scope": "memory:read"},
    )
    assert updated.status_code == 200 and updated["Cache-Control"] == "no-store"
    assert updated.json()["token_endpoint_auth_method"] == "client_secret_post"
    assert updated.json()["scope"] == "memory:read"
