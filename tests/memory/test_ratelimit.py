"""Atomic rate limits: the count holds exactly with parallel requests on separate connections."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from pytest_django import Settings

from memory.services.access import Refused, rate_limit
from memory.services.ratelimit import rate_hit
from memory.services.tokens import token_create
from tests.factories import make_user


@pytest.mark.django_db
def test_counts_per_key_and_window() -> None:
    assert rate_hit("a", window=60, now=120.0).count == 1
    assert rate_hit("a", window=60, now=150.0).count == 2
    assert rate_hit("b", window=60, now=150.0).count == 1
    hit = rate_hit("a", window=60, now=185.0)  # the next minute
    assert (hit.count, hit.retry_after) == (1, 55)


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs parallel connections: runs on PostgreSQL (DATABASE_URL=postgres://...)",
)
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_clients_on_one_token_get_exactly_the_limit_through(
    settings: Settings,
) -> None:
    # The setting the counters used to live in before they were counted atomically: a shared
    # database cache whose incr is a read then a write.
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "x"}
    }
    settings.UME_API_RATE_LIMIT = 120
    token, _secret = token_create(owner=make_user("busy"), name="tool")
    allowed: list[int] = []
    refused: list[str] = []
    start = threading.Barrier(20, timeout=30)

    def client() -> None:
        try:
            start.wait()
            for _ in range(20):
                try:
                    rate_limit(token)
                    allowed.append(1)
                except Refused as exc:
                    assert exc.status == 429 and int(exc.headers["Retry-After"]) >= 1
                    refused.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=client) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    assert len(allowed) == 120
    assert len(refused) == 280 and set(refused) == {"rate_limited"}
