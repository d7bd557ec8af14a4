"""A save is either written and answered 2xx, or not written: a save that answered a failure
(the database went away: 503; the request was killed) leaves nothing that ``ingest --pending``
writes later, and its retry writes once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import Count
from django.test import Client
from django.utils import timezone
from pytest_django import Settings

from api import idempotency as api_idempotency
from memory.models import Candidate, Episode, IdempotencyKey, Receipt, Transcript
from memory.services import ingest as ingest_module
from memory.services.ingest import ORPHAN_ERROR, ingest_pending
from memory.services.tokens import token_create
from tests.faults import after_the_transcript_is_stored, database_outage, inside_the_ingest

# Real transactions: a statement that fails inside the test's own transaction would mark it
# for rollback, where a server's request has no transaction around it.
pytestmark = pytest.mark.django_db(transaction=True)

MEMORY = {"text": "I started learning the cello last week."}
CONVERSATION = {
    "messages": [
        {"id": "m1", "role": "user", "content": "My sister Priya moved to Berlin."},
        {"id": "m2", "role": "assistant", "content": "That is a big move."},
        {"id": "m3", "role": "user", "content": "I started learning the cello last week."},
    ],
    "source_time": "2026-03-02T10:00:00Z",
}
FAULTS = ["after the transcript is stored", "at the commit"]


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='my tool')[1]}"}


def post(client: Client, auth: dict[str, Any], path: str, body: Any, **headers: Any) -> Any:
    return client.post(
        path, data=json.dumps(body), content_type="application/json", **auth, **headers
    )


def fail_once(fault: str, monkeypatch: pytest.MonkeyPatch, outage: Any) -> None:
    """The database goes away at ``fault`` (and stays away until the test ends the outage)."""
    if fault == "at the commit":
        inside_the_ingest(monkeypatch, outage.start)
    else:
        after_the_transcript_is_stored(monkeypatch, outage.start)


def leases_run_out() -> None:
    """Time passes: every claim, reservation and lease is older than the lease."""
    long_ago = timezone.now() - timedelta(minutes=10)
    Transcript.objects.update(created_at=long_ago, claimed_at=long_ago)
    IdempotencyKey.objects.filter(status=0).update(lease_until=long_ago)


def episodes_said(owner: User, text: str) -> int:
    return Episode.objects.for_owner(owner).filter(text=text).count()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_save_answered_503_leaves_nothing_the_workers_write_later(
    client: Client,
    auth: dict[str, Any],
    owner: User,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
) -> None:
    with database_outage() as outage:
        fail_once(fault, monkeypatch, outage)
        failed = post(client, auth, "/v1/conversations", CONVERSATION)
        outage.end()
    assert failed.status_code == 503, failed.content
    assert failed.json()["code"] == "unavailable" and outage.refused > 0
    monkeypatch.undo()
    assert not Receipt.objects.for_owner(owner).exists()

    leases_run_out()
    assert ingest_pending(limit=10) == []
    assert not Episode.objects.for_owner(owner).exists()
    assert not Candidate.objects.for_owner(owner).exists()
    assert not Receipt.objects.for_owner(owner).exists()
    # What it left is visibly failed, never to be applied by a worker.
    orphan = Transcript.objects.for_owner(owner).get()
    assert (orphan.status, orphan.error, orphan.receipt_id) == ("failed", ORPHAN_ERROR, None)
    assert ingest_pending(limit=10) == []


@pytest.mark.parametrize("fault", FAULTS)
def test_a_retry_after_a_503_writes_each_message_once(
    client: Client,
    auth: dict[str, Any],
    owner: User,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
) -> None:
    with database_outage() as outage:
        fail_once(fault, monkeypatch, outage)
        assert post(client, auth, "/v1/conversations", CONVERSATION).status_code == 503
        outage.end()
    monkeypatch.undo()

    retry = post(client, auth, "/v1/conversations", CONVERSATION)

    assert retry.status_code == 200, retry.content
    assert retry.json()["outcome"] == "wrote"
    leases_run_out()
    assert ingest_pending(limit=10) == []
    assert Transcript.objects.for_owner(owner).count() == 1
    per_message = dict(
        Episode.objects.for_owner(owner)
        .values_list("message_id")
        .annotate(n=Count("id"))
        .values_list("message_id", "n")
    )
    assert per_message == {"m1": 1, "m2": 1, "m3": 1}
    assert list(Receipt.objects.for_owner(owner).values_list("outcome", flat=True)) == ["wrote"]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_memory_retried_after_a_503_is_one_episode(
    client: Client,
    auth: dict[str, Any],
    owner: User,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
) -> None:
    """A memory's stored text carries the time it was sent, so its retry is another transcript:
    the failed one must never be written as well."""
    with database_outage() as outage:
        fail_once(fault, monkeypatch, outage)
        assert post(client, auth, "/v1/memories", MEMORY).status_code == 503
        outage.end()
    monkeypatch.undo()

    assert post(client, auth, "/v1/memories", MEMORY).json()["outcome"] == "wrote"
    leases_run_out()
    assert ingest_pending(limit=10) == []

    assert episodes_said(owner, MEMORY["text"]) == 1
    assert Candidate.objects.for_owner(owner).count() == 1


class Killed(BaseException):
    """The request's process ending where it stands (SIGKILL)."""


def test_a_killed_save_with_an_idempotency_key_is_retried_once_its_lease_runs_out(
    client: Client,
    auth: dict[str, Any],
    owner: User,
    monkeypatch: pytest.MonkeyPatch,
    settings: Settings,
) -> None:
    settings.UME_CLAIM_LEASE_SECONDS = 30

    def killed() -> None:
        raise Killed

    # A SIGKILLed process runs no handler: nothing releases the key or the claim.
    inside_the_ingest(monkeypatch, killed)
    monkeypatch.setattr(api_idempotency, "idempotency_release", lambda **kwargs: None)
    monkeypatch.setattr(ingest_module, "_release", lambda transcript: None)
    with pytest.raises(Killed):
        post(client, auth, "/v1/memories", MEMORY, HTTP_IDEMPOTENCY_KEY="save-1")
    monkeypatch.undo()
    orphan = Transcript.objects.for_owner(owner).get()
    assert orphan.status == "processing" and orphan.inline

    # While the dead request's lease is live, a retry is told to wait, and for how long.
    waiting = post(client, auth, "/v1/memories", MEMORY, HTTP_IDEMPOTENCY_KEY="save-1")
    assert waiting.status_code == 409 and waiting.json()["code"] == "idempotency_in_progress"
    assert 1 <= int(waiting["Retry-After"]) <= 30

    leases_run_out()
    retry = post(client, auth, "/v1/memories", MEMORY, HTTP_IDEMPOTENCY_KEY="save-1")
    assert retry.status_code == 200, retry.content
    assert retry.json()["outcome"] == "wrote" and not retry.has_header("Idempotent-Replayed")
    again = post(client, auth, "/v1/memories", MEMORY, HTTP_IDEMPOTENCY_KEY="save-1")
    assert again.json() == retry.json() and again["Idempotent-Replayed"] == "true"

    leases_run_out()
    assert ingest_pending(limit=10) == []
    assert episodes_said(owner, MEMORY["text"]) == 1
    assert Candidate.objects.for_owner(owner).count() == 1


def test_a_killed_conversation_is_finished_by_its_retry_not_by_a_worker(
    client: Client, auth: dict[str, Any], owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed() -> None:
        raise Killed

    inside_the_ingest(monkeypatch, killed)
    monkeypatch.setattr(ingest_module, "_release", lambda transcript: None)
    with pytest.raises(Killed):
        post(client, auth, "/v1/conversations", CONVERSATION)
    monkeypatch.undo()

    leases_run_out()
    assert ingest_pending(limit=10) == []  # the orphan is the retry's, not a worker's
    assert not Episode.objects.for_owner(owner).exists()
    retry = post(client, auth, "/v1/conversations", CONVERSATION)
    assert retry.json()["outcome"] == "wrote"
    assert Transcript.objects.for_owner(owner).count() == 1
    assert sorted(Episode.objects.for_owner(owner).values_list("message_id", flat=True)) == [
        "m1",
        "m2",
        "m3",
    ]


def test_a_large_save_is_queued_by_its_last_write(
    client: Client,
    auth: dict[str, Any],
    owner: User,
    monkeypatch: pytest.MonkeyPatch,
    settings: Settings,
) -> None:
    """A save too large for one request answers 202 once the workers have it; failing before
    that it answers 503 and the workers never see it, and its retry queues it."""
    settings.UME_INLINE_UPLOAD_BYTES = 10
    with database_outage() as outage:
        queue = ingest_module.transcript_queue

        def down_then_queue(transcript: Any) -> Any:
            outage.start()
            return queue(transcript)

        monkeypatch.setattr(ingest_module, "transcript_queue", down_then_queue)
        assert post(client, auth, "/v1/conversations", CONVERSATION).status_code == 503
        outage.end()
    monkeypatch.undo()
    leases_run_out()
    assert ingest_pending(limit=10) == []
    assert not Episode.objects.for_owner(owner).exists()

    queued = post(client, auth, "/v1/conversations", CONVERSATION)
    assert queued.status_code == 202, queued.content
    assert queued.json()["transcript"]["status"] == "pending"
    (done,) = ingest_pending(limit=10)
    assert done.outcome == "wrote"
    assert Episode.objects.for_owner(owner).count() == 3


def test_an_upload_answered_503_is_finished_by_its_retry_not_by_a_worker(
    client: Client, auth: dict[str, Any], owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    def upload() -> Any:
        text = b"User: I started learning the cello last week.\n"
        return client.post(
            "/v1/transcripts",
            {"file": SimpleUploadedFile("notes.txt", text, content_type="text/plain")},
            **auth,
        )

    with database_outage() as outage:
        inside_the_ingest(monkeypatch, outage.start)
        assert upload().status_code == 503
        outage.end()
    monkeypatch.undo()
    leases_run_out()
    assert ingest_pending(limit=10) == []
    assert not Episode.objects.for_owner(owner).exists()

    retry = upload()

    assert retry.status_code == 201, retry.content
    assert retry.json()["duplicate"] is False and retry.json()["status"] == "done"
    assert retry.json()["receipt"]["outcome"] == "wrote"
    assert Transcript.objects.for_owner(owner).count() == 1
    assert episodes_said(owner, "I started learning the cello last week.") == 1
    again = upload()
    assert again.status_code == 200 and again.json()["duplicate"] is True
