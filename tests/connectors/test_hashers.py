"""Client secrets get a fast keyed hash; older hashes and rotated keys keep verifying; people's
passwords keep Django's default hasher."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.hashers import check_password, identify_hasher, make_password
from django.test import Client
from oauth2_provider.models import get_application_model
from pytest_django import Settings

from connectors.hashers import ALGORITHM
from connectors.oauth import UmeOAuth2Validator

Application = get_application_model()


def register_confidential() -> tuple[Any, str]:
    response = Client().post(
        "/oauth/register/",
        data=json.dumps(
            {
                "redirect_uris": ["https://a.example/cb"],
                "token_endpoint_auth_method": "client_secret_post",
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return Application.objects.get(client_id=response.json()["client_id"]), response.json()[
        "client_secret"
    ]


@pytest.mark.django_db
def test_a_registered_secret_is_stored_with_the_keyed_hash_and_verifies() -> None:
    app, secret = register_confidential()
    assert identify_hasher(app.client_secret).algorithm == ALGORITHM
    assert secret not in app.client_secret
    check = UmeOAuth2Validator()._check_secret
    assert check(secret, app.client_secret)
    assert not check(secret[:-1] + ("x" if secret[-1] != "x" else "y"), app.client_secret)


@pytest.mark.django_db
def test_a_secret_hashed_with_the_password_hasher_still_verifies() -> None:
    stored = make_password("an-older-secret", hasher="pbkdf2_sha256")
    check = UmeOAuth2Validator()._check_secret
    assert check("an-older-secret", stored) and not check("another", stored)


def test_a_rotated_secret_key_keeps_client_secrets_working(settings: Settings) -> None:
    stored = make_password("s3cret-generated", hasher=ALGORITHM)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a brand new key for this deployment, long enough to be fine"
    assert check_password("s3cret-generated", stored)
    settings.SECRET_KEY_FALLBACKS = []
    assert not check_password("s3cret-generated", stored)  # keyed: the key is needed


def test_peoples_passwords_keep_the_default_hasher(settings: Settings) -> None:
    from tests.conftest import FAST_PASSWORD_HASHER, PRODUCTION_PASSWORD_HASHERS

    # the suite hashes with a fast hasher (tests/conftest.py); ume's own list is checked here
    assert FAST_PASSWORD_HASHER not in PRODUCTION_PASSWORD_HASHERS
    settings.PASSWORD_HASHERS = PRODUCTION_PASSWORD_HASHERS
    assert identify_hasher(make_password("a person's password")).algorithm == "pbkdf2_sha256"
