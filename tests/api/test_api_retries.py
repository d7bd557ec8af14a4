"""Retrying writes over the API: an idempotency key whose holder died is retryable once its
lease runs out; an upload's fingerprint is its content; If-Match as RFC 9110 defines it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from pytest_django import Settings

from memory.models import IdempotencyKey, Node, Revision, Transcript
from memory.services.idempotency import (
    IdempotencyError,
    Replay,
    fingerprint,
    idempotency_begin,
    idempotency_finish,
    idempotency_release,
)
from memory.services.tokens import token_create
from tests.factories import make_node

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='my tool')[1]}"}


def send(client: Any, auth: Any, method: str, path: str, body: Any = None, **headers: Any) -> Any:
    data = json.dumps(body) if body is not None else ""
    return getattr(client, method)(
        path, data=data, content_type="application/json", **auth, **headers
    )


# --- an idempotency key's lease --------------------------------------------------------------

SCOPE = "api POST /v1/memories"
PRINT = fingerprint("POST", "/v1/memories", ["", '{"text": "x"}'])


def begin(owner: User) -> Replay | IdempotencyKey:
    return idempotency_begin(owner=owner, key="k", scope=SCOPE, fingerprint=PRINT)


def test_a_key_is_reserved_with_a_lease_of_the_claim_lease(owner: User, settings: Settings) -> None:
    settings.UME_CLAIM_LEASE_SECONDS = 20
    row = begin(owner)
    assert isinstance(row, IdempotencyKey) and row.holder
    assert row.lease_until is not None
    assert timedelta(seconds=19) < row.lease_until - timezone.now() <= timedelta(seconds=20)
    with pytest.raises(IdempotencyError) as running:
        begin(owner)
    assert running.value.code == "idempotency_in_progress"
    assert running.value.retry_after is not None and 1 <= running.value.retry_after <= 20


def test_a_key_whose_holder_died_is_taken_over_once_its_lease_runs_out(owner: User) -> None:
    dead = begin(owner)
    assert isinstance(dead, IdempotencyKey)
    # The state a killed request leaves: in progress, no answer, its lease over.
    IdempotencyKey.objects.filter(pk=dead.pk).update(
        lease_until=timezone.now() - timedelta(seconds=1)
    )

    retry = begin(owner)

    assert isinstance(retry, IdempotencyKey) and retry.pk == dead.pk
    assert retry.holder != dead.holder
    with pytest.raises(IdempotencyError):  # the retry's own lease is live
        begin(owner)
    # The dead holder, were it to wake up, can neither answer nor release the key.
    idempotency_finish(row=dead, status=500, body={"late": True})
    idempotency_release(row=dead)
    assert IdempotencyKey.objects.get(pk=dead.pk).status == 0
    idempotency_finish(row=retry, status=200, body={"ok": True})
    replay = begin(owner)
    assert replay == Replay(200, {"ok": True})


def test_a_key_left_in_progress_before_leases_existed_expires_from_its_start(
    owner: User, settings: Settings
) -> None:
    settings.UME_CLAIM_LEASE_SECONDS = 30
    old = begin(owner)
    assert isinstance(old, IdempotencyKey)
    IdempotencyKey.objects.filter(pk=old.pk).update(
        holder="", lease_until=None, created_at=timezone.now() - timedelta(seconds=31)
    )
    assert isinstance(begin(owner), IdempotencyKey)


def test_two_retries_of_a_dead_key_take_it_over_once(owner: User) -> None:
    dead = begin(owner)
    assert isinstance(dead, IdempotencyKey)
    past = timezone.now() - timedelta(seconds=1)
    IdempotencyKey.objects.filter(pk=dead.pk).update(lease_until=past)
    stale_view = IdempotencyKey.objects.get(pk=dead.pk)  # what a second retry read meanwhile
    assert isinstance(begin(owner), IdempotencyKey)
    from memory.services import idempotency as service

    with pytest.raises(IdempotencyError) as lost:
        service._take_over(stale_view, timezone.now())
    assert lost.value.code == "idempotency_in_progress"


def test_the_api_answers_409_with_retry_after_while_the_first_request_runs(
    client: Client, auth: dict[str, Any], owner: User, settings: Settings
) -> None:
    settings.UME_CLAIM_LEASE_SECONDS = 40
    body = {"text": "I started learning the cello this week."}
    first = send(client, auth, "post", "/v1/memories", body, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 200
    # Another key, reserved by a request still running.
    IdempotencyKey.objects.for_owner(owner).update(
        key="k-2", status=0, response={}, lease_until=timezone.now() + timedelta(seconds=40)
    )
    running = send(client, auth, "post", "/v1/memories", body, HTTP_IDEMPOTENCY_KEY="k-2")
    assert running.status_code == 409
    assert running.json()["code"] == "idempotency_in_progress"
    assert 39 <= int(running["Retry-After"]) <= 40


def test_the_api_runs_a_retry_of_a_request_that_died(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    path = f"/v1/nodes/{node.pk}"
    edit = {"summary": "twice a week"}
    first = send(client, auth, "patch", path, edit, HTTP_IDEMPOTENCY_KEY="edit-1")
    assert first.status_code == 200
    # Make it look as if that request had been killed before it could answer or roll back.
    Revision.objects.filter(kind="node", object_id=node.pk, number=2).delete()
    Node.objects.filter(pk=node.pk).update(summary="", revision=1)
    IdempotencyKey.objects.for_owner(owner).update(
        status=0, response={}, lease_until=timezone.now() - timedelta(seconds=1)
    )

    retry = send(client, auth, "patch", path, edit, HTTP_IDEMPOTENCY_KEY="edit-1")

    assert retry.status_code == 200, retry.content
    assert not retry.has_header("Idempotent-Replayed")
    assert Node.objects.get(pk=node.pk).summary == "twice a week"
    assert IdempotencyKey.objects.for_owner(owner).get().status == 200


# --- an upload's fingerprint -----------------------------------------------------------------


def test_another_file_of_the_same_name_and_size_is_not_taken_for_a_retry(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    def upload(text: bytes) -> Any:
        return client.post(
            "/v1/transcripts",
            {"file": SimpleUploadedFile("notes.txt", text, content_type="text/plain")},
            HTTP_IDEMPOTENCY_KEY="upload-1",
            **auth,
        )

    cello = b"User: I started learning the cello last week.\n"
    piano = b"User: I started learning the piano last week.\n"
    assert len(cello) == len(piano)
    first = upload(cello)
    assert first.status_code == 201
    other = upload(piano)
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    same = upload(cello)
    assert same.status_code == 201 and same["Idempotent-Replayed"] == "true"
    assert Transcript.objects.for_owner(owner).count() == 1


# --- If-Match ----------------------------------------------------------------------------------


def patch(client: Client, auth: dict[str, Any], node: Node, if_match: str) -> Any:
    body = {"summary": f"edited with {if_match}"}
    return send(client, auth, "patch", f"/v1/nodes/{node.pk}", body, HTTP_IF_MATCH=if_match)


@pytest.mark.parametrize("if_match", ['W/"1"', ' W/"1" ', 'W/"1", W/"2"'])
def test_a_weak_etag_never_matches_a_write(
    client: Client, auth: dict[str, Any], owner: User, if_match: str
) -> None:
    node = make_node(owner=owner, label="Boxing")
    refused = patch(client, auth, node, if_match)
    assert refused.status_code == 412, refused.content
    assert refused.json()["code"] == "stale_revision"
    assert refused.json()["current_revision"] == 1
    assert Node.objects.get(pk=node.pk).revision == 1
    gone = send(client, auth, "delete", f"/v1/nodes/{node.pk}", HTTP_IF_MATCH=if_match)
    assert gone.status_code == 412 and Node.objects.filter(pk=node.pk).exists()


@pytest.mark.parametrize("if_match", ["*", " * ", '"7", "1"', '"1",W/"2"', '"9" , , "1"'])
def test_star_and_a_list_holding_the_current_etag_match(
    client: Client, auth: dict[str, Any], owner: User, if_match: str
) -> None:
    node = make_node(owner=owner, label="Boxing")
    made = patch(client, auth, node, if_match)
    assert made.status_code == 200, made.content
    assert made["ETag"] == '"2"'
    assert Node.objects.get(pk=node.pk).summary.startswith("edited with")


@pytest.mark.parametrize("if_match", ['"7", "8"', '"abc"', 'W/"1", "2"'])
def test_a_list_without_the_current_strong_etag_is_412(
    client: Client, auth: dict[str, Any], owner: User, if_match: str
) -> None:
    node = make_node(owner=owner, label="Boxing")
    refused = patch(client, auth, node, if_match)
    assert refused.status_code == 412 and refused.json()["current_revision"] == 1
    assert Node.objects.get(pk=node.pk).summary == ""


def test_star_deletes_whatever_the_revision(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"summary": "changed"})
    gone = send(client, auth, "delete", f"/v1/nodes/{node.pk}", HTTP_IF_MATCH="*")
    assert gone.status_code == 200 and not Node.objects.filter(pk=node.pk).exists()


@pytest.mark.parametrize("if_match", ["1", '"1', "W/1", '*, "1"', '"1" "2"', "", ",", 'w/"1"'])
def test_a_malformed_if_match_is_400_and_changes_nothing(
    client: Client, auth: dict[str, Any], owner: User, if_match: str
) -> None:
    node = make_node(owner=owner, label="Boxing")
    bad = patch(client, auth, node, if_match)
    assert bad.status_code == 400, bad.content
    assert bad.json()["code"] == "invalid_input" and "If-Match" in bad.json()["message"]
    assert Node.objects.get(pk=node.pk).revision == 1
