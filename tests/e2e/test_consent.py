"""The OAuth consent page in real Chromium: Approve and Deny reach the connector's loopback
callback. Django's test client ignores the page's Content-Security-Policy; Chromium enforces
its ``form-action`` on the redirect that follows the form, so only a browser proves the code
arrives."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.connectors.conftest import Pkce, authorize_url
from tests.e2e.conftest import PASSWORD

pytestmark = pytest.mark.browser


class Callback:
    """A connector's loopback redirect URI (RFC 8252): a real HTTP server on an ephemeral port
    that records the query of every request to its callback path (the browser also asks
    it for a favicon)."""

    def __init__(self) -> None:
        received: list[dict[str, str]] = []
        self.received = received

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                url = urlsplit(self.path)
                if url.path == "/callback":
                    received.append({k: v[0] for k, v in parse_qs(url.query).items()})
                # No favicon to fetch: a request still in flight when the test's server stops
                # would be reset, and Chromium reports that as a console error.
                body = (
                    b'<!doctype html><link rel="icon" href="data:,"><title>Connected</title>'
                    b"<p>You can close this tab."
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Callback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def callback() -> Iterator[Callback]:
    with Callback() as server:
        yield server


def open_consent(page: Any, base_url: str, callback: Callback, pkce: Pkce) -> tuple[str, str]:
    """Register a connector, open its authorize URL signed out, sign in on the login page it
    sends to, and land on the consent page. Returns the client id and the state sent."""
    registered = httpx.post(
        f"{base_url}/oauth/register/",
        json={
            "client_name": "Loopback connector",
            "redirect_uris": [callback.uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        },
        timeout=30,
    )
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]
    url = authorize_url(
        base_url,
        client_id,
        callback.uri,
        code_challenge=pkce.challenge,
        code_challenge_method="S256",
    )
    page.goto(url)
    page.wait_for_url("**/login/**")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/oauth/authorize/**")
    assert "Loopback connector" in page.locator("h1").inner_text()
    return client_id, parse_qs(urlsplit(url).query)["state"][0]


def test_approving_sends_the_code_to_the_loopback_callback(
    page: Any, live_server: Any, person: Any, callback: Callback
) -> None:
    pkce = Pkce.make()
    client_id, state = open_consent(page, live_server.url, callback, pkce)
    page.get_by_role("button", name="Approve", exact=True).click()
    page.wait_for_url(callback.uri + "?**", wait_until="load")
    assert page.locator("p").inner_text() == "You can close this tab."
    assert len(callback.received) == 1
    answer = callback.received[0]
    assert answer["state"] == state and answer["iss"] == live_server.url
    assert "error" not in answer
    # the code is real: the connector exchanges it for tokens that open /mcp
    issued = httpx.post(
        f"{live_server.url}/oauth/token/",
        data={
            "grant_type": "authorization_code",
            "code": answer["code"],
            "redirect_uri": callback.uri,
            "client_id": client_id,
            "code_verifier": pkce.verifier,
        },
        timeout=30,
    )
    assert issued.status_code == 200, issued.text
    assert issued.json()["scope"] == "memory:read memory:write"
    assert issued.json()["access_token"] and issued.json()["refresh_token"]


def test_denying_sends_access_denied_to_the_loopback_callback(
    page: Any, live_server: Any, person: Any, callback: Callback
) -> None:
    _client_id, state = open_consent(page, live_server.url, callback, Pkce.make())
    page.get_by_role("button", name="Deny").click()
    page.wait_for_url(callback.uri + "?**", wait_until="load")
    assert len(callback.received) == 1
    answer = callback.received[0]
    assert answer["error"] == "access_denied" and answer["state"] == state
    assert "code" not in answer
