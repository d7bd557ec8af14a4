"""Claims on a transcript: a lease that expires, retries after a crash, honest duplicates and
the pending workers' time budget."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.utils import timezone
from pytest_django import Settings

from memory.models import Receipt, Transcript
from memory.services import ingest as ingest_module
from memory.services.ingest import ingest_messages, ingest_pending, transcript_store
from tests.factories import make_user
from tests.faults import inside_the_ingest
from tests.llm_stub import StubLLMServer

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs two real connections: runs on PostgreSQL (DATABASE_URL=postgres://...)",
)

SAID = [{"role": "user", "content": "I started learning the cello last week."}]


def save(owner: Any) -> Any:
    return ingest_messages(owner=owner, messages=SAID, name="cello", source="api")


@pytest.mark.django_db
def test_a_retry_after_a_crash_is_processed_once_the_lease_runs_out(
    owner: User, settings: Settings
) -> None:
    settings.UME_CLAIM_LEASE_SECONDS = 30
    first = save(owner)
    assert first.outcome == "wrote"
    # Simulate the state a SIGKILLed worker leaves: the row claimed, never finished.
    Receipt.objects.for_owner(owner).delete()
    Transcript.objects.for_owner(owner).update(
        status="processing",
        receipt=None,
        claimed_at=timezone.now() - timedelta(seconds=31),
    )
    from memory.models import Candidate

    Candidate.objects.for_owner(owner).delete()

    retry = save(owner)

    assert retry.outcome == "wrote"
    assert Candidate.objects.for_owner(owner).count() == 1
    assert Transcript.objects.for_owner(owner).get().status == "done"


class Killed(BaseException):
    """The worker's process ending where it stands (SIGKILL): no handler runs after it."""


@pytest.mark.django_db
def test_a_worker_killed_just_after_its_apply_committed_leaves_nothing_to_apply_twice(
    owner: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.UME_CLAIM_LEASE_SECONDS = 1
    transcript, _ = transcript_store(
        owner=owner,
        text="I started learning the cello last week.",
        name="cello.txt",
        source="upload",
        source_time=None,
    )
    real = ingest_module.apply_proposals

    def applied_then_killed(**kwargs: Any) -> Any:
        real(**kwargs)
        raise Killed  # between the apply's commit and anything after it

    monkeypatch.setattr(ingest_module, "apply_proposals", applied_then_killed)
    with pytest.raises(Killed):
        ingest_pending(limit=1)
    monkeypatch.undo()
    # The lease runs out; the next worker finds nothing left to do for it.
    Transcript.objects.filter(pk=transcript.pk).update(
        claimed_at=timezone.now() - timedelta(seconds=5)
    )
    assert ingest_pending(limit=5) == []
    transcript.refresh_from_db()
    wrote = Receipt.objects.for_owner(owner).filter(outcome="wrote")
    assert transcript.status == "done" and transcript.receipt_id == wrote.get().pk


@pytest.mark.django_db
def test_a_duplicate_always_names_the_receipt_it_duplicates(owner: User) -> None:
    first = save(owner)
    again = save(owner)
    assert again.outcome == "duplicate"
    assert again.detail["original_receipt"] == first.pk


@pytest.mark.django_db
def test_a_save_whose_transcript_was_deleted_before_its_claim_is_a_deletion_conflict(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ingest_module.transcript_claim

    def deleted_first(transcript: Any, *, now: Any) -> Any:
        Transcript.objects.filter(pk=transcript.pk).delete()
        return real(transcript, now=now)

    monkeypatch.setattr(ingest_module, "transcript_claim", deleted_first)
    receipt = save(owner)
    assert receipt.outcome == "deletion_conflict"
    assert "deleted" in receipt.error


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_identical_content_in_flight_is_waited_for_then_named_as_the_duplicate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = make_user("twice")
    inside, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def hold_the_first() -> None:
        calls.append(1)
        if len(calls) == 1:
            inside.set()
            assert release.wait(30)

    inside_the_ingest(monkeypatch, hold_the_first)
    results: dict[str, Receipt] = {}

    def run(name: str) -> None:
        try:
            results[name] = save(owner)
        finally:
            connections.close_all()

    first = threading.Thread(target=run, args=("first",))
    first.start()
    assert inside.wait(30)
    second = threading.Thread(target=run, args=("second",))
    second.start()
    time.sleep(0.3)
    assert "second" not in results  # waiting for the first, not answering blind
    release.set()
    first.join(30)
    second.join(30)

    assert results["first"].outcome == "wrote"
    assert results["second"].outcome == "duplicate"
    assert results["second"].detail["original_receipt"] == results["first"].pk


@pytest.mark.django_db
def test_a_pending_worker_stops_a_transcript_at_its_time_budget(
    owner: User, settings: Settings
) -> None:
    # A budget far below what this much text takes anywhere: the result must not depend on
    # how fast the machine is (an alarm swallowed by a finalizer once let this one write).
    settings.UME_INGEST_BUDGET_SECONDS = 0.05
    lines = "\n".join(
        f"User: I started learning instrument number {i} last week with my friend Sam {i}. "
        f"I use Logic Pro {i} and Ableton {i} at the Riverside studio {i} every Monday. " * 4
        for i in range(4_000)
    )
    transcript, _ = transcript_store(
        owner=owner, text=lines, name="huge.txt", source="upload", source_time=None
    )

    (receipt,) = ingest_pending()

    assert receipt.outcome == "llm_failed"
    assert "budget of 0.05 s" in receipt.error
    assert receipt.detail["retryable"] is False
    transcript.refresh_from_db()
    assert transcript.status == "failed"
    assert not Receipt.objects.filter(outcome="wrote").exists()


@pytest.mark.django_db
def test_the_time_budget_interrupts_an_extractor_that_is_waiting(
    owner: User, settings: Settings, llm_server: StubLLMServer
) -> None:
    """A model that holds the connection open is cut off at the budget, not at its timeout."""
    settings.UME_LLM_BASE_URL = llm_server.base_url
    settings.UME_LLM_MODEL = "stub-model"
    settings.UME_LLM_API_KEY = "sk-budget-test"
    settings.UME_LLM_TIMEOUT = 60
    settings.UME_INGEST_BUDGET_SECONDS = 1
    llm_server.reply_delay(30)
    transcript, _ = transcript_store(
        owner=owner,
        text="User: I started learning the cello last week.",
        name="slow.txt",
        source="upload",
        source_time=None,
    )
    began = time.monotonic()
    (receipt,) = ingest_pending(extractor="llm")
    waited = time.monotonic() - began

    assert receipt.outcome == "llm_failed"
    assert "budget of 1 s" in receipt.error
    transcript.refresh_from_db()
    assert transcript.status == "failed"
    # Interrupted mid-wait: the server's 30 s delay and the 60 s timeout never ran out.
    assert waited < 25
