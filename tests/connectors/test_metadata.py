"""The pure policy for Client ID Metadata Documents: plain tables, no database, no network."""

from __future__ import annotations

from typing import Any

import pytest

from connectors.metadata import (
    MAX_CACHE_SECONDS,
    MIN_CACHE_SECONDS,
    address_problem,
    cache_seconds,
    client_id_url_problem,
    content_type_problem,
    document_problem,
    is_metadata_url,
)

URL = "https://app.example/oauth/client.json"


@pytest.mark.parametrize(
    ("client_id", "local", "expected"),
    [
        (URL, False, True),
        ("HTTPS://app.example/c", False, True),
        ("http://127.0.0.1:8000/c.json", False, False),
        ("http://127.0.0.1:8000/c.json", True, True),
        ("a1b2c3d4", False, False),
        ("", True, False),
    ],
)
def test_which_client_ids_name_a_document(client_id: str, local: bool, expected: bool) -> None:
    assert is_metadata_url(client_id, local=local) is expected


@pytest.mark.parametrize(
    ("url", "local", "problem"),
    [
        (URL, False, None),
        ("https://app.example:8443/c.json?v=2", False, None),
        ("http://app.example/c.json", False, "a client_id URL must use https"),
        ("http://127.0.0.1:9/c.json", False, "a client_id URL must use https"),
        ("http://127.0.0.1:9/c.json", True, None),
        ("http://localhost:9/c.json", True, None),
        ("http://[::1]:9/c.json", True, None),
        (
            "http://app.example/c.json",
            True,
            "http is allowed for a client_id URL only on this machine's loopback address",
        ),
        ("ftp://app.example/c.json", True, "a client_id URL must use https"),
        ("https:///c.json", False, "a client_id URL must name a host"),
        ("https://user:pw@app.example/c.json", False, "a client_id URL may not contain a user"),
        ("https://app.example/c.json#me", False, "a client_id URL may not contain a fragment"),
        ("https://app.example/c.json#", False, "a client_id URL may not contain a fragment"),
        ("https://app.example", False, "a client_id URL must have a path"),
        ("https://app.example/", False, "a client_id URL must have a path"),
        ("https://app.example/a/../c.json", False, "a client_id URL may not contain . or .."),
        ("https://app.example/./c.json", False, "a client_id URL may not contain . or .."),
        ("https://app.example:99999/c.json", False, "the client_id is not a valid URL"),
        ("https://app.example/c json", False, "a client_id URL may not contain spaces"),
        ("https://app.example/" + "a" * 300, False, "a client_id URL may be at most 255"),
    ],
)
def test_client_id_urls(url: str, local: bool, problem: str | None) -> None:
    found = client_id_url_problem(url, local=local)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found


@pytest.mark.parametrize(
    ("address", "local", "allowed"),
    [
        ("93.184.215.14", False, True),
        ("2606:4700::1111", False, True),
        ("127.0.0.1", False, False),
        ("127.0.0.1", True, True),
        ("::1", False, False),
        ("::1", True, True),
        ("10.0.0.1", True, False),
        ("172.16.5.4", False, False),
        ("192.168.1.1", False, False),
        ("169.254.169.254", True, False),  # cloud metadata
        ("100.64.0.1", False, False),  # carrier-grade NAT
        ("0.0.0.0", True, False),
        ("224.0.0.1", False, False),
        ("fe80::1", True, False),
        ("ff02::1", False, False),  # multicast
        ("fd12:3456::1", False, False),
        ("::ffff:10.0.0.1", False, False),  # IPv4-mapped
        ("::ffff:93.184.215.14", False, True),
        ("::ffff:127.0.0.1", True, True),
        ("2002:0a00:0001::1", False, False),  # 6to4 around 10.0.0.1
        ("64:ff9b::a9fe:a9fe", False, False),  # NAT64 around 169.254.169.254
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", False, False),  # Teredo, client 10.0.0.1
        ("not-an-ip", True, False),
    ],
)
def test_addresses(address: str, local: bool, allowed: bool) -> None:
    assert (address_problem(address, local=local) is None) is allowed


def document(**fields: Any) -> dict[str, Any]:
    base = {
        "client_id": URL,
        "client_name": "Example",
        "redirect_uris": ["https://app.example/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


@pytest.mark.parametrize(
    ("data", "loopback", "problem"),
    [
        (document(), False, None),
        (document(token_endpoint_auth_method=None, grant_types=None), False, None),
        (document(redirect_uris=["http://127.0.0.1:7/cb"]), True, None),
        ([], False, "the document must be a JSON object"),
        ("text", False, "the document must be a JSON object"),
        (document(client_id=None), False, "the document has no client_id"),
        (
            document(client_id="https://app.example/other.json"),
            False,
            "the document's client_id ('https://app.example/other.json') is not the URL",
        ),
        (
            document(client_id=URL + "/"),
            False,
            "the document's client_id",
        ),
        (document(client_secret="s3cret"), False, "a metadata document may not contain a"),
        (document(client_secret_expires_at=0), False, "a metadata document may not contain a"),
        (
            document(token_endpoint_auth_method="client_secret_basic"),
            False,
            "token_endpoint_auth_method 'client_secret_basic': a client known by its metadata",
        ),
        (
            document(token_endpoint_auth_method="private_key_jwt"),
            False,
            "token_endpoint_auth_method 'private_key_jwt'",
        ),
        # the rules of a registration, applied to the document
        (document(redirect_uris=None), False, "redirect_uris must list at least one"),
        (document(redirect_uris=[]), False, "redirect_uris must list at least one"),
        (
            document(redirect_uris=["http://evil.example/cb"]),
            True,
            "redirect URI 'http://evil.example/cb': http is allowed on a loopback host only",
        ),
        (
            document(redirect_uris=["http://127.0.0.1:7/cb"]),
            False,
            "redirect URI 'http://127.0.0.1:7/cb': this server accepts only https redirects",
        ),
        (document(grant_types=["client_credentials"]), False, "grant_types: only"),
        (document(response_types=["token"]), False, 'response_types: only "code"'),
        (document(client_name=["a"]), False, "client_name must be a string"),
        (document(client_name="x" * 201), False, "client_name is longer than 200"),
    ],
)
def test_documents(data: Any, loopback: bool, problem: str | None) -> None:
    found = document_problem(data, client_id=URL, loopback_redirects=loopback)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, MAX_CACHE_SECONDS),
        ("", MAX_CACHE_SECONDS),
        ("max-age=3600", 3600),
        ("public, max-age=7200, must-revalidate", 7200),
        ('max-age="900"', 900),
        ("max-age=5", MIN_CACHE_SECONDS),
        ("max-age=99999999", MAX_CACHE_SECONDS),
        ("no-store", MIN_CACHE_SECONDS),
        ("max-age=3600, no-cache", MIN_CACHE_SECONDS),
        ("max-age=abc", MAX_CACHE_SECONDS),
        ("s-maxage=60", MAX_CACHE_SECONDS),
    ],
)
def test_how_long_a_document_is_kept(header: str | None, seconds: int) -> None:
    assert cache_seconds(header) == seconds


@pytest.mark.parametrize(
    ("content_type", "ok"),
    [
        ("application/json", True),
        ("Application/JSON; charset=utf-8", True),
        ("application/oauth-client+json", True),
        ("text/json", False),
        ("text/html", False),
        (None, False),
    ],
)
def test_content_types(content_type: str | None, ok: bool) -> None:
    assert (content_type_problem(content_type) is None) is ok
