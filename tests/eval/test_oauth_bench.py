"""``eval.oauth_bench`` at a tiny size: it takes each kind of client through registration, the
consent, the exchange and every refresh (each step's answer is checked as it runs), and leaves
nothing behind. Nothing here is timed."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from oauth2_provider.models import get_access_token_model, get_application_model

from eval.oauth_bench import bench

pytestmark = pytest.mark.django_db


@override_settings(SECURE_SSL_REDIRECT=True)
@pytest.mark.parametrize("method", ["client_secret_post", "none"])
def test_every_step_is_measured_and_nothing_is_left(method: str) -> None:
    row = bench(clients=2, refreshes=3, method=method)
    assert row["auth_method"] == method
    assert {name: step["calls"] for name, step in row.items() if name != "auth_method"} == {
        "register": 2,
        "exchange": 2,
        "refresh": 6,
    }
    assert all(0 < row[name]["p50_ms"] <= row[name]["p95_ms"] for name in ("register", "refresh"))
    assert not get_application_model().objects.exists()
    assert not get_access_token_model().objects.exists()
    assert not get_user_model().objects.filter(username__startswith="oauth-bench-").exists()
