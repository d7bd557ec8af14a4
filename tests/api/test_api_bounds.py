"""Bounded work per request and hostile input over the HTTP API: large saves wait for the
pending workers, strict schemas, JSON everywhere under /v1/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from pytest_django import Settings

from memory.models import Candidate, Receipt, Transcript
from memory.services.ingest import ingest_pending
from memory.services.tokens import token_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='bounds')[1]}"}


def post(client: Any, auth: Any, path: Any, body: Any) -> Any:
    return client.post(path, data=json.dumps(body), content_type="application/json", **auth)


LARGE = "I started learning the cello last week. " * 2000  # about 80 KB


def test_a_save_over_the_inline_size_answers_202_with_a_status_link(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    response = post(client, auth, "/v1/memories", {"text": LARGE})

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued"
    transcript = Transcript.objects.for_owner(owner).get()
    assert body["status_url"] == f"/v1/transcripts/{transcript.pk}"
    assert body["transcript"]["status"] == "pending" and body["transcript"]["receipt"] is None
    assert not Receipt.objects.for_owner(owner).exists()  # nothing processed in the request

    (receipt,) = ingest_pending()
    status = client.get(body["status_url"], **auth).json()
    assert status["status"] == "done" and status["receipt"]["receipt_id"] == receipt.pk
    assert Candidate.objects.for_owner(owner).filter(label_guess="Cello").exists()


def test_a_conversation_over_the_message_cap_answers_202(
    client: Client, auth: dict[str, Any], owner: User, settings: Settings
) -> None:
    settings.UME_INLINE_MESSAGES = 3
    messages = [{"role": "user", "content": f"I started boxing {i} weeks ago."} for i in range(4)]
    response = post(client, auth, "/v1/conversations", {"messages": messages})
    assert response.status_code == 202, response.content
    assert Transcript.objects.for_owner(owner).get().status == "pending"


def test_a_small_save_is_still_answered_with_its_receipt(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    response = post(client, auth, "/v1/memories", {"text": "I started boxing last week."})
    assert response.status_code == 200
    assert response.json()["outcome"] == "wrote"


# --- strict schemas ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"retention_days": True},
        {"retention_days": "30"},
        {"auto_collect": "yes"},
        {"auto_collect": 1},
    ],
)
def test_rules_refuse_loosely_typed_values(
    client: Client, auth: dict[str, Any], owner: User, body: Any
) -> None:
    from memory.models import MemoryRule

    response = client.put(
        "/v1/rules", data=json.dumps(body), content_type="application/json", **auth
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_input"
    rule = MemoryRule.objects.for_owner(owner).first()
    assert rule is None or (rule.retention_days is None and rule.auto_collect is False)


def test_a_boolean_ts_is_refused_not_1970(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    body = {"messages": [{"role": "user", "content": "I started boxing.", "ts": True}]}
    response = post(client, auth, "/v1/conversations", body)
    assert response.status_code == 400
    assert not Transcript.objects.for_owner(owner).exists()


def test_an_epoch_ts_is_still_accepted(client: Client, auth: dict[str, Any], owner: User) -> None:
    body = {"messages": [{"role": "user", "content": "I started boxing.", "ts": 1_700_000_000}]}
    assert post(client, auth, "/v1/conversations", body).status_code == 200


# --- year-1 dates, lone surrogates, several files, /v1/ -----------------------------------------


@pytest.mark.parametrize("phrase", ["yesterday", "last month", "2 weeks ago"])
def test_a_relative_date_on_year_one_is_no_date_not_a_crash(
    client: Client, auth: dict[str, Any], owner: User, phrase: Any
) -> None:
    body = {
        "messages": [{"role": "user", "content": f"I started boxing {phrase}."}],
        "source_time": "0001-01-01T00:00:00Z",
    }
    response = post(client, auth, "/v1/conversations", body)
    assert response.status_code == 200, response.content
    assert response.json()["outcome"] == "wrote"
    body = {
        "messages": [
            {"role": "user", "content": f"I took up rowing {phrase}.", "ts": "0001-01-01T00:00:00Z"}
        ]
    }
    assert post(client, auth, "/v1/conversations", body).json()["outcome"] == "wrote"


def test_an_upload_with_a_lone_surrogate_is_refused_and_not_stored(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    raw = b'[{"role": "user", "content": "I started boxing \\ud800 last week"}]'
    upload = SimpleUploadedFile("chat.json", raw, content_type="application/json")
    response = client.post("/v1/transcripts", {"file": upload}, **auth)
    assert response.status_code == 400
    assert "surrogate" in response.json()["message"]
    assert not Transcript.objects.for_owner(owner).exists()


def test_several_file_fields_are_refused_not_silently_dropped(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = [
        SimpleUploadedFile(f"{n}.txt", f"User: I started boxing {n}.".encode()) for n in (1, 2)
    ]
    response = client.post("/v1/transcripts", {"file": files}, **auth)
    assert response.status_code == 400
    assert "one file per request" in response.json()["message"]
    assert not Transcript.objects.for_owner(owner).exists()


def test_the_api_root_is_json_404(client: Client, auth: dict[str, Any]) -> None:
    response = client.get("/v1/", **auth)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "not_found"


def test_the_review_queue_shows_the_first_quotes_and_how_many_there_are(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    from memory.models import Evidence
    from tests.factories import make_candidate

    big = Transcript.objects.create(owner=owner, name="big.txt", text="x" * 200_000, sha256="b")
    candidate = make_candidate(owner=owner, label="Cello")
    for i in range(12):
        Evidence.objects.create(owner=owner, candidate=candidate, transcript=big, quote=f"q{i:02}")

    (shown,) = client.get("/v1/candidates", **auth).json()["candidates"]

    assert [e["quote"] for e in shown["evidence"]] == ["q00", "q01", "q02", "q03", "q04"]
    assert shown["evidence_count"] == 12
