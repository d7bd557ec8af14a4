"""The llm extractor through the ingest service, against a real local chat-completions server.

A good reply writes; a malformed, failed or timed-out call gives ``llm_failed``, writes nothing
and leaves the transcript retryable, and the retry writes once the endpoint recovers.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django import Settings

from memory.models import Candidate, Edge, Event, Evidence, MemoryRule, Node, Slice, Transcript
from memory.services.ingest import ingest_pending, ingest_text
from tests.llm_stub import StubLLMServer

pytestmark = pytest.mark.django_db

TEXT = (
    "User: Hi!\n"
    "Assistant: Hello, how can I help?\n"
    "User: I moved to Berlin in March 2021. I might try tennis.\n"
)
BERLIN = {
    "object": "node",
    "label": "Berlin",
    "category": "place",
    "confidence": 0.95,
    "evidence": [{"message_id": "M2", "quote": "I moved to Berlin in March 2021"}],
}
MOVED = {
    "object": "event",
    "on": "Berlin",
    "action": "moved",
    "text": "moved to Berlin",
    "importance": "important",
    "category": "place",
    "happened_at": "2021-03",
    "confidence": 0.95,
    "evidence": [{"message_id": "M2", "quote": "I moved to Berlin in March 2021"}],
}
TENNIS = {
    "object": "candidate",
    "label": "Tennis",
    "category": "interest",
    "confidence": 0.5,
    "evidence": [{"message_id": "M2", "quote": "I might try tennis"}],
}


@pytest.fixture
def llm(llm_server: StubLLMServer, settings: Settings) -> Any:
    settings.UME_LLM_BASE_URL = llm_server.base_url
    settings.UME_LLM_MODEL = "stub-model"
    settings.UME_LLM_API_KEY = "sk-ingest-test"
    settings.UME_LLM_TIMEOUT = 0.5
    return llm_server


def stored(owner: Any) -> dict[str, int]:
    models: dict[str, type[Node | Candidate | Slice | Event | Edge | Evidence]] = {
        "nodes": Node,
        "candidates": Candidate,
        "slices": Slice,
        "events": Event,
        "edges": Edge,
        "evidence": Evidence,
    }
    return {name: model.objects.for_owner(owner).count() for name, model in models.items()}


def ingest(owner: Any, text: str = TEXT) -> Any:
    return ingest_text(owner=owner, text=text, name="chat.txt", extractor="llm")


def test_a_good_reply_writes_candidates_with_evidence(owner: User, llm: StubLLMServer) -> None:
    llm.reply_objects([BERLIN, MOVED, TENNIS])

    receipt = ingest(owner)

    assert receipt.outcome == "wrote", receipt.error
    assert receipt.extractor == "llm"
    assert receipt.counts["candidates"] >= 2
    labels = set(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True))
    assert {"Berlin", "Tennis"} <= labels
    assert Evidence.objects.for_owner(owner).exists()
    assert Transcript.objects.for_owner(owner).get().status == "done"

    request = llm.last_request
    assert request.body["model"] == "stub-model"
    assert request.headers["authorization"] == "Bearer sk-ingest-test"
    sent = [(m["id"], m["role"]) for m in request.user_payload["messages"]]
    assert sent == [("M0", "user"), ("M1", "assistant"), ("M2", "user")]


def test_auto_capture_writes_the_node_and_its_dated_event(owner: User, llm: StubLLMServer) -> None:
    MemoryRule.objects.update_or_create(owner=owner, defaults={"capture_default": "auto"})
    llm.reply_objects([BERLIN, MOVED])

    receipt = ingest(owner)

    assert receipt.outcome == "wrote", receipt.error
    node = Node.objects.for_owner(owner).get(label="Berlin")
    event = Event.objects.get(node=node)
    assert event.action == "moved"
    assert event.happened_at is not None
    assert (event.happened_at.year, event.happened_at.month) == (2021, 3)
    assert (event.happened_at_precision, event.happened_at_source) == ("month", "stated")


def test_a_valid_empty_reply_is_a_meaningful_no_write(owner: User, llm: StubLLMServer) -> None:
    llm.reply_objects([])
    before = stored(owner)

    receipt = ingest(owner)

    assert receipt.outcome == "meaningful_no_write", receipt.error
    assert stored(owner) == before


@pytest.mark.parametrize(
    ("script", "error"),
    [
        (lambda s: s.reply_content('{"objects": [{"object": "node", "label": '), "no JSON"),
        (lambda s: s.reply_status(500, "upstream exploded"), "HTTP 500"),
        (lambda s: s.reply_delay(30, [BERLIN]), "timed out"),
        (lambda s: s.reply_refusal(), "refused"),
        (lambda s: s.reply_objects([{"object": "node", "category": "place"}]), "schema"),
    ],
    ids=["malformed-json", "http-500", "timeout", "refusal", "schema-violation"],
)
def test_a_failed_call_writes_nothing_and_a_retry_writes(
    owner: User, llm: StubLLMServer, script: Any, error: Any
) -> None:
    before = stored(owner)
    script(llm)

    failed = ingest(owner)

    assert failed.outcome == "llm_failed"
    assert error in failed.error
    assert "sk-ingest-test" not in failed.error
    assert stored(owner) == before
    transcript = Transcript.objects.for_owner(owner).get()
    assert transcript.status in ("failed", "pending")

    llm.reply_objects([BERLIN, TENNIS])
    retried = ingest(owner)

    assert retried.outcome == "wrote", retried.error
    assert retried.pk != failed.pk
    assert stored(owner)["candidates"] == before["candidates"] + 2
    assert Transcript.objects.for_owner(owner).count() == 1
    assert Transcript.objects.for_owner(owner).get().status == "done"


def test_an_unconfigured_llm_is_llm_failed(owner: User, settings: Settings) -> None:
    settings.UME_LLM_BASE_URL = ""
    settings.UME_LLM_MODEL = ""
    before = stored(owner)

    receipt = ingest(owner)

    assert receipt.outcome == "llm_failed"
    assert "not configured" in receipt.error
    assert stored(owner) == before


def test_the_pending_worker_retries_a_failed_llm_transcript(
    owner: User, llm: StubLLMServer
) -> None:
    llm.reply_status(503, "model loading")
    failed = ingest(owner)
    assert failed.outcome == "llm_failed"

    llm.reply_objects([TENNIS])
    assert ingest_pending(extractor="llm") == []  # retries back off: not straight away
    Transcript.objects.update(processed_at=timezone.now() - timedelta(minutes=2))
    receipts = ingest_pending(extractor="llm")

    assert [r.outcome for r in receipts] == ["wrote"]
    assert Candidate.objects.for_owner(owner).filter(label_guess="Tennis").count() == 1
    assert Transcript.objects.for_owner(owner).get().status == "done"
    assert ingest_pending(extractor="llm") == []  # nothing left to retry
