"""``python -m eval.oauth_bench``: what the OAuth endpoints cost a connector, per call.

Registers confidential clients (``client_secret_post``) and public ones, takes each through the
real consent (a signed-in person approves) and the token endpoint, then refreshes its tokens
over and over, all through Django's handlers in this process (no network), and prints p50 and
p95 per step in milliseconds. Asserts nothing. Runs against the configured database
(``DATABASE_URL``; SQLite in the project folder by default), which it migrates first, over
HTTPS as a deployment serves them; the
person and the clients it creates are deleted afterwards, also when it fails.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import json
import math
import os
import re
import secrets
import statistics
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

REDIRECT = "https://connector.example/callback"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


def _timed(samples: list[float], call: Any, *args: Any, **kwargs: Any) -> Any:
    started = time.perf_counter()
    result = call(*args, **kwargs)
    samples.append((time.perf_counter() - started) * 1000)
    return result


def _register(client: Any, method: str) -> dict[str, Any]:
    body = {
        "client_name": "bench connector",
        "redirect_uris": [REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
    }
    response = client.post(
        "/oauth/register/",
        json.dumps(body),
        content_type="application/json",
        secure=True,
        # a fresh address each time: the per-address registration limit is not what is timed
        REMOTE_ADDR=f"198.18.{secrets.randbelow(256)}.{secrets.randbelow(256)}",
    )
    assert response.status_code == 201, (response.status_code, response.content)
    return dict(response.json())


def _code(client: Any, client_id: str, challenge: str) -> str:
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT,
            "scope": "memory:read memory:write",
            "state": "bench",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    url = f"/oauth/authorize/?{query}"
    page = client.get(url, secure=True)
    fields = {name: html.unescape(value) for name, value in _HIDDEN.findall(page.content.decode())}
    fields["allow"] = "Authorize"
    answer = client.post(url, fields, secure=True)
    assert answer.status_code == 302, answer.content[:300]
    return parse_qs(urlsplit(answer["Location"]).query)["code"][0]


def _secret_fields(registered: dict[str, Any]) -> dict[str, str]:
    fields = {"client_id": registered["client_id"]}
    if "client_secret" in registered:
        fields["client_secret"] = registered["client_secret"]
    return fields


def bench(clients: int, refreshes: int, method: str) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from oauth2_provider.models import get_application_model

    person = get_user_model().objects.create_user(f"oauth-bench-{secrets.token_hex(4)}")
    browser = Client(REMOTE_ADDR="192.0.2.77", HTTP_HOST="localhost")
    browser.force_login(person)
    steps: dict[str, list[float]] = {"register": [], "exchange": [], "refresh": []}
    ids: list[str] = []
    try:
        for _ in range(clients):
            registered = _timed(steps["register"], _register, browser, method)
            ids.append(registered["client_id"])
            verifier = secrets.token_urlsafe(48)
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            code = _code(browser, registered["client_id"], challenge.decode().rstrip("="))
            exchange = {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "code_verifier": verifier,
                **_secret_fields(registered),
            }
            tokens = _timed(steps["exchange"], browser.post, "/oauth/token/", exchange, secure=True)
            refresh_token = tokens.json()["refresh_token"]
            for _ in range(refreshes):
                fields = {
                    "grant_type": "refresh_token",
                    "refresh_token": refresh_token,
                    **_secret_fields(registered),
                }
                answer = _timed(
                    steps["refresh"], browser.post, "/oauth/token/", fields, secure=True
                )
                assert answer.status_code == 200, answer.content
                refresh_token = answer.json()["refresh_token"]
    finally:
        get_application_model().objects.filter(client_id__in=ids).delete()
        person.delete()
    return {
        "auth_method": method,
        **{
            name: {
                "calls": len(samples),
                "p50_ms": round(statistics.median(samples), 1),
                # nearest rank: the smallest sample at or above 95% of them
                "p95_ms": round(sorted(samples)[math.ceil(len(samples) * 0.95) - 1], 1),
            }
            for name, samples in steps.items()
            if samples
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=10, help="clients registered per method")
    parser.add_argument("--refreshes", type=int, default=10, help="refreshes per client")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    for method in ("client_secret_post", "none"):  # a confidential client, a public one
        print(json.dumps(bench(args.clients, args.refreshes, method)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
