"""Refresh token rotation through the real token endpoint: one rotation per refresh token,
however many requests present it at once; reuse after the grace period revokes the family."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_refresh_token_model
from pytest_django import Settings

from connectors import oauth
from connectors.oauth import ROTATED_MOMENTS_AGO
from tests.connectors.conftest import Pkce, register, session_cookies
from tests.connectors.test_oauth_negative import (
    LIST_TOOLS,
    MCP_HEADERS,
    REDIRECT,
    approve_code,
    exchange,
)

pytestmark = pytest.mark.django_db(transaction=True)
RefreshToken = get_refresh_token_model()


def connect(base_url: str, owner: User) -> tuple[str, dict[str, Any]]:
    """A registered client and the first pair it was issued after consent."""
    client_id = register(base_url, REDIRECT)["client_id"]
    pkce = Pkce.make()
    code = approve_code(base_url, client_id, session_cookies(owner), pkce)
    issued = exchange(base_url, client_id, code, pkce.verifier)
    assert issued.status_code == 200, issued.text
    return client_id, issued.json()


def refresh(base_url: str, client_id: str, refresh_token: str) -> httpx.Response:
    return httpx.post(
        f"{base_url}/oauth/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": client_id,
        },
        timeout=60,
    )


def calls_mcp(base_url: str, access_token: str) -> bool:
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {access_token}"}
    return httpx.post(f"{base_url}/mcp", headers=auth, json=LIST_TOOLS).status_code == 200


def live_refresh_tokens() -> int:
    return RefreshToken.objects.filter(revoked__isnull=True).count()


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs parallel connections: runs on PostgreSQL (DATABASE_URL=postgres://...)",
)
def test_twelve_simultaneous_refreshes_rotate_once_and_keep_the_client_signed_in(
    base_url: str, owner: User
) -> None:
    client_id, issued = connect(base_url, owner)
    responses: list[httpx.Response] = []
    start = threading.Barrier(12, timeout=30)

    def one() -> None:
        start.wait()
        responses.append(refresh(base_url, client_id, issued["refresh_token"]))

    threads = [threading.Thread(target=one) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(responses) == 12

    won = [r for r in responses if r.status_code == 200]
    lost = [r for r in responses if r.status_code != 200]
    assert len(won) == 1, [(r.status_code, r.text[:200]) for r in responses]
    for response in lost:
        assert response.status_code == 400
        assert response.json() == {
            "error": "invalid_grant",
            "error_description": ROTATED_MOMENTS_AGO,
        }
    # exactly one rotation: the presented token superseded, one successor, family intact
    presented = RefreshToken.objects.get(access_token__isnull=True, revoked__isnull=False)
    assert live_refresh_tokens() == 1
    assert RefreshToken.objects.get(revoked__isnull=True).token_family == presented.token_family
    assert get_access_token_model().objects.filter(source_refresh_token=presented).count() == 1

    pair = won[0].json()
    assert pair["access_token"] and pair["refresh_token"]
    assert calls_mcp(base_url, pair["access_token"])
    again = refresh(base_url, client_id, pair["refresh_token"])
    assert again.status_code == 200, again.text
    assert calls_mcp(base_url, again.json()["access_token"])


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs parallel connections and row locks: runs on PostgreSQL (DATABASE_URL=...)",
)
def test_a_rotation_landing_inside_another_refreshs_validation_signs_no_one_out(
    base_url: str, owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race CI once caught: refresh A has checked that its token is not rotated, and
    refresh B of the same token comes in before A reads it again. B must not rotate between
    A's two reads: A would see a token just revoked, take it for a reused one and revoke the
    family, B's new pair with it. A holds the token's row while it decides."""
    client_id, issued = connect(base_url, owner)
    checked, rotated = threading.Event(), threading.Event()
    real = oauth._rotated_moments_ago
    calls: list[int] = []

    def paused_after_the_first_check(token: str) -> bool:
        answer = real(token)
        calls.append(1)
        if len(calls) == 1:  # refresh A: give B the time to rotate, if it can
            checked.set()
            rotated.wait(timeout=2)
        return answer

    monkeypatch.setattr(oauth, "_rotated_moments_ago", paused_after_the_first_check)
    responses: dict[str, httpx.Response] = {}

    def send(name: str) -> None:
        responses[name] = refresh(base_url, client_id, issued["refresh_token"])
        if name == "b":
            rotated.set()

    a = threading.Thread(target=send, args=("a",))
    a.start()
    assert checked.wait(timeout=30)
    b = threading.Thread(target=send, args=("b",))
    b.start()
    a.join(timeout=60)
    b.join(timeout=60)
    assert sorted(responses) == ["a", "b"]
    won = [r for r in responses.values() if r.status_code == 200]
    lost = [r for r in responses.values() if r.status_code != 200]
    assert len(won) == 1 and len(lost) == 1, [(r.status_code, r.text) for r in responses.values()]
    assert lost[0].json() == {"error": "invalid_grant", "error_description": ROTATED_MOMENTS_AGO}
    pair = won[0].json()
    assert live_refresh_tokens() == 1
    assert calls_mcp(base_url, pair["access_token"])
    assert refresh(base_url, client_id, pair["refresh_token"]).status_code == 200


def test_a_refresh_token_presented_again_within_the_grace_is_refused_and_revokes_nothing(
    base_url: str, owner: User
) -> None:
    client_id, issued = connect(base_url, owner)
    first = refresh(base_url, client_id, issued["refresh_token"])
    assert first.status_code == 200
    retry = refresh(base_url, client_id, issued["refresh_token"])
    assert retry.status_code == 400
    assert retry.json()["error_description"] == ROTATED_MOMENTS_AGO
    assert live_refresh_tokens() == 1
    assert calls_mcp(base_url, first.json()["access_token"])
    assert refresh(base_url, client_id, first.json()["refresh_token"]).status_code == 200


def test_reuse_after_the_grace_revokes_the_whole_family(
    base_url: str, owner: User, settings: Settings
) -> None:
    client_id, issued = connect(base_url, owner)
    first = refresh(base_url, client_id, issued["refresh_token"])
    assert first.status_code == 200
    grace = settings.UME_OAUTH_REFRESH_GRACE_SECONDS
    assert grace > 0
    RefreshToken.objects.filter(revoked__isnull=False).update(
        revoked=timezone.now() - timedelta(seconds=grace + 1)
    )
    replay = refresh(base_url, client_id, issued["refresh_token"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert live_refresh_tokens() == 0
    assert refresh(base_url, client_id, first.json()["refresh_token"]).status_code == 400
