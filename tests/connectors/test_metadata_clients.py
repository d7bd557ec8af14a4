"""Clients known by their Client ID Metadata Document, against a live ume and a real local
host serving the document: the consent page fetches, validates and caches it, the client then
connects like a registered one, and every refusal is explained on the page without sending
the browser anywhere."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from datetime import timedelta
from threading import Thread
from urllib.parse import urlsplit

import httpx
import pytest
from django import db
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone
from oauth2_provider.models import get_application_model
from pytest_django import Settings

from connectors.metadata import MAX_DOCUMENT_BYTES, MetadataRefused
from connectors.models import Connection
from connectors.services import MAX_CONCURRENT_FETCHES, metadata_client_resolve
from tests.connectors.conftest import Pkce, authorize_url, consent, query_of, session_cookies
from tests.connectors.document_host import DocumentHost

pytestmark = pytest.mark.django_db(transaction=True)
Application = get_application_model()
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


@pytest.fixture(autouse=True)
def _no_remembered_refusals() -> Iterator[None]:
    """Each test starts with no refusal remembered: the operating system gives a new host a
    port an earlier test's host had, so a refusal remembered for that test's document (its
    client_id is the URL) would answer this one's ("checked less than a minute ago")."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def local(settings: Settings) -> Settings:
    """The test-only setting: documents may come from this machine over plain http."""
    settings.UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA = True
    return settings


@pytest.fixture
def host() -> Iterator[DocumentHost]:
    with DocumentHost() as server:
        yield server


def consent_url(base_url: str, client_id: str, redirect_uri: str, pkce: Pkce | None = None) -> str:
    return authorize_url(
        base_url,
        client_id,
        redirect_uri,
        code_challenge=(pkce or Pkce.make()).challenge,
        code_challenge_method="S256",
    )


def open_page(url: str, owner: User) -> httpx.Response:
    with httpx.Client(cookies=session_cookies(owner), timeout=30) as browser:
        return browser.get(url)


def text(page: httpx.Response) -> str:
    """The page's words, tags taken out (the template puts a line break between blocks)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page.text)).split())


def test_the_server_metadata_says_documents_are_supported(
    base_url: str, settings: Settings
) -> None:
    metadata = f"{base_url}/.well-known/oauth-authorization-server"
    assert httpx.get(metadata).json()["client_id_metadata_document_supported"] is True
    settings.UME_OAUTH_CLIENT_METADATA_DOCUMENTS = False
    assert httpx.get(metadata).json()["client_id_metadata_document_supported"] is False
    # registration stays, whatever the setting
    assert httpx.get(metadata).json()["registration_endpoint"] == f"{base_url}/oauth/register/"


def test_a_document_client_is_fetched_once_approved_and_connects(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document(headers={"Cache-Control": "max-age=600"})
    pkce = Pkce.make()
    url = consent_url(base_url, client_id, host.callback_uri, pkce)
    page = open_page(url, owner)
    assert page.status_code == 200, page.text[:500]
    where = urlsplit(client_id).netloc
    assert "Connect “Document connector” to your memory?" in text(page)
    assert (
        f"“Document connector” is the name in this application's metadata document at {where}: "
        f"whoever runs {where} chose it." in text(page)
    )
    assert "gave itself when it registered" not in page.text
    app = Application.objects.get(client_id=client_id)
    assert (app.registration_source, app.client_type) == ("cimd", "public")
    assert app.redirect_uris == host.callback_uri
    assert app.cimd_expires_at is not None
    kept = app.cimd_expires_at - timezone.now()
    assert timedelta(seconds=590) < kept <= timedelta(seconds=600)  # its max-age

    # Approving sends the code to the document's redirect URI; the public client exchanges it.
    approved = consent(url, session_cookies(owner))
    assert approved.status_code == 302 and approved.headers["Location"].startswith(
        host.callback_uri
    )
    token = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "authorization_code",
            "code": query_of(approved.headers["Location"])["code"],
            "redirect_uri": host.callback_uri,
            "client_id": client_id,
            "code_verifier": pkce.verifier,
        },
    )
    assert token.status_code == 200, token.text
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {token.json()['access_token']}"}
    listed = httpx.post(f"{base_url}/mcp", headers=bearer, json=LIST_TOOLS)
    assert listed.status_code == 200 and "recall_memory" in listed.text
    connection = Connection.objects.for_owner(owner).select_related("token").get()
    assert connection.application_id == app.pk and connection.token.name == "Document connector"
    # the consent page (GET, then the POST) and the token endpoint fetched nothing more
    assert host.hits["/client.json"] == 1


def test_a_stale_document_is_fetched_again(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document()
    url = consent_url(base_url, client_id, host.callback_uri)
    assert open_page(url, owner).status_code == 200
    assert open_page(url, owner).status_code == 200
    assert host.hits["/client.json"] == 1  # kept: no Cache-Control means the longest time
    host.document(client_name="Renamed connector")
    Application.objects.filter(client_id=client_id).update(
        cimd_expires_at=timezone.now() - timedelta(seconds=1)
    )
    page = open_page(url, owner)
    assert host.hits["/client.json"] == 2
    assert "Connect “Renamed connector”" in text(page)
    assert Application.objects.get(client_id=client_id).name == "Renamed connector"


def test_a_document_that_says_no_store_is_kept_the_shortest_time(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document(headers={"Cache-Control": "no-store"})
    assert open_page(consent_url(base_url, client_id, host.callback_uri), owner).status_code == 200
    kept = Application.objects.get(client_id=client_id).cimd_expires_at - timezone.now()
    assert timedelta(seconds=290) < kept <= timedelta(seconds=300)


def serve_bad(host: DocumentHost, case: str) -> str:
    """A document at /bad.json made unusable in one way; returns its URL."""
    if case == "another client_id":
        host.document("/bad.json", client_id=host.url("/other.json"))
    elif case == "bad JSON":
        host.serve("/bad.json", b'{"client_id": ', headers={"Content-Type": "application/json"})
    elif case == "oversized":
        host.document(
            "/bad.json", client_name="x" * 100, software_statement="y" * MAX_DOCUMENT_BYTES
        )
    elif case == "a secret":
        host.document("/bad.json", client_secret="hunter2")
    elif case == "an http redirect URI off loopback":
        host.document("/bad.json", redirect_uris=["http://app.example/callback"])
    elif case == "a redirect":
        host.serve("/bad.json", status=302, headers={"Location": host.url("/bad.json")})
    elif case == "HTML":
        host.serve("/bad.json", b"<p>hello", headers={"Content-Type": "text/html"})
    elif case == "missing":
        pass  # 404
    return host.url("/bad.json")


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("another client_id", "the document's client_id ("),
        ("bad JSON", "it is not valid JSON"),
        ("oversized", "it is larger than 16 KiB"),
        ("a secret", "a metadata document may not contain a client_secret"),
        (
            "an http redirect URI off loopback",
            "redirect URI 'http://app.example/callback': http is allowed on a loopback host only",
        ),
        ("a redirect", "it answered with a redirect (HTTP 302 to "),
        ("HTML", "it was served as 'text/html', not application/json"),
        ("missing", "it answered HTTP 404, not 200"),
    ],
)
def test_an_unusable_document_is_explained_and_nothing_is_made(
    base_url: str, owner: User, local: Settings, host: DocumentHost, case: str, reason: str
) -> None:
    client_id = serve_bad(host, case)
    page = open_page(consent_url(base_url, client_id, host.callback_uri), owner)
    assert page.status_code == 400 and "Location" not in page.headers
    where = urlsplit(client_id).netloc
    assert (
        f"invalid_client: ume could not use this application's metadata document at {where}: "
        f"{reason}" in text(page)
    ), text(page)
    assert "Approve" not in page.text
    assert not Application.objects.filter(client_id=client_id).exists()
    assert host.hits["/bad.json"] == 1


def test_a_refused_document_is_not_fetched_again_for_a_minute(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document(client_id=host.url("/elsewhere.json"))
    url = consent_url(base_url, client_id, host.callback_uri)
    assert open_page(url, owner).status_code == 400
    host.document()  # mended at once
    again = open_page(url, owner)
    assert again.status_code == 400
    assert "(checked less than a minute ago; try again later)" in text(again)
    assert host.hits["/client.json"] == 1


def test_a_slow_host_is_given_up_at_the_timeout(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    local.UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS = 0.5
    url = host.serve("/slow.json", {"client_id": "x"}, delay=5)
    page = open_page(consent_url(base_url, url, host.callback_uri), owner)
    assert page.status_code == 400
    assert "its host did not answer within 0.5 seconds" in text(page)


def test_a_redirect_uri_the_document_does_not_list_is_refused_without_redirecting(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document()
    elsewhere = host.callback_uri.replace("/callback", "/other")
    page = open_page(consent_url(base_url, client_id, elsewhere), owner)
    assert page.status_code == 400 and "Location" not in page.headers
    assert "redirect" in text(page).lower()
    assert host.hits["/other"] == 0


def test_without_the_test_setting_a_local_document_is_never_fetched(
    base_url: str, owner: User, host: DocumentHost
) -> None:
    # Production: an http client_id is no document at all, just an unknown client...
    client_id = host.document()
    page = open_page(consent_url(base_url, client_id, host.callback_uri), owner)
    assert page.status_code == 400 and "Invalid client_id parameter value" in text(page)
    # ...and an https one on this machine is refused by its address, before any request.
    port = host.server.server_address[1]
    loopback = f"https://localhost:{port}/client.json"
    page = open_page(consent_url(base_url, loopback, host.callback_uri), owner)
    assert page.status_code == 400
    assert "an internal address ume never fetches from" in text(page)
    assert sum(host.hits.values()) == 0


@pytest.mark.parametrize(
    "client_id", ["https://10.20.30.40/client.json", "https://[fd00::5]/client.json"]
)
def test_a_private_address_is_refused(
    base_url: str, owner: User, local: Settings, client_id: str
) -> None:
    page = open_page(consent_url(base_url, client_id, "http://127.0.0.1:9/callback"), owner)
    assert page.status_code == 400
    assert "an internal address ume never fetches from" in text(page)


def test_documents_switched_off_make_a_url_an_unknown_client(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    local.UME_OAUTH_CLIENT_METADATA_DOCUMENTS = False
    client_id = host.document()
    page = open_page(consent_url(base_url, client_id, host.callback_uri), owner)
    assert page.status_code == 400 and "Invalid client_id parameter value" in text(page)
    assert host.hits["/client.json"] == 0


def test_the_page_says_when_the_answer_goes_to_another_host(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document(redirect_uris=["https://elsewhere.example/cb"])
    page = open_page(consent_url(base_url, client_id, "https://elsewhere.example/cb"), owner)
    assert page.status_code == 200
    where = urlsplit(client_id).netloc
    assert (
        f"The answer goes to elsewhere.example, not to {where} where the application is "
        "described." in text(page)
    )
    # the loopback callback of the usual document says nothing of the kind
    usual = host.document("/usual.json")
    assert (
        "data-redirect-elsewhere"
        not in open_page(consent_url(base_url, usual, host.callback_uri), owner).text
    )


def test_a_client_the_administrator_made_with_a_url_id_is_not_fetched(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.url("/admin-made.json")
    Application.objects.create(
        client_id=client_id,
        name="Made by hand",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris=host.callback_uri,
    )
    page = open_page(consent_url(base_url, client_id, host.callback_uri), owner)
    assert page.status_code == 200
    assert "“Made by hand” is the name this server's administrator gave the application." in text(
        page
    )
    assert host.hits["/admin-made.json"] == 0


def test_the_connections_page_names_the_documents_host_and_revokes(
    base_url: str, owner: User, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document()
    pkce = Pkce.make()
    approved = consent(
        consent_url(base_url, client_id, host.callback_uri, pkce), session_cookies(owner)
    )
    tokens = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "authorization_code",
            "code": query_of(approved.headers["Location"])["code"],
            "redirect_uri": host.callback_uri,
            "client_id": client_id,
            "code_verifier": pkce.verifier,
        },
    ).json()
    connection = Connection.objects.for_owner(owner).get()
    with httpx.Client(cookies=session_cookies(owner), base_url=base_url) as browser:
        listed = browser.get("/connections/")
        assert f"described at {urlsplit(client_id).netloc}" in text(listed)
        csrf = browser.cookies.get("csrftoken") or ""
        revoked = browser.post(
            f"/connections/{connection.token_id}/revoke/",
            data={"csrfmiddlewaretoken": csrf},
            headers={"Referer": f"{base_url}/connections/"},
        )
        assert revoked.status_code == 302
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['access_token']}"}
    assert httpx.post(f"{base_url}/mcp", headers=bearer, json=LIST_TOOLS).status_code == 401
    refreshed = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": client_id,
        },
    )
    assert refreshed.status_code == 400


def test_a_visitor_who_is_not_signed_in_makes_ume_fetch_nothing(
    base_url: str, local: Settings, host: DocumentHost
) -> None:
    client_id = host.document()
    anonymous = httpx.get(consent_url(base_url, client_id, host.callback_uri))
    assert anonymous.status_code == 302 and "/login/" in anonymous.headers["Location"]
    # nor does the token endpoint, which anyone may call
    token = httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "authorization_code",
            "code": "made-up",
            "redirect_uri": host.callback_uri,
            "client_id": client_id,
            "code_verifier": Pkce.make().verifier,
        },
    )
    assert token.status_code in (400, 401)
    assert host.hits["/client.json"] == 0


def test_at_most_four_documents_are_fetched_at_once(local: Settings, host: DocumentHost) -> None:
    local.UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS = 3.0
    outcomes: list[str] = []

    def resolve(client_id: str) -> None:
        try:
            metadata_client_resolve(client_id=client_id, now=timezone.now())
        except MetadataRefused as refused:
            outcomes.append(str(refused))
        finally:
            db.connection.close()  # this thread's own connection

    slow = [host.serve(f"/slow{i}.json", {"a": 1}, delay=10) for i in range(MAX_CONCURRENT_FETCHES)]
    threads = [Thread(target=resolve, args=(url,)) for url in slow]
    for thread in threads:
        thread.start()
    deadline = timezone.now() + timedelta(seconds=5)
    while sum(host.hits.values()) < MAX_CONCURRENT_FETCHES:  # all four are in flight
        assert timezone.now() < deadline
        time.sleep(0.01)
    one_more = host.document("/fine.json")
    with pytest.raises(MetadataRefused, match="ume is fetching too many documents at once"):
        metadata_client_resolve(client_id=one_more, now=timezone.now())
    assert host.hits["/fine.json"] == 0
    for thread in threads:
        thread.join(timeout=10)
    assert outcomes == ["its host did not answer within 3 seconds"] * MAX_CONCURRENT_FETCHES
    # "busy" is not remembered as a refusal: once a slot is free, the document is fetched
    assert metadata_client_resolve(client_id=one_more, now=timezone.now()).name == (
        "Document connector"
    )
