"""A live ume (the ASGI router under uvicorn) and a signed-in person's browser session."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from django.test import Client


@pytest.fixture
def base_url(live_asgi_url: str) -> str:
    return live_asgi_url


def session_cookies(user: Any) -> dict[str, str]:
    """The cookies of a browser in which ``user`` has signed in."""
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


def consent(url: str, cookies: dict[str, str], *, allow: bool | str = True) -> httpx.Response:
    """Open the consent page at ``url`` as that browser and press Approve (or Deny; a string
    is the value of the approve button pressed, such as "read-only")."""
    import html

    with httpx.Client(cookies=cookies, follow_redirects=False, timeout=30) as browser:
        page = browser.get(url)
        assert page.status_code == 200, (page.status_code, page.text[:500])
        fields = {name: html.unescape(value) for name, value in _HIDDEN.findall(page.text)}
        assert "csrfmiddlewaretoken" in fields, page.text[:2000]
        if allow:
            fields["allow"] = allow if isinstance(allow, str) else "Authorize"
        return browser.post(url, data=fields, headers={"Referer": url})


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


@dataclass
class Pkce:
    verifier: str
    challenge: str

    @classmethod
    def make(cls) -> Pkce:
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode()).digest()
        return cls(verifier, base64.urlsafe_b64encode(digest).decode().rstrip("="))


def register(base_url: str, redirect_uri: str, name: str = "Test connector") -> dict:
    response = httpx.post(
        f"{base_url}/oauth/register/",
        json={
            "client_name": name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        },
    )
    assert response.status_code == 201, response.text
    return response.json()


def authorize_url(base_url: str, client_id: str, redirect_uri: str, **params: str) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": "st-" + secrets.token_hex(4),
        "scope": "memory:read memory:write",
        **params,
    }
    return f"{base_url}/oauth/authorize/?{urlencode({k: v for k, v in query.items() if v})}"
