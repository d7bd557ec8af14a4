"""/healthz and /readyz: JSON, no authentication, and nothing beyond what a probe needs."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError, connection
from django.test import Client

from ume import health


@pytest.fixture(autouse=True)
def _fresh_migration_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "_migrations_applied", False)


def test_healthz_answers_anonymous_callers_with_nothing_else(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_readyz_is_ready_when_the_database_answers_and_migrations_are_applied(
    client: Client,
) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "migrations": "ok"},
    }


def _newest_memory_migration() -> str:
    from django.db.migrations.loader import MigrationLoader

    leaves = MigrationLoader(connection).graph.leaf_nodes("memory")
    return leaves[0][1]


@pytest.mark.django_db
@pytest.mark.parametrize("which", ["newest", "0002_initial"])
def test_readyz_is_not_ready_while_a_migration_is_unapplied(client: Client, which: Any) -> None:
    name = _newest_memory_migration() if which == "newest" else which
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM django_migrations WHERE app = %s AND name = %s", ["memory", name]
        )
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "not_ready",
        "checks": {"database": "ok", "migrations": "pending"},
    }


@pytest.mark.django_db
def test_readyz_is_not_ready_when_the_database_does_not_answer(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "not_ready",
        "checks": {"database": "failing", "migrations": "unknown"},
    }
    assert "connection refused" not in response.content.decode()
