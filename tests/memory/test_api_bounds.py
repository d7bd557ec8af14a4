"""Bounded work per request and hostile input over the HTTP API: large saves wait for the
pending workers, strict schemas, JSON everywhere under /v1/."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache

from memory.models import Candidate, Transcript
from memory.services.ingest import ingest_pending
from memory.services.tokens import token_create
from receipts.models import Receipt

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limit():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def auth(owner) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='bounds')[1]}"}


def post(client, auth, path, body):
    return client.post(path, data=json.dumps(body), content_type="application/json", **auth)


LARGE = "I started learning the cello last week. " * 2000  # about 80 KB


def test_a_save_over_the_inline_size_answers_202_with_a_status_link(client, auth, owner):
    response = post(client, auth, "/v1/memories", {"text": LARGE})

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued"
    transcript = Transcript.objects.get(owner=owner)
    assert body["status_url"] == f"/v1/transcripts/{transcript.pk}"
    assert body["transcript"]["status"] == "pending" and body["transcript"]["receipt"] is None
    assert not Receipt.objects.filter(owner=owner).exists()  # nothing processed in the request

    (receipt,) = ingest_pending()
    status = client.get(body["status_url"], **auth).json()
    assert status["status"] == "done" and status["receipt"]["receipt_id"] == receipt.pk
    assert Candidate.objects.filter(owner=owner, label_guess="Cello").exists()


def test_a_conversation_over_the_message_cap_answers_202(client, auth, owner, settings):
    settings.UME_INLINE_MESSAGES = 3
    messages = [{"role": "user", "content": f"I started boxing {i} weeks ago."} for i in range(4)]
    response = post(client, auth, "/v1/conversations", {"messages": messages})
    assert response.status_code == 202, response.content
    assert Transcript.objects.get(owner=owner).status == "pending"


def test_a_small_save_is_still_answered_with_its_receipt(client, auth, owner):
    response = post(client, auth, "/v1/memories", {"text": "I started boxing last week."})
    assert response.status_code == 200
    assert response.json()["outcome"] == "wrote"
