"""The whole connector flow, driven by the official MCP SDK client's OAuth support against a
live server: discovery, registration, consent by a signed-in person, token, tool call,
refresh, revocation."""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
import pytest
from django.contrib.auth.models import User
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp_types import CallToolResult
from oauth2_provider.models import get_access_token_model
from pydantic import AnyUrl

from connectors.models import Connection
from memory.models import Candidate, Node, Receipt
from tests.connectors.conftest import consent, query_of, session_cookies

pytestmark = pytest.mark.django_db(transaction=True)
REDIRECT = "http://127.0.0.1:8976/callback"


class Storage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def test_the_sdk_client_connects_calls_refreshes_and_is_revoked(base_url: str, owner: User) -> None:
    mcp_url = f"{base_url}/mcp"
    cookies = session_cookies(owner)
    storage = Storage()
    provider, seen = _sdk_connector(mcp_url, cookies, storage)

    async def session() -> tuple[OAuthToken | None, tuple[CallToolResult, CallToolResult]]:
        http = create_mcp_http_client(auth=provider)
        async with http, Client(streamable_http_client(mcp_url, http_client=http)) as client:
            saved = await client.call_tool(
                "save_memory", {"text": "I started learning the bassoon last month."}
            )
            # An hour later, say: the access token has expired, the client refreshes it.
            first = storage.tokens
            provider.context.token_expiry_time = time.time() - 1
            recalled = await client.call_tool("recall_memory", {"query": "bassoon"})
            return first, (saved, recalled)

    first, (saved, recalled) = anyio.run(session)
    assert not saved.is_error and not recalled.is_error
    assert seen["authorizations"] == 1
    # discovery found our metadata, registration named the client, consent bound the scopes
    connection = Connection.objects.for_owner(owner).select_related("token", "application").get()
    assert connection.application.name == "Test connector"
    assert connection.resource == mcp_url
    assert connection.token.scopes == ["memory:read", "memory:write"]
    receipt = Receipt.objects.for_owner(owner).get(source="mcp")
    assert receipt.token_id == connection.token_id
    assert Candidate.objects.for_owner(owner).exists() or Node.objects.for_owner(owner).exists()
    # the refresh rotated both tokens
    second = storage.tokens
    assert first is not None and second is not None and storage.client is not None
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token
    replay = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": first.refresh_token,
            "client_id": storage.client.client_id,
        },
    )
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"

    # The connection is on the dashboard with the tokens; revoking it there ends it at once.
    _revoke_on_the_dashboard(base_url, cookies, connection.token_id)
    _assert_refused_after_revocation(base_url, storage, owner)


def _sdk_connector(
    mcp_url: str, cookies: Any, storage: Storage
) -> tuple[OAuthClientProvider, dict[str, Any]]:
    """The SDK's OAuth client provider, with the person's browser approving on the consent
    page; ``seen`` counts the authorizations."""
    seen: dict[str, Any] = {"authorizations": 0}

    async def redirect_handler(url: str) -> None:
        seen["url"] = url
        seen["authorizations"] = int(seen["authorizations"]) + 1

    async def callback_handler() -> AuthorizationCodeResult:
        # The person's browser: the consent page, then Approve.
        approved = await anyio.to_thread.run_sync(consent, str(seen["url"]), cookies)
        assert approved.status_code == 302, approved.text[:500]
        assert approved.headers["Location"].startswith(REDIRECT)
        params = query_of(approved.headers["Location"])
        return AuthorizationCodeResult(
            code=params["code"], state=params.get("state"), iss=params.get("iss")
        )

    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="Test connector",
            redirect_uris=[AnyUrl(REDIRECT)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    return provider, seen


def _revoke_on_the_dashboard(base_url: str, cookies: Any, token_id: int) -> None:
    with httpx.Client(cookies=cookies, base_url=base_url) as browser:
        page = browser.get("/connections/")
        assert "Test connector" in page.text and "OAuth connector" in page.text
        csrf = browser.cookies.get("csrftoken") or ""
        if not csrf:
            browser.get("/connections/")
            csrf = browser.cookies.get("csrftoken") or ""
        revoked = browser.post(
            f"/connections/{token_id}/revoke/",
            data={"csrfmiddlewaretoken": csrf},
            headers={"Referer": f"{base_url}/connections/", "HX-Request": "true"},
        )
        assert revoked.status_code == 200, revoked.text[:300]
        assert "revoked" in revoked.text


def _assert_refused_after_revocation(base_url: str, storage: Storage, owner: User) -> None:
    """Neither the access token nor the refresh token the client holds works any more."""
    mcp_url = f"{base_url}/mcp"
    still = storage.tokens  # the latest tokens (after the refresh)
    assert still is not None and storage.client is not None
    # (the session above may have refreshed again; use what the client holds now)
    call = httpx.post(
        mcp_url,
        headers={
            "Authorization": f"Bearer {still.access_token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
    )
    assert call.status_code == 401
    assert "resource_metadata=" in call.headers["WWW-Authenticate"]
    refresh = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": still.refresh_token,
            "client_id": storage.client.client_id,
        },
    )
    assert refresh.status_code == 400
    assert not get_access_token_model().objects.filter(user=owner).exists()
