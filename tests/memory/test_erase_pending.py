"""A delete-all of a large memory is left to the pending workers: the request records it and
refuses every write from then on; a worker deletes in chunks, resumably, and leaves the same
receipt as a delete-all done at once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from memory.models import Candidate, Erasure, MemoryRule, Node, Receipt, Slice
from memory.services import erase
from memory.services.erase import erasures_run_pending, memory_erase_request
from memory.services.ingest import ingest_pending, ingest_proposals
from memory.services.tokens import token_create
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


def memory_of(owner: User, facts: int) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    ingest_proposals(owner=owner, objects=DOC, name="chat.json", source="api")
    node = make_node(owner=owner, label="Allotment", category="project")
    Slice.objects.bulk_create(
        Slice(owner=owner, node=node, kind="fact", text=f"bed {i} has leeks") for i in range(facts)
    )


def post(client: Client, secret: str, body: Any) -> Any:
    return client.post(
        "/v1/memory/delete-all",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )


def test_the_api_answers_202_and_a_worker_deletes_in_chunks(
    client: Client,
    owner: User,
    other_user: User,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.UME_INLINE_ERASE_ROWS = 20
    monkeypatch.setattr(erase, "ERASE_CHUNK", 25)
    memory_of(owner, 120)
    make_node(owner=other_user, label="Theirs")
    make_suppression(owner=owner, label="Golf")
    secret = token_create(owner=owner, name="tool")[1]
    with CaptureQueriesContext(connection) as queries:
        response = post(client, secret, {"confirm": "DELETE"})
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued" and body["erasure"]["state"] == "waiting"
    # the request counted at most a bounded number of rows and deleted none
    assert not any(q["sql"].startswith("DELETE") for q in queries.captured_queries)
    assert Slice.objects.for_owner(owner).count() == 120
    status = client.get(body["status_url"], HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert status.status_code == 200 and status.json()["state"] == "waiting"

    # From the request on, a save is refused (its receipt says why), not left to land.
    refused = ingest_proposals(
        owner=owner,
        objects=[{"object": "node", "label": "Kiln", "category": "project", "confidence": 0.95}],
        name="meanwhile",
        source="api",
    )
    assert refused.outcome == "deletion_conflict" and "being deleted" in refused.error
    assert not Node.objects.filter(label="Kiln").exists()

    (receipt,) = ingest_pending(limit=5)
    assert receipt.subject == "delete all memory"
    assert receipt.counts["slices"] == 120 and receipt.counts["nodes"] == 2
    assert receipt.detail == {
        "action": "erase_all",
        "kept_suppressions": True,
        "suppressions_kept": 1,
    }
    assert [r.pk for r in Receipt.objects.for_owner(owner)] == [receipt.pk]
    assert (
        not Node.objects.for_owner(owner).exists()
        and not Candidate.objects.for_owner(owner).exists()
    )
    assert Node.objects.for_owner(other_user).exists()
    done = client.get(body["status_url"], HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    assert done["state"] == "done" and done["receipt"]["receipt_id"] == receipt.pk
    # writes go through again
    again = ingest_proposals(owner=owner, objects=DOC, name="after", source="api")
    assert again.outcome == "wrote"
    theirs = token_create(owner=other_user, name="theirs")[1]
    assert client.get(body["status_url"], HTTP_AUTHORIZATION=f"Bearer {theirs}").status_code == 404


def test_a_small_memory_is_still_deleted_at_once(owner: User) -> None:
    memory_of(owner, 3)
    done = memory_erase_request(owner=owner)
    assert isinstance(done, Receipt) and not Node.objects.for_owner(owner).exists()
    assert not Erasure.objects.exists()


class Killed(BaseException):
    """The worker dying between two chunks."""


def test_a_worker_killed_midway_leaves_a_claim_another_resumes(
    owner: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.UME_INLINE_ERASE_ROWS = 20
    monkeypatch.setattr(erase, "ERASE_CHUNK", 25)
    memory_of(owner, 120)
    erasure = memory_erase_request(owner=owner)
    assert isinstance(erasure, Erasure)
    assert memory_erase_request(owner=owner) == erasure  # asking again: the same one
    real = erase._erase_chunk
    chunks: list[int] = []

    def dies_after_four(*args: Any) -> int:
        if len(chunks) == 4:
            raise Killed
        chunks.append(1)
        return real(*args)

    monkeypatch.setattr(erase, "_erase_chunk", dies_after_four)
    with pytest.raises(Killed):
        erasures_run_pending()
    monkeypatch.setattr(erase, "_erase_chunk", real)
    erasure.refresh_from_db()
    assert erasure.state == "deleting" and 0 < erasure.counts["slices"] < 120
    assert erasures_run_pending() == []  # the claim still holds
    Erasure.objects.filter(pk=erasure.pk).update(claimed_at=timezone.now() - timedelta(hours=1))
    (receipt,) = erasures_run_pending()
    assert receipt.counts["slices"] == 120 and receipt.counts["nodes"] == 2
    assert not Slice.objects.for_owner(owner).exists()
    erasure.refresh_from_db()
    assert erasure.state == "done" and erasure.attempts == 2


def test_the_dashboard_shows_the_deletion_until_a_worker_is_done(
    client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_INLINE_ERASE_ROWS = 20
    memory_of(owner, 60)
    client.force_login(owner)
    response = client.post(
        reverse("receipts:delete-all"), {"confirm": "DELETE", "keep_suppressions": "on"}
    )
    erasure = Erasure.objects.for_owner(owner).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("receipts:erasure", args=[erasure.pk])
    page = client.get(response["Location"]).content.decode()
    assert "waiting" in page and 'hx-trigger="every 2s"' in page
    ingest_pending(limit=5)
    partial = client.get(response["Location"], HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith(f'<section id="erasure-{erasure.pk}"')
    assert "done" in partial and "deleted all memory" in partial
    assert 'hx-trigger="every 2s"' not in partial
    other = Client()
    other.force_login(User.objects.create_user("stranger", password="pw-for-tests-1"))
    assert other.get(response["Location"]).status_code == 404
