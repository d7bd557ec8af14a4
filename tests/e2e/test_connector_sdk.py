"""The whole remote-connector flow as an assistant runs it: the official MCP SDK client's OAuth
provider against a live ume, with a person approving on the consent page in real Chromium.

Run twice: once as a client known by its Client ID Metadata Document (served by a local test
host, allowed only by the test setting), once as a client that registers itself (RFC 7591).
Each time the person first approves read-only; the client's first write is answered 403
``insufficient_scope``, the SDK asks again for the larger scope, the person approves in
Chromium again and the same write then succeeds. Finally the person revokes the connection
on the Connections page, in Chromium, and the client's tokens stop working.

The async Playwright API shares the SDK's event loop, in a thread of its own: the session's
sync Playwright (the other browser tests) may own the main thread's loop.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
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
from playwright.async_api import Page, async_playwright
from pydantic import AnyUrl
from pytest_django import Settings

from connectors.models import Connection, Redemption
from memory.models import Receipt
from tests.connectors.document_host import DocumentHost
from tests.e2e.conftest import CHROMIUM_ARGS, PASSWORD, chromium_path

pytestmark = pytest.mark.browser
T = TypeVar("T")
READ_TOOLS = 6  # what a read-only token is listed


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


@dataclass
class Run:
    """What one connector run saw."""

    consents: list[dict[str, str]] = field(default_factory=list)  # per consent page
    tools: list[list[str]] = field(default_factory=list)  # per tools/list
    results: dict[str, Any] = field(default_factory=dict)
    connections_row: str = ""
    console_errors: list[str] = field(default_factory=list)
    storage: Storage = field(default_factory=Storage)


class Person:
    """The person at the browser: signs in when asked, reads the consent page and presses the
    next button of ``choices`` ("Approve read-only", then "Approve")."""

    def __init__(self, page: Page, host: DocumentHost, choices: list[str], run: Run) -> None:
        self.page, self.host, self.choices, self.run = page, host, choices, run

    async def open(self, authorization_url: str) -> None:
        """The SDK's redirect handler: the browser opens the authorization URL."""
        page = self.page
        await page.goto(authorization_url)
        if urlsplit(page.url).path == "/login/":
            await page.get_by_label("Username").fill("ada")
            await page.get_by_label("Password").fill(PASSWORD)
            await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url("**/oauth/authorize/**")
        seen = {
            "title": await page.locator("h1").inner_text(),
            "name_source": await page.locator("[data-name-source]").inner_text(),
            "source": str(
                await page.locator("[data-name-source]").get_attribute("data-name-source")
            ),
            "scopes": await page.locator("ul.scopes").inner_text(),
        }
        self.run.consents.append(seen)
        choice = self.choices[len(self.run.consents) - 1]
        answered = len(self.host.callbacks)
        await page.get_by_role("button", name=choice, exact=True).click()
        await page.wait_for_url(self.host.callback_uri + "?**", wait_until="load")
        assert len(self.host.callbacks) == answered + 1

    async def answer(self) -> AuthorizationCodeResult:
        """The SDK's callback handler: what the loopback callback received."""
        received = self.host.callbacks[-1]
        assert "error" not in received, received
        return AuthorizationCodeResult(
            code=received["code"], state=received.get("state"), iss=received.get("iss")
        )

    async def revoke_on_the_connections_page(self, base_url: str) -> str:
        page = self.page
        await page.goto(f"{base_url}/connections/")
        row = page.locator("tbody tr").first
        text = await row.inner_text()
        page.once("dialog", lambda dialog: dialog.accept())  # hx-confirm
        await row.get_by_role("button", name="Revoke").click()
        await row.locator(".status", has_text="revoked").wait_for()
        return text


def run_apart(work: Callable[[], Awaitable[T]]) -> T:
    """Run ``work`` to completion on an event loop in a thread of its own."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = anyio.run(work)
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout=240)
    assert not thread.is_alive(), "the connector run did not finish"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


def sdk_provider(
    mcp_url: str, host: DocumentHost, person: Person, storage: Storage, document: str | None
) -> OAuthClientProvider:
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="Registered connector",
            redirect_uris=[AnyUrl(host.callback_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=person.open,
        callback_handler=person.answer,
    )
    if document is not None:
        # The SDK's constructor takes only an https URL; this document is on a local
        # https-less test host, which ume accepts only under the test setting. Set after
        # construction, it goes through the SDK's own metadata-document path unchanged (the
        # SDK uses it when the server advertises client_id_metadata_document_supported).
        provider.context.client_metadata_url = document
    return provider


async def connect(base_url: str, host: DocumentHost, document: str | None) -> Run:
    run = Run()
    mcp_url = f"{base_url}/mcp"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        page = await (await browser.new_context()).new_page()
        page.set_default_timeout(15_000)
        page.on(
            "console",
            lambda m: run.console_errors.append(m.text) if m.type == "error" else None,
        )
        page.on("pageerror", lambda error: run.console_errors.append(str(error)))
        person = Person(page, host, ["Approve read-only", "Approve"], run)
        provider = sdk_provider(mcp_url, host, person, run.storage, document)
        http = create_mcp_http_client(auth=provider)
        async with http, Client(streamable_http_client(mcp_url, http_client=http)) as client:
            run.tools.append([tool.name for tool in (await client.list_tools()).tools])
            run.results["read_scope"] = (run.storage.tokens or OAuthToken(access_token="")).scope
            run.results["recall"] = await client.call_tool("recall_memory", {"query": "oboe"})
            # The write: 403 insufficient_scope, the SDK asks again, the person approves.
            run.results["save"] = await client.call_tool(
                "save_memory", {"text": "I started playing the oboe in a community band."}
            )
            run.tools.append([tool.name for tool in (await client.list_tools()).tools])
        run.connections_row = await person.revoke_on_the_connections_page(base_url)
        await browser.close()
    return run


@pytest.fixture
def host() -> Iterator[DocumentHost]:
    with DocumentHost() as server:
        yield server


@pytest.mark.parametrize("kind", ["metadata document", "registration"])
def test_an_sdk_connector_is_approved_read_only_steps_up_and_is_revoked(
    live_asgi_url: str, person: Any, settings: Settings, host: DocumentHost, kind: str
) -> None:
    settings.UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA = True
    document = host.document(client_name="Document connector") if kind != "registration" else None

    run = run_apart(lambda: connect(live_asgi_url, host, document))

    assert run.console_errors == []
    # Two consent pages: the first approved read-only, the step-up approved in full.
    assert len(run.consents) == 2
    where = urlsplit(host.base).netloc
    for seen in run.consents:
        assert "memory:read" in seen["scopes"] and "memory:write" in seen["scopes"]
        if document:
            assert seen["title"] == "Connect “Document connector” to your memory?"
            assert seen["source"] == "document"
            assert seen["name_source"] == (
                f"“Document connector” is the name in this application's metadata document "
                f"at {where}: whoever runs {where} chose it."
            )
        else:
            assert seen["title"] == "Connect “Registered connector” to your memory?"
            assert seen["source"] == "registered"
            assert "the name the application gave itself when it registered" in seen["name_source"]
    # The read-only token: only the read tools are listed, and reads work.
    assert run.results["read_scope"] == "memory:read"
    assert len(run.tools[0]) == READ_TOOLS and "save_memory" not in run.tools[0]
    assert not run.results["recall"].is_error
    # After the step-up the same write succeeded, and every tool is listed.
    assert not run.results["save"].is_error, run.results["save"]
    assert "save_memory" in run.tools[1] and len(run.tools[1]) > READ_TOOLS
    assert run.storage.tokens is not None and run.storage.tokens.scope is not None
    assert set(run.storage.tokens.scope.split()) == {"memory:read", "memory:write"}

    connection = Connection.objects.for_owner(person).select_related("token", "application").get()
    client = connection.application
    if document:
        assert client.client_id == document and client.registration_source == "cimd"
        assert host.hits["/client.json"] == 1  # fetched once, kept for the second consent
        assert f"described at {where}" in run.connections_row
    else:
        assert client.registration_source == "dcr" and client.name == "Registered connector"
        assert host.hits["/client.json"] == 0
    # Both approvals are one connection, widened by the second; the save was made by it.
    assert Redemption.objects.filter(connection=connection).count() == 2
    assert connection.token.scopes == ["memory:read", "memory:write"]
    assert Receipt.objects.for_owner(person).filter(token=connection.token).exists()
    # Revoked in Chromium: the client's latest tokens no longer work.
    assert connection.token.revoked_at is not None
    tokens = run.storage.tokens
    refused = httpx.post(
        f"{live_asgi_url}/mcp",
        headers={
            "Authorization": f"Bearer {tokens.access_token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
    )
    assert refused.status_code == 401
    refresh = httpx.post(
        f"{live_asgi_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": tokens.refresh_token or "",
            "client_id": client.client_id,
        },
    )
    assert refresh.status_code == 400
