"""``POST /v1/receipts/{id}/undo`` and ``POST /v1/memory/delete-all``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from memory.models import Candidate, MemoryRule, Node, Receipt, Suppression
from memory.services.ingest import ingest_proposals
from memory.services.tokens import token_create
from memory.vocab import SCOPE_READ
from tests.factories import make_node, make_suppression

pytestmark = pytest.mark.django_db

DOC = [
    {"object": "node", "label": "Atlas", "category": "project", "confidence": 0.95},
    {"object": "candidate", "label": "Chess", "confidence": 0.6},
]


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def receipt(owner: User) -> Any:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    return ingest_proposals(owner=owner, objects=DOC, name="chat.json", source="api")


def post(client: Any, secret: str, path: str, body: Any = None) -> Any:
    return client.post(
        path,
        data=json.dumps(body) if body is not None else "",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )


def test_undo_a_receipt(client: Client, owner: User, receipt: Any) -> None:
    secret = token_create(owner=owner, name="tool")[1]

    response = post(client, secret, f"/v1/receipts/{receipt.pk}/undo")

    assert response.status_code == 200
    data = response.json()
    assert data["outcome"] == "wrote" and data["source"] == "api"
    assert data["detail"]["undone_receipt"] == receipt.pk
    assert data["counts"]["nodes_deleted"] == 1 and data["counts"]["candidates_deleted"] == 1
    assert not Node.objects.filter(label="Atlas").exists()
    assert Suppression.objects.count() == 2

    again = post(client, secret, f"/v1/receipts/{receipt.pk}/undo")
    assert again.status_code == 409 and again.json()["code"] == "already_undone"


def test_undo_without_suppressing(client: Client, owner: User, receipt: Any) -> None:
    secret = token_create(owner=owner, name="tool")[1]

    response = post(client, secret, f"/v1/receipts/{receipt.pk}/undo", {"suppress": False})

    assert response.status_code == 200 and not Suppression.objects.exists()


def test_undo_refusals(client: Client, owner: User, other_user: User, receipt: Any) -> None:
    secret = token_create(owner=owner, name="tool")[1]
    reader = token_create(owner=owner, name="reader", scopes=[SCOPE_READ])[1]
    theirs = token_create(owner=other_user, name="theirs")[1]
    empty = ingest_proposals(owner=owner, objects=[], name="empty", source="api")

    assert post(client, theirs, f"/v1/receipts/{receipt.pk}/undo").status_code == 404
    assert post(client, reader, f"/v1/receipts/{receipt.pk}/undo").status_code == 403
    assert post(client, "nope", f"/v1/receipts/{receipt.pk}/undo").status_code == 401
    refused = post(client, secret, f"/v1/receipts/{empty.pk}/undo")
    assert refused.status_code == 400 and refused.json()["code"] == "not_undoable"
    assert Node.objects.filter(label="Atlas").exists()


def test_delete_all(client: Client, owner: User, other_user: User, receipt: Any) -> None:
    secret = token_create(owner=owner, name="tool")[1]
    make_node(owner=other_user, label="Theirs")
    make_suppression(owner=owner, label="Golf")

    refused = post(client, secret, "/v1/memory/delete-all", {"confirm": "yes"})
    assert refused.status_code == 400 and refused.json()["code"] == "confirmation_required"
    assert Node.objects.for_owner(owner).exists()

    response = post(client, secret, "/v1/memory/delete-all", {"confirm": "DELETE"})

    assert response.status_code == 200
    data = response.json()
    assert data["detail"] == {
        "action": "erase_all",
        "kept_suppressions": True,
        "suppressions_kept": 1,
    }
    assert not Node.objects.for_owner(owner).exists()
    assert not Candidate.objects.for_owner(owner).exists()
    assert [r.pk for r in Receipt.objects.for_owner(owner)] == [data["receipt_id"]]
    assert Node.objects.for_owner(other_user).exists()
    # the token still works against the empty store
    assert client.get("/v1/nodes", HTTP_AUTHORIZATION=f"Bearer {secret}").json()["nodes"] == []


def test_delete_all_dropping_suppressions_and_refusals(
    client: Client, owner: User, receipt: Any
) -> None:
    secret = token_create(owner=owner, name="tool")[1]
    reader = token_create(owner=owner, name="reader", scopes=[SCOPE_READ])[1]
    make_suppression(owner=owner, label="Golf")

    assert post(client, reader, "/v1/memory/delete-all", {"confirm": "DELETE"}).status_code == 403
    assert post(client, secret, "/v1/memory/delete-all", {}).status_code == 400
    response = post(
        client, secret, "/v1/memory/delete-all", {"confirm": "DELETE", "keep_suppressions": False}
    )

    assert response.status_code == 200 and not Suppression.objects.for_owner(owner).exists()
