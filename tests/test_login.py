"""Sign-in throttling by account and by address, and throttled token guessing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from memory.services.tokens import token_create
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-1"


def sign_in(client: Any, username: Any, password: Any, address: Any = "10.0.0.1") -> Any:
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_the_right_password_signs_in(client: Client) -> None:
    make_user("ada")
    assert sign_in(client, "ada", PASSWORD).status_code == 302


def test_after_five_wrong_passwords_even_the_right_one_is_refused(
    client: Client, settings: Settings
) -> None:
    settings.UME_LOGIN_ATTEMPTS_PER_ACCOUNT = 5
    make_user("ada")
    for _ in range(5):
        assert sign_in(client, "ada", "wrong").status_code == 200
    refused = sign_in(client, "ada", PASSWORD)
    assert refused.status_code == 429
    assert "Too many failed sign-ins for this account" in refused.content.decode()
    assert 1 <= int(refused["Retry-After"]) <= settings.UME_LOGIN_WINDOW_SECONDS
    assert "_auth_user_id" not in client.session
    # Another account is not locked by it (from another address).
    make_user("bob")
    assert sign_in(client, "bob", PASSWORD, address="10.0.0.2").status_code == 302


def test_a_success_clears_the_accounts_count(client: Client, settings: Settings) -> None:
    settings.UME_LOGIN_ATTEMPTS_PER_ACCOUNT = 3
    make_user("ada")
    for _ in range(2):
        sign_in(client, "ada", "wrong")
    assert sign_in(client, "ada", PASSWORD).status_code == 302
    client.logout()
    for _ in range(2):
        assert sign_in(client, "ada", "wrong").status_code == 200
    assert sign_in(client, "ada", PASSWORD).status_code == 302


def test_one_address_guessing_across_accounts_is_throttled(
    client: Client, settings: Settings
) -> None:
    settings.UME_LOGIN_FAILURES_PER_ADDRESS = 4
    make_user("ada")
    for n in range(4):
        assert sign_in(client, f"user{n}", "wrong").status_code == 200
    refused = sign_in(client, "ada", PASSWORD)
    assert refused.status_code == 429
    assert "from this address" in refused.content.decode()
    assert sign_in(client, "ada", PASSWORD, address="10.0.0.9").status_code == 302


def test_guessing_bearer_tokens_is_throttled_by_address(
    client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_BAD_TOKENS_PER_ADDRESS = 3
    _token, secret = token_create(owner=owner, name="tool")

    def guess(n: Any, address: Any = "10.0.0.5") -> Any:
        return client.get(
            "/v1/rules", HTTP_AUTHORIZATION=f"Bearer ume_guess{n}", REMOTE_ADDR=address
        )

    for n in range(3):
        assert guess(n).status_code == 401
    refused = guess(3)
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert guess(4, address="10.0.0.6").status_code == 401  # another address is not throttled
    # The holder of a live token is not locked out by someone guessing from their address.
    ok = client.get("/v1/rules", HTTP_AUTHORIZATION=f"Bearer {secret}", REMOTE_ADDR="10.0.0.5")
    assert ok.status_code == 200


def test_compatibility_spellings_of_a_name_share_its_count(
    client: Client, settings: Settings
) -> None:
    """Full-width, ligature and case spellings all sign in as "ada" (Django applies NFKC to the
    username), so they count against "ada"; each from its own address, so only the account's
    count can stop them."""
    settings.UME_LOGIN_ATTEMPTS_PER_ACCOUNT = 4
    make_user("ada")
    assert sign_in(client, "ａｄａ", PASSWORD, address="10.1.0.0").status_code == 302  # same user
    client.logout()
    for n, name in enumerate(["ａｄａ", "ＡＤＡ", " Ada ", "ａda"]):
        assert sign_in(client, name, "wrong", address=f"10.1.0.{n + 1}").status_code == 200
    refused = sign_in(client, "ada", PASSWORD, address="10.1.0.9")
    assert refused.status_code == 429
    assert "for this account" in refused.content.decode()
    # A look-alike from another script is another name to Django too: it cannot sign in as
    # "ada", and it does not lock "ada" out.
    assert sign_in(client, "аda", PASSWORD, address="10.1.0.10").status_code == 200  # Cyrillic а


def _admin_sign_in(client: Client, username: str, password: str, address: str) -> Any:
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def test_the_admin_sign_in_is_throttled_by_account_and_address(
    client: Client, settings: Settings
) -> None:
    settings.UME_LOGIN_ATTEMPTS_PER_ACCOUNT = 3
    settings.UME_LOGIN_FAILURES_PER_ADDRESS = 50
    User.objects.create_superuser("root", password=PASSWORD)
    assert _admin_sign_in(client, "root", PASSWORD, "10.2.0.1").status_code == 302
    client.logout()
    for n in range(3):
        response = _admin_sign_in(client, "ＲＯＯＴ", "wrong", f"10.2.0.{n + 2}")
        assert response.status_code == 200
    refused = _admin_sign_in(client, "root", PASSWORD, "10.2.0.9")
    assert refused.status_code == 429
    assert "Too many failed sign-ins for this account" in refused.content.decode()
    assert 1 <= int(refused["Retry-After"]) <= settings.UME_LOGIN_WINDOW_SECONDS
    assert "_auth_user_id" not in client.session

    # The address limit holds on the admin's page as on the dashboard's, and both share it.
    settings.UME_LOGIN_FAILURES_PER_ADDRESS = 2
    sign_in(client, "x1", "wrong", address="10.3.0.1")
    _admin_sign_in(client, "x2", "wrong", "10.3.0.1")
    User.objects.create_superuser("other", password=PASSWORD)
    refused = _admin_sign_in(client, "other", PASSWORD, "10.3.0.1")
    assert refused.status_code == 429 and "from this address" in refused.content.decode()
