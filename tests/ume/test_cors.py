"""CORS for browser-based MCP clients (the MCP Inspector, a connector in a web page), through
the real ASGI router: preflights to /mcp, registration and the token endpoint are answered for
the allowed origins (UME_MCP_ALLOWED_ORIGINS) and for no other; answers carry the origin and
expose the OAuth challenge."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from memory.services.tokens import token_create
from ume.cors import origin_allowed

pytestmark = pytest.mark.django_db(transaction=True)

INSPECTOR = "http://localhost:6274"  # the MCP Inspector's default origin
ELSEWHERE = "https://evil.example"


def preflight(url: str, origin: str, method: str = "POST") -> httpx.Response:
    return httpx.options(
        url,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )


@pytest.mark.parametrize("path", ["/mcp", "/oauth/register/", "/oauth/token/"])
def test_a_preflight_from_an_allowed_origin_is_answered(live_asgi_url: str, path: str) -> None:
    allowed = preflight(f"{live_asgi_url}{path}", INSPECTOR)
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == INSPECTOR
    assert "POST" in allowed.headers["access-control-allow-methods"]
    assert "authorization" in allowed.headers["access-control-allow-headers"]
    assert "mcp-protocol-version" in allowed.headers["access-control-allow-headers"]
    refused = preflight(f"{live_asgi_url}{path}", ELSEWHERE)
    assert "access-control-allow-origin" not in refused.headers


def test_an_allowed_origin_can_read_the_challenge_then_call_with_a_token(
    live_asgi_url: str, owner: Any
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Origin": INSPECTOR, "Accept": "application/json, text/event-stream"}
    challenged = httpx.post(f"{live_asgi_url}/mcp", json=body, headers=headers)
    assert challenged.status_code == 401
    assert challenged.headers["access-control-allow-origin"] == INSPECTOR
    assert "www-authenticate" in challenged.headers["access-control-expose-headers"]
    secret = token_create(owner=owner, name="inspector")[1]
    served = httpx.post(
        f"{live_asgi_url}/mcp", json=body, headers={**headers, "Authorization": f"Bearer {secret}"}
    )
    assert served.status_code == 200 and "recall_memory" in served.text
    assert served.headers["access-control-allow-origin"] == INSPECTOR
    foreign = httpx.post(
        f"{live_asgi_url}/mcp",
        json=body,
        headers={**headers, "Origin": ELSEWHERE, "Authorization": f"Bearer {secret}"},
    )
    assert "access-control-allow-origin" not in foreign.headers


def test_a_browser_client_can_register(live_asgi_url: str) -> None:
    registered = httpx.post(
        f"{live_asgi_url}/oauth/register/",
        json={
            "client_name": "Inspector",
            "redirect_uris": ["http://localhost:6274/oauth/callback"],
            "token_endpoint_auth_method": "none",
        },
        headers={"Origin": INSPECTOR},
    )
    assert registered.status_code == 201, registered.text
    assert registered.headers["access-control-allow-origin"] == INSPECTOR


def test_pages_get_no_cors_headers(live_asgi_url: str) -> None:
    assert (
        "access-control-allow-origin" not in preflight(f"{live_asgi_url}/mcpx", INSPECTOR).headers
    )
    page = httpx.get(f"{live_asgi_url}/login/", headers={"Origin": INSPECTOR})
    assert "access-control-allow-origin" not in page.headers
    assert (
        preflight(f"{live_asgi_url}/v1/nodes", INSPECTOR).headers.get("access-control-allow-origin")
        is None
    )


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ("http://localhost:6274", True),
        ("http://127.0.0.1:3000", True),
        ("http://localhost", False),
        ("http://localhost:6274.evil.example", False),
        ("http://localhost.evil.example:80", False),
        ("https://localhost:6274", False),
        ("null", False),
        ("", False),
    ],
)
def test_origins_are_matched_as_the_mcp_sdk_matches_them(origin: str, expected: bool) -> None:
    allowed = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    assert origin_allowed(origin, allowed) is expected
