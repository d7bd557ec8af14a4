"""Under UME_HTTPS, /mcp (served by the MCP SDK, not Django) is redirected to HTTPS by the same
rule as /v1/, through the real ASGI router."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import httpx
import pytest
from django.test import override_settings

from tests.servers import DocumentedServer
from ume.https import https_redirect

pytestmark = pytest.mark.django_db(transaction=True)


def scope(scheme: str = "http", **headers: str) -> dict[str, object]:
    return {
        "type": "http",
        "scheme": scheme,
        "path": "/mcp",
        "query_string": b"a=1",
        "server": ("10.0.0.5", 8000),
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


def test_mcp_and_the_api_are_redirected_alike(tmp_path: Path) -> None:
    """The documented server under UME_HTTPS=true: plain HTTP to /mcp and to /v1/ both get the
    301 to HTTPS (Django's SecurityMiddleware for /v1/, ume/https.py for /mcp)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'https.sqlite3'}",
        "SECRET_KEY": uuid.uuid4().hex * 2,
        "DEBUG": "false",
        "UME_HTTPS": "true",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    with DocumentedServer(env, workers=1, log_path=tmp_path / "https.log") as server:
        for method, path in (("POST", "/mcp"), ("GET", "/v1/nodes")):
            response = httpx.request(method, f"{server.url}{path}?x=1", follow_redirects=False)
            assert response.status_code == 301, (path, response.status_code, response.text[:200])
            assert response.headers["location"] == f"https://127.0.0.1:{server.port}{path}?x=1"


@override_settings(SECURE_SSL_REDIRECT=False)
def test_without_https_mcp_is_served(live_asgi_url: str) -> None:
    response = httpx.post(f"{live_asgi_url}/mcp", json={}, follow_redirects=False)
    assert response.status_code == 401


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_SSL_HOST=None)
def test_the_scheme_is_read_as_django_reads_it() -> None:
    assert https_redirect(scope("https")) is None
    assert https_redirect(scope(host="ume.example")) == "https://ume.example/mcp?a=1"
    # a forwarded scheme counts only behind a trusted proxy (UME_BEHIND_PROXY)
    assert https_redirect(scope(host="ume.example", x_forwarded_proto="https")) is not None
    with override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https")):
        assert https_redirect(scope(host="ume.example", x_forwarded_proto="https")) is None
    with override_settings(SECURE_SSL_HOST="secure.example"):
        assert https_redirect(scope(host="ume.example")) == "https://secure.example/mcp?a=1"
